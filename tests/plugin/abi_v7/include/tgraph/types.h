/* tgraph/types.h -- the C types both tgraph headers share (pure C99).
 *
 * tgraph/c_api.h (clients, bindings) and tgraph/plugin.h (plugins) both include this file,
 * so a program may include both. Values follow TensorFlow's numbering.
 */
#ifndef TGRAPH_TYPES_H_
#define TGRAPH_TYPES_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes, TensorFlow's numbering. */
typedef enum TG_Code {
  TG_OK = 0,
  TG_CANCELLED = 1,
  TG_UNKNOWN = 2,
  TG_INVALID_ARGUMENT = 3,
  TG_DEADLINE_EXCEEDED = 4,
  TG_NOT_FOUND = 5,
  TG_ALREADY_EXISTS = 6,
  TG_PERMISSION_DENIED = 7,
  TG_RESOURCE_EXHAUSTED = 8,
  TG_FAILED_PRECONDITION = 9,
  TG_ABORTED = 10,
  TG_OUT_OF_RANGE = 11,
  TG_UNIMPLEMENTED = 12,
  TG_INTERNAL = 13,
  TG_UNAVAILABLE = 14,
  TG_DATA_LOSS = 15,
  TG_UNAUTHENTICATED = 16
} TG_Code;

/* TensorFlow's DataType numbering; a _REF variant is the base value + 100. */
typedef enum TG_DataType {
  TG_INVALID_DTYPE = 0,
  TG_FLOAT = 1,
  TG_DOUBLE = 2,
  TG_INT32 = 3,
  TG_UINT8 = 4,
  TG_INT16 = 5,
  TG_INT8 = 6,
  TG_STRING = 7,
  TG_COMPLEX64 = 8,
  TG_COMPLEX = 8, /* old name of TG_COMPLEX64 */
  TG_INT64 = 9,
  TG_BOOL = 10,
  TG_QINT8 = 11,
  TG_QUINT8 = 12,
  TG_QINT32 = 13,
  TG_BFLOAT16 = 14,
  TG_QINT16 = 15,
  TG_QUINT16 = 16,
  TG_UINT16 = 17,
  TG_COMPLEX128 = 18,
  TG_HALF = 19,
  TG_RESOURCE = 20,
  TG_VARIANT = 21,
  TG_UINT32 = 22,
  TG_UINT64 = 23,
  TG_FLOAT8_E5M2 = 24,
  TG_FLOAT8_E4M3FN = 25,
  TG_FLOAT8_E4M3FNUZ = 26,
  TG_FLOAT8_E4M3B11FNUZ = 27,
  TG_FLOAT8_E5M2FNUZ = 28,
  TG_INT4 = 29,
  TG_UINT4 = 30,
  TG_INT2 = 31,
  TG_UINT2 = 32,
  TG_FLOAT4_E2M1FN = 33,

  TG_DATA_TYPE_REF_OFFSET = 100,
  TG_FLOAT_REF = 101,
  TG_DOUBLE_REF = 102,
  TG_INT32_REF = 103,
  TG_UINT8_REF = 104,
  TG_INT16_REF = 105,
  TG_INT8_REF = 106,
  TG_STRING_REF = 107,
  TG_COMPLEX64_REF = 108,
  TG_INT64_REF = 109,
  TG_BOOL_REF = 110,
  TG_QINT8_REF = 111,
  TG_QUINT8_REF = 112,
  TG_QINT32_REF = 113,
  TG_BFLOAT16_REF = 114,
  TG_QINT16_REF = 115,
  TG_QUINT16_REF = 116,
  TG_UINT16_REF = 117,
  TG_COMPLEX128_REF = 118,
  TG_HALF_REF = 119,
  TG_RESOURCE_REF = 120,
  TG_VARIANT_REF = 121,
  TG_UINT32_REF = 122,
  TG_UINT64_REF = 123,
  TG_FLOAT8_E5M2_REF = 124,
  TG_FLOAT8_E4M3FN_REF = 125,
  TG_FLOAT8_E4M3FNUZ_REF = 126,
  TG_FLOAT8_E4M3B11FNUZ_REF = 127,
  TG_FLOAT8_E5M2FNUZ_REF = 128,
  TG_INT4_REF = 129,
  TG_UINT4_REF = 130,
  TG_INT2_REF = 131,
  TG_UINT2_REF = 132,
  TG_FLOAT4_E2M1FN_REF = 133
} TG_DataType;

/* A code and a message; messages name the node, tensor, file or plugin involved. Owned by
 * whoever created it (TG_NewStatus for clients; the core for statuses handed to plugins). */
typedef struct TG_Status TG_Status;

/* A dense tensor: dtype, shape and a buffer. Clients create and free their own
 * (TG_AllocateTensor / TG_DeleteTensor); tensors handed to plugins are owned by the core. */
typedef struct TG_Tensor TG_Tensor;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TGRAPH_TYPES_H_ */
