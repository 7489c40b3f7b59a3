/* tgraph/c_api.h -- the client C API of tgraph (clients and language bindings).
 *
 * Pure C (C99 and later, C++ through the extern "C" guards). Every handle is opaque; every
 * call that can fail takes a TG_Status* as its last argument and leaves it TG_OK on success.
 * Where TensorFlow's C API has an equivalent, the shape is the same with the TG_ prefix; the
 * graph-building context (name scopes, control-dependency / device / colocation stacks),
 * collections and variables go further so that a binding stays thin.
 *
 * Ownership, in general:
 *   - TG_New* / TG_Allocate* / TG_Graph*...Collection / ...Results return objects the caller
 *     owns and frees with the matching TG_Delete*.
 *   - TG_Operation* and TG_Variable* are owned by their graph and stay valid until
 *     TG_DeleteGraph; they are never freed by the caller.
 *   - const char* results are owned by the library; each function says how long they live.
 *   - Memory passed in (strings, arrays) is only read during the call and copied if kept,
 *     unless the function says otherwise (TG_NewTensor adopts its data).
 *   - A NULL handle or a bad argument never crashes a call that has a TG_Status: it yields
 *     TG_INVALID_ARGUMENT. Calls without a status return a neutral value (NULL, 0, -1) instead.
 *   - A NULL TG_Status* is tolerated (the outcome is then lost), but callers should pass one.
 *
 * Thread safety: a graph serialises every call on it with its own lock, so calls on one graph
 * from several threads are safe (but building order across threads is then unspecified).
 * TG_Status, TG_Buffer, TG_OperationDescription, TG_Collection, TG_ImportGraphDefOptions and
 * TG_ImportGraphDefResults are not thread-safe objects. */
#ifndef TGRAPH_C_API_H_
#define TGRAPH_C_API_H_

#include "tgraph/types.h"

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(TG_BUILDING_LIBRARY)
#define TG_CAPI_EXPORT __declspec(dllexport)
#else
#define TG_CAPI_EXPORT __declspec(dllimport)
#endif
#else
#define TG_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================================== */
/* Version                                                                               */
/* ===================================================================================== */

/* The library's version, e.g. "0.1.0". Static storage; never freed. */
TG_CAPI_EXPORT extern const char* TG_Version(void);

/* ===================================================================================== */
/* Status codes and TG_Status                                                            */
/* ===================================================================================== */

/* TG_Code (TensorFlow's numbering) is defined in tgraph/types.h. */

/* A code and a message. Messages name the node, tensor, file or plugin involved. */

/* A new status, TG_OK. The caller owns it: TG_DeleteStatus. NULL only when out of memory. */
TG_CAPI_EXPORT extern TG_Status* TG_NewStatus(void);
/* NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_DeleteStatus(TG_Status* s);
/* Sets code and message (copied; NULL = ""). With TG_OK the message is dropped. */
TG_CAPI_EXPORT extern void TG_SetStatus(TG_Status* s, TG_Code code, const char* msg);
/* TG_OK for a NULL status. */
TG_CAPI_EXPORT extern TG_Code TG_GetCode(const TG_Status* s);
/* "" when TG_OK. Owned by the status; valid until it is next changed or deleted. */
TG_CAPI_EXPORT extern const char* TG_Message(const TG_Status* s);
/* TensorFlow's spelling of a code, e.g. "INVALID_ARGUMENT". Static storage. */
TG_CAPI_EXPORT extern const char* TG_CodeName(TG_Code code);

/* ===================================================================================== */
/* Data types                                                                            */
/* ===================================================================================== */

/* TG_DataType (TensorFlow's DataType numbering) is defined in tgraph/types.h. */

/* Bytes per element (of the base type for _REF values); 0 for types without a fixed-size
 * element (TG_STRING, TG_RESOURCE, TG_VARIANT) and for invalid values. Sub-byte types
 * (TG_INT4, ...) report 1: one element per byte. */
TG_CAPI_EXPORT extern size_t TG_DataTypeSize(TG_DataType dt);
/* TensorFlow's spelling: "float", "int32", "float_ref", ...; "invalid" for 0; NULL for a
 * value that is no data type. Static storage; never freed. */
TG_CAPI_EXPORT extern const char* TG_DataTypeName(TG_DataType dt);

/* ===================================================================================== */
/* TG_Buffer                                                                             */
/* ===================================================================================== */

/* A block of bytes (serialized protos, text). `data_deallocator`, when set, is called once
 * with (data, length) by TG_DeleteBuffer or when the library replaces the contents. */
typedef struct TG_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TG_Buffer;

/* An empty buffer (data NULL, length 0, no deallocator). Caller frees: TG_DeleteBuffer. */
TG_CAPI_EXPORT extern TG_Buffer* TG_NewBuffer(void);
/* A buffer holding a copy of proto[0, proto_len). Caller frees: TG_DeleteBuffer. NULL only
 * when out of memory. */
TG_CAPI_EXPORT extern TG_Buffer* TG_NewBufferFromString(const void* proto, size_t proto_len);
/* Calls the deallocator (if any) on the data, then frees the buffer. NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_DeleteBuffer(TG_Buffer* buffer);
/* A copy of the struct (the data is not copied; it still belongs to `buffer`). */
TG_CAPI_EXPORT extern TG_Buffer TG_GetBuffer(TG_Buffer* buffer);

/* Functions below that write into a caller's TG_Buffer* first release what it held (through
 * its deallocator), then store library-allocated data with a library deallocator; the data
 * stays valid until the buffer is deleted or written again. */

/* ===================================================================================== */
/* TG_Tensor                                                                             */
/* ===================================================================================== */

/* A host tensor: dtype, fully defined shape, elements. Caller owns: TG_DeleteTensor. */

/* A tensor with zero-filled storage owned by the library. `len` must equal the byte size
 * (product of dims * TG_DataTypeSize). For TG_STRING, `len` must be 0 and every element is
 * the empty string (use TG_NewStringTensor to give contents). NULL on a bad dtype, negative
 * dim, size mismatch or overflow, or when out of memory. */
TG_CAPI_EXPORT extern TG_Tensor* TG_AllocateTensor(TG_DataType dtype, const int64_t* dims,
                                                   int num_dims, size_t len);

/* A tensor over caller memory: `data` (len bytes, row-major, host byte order) is adopted and
 * `deallocator(data, len, deallocator_arg)` is called exactly once when the library is done
 * with it -- also when this call fails (before it returns NULL). `deallocator` may be NULL
 * (the caller then keeps `data` alive longer than the tensor). If `data` is not 64-byte
 * aligned the library copies it and calls the deallocator before returning. Not for
 * TG_STRING (use TG_NewStringTensor). Returns NULL on a bad dtype, negative dim, or a `len`
 * that does not match the shape. */
TG_CAPI_EXPORT extern TG_Tensor* TG_NewTensor(TG_DataType dtype, const int64_t* dims,
                                              int num_dims, void* data, size_t len,
                                              void (*deallocator)(void* data, size_t len,
                                                                  void* arg),
                                              void* deallocator_arg);

/* A TG_STRING tensor of shape dims[0, num_dims); element i is strs[i][0, lens[i]) (copied;
 * may contain NUL bytes). `strs` and `lens` hold product(dims) entries. Caller owns the
 * result. */
TG_CAPI_EXPORT extern TG_Tensor* TG_NewStringTensor(const int64_t* dims, int num_dims,
                                                    const char* const* strs,
                                                    const size_t* lens, TG_Status* status);
/* Element `index` (row-major) of a TG_STRING tensor. *data points into the tensor and stays
 * valid for the tensor's life; it is not NUL-terminated in general. */
TG_CAPI_EXPORT extern void TG_TensorGetString(const TG_Tensor* t, int64_t index,
                                              const char** data, size_t* len,
                                              TG_Status* status);

/* NULL is a no-op. Runs the deallocator of adopted data once no one else shares it. */
TG_CAPI_EXPORT extern void TG_DeleteTensor(TG_Tensor* t);
TG_CAPI_EXPORT extern TG_DataType TG_TensorType(const TG_Tensor* t);
TG_CAPI_EXPORT extern int TG_NumDims(const TG_Tensor* t);
/* Dim `dim_index`; -1 when out of range. */
TG_CAPI_EXPORT extern int64_t TG_Dim(const TG_Tensor* t, int dim_index);
/* Bytes of element storage; 0 for TG_STRING. */
TG_CAPI_EXPORT extern size_t TG_TensorByteSize(const TG_Tensor* t);
/* The element bytes, owned by the tensor (writable while no graph holds a copy of it); NULL
 * for TG_STRING and for empty tensors without storage. */
TG_CAPI_EXPORT extern void* TG_TensorData(const TG_Tensor* t);
TG_CAPI_EXPORT extern int64_t TG_TensorElementCount(const TG_Tensor* t);

/* For bindings, which pay per call: */
/* TG_AllocateTensor plus one copy of data[0, len) into it, in one call. NULL as
 * TG_AllocateTensor returns it, and for a NULL `data` with len > 0; not for TG_STRING. */
TG_CAPI_EXPORT extern TG_Tensor* TG_NewTensorFromCopy(TG_DataType dtype, const int64_t* dims,
                                                      int num_dims, const void* data,
                                                      size_t len);
/* TG_TensorType, TG_NumDims, TG_Dim and TG_TensorData in one call: writes the dtype to
 * *dtype, min(rank, max_dims) dims to dims[], the element bytes (as TG_TensorData) to *data
 * (each output may be NULL), and returns the rank; -1 for a NULL tensor. */
TG_CAPI_EXPORT extern int TG_TensorDescribe(const TG_Tensor* t, TG_DataType* dtype,
                                            int64_t* dims, int max_dims, void** data);

/* ===================================================================================== */
/* Graph, operations, tensors of the graph                                               */
/* ===================================================================================== */

typedef struct TG_Graph TG_Graph;
/* Owned by its graph; valid until TG_DeleteGraph. */
typedef struct TG_Operation TG_Operation;
/* Being built; consumed by TG_FinishOperation or TG_AbandonOperation. */
typedef struct TG_OperationDescription TG_OperationDescription;

/* Output `index` of `oper`: the tensor "name:index". */
typedef struct TG_Output {
  TG_Operation* oper;
  int index;
} TG_Output;

/* Input `index` of `oper`. */
typedef struct TG_Input {
  TG_Operation* oper;
  int index;
} TG_Input;

/* A new, empty graph using the global op registry. Caller owns: TG_DeleteGraph. */
TG_CAPI_EXPORT extern TG_Graph* TG_NewGraph(void);
/* Frees the graph with every operation, variable and device-function registration in it.
 * NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_DeleteGraph(TG_Graph* g);

/* The operation named `oper_name`, or NULL. */
TG_CAPI_EXPORT extern TG_Operation* TG_GraphOperationByName(TG_Graph* g, const char* oper_name);
/* The tensor named "op" (output 0) or "op:k" (get_tensor_by_name). NOT_FOUND /
 * INVALID_ARGUMENT naming the tensor; {NULL, -1} then. */
TG_CAPI_EXPORT extern TG_Output TG_GraphOutputByName(TG_Graph* g, const char* tensor_name,
                                                     TG_Status* status);
/* Iterates in creation order: start with *pos = 0; returns NULL at the end. */
TG_CAPI_EXPORT extern TG_Operation* TG_GraphNextOperation(TG_Graph* g, size_t* pos);
TG_CAPI_EXPORT extern int TG_GraphNumOperations(TG_Graph* g);

/* Static shapes. `dims[i] == -1` is an unknown dim; num_dims == -1 is an unknown rank.
 * SetTensorShape merges the given shape into what is known; an incompatible shape is
 * INVALID_ARGUMENT naming the tensor. */
TG_CAPI_EXPORT extern void TG_GraphSetTensorShape(TG_Graph* g, TG_Output output,
                                                  const int64_t* dims, int num_dims,
                                                  TG_Status* status);
/* The rank, or -1 if unknown. */
TG_CAPI_EXPORT extern int TG_GraphGetTensorNumDims(TG_Graph* g, TG_Output output,
                                                   TG_Status* status);
/* Writes the dims (-1 = unknown) to dims[0, num_dims); num_dims must equal the rank. */
TG_CAPI_EXPORT extern void TG_GraphGetTensorShape(TG_Graph* g, TG_Output output, int64_t* dims,
                                                  int num_dims, TG_Status* status);

/* Makes the graph read-only: creating operations and pushing onto its stacks then fail with
 * FAILED_PRECONDITION. Cannot be undone. NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_GraphFinalize(TG_Graph* g);
/* 1 if finalized, else 0. */
TG_CAPI_EXPORT extern int TG_GraphIsFinalized(const TG_Graph* g);

/* ---- building an operation ---- */

/* Starts an operation of type `op_type`. `name` NULL or "" means the op type; the name is
 * prefixed with the current name scope and made unique ("Const", "Const_1", ...) when the
 * operation is finished, like TensorFlow's Python API; a name ending in '/' is taken
 * exactly (without the '/') and must be free. Never NULL except when out of memory; bad
 * arguments (NULL graph / op_type) are reported by TG_FinishOperation. */
TG_CAPI_EXPORT extern TG_OperationDescription* TG_NewOperation(TG_Graph* g, const char* op_type,
                                                               const char* oper_name);
/* Explicit device (canonicalised, e.g. "/gpu:1" -> "/device:GPU:1"); its fields win over the
 * graph's device stack. */
TG_CAPI_EXPORT extern void TG_SetDevice(TG_OperationDescription* desc, const char* device);
/* Adds one input: feeds the next single-tensor argument of the op definition. */
TG_CAPI_EXPORT extern void TG_AddInput(TG_OperationDescription* desc, TG_Output input);
/* Adds a list input: feeds the next list argument (`N * T` or `list(type)`). `inputs` is
 * copied. */
TG_CAPI_EXPORT extern void TG_AddInputList(TG_OperationDescription* desc,
                                           const TG_Output* inputs, int num_inputs);
TG_CAPI_EXPORT extern void TG_AddControlInput(TG_OperationDescription* desc, TG_Operation* input);
/* Colocates the new operation with `op` (its `_class` gets "loc:@<op's group>"). */
TG_CAPI_EXPORT extern void TG_ColocateWith(TG_OperationDescription* desc, TG_Operation* op);

/* Attr setters. Values are copied. An invalid value (negative list length, dim < -1, NULL
 * attr name, ...) is remembered by the description and makes TG_FinishOperation fail with a
 * message naming the attr; setters with a TG_Status also report there at once. Setting an
 * attr twice keeps the last value. Strings may contain NUL bytes. */
TG_CAPI_EXPORT extern void TG_SetAttrString(TG_OperationDescription* desc, const char* attr_name,
                                            const void* value, size_t length);
TG_CAPI_EXPORT extern void TG_SetAttrStringList(TG_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* const* values,
                                                const size_t* lengths, int num_values);
TG_CAPI_EXPORT extern void TG_SetAttrInt(TG_OperationDescription* desc, const char* attr_name,
                                         int64_t value);
TG_CAPI_EXPORT extern void TG_SetAttrIntList(TG_OperationDescription* desc,
                                             const char* attr_name, const int64_t* values,
                                             int num_values);
TG_CAPI_EXPORT extern void TG_SetAttrFloat(TG_OperationDescription* desc, const char* attr_name,
                                           float value);
TG_CAPI_EXPORT extern void TG_SetAttrFloatList(TG_OperationDescription* desc,
                                               const char* attr_name, const float* values,
                                               int num_values);
TG_CAPI_EXPORT extern void TG_SetAttrBool(TG_OperationDescription* desc, const char* attr_name,
                                          unsigned char value);
TG_CAPI_EXPORT extern void TG_SetAttrBoolList(TG_OperationDescription* desc,
                                              const char* attr_name,
                                              const unsigned char* values, int num_values);
TG_CAPI_EXPORT extern void TG_SetAttrType(TG_OperationDescription* desc, const char* attr_name,
                                          TG_DataType value);
TG_CAPI_EXPORT extern void TG_SetAttrTypeList(TG_OperationDescription* desc,
                                              const char* attr_name, const TG_DataType* values,
                                              int num_values);
/* dims[0, num_dims), -1 = unknown dim; num_dims == -1 = unknown rank (dims ignored). */
TG_CAPI_EXPORT extern void TG_SetAttrShape(TG_OperationDescription* desc, const char* attr_name,
                                           const int64_t* dims, int num_dims);
/* Shape i is dims[i][0, num_dims[i]); num_dims[i] == -1 = unknown rank. */
TG_CAPI_EXPORT extern void TG_SetAttrShapeList(TG_OperationDescription* desc,
                                               const char* attr_name,
                                               const int64_t* const* dims,
                                               const int* num_dims, int num_shapes);
/* A serialized TensorShapeProto. */
TG_CAPI_EXPORT extern void TG_SetAttrTensorShapeProto(TG_OperationDescription* desc,
                                                      const char* attr_name, const void* proto,
                                                      size_t proto_len, TG_Status* status);
TG_CAPI_EXPORT extern void TG_SetAttrTensorShapeProtoList(TG_OperationDescription* desc,
                                                          const char* attr_name,
                                                          const void* const* protos,
                                                          const size_t* proto_lens,
                                                          int num_shapes, TG_Status* status);
/* The tensor's value is copied into the attr; the caller keeps ownership of `value`. */
TG_CAPI_EXPORT extern void TG_SetAttrTensor(TG_OperationDescription* desc, const char* attr_name,
                                            const TG_Tensor* value, TG_Status* status);
TG_CAPI_EXPORT extern void TG_SetAttrTensorList(TG_OperationDescription* desc,
                                                const char* attr_name,
                                                const TG_Tensor* const* values, int num_values,
                                                TG_Status* status);
/* A serialized AttrValue proto (any kind). */
TG_CAPI_EXPORT extern void TG_SetAttrValueProto(TG_OperationDescription* desc,
                                                const char* attr_name, const void* proto,
                                                size_t proto_len, TG_Status* status);

/* Validates the description against the op definition (attrs, input dtypes), applies the
 * graph's name scope and stacks, infers output dtypes and static shapes, and adds the
 * operation. Always consumes `desc`. On failure nothing is added, NULL is returned and the
 * status names the operation (e.g. an incompatible MatMul shape). */
TG_CAPI_EXPORT extern TG_Operation* TG_FinishOperation(TG_OperationDescription* desc,
                                                       TG_Status* status);
/* Frees `desc` without adding anything. NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_AbandonOperation(TG_OperationDescription* desc);

/* ---- introspection ---- */

/* Strings owned by the graph; valid until TG_DeleteGraph. NULL for a NULL operation. */
TG_CAPI_EXPORT extern const char* TG_OperationName(const TG_Operation* oper);
TG_CAPI_EXPORT extern const char* TG_OperationOpType(const TG_Operation* oper);
/* Canonical device string, "" if none. */
TG_CAPI_EXPORT extern const char* TG_OperationDevice(const TG_Operation* oper);

TG_CAPI_EXPORT extern int TG_OperationNumOutputs(const TG_Operation* oper);
/* TG_INVALID_DTYPE for an index out of range. */
TG_CAPI_EXPORT extern TG_DataType TG_OperationOutputType(TG_Output oper_out);
/* Number of tensors of the output argument `arg_name` (> 1 for lists). INVALID_ARGUMENT
 * naming the op when it has no such argument; -1 then. */
TG_CAPI_EXPORT extern int TG_OperationOutputListLength(const TG_Operation* oper,
                                                       const char* arg_name,
                                                       TG_Status* status);
TG_CAPI_EXPORT extern int TG_OperationNumInputs(const TG_Operation* oper);
/* The dtype the op expects at the input (a _REF type for ref inputs). */
TG_CAPI_EXPORT extern TG_DataType TG_OperationInputType(TG_Input oper_in);
TG_CAPI_EXPORT extern int TG_OperationInputListLength(const TG_Operation* oper,
                                                      const char* arg_name, TG_Status* status);
/* The tensor feeding the input; {NULL, -1} for an index out of range. */
TG_CAPI_EXPORT extern TG_Output TG_OperationInput(TG_Input oper_in);
/* Writes min(max_inputs, NumInputs) producers to inputs[]. */
TG_CAPI_EXPORT extern void TG_OperationAllInputs(const TG_Operation* oper, TG_Output* inputs,
                                                 int max_inputs);

TG_CAPI_EXPORT extern int TG_OperationOutputNumConsumers(TG_Output oper_out);
/* Writes up to max_consumers consumers; returns how many there are in all. */
TG_CAPI_EXPORT extern int TG_OperationOutputConsumers(TG_Output oper_out, TG_Input* consumers,
                                                      int max_consumers);
TG_CAPI_EXPORT extern int TG_OperationNumControlInputs(const TG_Operation* oper);
/* Writes up to max_control_inputs; returns how many there are in all. */
TG_CAPI_EXPORT extern int TG_OperationGetControlInputs(const TG_Operation* oper,
                                                       TG_Operation** control_inputs,
                                                       int max_control_inputs);
TG_CAPI_EXPORT extern int TG_OperationNumControlOutputs(const TG_Operation* oper);
TG_CAPI_EXPORT extern int TG_OperationGetControlOutputs(const TG_Operation* oper,
                                                        TG_Operation** control_outputs,
                                                        int max_control_outputs);

/* ---- attributes ---- */

typedef enum TG_AttrType {
  TG_ATTR_STRING = 0,
  TG_ATTR_INT = 1,
  TG_ATTR_FLOAT = 2,
  TG_ATTR_BOOL = 3,
  TG_ATTR_TYPE = 4,
  TG_ATTR_SHAPE = 5,
  TG_ATTR_TENSOR = 6,
  TG_ATTR_PLACEHOLDER = 7,
  TG_ATTR_FUNC = 8
} TG_AttrType;

typedef struct TG_AttrMetadata {
  /* 1 for list(...) attrs. */
  unsigned char is_list;
  /* Number of elements of a list; -1 for a scalar attr. */
  int64_t list_size;
  /* Element type (for an empty list, the type the op definition declares). */
  TG_AttrType type;
  /* string: its length; list(string): sum of lengths; shape: rank (-1 unknown);
   * list(shape): sum of known ranks; -1 otherwise. */
  int64_t total_size;
} TG_AttrMetadata;

/* NOT_FOUND naming the op and attr when absent. */
TG_CAPI_EXPORT extern TG_AttrMetadata TG_OperationGetAttrMetadata(const TG_Operation* oper,
                                                                  const char* attr_name,
                                                                  TG_Status* status);
/* The attrs in name order (defaults included). Names are owned by the graph; valid until
 * TG_DeleteGraph. NULL for an index out of range. */
TG_CAPI_EXPORT extern int TG_OperationNumAttrs(const TG_Operation* oper);
TG_CAPI_EXPORT extern const char* TG_OperationAttrName(const TG_Operation* oper, int i);

/* Getters: NOT_FOUND when the attr is absent, INVALID_ARGUMENT when it has another kind or
 * the caller's storage is too small. Copies into caller memory unless said otherwise. */
/* Copies min(max_length, length) bytes (length from the metadata's total_size). */
TG_CAPI_EXPORT extern void TG_OperationGetAttrString(const TG_Operation* oper,
                                                     const char* attr_name, void* value,
                                                     size_t max_length, TG_Status* status);
/* values[i] / lengths[i] for i < min(max_values, list_size); the bytes are stored in
 * storage[0, storage_size) and values[i] point into it. INVALID_ARGUMENT if storage is too
 * small (total_size bytes are needed). */
TG_CAPI_EXPORT extern void TG_OperationGetAttrStringList(const TG_Operation* oper,
                                                         const char* attr_name, void** values,
                                                         size_t* lengths, int max_values,
                                                         void* storage, size_t storage_size,
                                                         TG_Status* status);
TG_CAPI_EXPORT extern void TG_OperationGetAttrInt(const TG_Operation* oper,
                                                  const char* attr_name, int64_t* value,
                                                  TG_Status* status);
/* Writes min(max_values, list_size) values. */
TG_CAPI_EXPORT extern void TG_OperationGetAttrIntList(const TG_Operation* oper,
                                                      const char* attr_name, int64_t* values,
                                                      int max_values, TG_Status* status);
TG_CAPI_EXPORT extern void TG_OperationGetAttrFloat(const TG_Operation* oper,
                                                    const char* attr_name, float* value,
                                                    TG_Status* status);
TG_CAPI_EXPORT extern void TG_OperationGetAttrFloatList(const TG_Operation* oper,
                                                        const char* attr_name, float* values,
                                                        int max_values, TG_Status* status);
TG_CAPI_EXPORT extern void TG_OperationGetAttrBool(const TG_Operation* oper,
                                                   const char* attr_name, unsigned char* value,
                                                   TG_Status* status);
TG_CAPI_EXPORT extern void TG_OperationGetAttrBoolList(const TG_Operation* oper,
                                                       const char* attr_name,
                                                       unsigned char* values, int max_values,
                                                       TG_Status* status);
TG_CAPI_EXPORT extern void TG_OperationGetAttrType(const TG_Operation* oper,
                                                   const char* attr_name, TG_DataType* value,
                                                   TG_Status* status);
TG_CAPI_EXPORT extern void TG_OperationGetAttrTypeList(const TG_Operation* oper,
                                                       const char* attr_name,
                                                       TG_DataType* values, int max_values,
                                                       TG_Status* status);
/* Writes min(num_dims, rank) dims (-1 = unknown). The rank is the metadata's total_size. */
TG_CAPI_EXPORT extern void TG_OperationGetAttrShape(const TG_Operation* oper,
                                                    const char* attr_name, int64_t* value,
                                                    int num_dims, TG_Status* status);
/* For i < min(num_shapes, list_size): num_dims[i] = rank (-1 unknown) and dims[i] points
 * into storage[0, storage_size) (in int64_t units) at that shape's dims (NULL for unknown
 * rank). INVALID_ARGUMENT if storage is too small (total_size entries are needed). */
TG_CAPI_EXPORT extern void TG_OperationGetAttrShapeList(const TG_Operation* oper,
                                                        const char* attr_name, int64_t** dims,
                                                        int* num_dims, int num_shapes,
                                                        int64_t* storage, int storage_size,
                                                        TG_Status* status);
/* The shape as a serialized TensorShapeProto, written into `value`. */
TG_CAPI_EXPORT extern void TG_OperationGetAttrTensorShapeProto(const TG_Operation* oper,
                                                               const char* attr_name,
                                                               TG_Buffer* value,
                                                               TG_Status* status);
/* values[i] = a new buffer the caller frees with TG_DeleteBuffer, for
 * i < min(max_values, list_size). */
TG_CAPI_EXPORT extern void TG_OperationGetAttrTensorShapeProtoList(const TG_Operation* oper,
                                                                   const char* attr_name,
                                                                   TG_Buffer** values,
                                                                   int max_values,
                                                                   TG_Status* status);
/* *value = a new tensor the caller frees with TG_DeleteTensor (NULL on failure). */
TG_CAPI_EXPORT extern void TG_OperationGetAttrTensor(const TG_Operation* oper,
                                                     const char* attr_name, TG_Tensor** value,
                                                     TG_Status* status);
/* values[i] = a new tensor the caller frees, for i < min(max_values, list_size); on failure
 * nothing is returned (no tensor to free). */
TG_CAPI_EXPORT extern void TG_OperationGetAttrTensorList(const TG_Operation* oper,
                                                         const char* attr_name,
                                                         TG_Tensor** values, int max_values,
                                                         TG_Status* status);
/* The attr as a serialized AttrValue proto, written into `output`. */
TG_CAPI_EXPORT extern void TG_OperationGetAttrValueProto(const TG_Operation* oper,
                                                         const char* attr_name,
                                                         TG_Buffer* output, TG_Status* status);
/* The operation as a serialized NodeDef (name, op, inputs "x", "x:1", "^ctl", device,
 * attrs), written into `output_node_def`. */
TG_CAPI_EXPORT extern void TG_OperationToNodeDef(const TG_Operation* oper,
                                                 TG_Buffer* output_node_def, TG_Status* status);

/* ===================================================================================== */
/* Building context: name scopes, control dependencies, devices, colocation              */
/* ===================================================================================== */
/* Each Push* that succeeds must be matched by its Pop* (contexts are per graph, LIFO per
 * kind). Pops on an empty stack are FAILED_PRECONDITION; pushes on a finalized graph too. */

/* name_scope(name): "" or NULL resets to the top level; "a/b/" re-enters "a/b" as is;
 * anything else opens a new scope under the current one, made unique ("inner", "inner_1"). */
TG_CAPI_EXPORT extern void TG_GraphPushNameScope(TG_Graph* g, const char* name,
                                                 TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphPopNameScope(TG_Graph* g, TG_Status* status);
/* The current scope without a trailing '/' ("" at top level, "outer/inner" inside). Append
 * '/' to re-enter it later. Owned by the graph; valid until the next call that changes the
 * graph. */
TG_CAPI_EXPORT extern const char* TG_GraphCurrentNameScope(TG_Graph* g);
/* unique_name(name): the current scope + name, with _1, _2, ... if taken. With mark_used != 0
 * the name is reserved. The result (not NUL-terminated; length in out->length) is written
 * into `out`. */
TG_CAPI_EXPORT extern void TG_GraphUniqueName(TG_Graph* g, const char* name, int mark_used,
                                              TG_Buffer* out, TG_Status* status);

/* control_dependencies(ops): ops created until the matching pop get ops[0, n) as control
 * inputs, in union with the enclosing frames. Only ops created inside are affected. */
TG_CAPI_EXPORT extern void TG_GraphPushControlDependencies(TG_Graph* g,
                                                           TG_Operation* const* ops, int n,
                                                           TG_Status* status);
/* control_dependencies(None): ops inside ignore enclosing frames. */
TG_CAPI_EXPORT extern void TG_GraphPushClearControlDependencies(TG_Graph* g, TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphPopControlDependencies(TG_Graph* g, TG_Status* status);

/* device(string): canonicalised ("/gpu:1" -> "/device:GPU:1"); fields of inner entries win
 * over outer ones. INVALID_ARGUMENT naming a malformed string. */
TG_CAPI_EXPORT extern void TG_GraphPushDevice(TG_Graph* g, const char* device, TG_Status* status);

/* A device function: called once for every op created while it is on the stack, with that
 * op (read it with the TG_Operation* getters; do not build in the graph from inside).
 * Returns the device string for the op, which the library copies at once (so static or
 * per-call storage is fine); NULL or "" makes no choice. `arg` is the pointer given at push;
 * the caller keeps it alive until the matching pop or TG_DeleteGraph. A string that is not
 * a valid device makes the op's creation fail. */
typedef const char* (*TG_DeviceFunction)(void* arg, const TG_Operation* op);
TG_CAPI_EXPORT extern void TG_GraphPushDeviceFunction(TG_Graph* g, TG_DeviceFunction fn,
                                                      void* arg, TG_Status* status);
/* device(None): ops inside ignore enclosing device entries. */
TG_CAPI_EXPORT extern void TG_GraphPushClearDevice(TG_Graph* g, TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphPopDevice(TG_Graph* g, TG_Status* status);

/* colocate_with(op, ignore_existing): ops created inside get `_class = ["loc:@..."]` of op's
 * colocation group and op's device. */
TG_CAPI_EXPORT extern void TG_GraphPushColocateWith(TG_Graph* g, TG_Operation* op,
                                                    int ignore_existing, TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphPopColocateWith(TG_Graph* g, TG_Status* status);

/* ===================================================================================== */
/* Collections                                                                           */
/* ===================================================================================== */

/* TensorFlow's GraphKeys. */
#define TG_GLOBAL_VARIABLES "variables"
#define TG_TRAINABLE_VARIABLES "trainable_variables"
#define TG_LOCAL_VARIABLES "local_variables"
#define TG_MODEL_VARIABLES "model_variables"
#define TG_UPDATE_OPS "update_ops"
#define TG_SUMMARIES "summaries"
#define TG_TRAIN_OP "train_op"
#define TG_LOSSES "losses"
#define TG_REGULARIZATION_LOSSES "regularization_losses"
#define TG_GLOBAL_STEP "global_step"

typedef struct TG_Variable TG_Variable;

/* A snapshot of one collection's items. Caller owns: TG_DeleteCollection. The operations,
 * outputs and variables in it belong to the graph (valid until TG_DeleteGraph). */
typedef struct TG_Collection TG_Collection;

/* (The enum is named ...Type because TG_CollectionItemKind is the accessor function.) */
typedef enum TG_CollectionItemType {
  TG_COLLECTION_ITEM_INVALID = -1, /* index out of range */
  TG_COLLECTION_ITEM_OPERATION = 0,
  TG_COLLECTION_ITEM_OUTPUT = 1,
  TG_COLLECTION_ITEM_VARIABLE = 2,
  TG_COLLECTION_ITEM_BYTES = 3,
  TG_COLLECTION_ITEM_INT64 = 4,
  TG_COLLECTION_ITEM_FLOAT = 5
} TG_CollectionItemType;

/* add_to_collection(key, item): appends (duplicates allowed). `key` is any string. */
TG_CAPI_EXPORT extern void TG_GraphAddToCollectionOperation(TG_Graph* g, const char* key,
                                                            TG_Operation* op, TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphAddToCollectionOutput(TG_Graph* g, const char* key,
                                                         TG_Output output, TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphAddToCollectionVariable(TG_Graph* g, const char* key,
                                                           TG_Variable* var, TG_Status* status);
/* data[0, len) is copied. */
TG_CAPI_EXPORT extern void TG_GraphAddToCollectionBytes(TG_Graph* g, const char* key,
                                                        const void* data, size_t len,
                                                        TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphAddToCollectionInt64(TG_Graph* g, const char* key,
                                                        int64_t value, TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphAddToCollectionFloat(TG_Graph* g, const char* key,
                                                        float value, TG_Status* status);

/* get_collection(key, scope): the items in insertion order; a missing key gives an empty
 * collection. With a scope (NULL or "" = all), only operations, outputs and variables whose
 * name matches the regular expression `scope` at its start; plain values are left out. */
TG_CAPI_EXPORT extern TG_Collection* TG_GraphGetCollection(TG_Graph* g, const char* key,
                                                           const char* scope,
                                                           TG_Status* status);
TG_CAPI_EXPORT extern int TG_CollectionSize(const TG_Collection* c);
TG_CAPI_EXPORT extern TG_CollectionItemType TG_CollectionItemKind(const TG_Collection* c, int i);
/* Each accessor returns a neutral value (NULL, {NULL,-1}, 0) when item i has another kind. */
TG_CAPI_EXPORT extern TG_Operation* TG_CollectionItemOperation(const TG_Collection* c, int i);
TG_CAPI_EXPORT extern TG_Output TG_CollectionItemOutput(const TG_Collection* c, int i);
TG_CAPI_EXPORT extern TG_Variable* TG_CollectionItemVariable(const TG_Collection* c, int i);
/* *data points into the collection snapshot (valid until TG_DeleteCollection). Returns 1 if
 * item i is bytes, else 0 (and *data = NULL, *len = 0). */
TG_CAPI_EXPORT extern int TG_CollectionItemBytes(const TG_Collection* c, int i,
                                                 const void** data, size_t* len);
TG_CAPI_EXPORT extern int64_t TG_CollectionItemInt64(const TG_Collection* c, int i);
TG_CAPI_EXPORT extern float TG_CollectionItemFloat(const TG_Collection* c, int i);
/* NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_DeleteCollection(TG_Collection* c);

/* The collection keys in sorted order. TG_GraphCollectionKey's result is owned by the graph
 * and valid until the set of keys changes or TG_DeleteGraph; NULL for i out of range. */
TG_CAPI_EXPORT extern int TG_GraphNumCollectionKeys(TG_Graph* g);
TG_CAPI_EXPORT extern const char* TG_GraphCollectionKey(TG_Graph* g, int i);
/* clear_collection(key). */
TG_CAPI_EXPORT extern void TG_GraphClearCollection(TG_Graph* g, const char* key,
                                                   TG_Status* status);

/* ===================================================================================== */
/* Variables                                                                             */
/* ===================================================================================== */
/* A variable is the subgraph V/initial_value (Const, when the library makes the value),
 * V (VariableV2), V/Assign (its initializer) and V/read (Identity), with Assign and read
 * colocated with V (`_class: loc:@V`). It joins TG_GLOBAL_VARIABLES and, if trainable,
 * TG_TRAINABLE_VARIABLES. TG_Variable* is owned by the graph (valid until TG_DeleteGraph). */

typedef struct TG_VariableOptions {
  /* sizeof(TG_VariableOptions) as the caller was compiled; set by TG_InitVariableOptions. */
  size_t struct_size;
  /* NULL or "" = "Variable" (TG_GraphNewVariable*); ignored by TG_GraphGetVariable*. Made
   * unique and scoped like an op name. */
  const char* name;
  /* Nonzero: also join TG_TRAINABLE_VARIABLES. */
  int trainable;
  /* Nonzero: the initial value must have a fully defined shape. */
  int validate_shape;
  /* Extra collections to join, besides the base ones. */
  const char* const* collections;
  int num_collections;
  /* When num_base_collections > 0, these replace {TG_GLOBAL_VARIABLES} (e.g.
   * TG_LOCAL_VARIABLES for a local variable). */
  const char* const* base_collections;
  int num_base_collections;
} TG_VariableOptions;

/* Fills `opts` with the defaults: struct_size = sizeof, name NULL, trainable 1,
 * validate_shape 1, no collections. */
TG_CAPI_EXPORT extern void TG_InitVariableOptions(TG_VariableOptions* opts);

/* tf.Variable(value): the initial value is a Const "V/initial_value" holding a copy of
 * `initial_value` (the caller keeps ownership). `opts` may be NULL (defaults). */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphNewVariableFromTensor(TG_Graph* g,
                                                                 const TG_Tensor* initial_value,
                                                                 const TG_VariableOptions* opts,
                                                                 TG_Status* status);
/* tf.Variable(tensor): the initial value is a tensor of the graph built beforehand. */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphNewVariable(TG_Graph* g, TG_Output initial_value,
                                                       const TG_VariableOptions* opts,
                                                       TG_Status* status);

/* Builds a variable's initial value. Called during variable creation inside the variable's
 * name scope ("V/"), so ops it makes with TG_NewOperation are named "V/...". Returns the
 * value tensor, or sets `status` (which it receives in the TG_OK state) to fail the
 * creation. For TG_GraphGetVariableWithInitializer, `dims`/`num_dims` give the variable's
 * shape and `dtype` its type; for TG_GraphNewVariableWithInitializer they are NULL/-1 and
 * TG_INVALID_DTYPE. */
typedef TG_Output (*TG_InitializerFunction)(void* arg, TG_Graph* g, TG_DataType dtype,
                                            const int64_t* dims, int num_dims,
                                            TG_Status* status);
/* tf.Variable(lambda: ...): the initial value is built by `fn` inside the variable's
 * scope. */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphNewVariableWithInitializer(
    TG_Graph* g, TG_InitializerFunction fn, void* arg, const TG_VariableOptions* opts,
    TG_Status* status);

TG_CAPI_EXPORT extern const char* TG_VariableName(const TG_Variable* v); /* "scope/V" */
/* V:0, the reference tensor (dtype *_REF). */
TG_CAPI_EXPORT extern TG_Output TG_VariableOutput(const TG_Variable* v);
/* V/read:0, the value. */
TG_CAPI_EXPORT extern TG_Output TG_VariableReadValue(const TG_Variable* v);
/* V/Assign. */
TG_CAPI_EXPORT extern TG_Operation* TG_VariableInitializer(const TG_Variable* v);
TG_CAPI_EXPORT extern TG_Output TG_VariableInitialValue(const TG_Variable* v);
/* The base dtype (not _REF). */
TG_CAPI_EXPORT extern TG_DataType TG_VariableDataType(const TG_Variable* v);
TG_CAPI_EXPORT extern int TG_VariableTrainable(const TG_Variable* v);
/* The variable whose VariableV2 op is named `name`, or NULL. */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphVariableByName(TG_Graph* g, const char* name);

/* global_variables_initializer(): a NoOp named "init" (made unique) with a control input on
 * every initializer of TG_GLOBAL_VARIABLES. */
TG_CAPI_EXPORT extern TG_Operation* TG_GraphGlobalVariablesInitializer(TG_Graph* g,
                                                                       TG_Status* status);
/* variables_initializer(vars, name): the same over vars[0, n); name NULL = "init". */
TG_CAPI_EXPORT extern TG_Operation* TG_GraphVariablesInitializer(TG_Graph* g,
                                                                 TG_Variable* const* vars,
                                                                 int n, const char* name,
                                                                 TG_Status* status);

typedef enum TG_Reuse {
  TG_REUSE_INHERIT = -1, /* the enclosing scope's mode (False at the top level) */
  TG_REUSE_FALSE = 0,    /* get_variable creates; an existing name is INVALID_ARGUMENT */
  TG_REUSE_TRUE = 1,     /* get_variable reuses; a missing name is INVALID_ARGUMENT (sticky:
                            sub-scopes of a reusing scope reuse too) */
  TG_REUSE_AUTO = 2      /* tf.AUTO_REUSE: reuse if it exists, else create */
} TG_Reuse;

/* variable_scope(name, reuse): affects the names of get_variable and opens a name scope of
 * the same name (made unique like name_scope: reopening "s" gives name scope "s_1" while the
 * variable scope stays "s"). `name` must be non-empty. */
TG_CAPI_EXPORT extern void TG_GraphPushVariableScope(TG_Graph* g, const char* name,
                                                     TG_Reuse reuse, TG_Status* status);
TG_CAPI_EXPORT extern void TG_GraphPopVariableScope(TG_Graph* g, TG_Status* status);
/* The current variable scope ("" at top level). Owned by the graph; valid until the next
 * call that changes the graph. */
TG_CAPI_EXPORT extern const char* TG_GraphCurrentVariableScope(TG_Graph* g);
/* tf.get_variable_scope().reuse_variables(): get_variable in the current variable scope, and
 * in scopes opened inside it, reuses from now on; popping the scope brings back the
 * enclosing mode (at the top level it lasts for the graph's life). */
TG_CAPI_EXPORT extern void TG_GraphReuseVariables(TG_Graph* g, TG_Status* status);
/* The current scope's reuse mode: TG_REUSE_FALSE, TG_REUSE_TRUE or TG_REUSE_AUTO (never
 * TG_REUSE_INHERIT); TG_REUSE_FALSE for a NULL graph. */
TG_CAPI_EXPORT extern TG_Reuse TG_GraphVariableScopeReuse(TG_Graph* g);

/* tf.get_variable(name, shape, dtype, initializer): "<variable scope>/name", created or
 * reused per the scope's reuse mode (the name scope does not apply). dims[0, num_dims)
 * (num_dims == -1: unknown, then taken from initial_value). dtype TG_INVALID_DTYPE: that of
 * initial_value, else the variable scope's, else TG_FLOAT. `initial_value` (copied; NULL =
 * the default initializer, see TG_VariableScopeOptions below) is a scalar
 * (filled to the shape, "V/Initializer/Const") or a tensor of the variable's shape; it is
 * only used when the variable is created. `opts` may be NULL; its name is ignored. */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphGetVariable(TG_Graph* g, const char* name,
                                                       TG_DataType dtype, const int64_t* dims,
                                                       int num_dims,
                                                       const TG_Tensor* initial_value,
                                                       const TG_VariableOptions* opts,
                                                       TG_Status* status);
/* The same with an initializer function (called only when the variable is created, inside
 * its name scope; ops it makes are named "V/..."). With num_dims == -1 the function gets
 * num_dims -1 (and TG_INVALID_DTYPE when no dtype is given) and the variable takes the shape
 * and dtype of the value it builds, as TF's get_variable(initializer=<no-argument callable>). */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphGetVariableWithInitializer(
    TG_Graph* g, const char* name, TG_DataType dtype, const int64_t* dims, int num_dims,
    TG_InitializerFunction fn, void* arg, const TG_VariableOptions* opts, TG_Status* status);

/* An initializer function for callers whose foreign-function layer cannot return a struct by
 * value (Python's ctypes callbacks): the same as TG_InitializerFunction, with the value
 * written to *out. */
typedef void (*TG_InitializerCallback)(void* arg, TG_Graph* g, TG_DataType dtype,
                                       const int64_t* dims, int num_dims, TG_Output* out,
                                       TG_Status* status);
/* TG_GraphGetVariableWithInitializer with a TG_InitializerCallback. */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphGetVariableWithCallback(
    TG_Graph* g, const char* name, TG_DataType dtype, const int64_t* dims, int num_dims,
    TG_InitializerCallback callback, void* arg, const TG_VariableOptions* opts,
    TG_Status* status);

/* Variable.initialized_value(): the variable's value once its initializer has run, for
 * initial values computed from other variables (`w2 = Variable(w1.initialized_value() * 2)`):
 * an Identity of V (named "Identity" under the current name scope, colocated with V/read)
 * with a control input on V/Assign and none of the enclosing control dependencies — TF
 * 1.0-1.2's definition. Running it re-runs V's initializer, so all the initializers work in
 * one run of TG_GraphGlobalVariablesInitializer's op, whatever their order. (TF >= 1.3 uses
 * cond(is_variable_initialized(V), V/read, initial value), which does not re-assign; tgraph
 * has no control flow yet.) */
TG_CAPI_EXPORT extern TG_Output TG_VariableInitializedValue(TG_Graph* g, const TG_Variable* v,
                                                            TG_Status* status);
/* tf.is_variable_initialized(v): an IsVariableInitialized op (a bool scalar, true once the
 * variable holds a value) named `name` (NULL or "": "IsVariableInitialized") under the
 * current name scope. */
TG_CAPI_EXPORT extern TG_Output TG_IsVariableInitialized(TG_Graph* g, const TG_Variable* v,
                                                         const char* name, TG_Status* status);
/* tf.report_uninitialized_variables(var_list, name): a 1-D string tensor of the names
 * ("scope/V") of the uninitialized variables among vars[0, n), in list order; n == -1 (vars
 * ignored): TG_GLOBAL_VARIABLES then TG_LOCAL_VARIABLES. Built under the name scope `name`
 * (NULL or "": "report_uninitialized_variables") as TF does: IsVariableInitialized per
 * variable, "stack", "LogicalNot", "Const" (the names) and "boolean_mask/..." (Where,
 * Squeeze, GatherV2); no variables: an empty string Const. */
TG_CAPI_EXPORT extern TG_Output TG_ReportUninitializedVariables(TG_Graph* g,
                                                                TG_Variable* const* vars, int n,
                                                                const char* name,
                                                                TG_Status* status);
/* local_variables_initializer(): a NoOp "init" (made unique) with a control input on every
 * initializer of TG_LOCAL_VARIABLES (a bare NoOp when there are none, as TF's no_op). */
TG_CAPI_EXPORT extern TG_Operation* TG_GraphLocalVariablesInitializer(TG_Graph* g,
                                                                      TG_Status* status);

/* get_variable without an initializer (TG_GraphGetVariable with initial_value NULL): the
 * variable scope's initializer, else TF's default — glorot_uniform for floating types, zeros for
 * integer types and bool; other dtypes (string, complex) need an initializer:
 * INVALID_ARGUMENT naming the variable when it is created. In every get_variable function,
 * dtype TG_INVALID_DTYPE (and no initial value tensor) means the scope's dtype, else
 * TG_FLOAT. */
struct TG_Initializer; /* see "Training builders" below */

/* tf.variable_scope(name, reuse=..., initializer=..., dtype=...). */
typedef struct TG_VariableScopeOptions {
  size_t struct_size; /* sizeof(TG_VariableScopeOptions); set by TG_InitVariableScopeOptions */
  TG_Reuse reuse;     /* TG_REUSE_INHERIT by default */
  /* The default initializer of get_variable calls inside (copied); NULL: the enclosing
   * scope's. */
  const struct TG_Initializer* initializer;
  /* The default dtype of get_variable calls inside; TG_INVALID_DTYPE: the enclosing
   * scope's. */
  TG_DataType dtype;
} TG_VariableScopeOptions;

/* Defaults: struct_size = sizeof, TG_REUSE_INHERIT, no initializer, TG_INVALID_DTYPE. */
TG_CAPI_EXPORT extern void TG_InitVariableScopeOptions(TG_VariableScopeOptions* opts);
/* TG_GraphPushVariableScope with options (NULL: defaults); pop with TG_GraphPopVariableScope,
 * which restores the enclosing scope's initializer and dtype. */
TG_CAPI_EXPORT extern void TG_GraphPushVariableScopeWithOptions(
    TG_Graph* g, const char* name, const TG_VariableScopeOptions* opts, TG_Status* status);

/* ===================================================================================== */
/* Control flow (TF1 dataflow: Switch, Merge, Enter, Exit, NextIteration, LoopCond)       */
/* ===================================================================================== */

/* tf.while_loop and tf.cond as control flow v1 builds them, in the graph itself (no
 * separate subgraphs to copy): between TG_NewWhile and TG_FinishWhile (or TG_NewCond and
 * TG_FinishCond) the ops you add with TG_NewOperation and friends are inside the loop or
 * branch. A tensor from outside used inside is brought in as TensorFlow does (a loop: an
 * Enter with is_constant; a branch: a Switch on the predicate), once per tensor; an op with
 * no inputs gets the pivot as a control input, so a constant in a loop body is made each
 * iteration and one in an untaken branch never runs. Loops and conds nest (a loop inside a
 * branch, a cond inside a loop body) and must be finished or aborted in reverse order of
 * opening, before the graph is deleted. Node names are TensorFlow's: while/Enter,
 * while/Merge, while/LoopCond, while/Switch, while/Identity, while/NextIteration,
 * while/Exit (with _1, _2, ... per loop variable); cond/Switch, cond/switch_t,
 * cond/switch_f, cond/pred_id, cond/Merge. On failure the ops already added stay in the
 * graph, unused. Running such graphs: see TG_SessionRun (a fetched tensor on an untaken
 * branch has no value). */

typedef struct TG_While TG_While;

/* Starts a while loop over loop variables inputs[0, ninputs): adds the Enter and Merge
 * nodes under name scope `name` (NULL or "": "while"; made unique) and opens the
 * condition. parallel_iterations: how many iterations may run at once (TF's default is
 * 10); < 1 is INVALID_ARGUMENT. Returns NULL on failure. */
TG_CAPI_EXPORT extern TG_While* TG_NewWhile(TG_Graph* g, const TG_Output* inputs, int ninputs,
                                            const char* name, int parallel_iterations,
                                            TG_Status* status);
TG_CAPI_EXPORT extern int TG_WhileNumLoopVars(const TG_While* w);
/* The loop variables as the condition sees them (the Merge outputs); {NULL, -1} when out of
 * range. */
TG_CAPI_EXPORT extern TG_Output TG_WhileCondInput(const TG_While* w, int i);
/* Closes the condition with `pred` (a bool scalar computed inside it): adds LoopCond, the
 * Switch and Identity nodes, and opens the body. */
TG_CAPI_EXPORT extern void TG_WhileSetCond(TG_While* w, TG_Output pred, TG_Status* status);
/* The loop variables as the body sees them (the Identity outputs; valid after
 * TG_WhileSetCond); {NULL, -1} before or when out of range. */
TG_CAPI_EXPORT extern TG_Output TG_WhileBodyInput(const TG_While* w, int i);
/* Closes the body with the next values of the loop variables, body_outputs[0,
 * TG_WhileNumLoopVars) (same dtypes): adds NextIteration (closing each Merge) and Exit;
 * outputs[i] receives loop variable i's value after the loop (the Exit). Deletes w,
 * whatever the outcome. */
TG_CAPI_EXPORT extern void TG_FinishWhile(TG_While* w, const TG_Output* body_outputs,
                                          TG_Output* outputs, TG_Status* status);
/* Closes the loop without finishing it and deletes w (NULL: no-op). */
TG_CAPI_EXPORT extern void TG_AbortWhile(TG_While* w);

typedef struct TG_Cond TG_Cond;

/* Starts a cond on `pred` (a bool scalar): adds cond/Switch, switch_t, switch_f and
 * pred_id under name scope `name` (NULL or "": "cond"; made unique) and opens the true
 * branch. Returns NULL on failure. */
TG_CAPI_EXPORT extern TG_Cond* TG_NewCond(TG_Graph* g, TG_Output pred, const char* name,
                                          TG_Status* status);
/* Closes the true branch with its results true_outputs[0, n) and opens the false branch. */
TG_CAPI_EXPORT extern void TG_CondElse(TG_Cond* c, const TG_Output* true_outputs, int n,
                                       TG_Status* status);
/* Closes the false branch with its results false_outputs[0, n) (n and dtypes as the true
 * branch's) and adds one Merge per result; outputs[i] receives result i (the Merge's output
 * 0). Deletes c, whatever the outcome. */
TG_CAPI_EXPORT extern void TG_FinishCond(TG_Cond* c, const TG_Output* false_outputs, int n,
                                         TG_Output* outputs, TG_Status* status);
/* Closes the cond without finishing it and deletes c (NULL: no-op). */
TG_CAPI_EXPORT extern void TG_AbortCond(TG_Cond* c);

/* TF_UpdateEdge: makes `new_src` the data input `dst` (same dtype). How a hand-built loop
 * closes its Merge with a NextIteration; sessions reject any other cycle when run. Plans a
 * session built before the change do not see it. */
TG_CAPI_EXPORT extern void TG_UpdateEdge(TG_Graph* g, TG_Output new_src, TG_Input dst,
                                         TG_Status* status);

/* ===================================================================================== */
/* Gradients                                                                             */
/* ===================================================================================== */

/* TF_AddGradients: adds the nodes computing d(y[0] + ... + y[ny-1])/d(x[i]) for each x,
 * under the name scope "gradients" (made unique per call: "gradients_1", ...). `dx` holds
 * ny initial gradients (grad_ys), or is NULL for ones shaped like each y. `dy` receives nx
 * outputs; dy[i].oper is NULL when y does not depend on x[i] (or x[i] is not a
 * floating-point tensor). An op the gradient must pass through that has no gradient
 * function fails with NOT_FOUND naming it, before any node is added. Sparse gradients
 * (embedding lookups) come back dense here; see TG_AddGradientsSparse. */
TG_CAPI_EXPORT extern void TG_AddGradients(TG_Graph* g, TG_Output* y, int ny, TG_Output* x,
                                           int nx, TG_Output* dx, TG_Status* status,
                                           TG_Output* dy);
/* The same under the name scope `prefix` (NULL: "gradients"); a prefix ending in '/' is
 * used as is rather than made unique. */
TG_CAPI_EXPORT extern void TG_AddGradientsWithPrefix(TG_Graph* g, const char* prefix,
                                                     TG_Output* y, int ny, TG_Output* x, int nx,
                                                     TG_Output* dx, TG_Status* status,
                                                     TG_Output* dy);
/* Keeps TensorFlow's IndexedSlices: for each x, dy_values[i] plus, when the gradient is
 * sparse, dy_indices[i] (the rows of x that values hold, int32/int64) and
 * dy_dense_shape[i] (x's shape, int32); for a dense gradient dy_indices[i].oper and
 * dy_dense_shape[i].oper are NULL. Optimizers apply sparse gradients row by row. */
TG_CAPI_EXPORT extern void TG_AddGradientsSparse(TG_Graph* g, const char* prefix, TG_Output* y,
                                                 int ny, TG_Output* x, int nx, TG_Output* dx,
                                                 TG_Status* status, TG_Output* dy_values,
                                                 TG_Output* dy_indices,
                                                 TG_Output* dy_dense_shape);

/* A gradient function written in a binding's language (Python's tf.RegisterGradient):
 * called during TG_AddGradients* (and the optimizers' gradient computations) for each op
 * whose type, or gradient_override_map's "_gradient_op_type" attr, is the registered type,
 * with g's name scope at "<gradients scope>/<op name>_grad". It builds the gradient with
 * the graph-building API on `g` and sets input_grads[i] for each of the op's `num_inputs`
 * inputs (oper NULL, as they come: no gradient). output_grads holds the gradients of the
 * op's `num_outputs` outputs (oper NULL: that output has none; sparse ones arrive dense).
 * To fail, it sets `status`: the TG_AddGradients call fails with that code, its message
 * naming the op. */
typedef void (*TG_GradientCallback)(void* arg, TG_Graph* g, TG_Operation* op,
                                    const TG_Output* output_grads, int num_outputs,
                                    TG_Output* input_grads, int num_inputs, TG_Status* status);
/* Registers `fn` (with `arg`, kept for the process's life) as the gradient of `op_type`,
 * for every graph: gradients are process-wide, as in TensorFlow. ALREADY_EXISTS when
 * `op_type` has a gradient already (the core's, a plugin's, or one registered here), or is
 * registered as not differentiable; the type need not be an op (gradient_override_map
 * names it). */
TG_CAPI_EXPORT extern void TG_RegisterGradientCallback(const char* op_type,
                                                       TG_GradientCallback fn, void* arg,
                                                       TG_Status* status);

/* ===================================================================================== */
/* Optimizers (tf.train.*Optimizer)                                                      */
/* ===================================================================================== */

typedef enum TG_OptimizerKind {
  TG_OPTIMIZER_GRADIENT_DESCENT = 0,
  TG_OPTIMIZER_MOMENTUM = 1,
  TG_OPTIMIZER_ADAM = 2,
  TG_OPTIMIZER_RMSPROP = 3,
  TG_OPTIMIZER_ADAGRAD = 4
} TG_OptimizerKind;

/* Hyper-parameters; TG_InitOptimizerOptions fills TensorFlow's defaults for `kind`
 * (GradientDescent/Momentum/RMSProp/Adagrad learning_rate 0.01 ... Adam 0.001, beta1 0.9,
 * beta2 0.999, epsilon 1e-8; RMSProp decay 0.9, momentum 0, epsilon 1e-10; Adagrad
 * initial_accumulator_value 0.1). Fields a kind does not use are ignored. */
typedef struct TG_OptimizerOptions {
  size_t struct_size; /* sizeof(TG_OptimizerOptions) */
  TG_OptimizerKind kind;
  double learning_rate;
  /* A scalar tensor used instead of learning_rate when its oper is not NULL (decay
   * schedules). */
  TG_Output learning_rate_tensor;
  double momentum;      /* Momentum, RMSProp */
  int use_nesterov;     /* Momentum */
  double beta1, beta2;  /* Adam */
  double epsilon;       /* Adam, RMSProp */
  double decay;         /* RMSProp's rho */
  int centered;         /* RMSProp */
  double initial_accumulator_value; /* Adagrad */
  int use_locking;
  /* The name scope of the update ops and the suffix of slot variables ("W/Adam"); NULL:
   * the kind's TensorFlow name ("Adam", ...). Copied. */
  const char* name;
  /* > 0: minimize scales the gradients by clip_norm / max(global_norm, clip_norm). */
  double clip_norm;
} TG_OptimizerOptions;

typedef struct TG_Optimizer TG_Optimizer;

TG_CAPI_EXPORT extern void TG_InitOptimizerOptions(TG_OptimizerOptions* opts, TG_OptimizerKind kind);
/* An optimizer (it remembers its slot variables across calls). INVALID_ARGUMENT for bad
 * hyper-parameters. Delete with TG_DeleteOptimizer; the ops it built stay in the graph. */
TG_CAPI_EXPORT extern TG_Optimizer* TG_NewOptimizer(const TG_OptimizerOptions* opts,
                                                    TG_Status* status);
TG_CAPI_EXPORT extern void TG_DeleteOptimizer(TG_Optimizer* opt);

/* optimizer.minimize(loss, global_step, var_list): gradients of `loss` with respect to
 * var_list (n == 0: every trainable variable), clipping when clip_norm > 0, and one update
 * op per variable; returns the training op to run as a target. With a global step
 * (TG_GraphGetOrCreateGlobalStep, or NULL) the step is incremented after the updates. */
TG_CAPI_EXPORT extern TG_Operation* TG_OptimizerMinimize(TG_Optimizer* opt, TG_Graph* g,
                                                         TG_Output loss,
                                                         TG_Variable* const* var_list, int n,
                                                         TG_Variable* global_step,
                                                         TG_Status* status);
/* compute_gradients: for each variable of var_list (n == 0: every trainable one, then
 * *num_vars tells how many; the arrays must hold that many -- call with NULL arrays and
 * max == 0 to learn it), the gradient as in TG_AddGradientsSparse (values; indices and
 * dense_shape only for sparse gradients; values.oper NULL = no gradient) and the variable.
 * Fills at most `max` entries. */
TG_CAPI_EXPORT extern void TG_OptimizerComputeGradients(
    TG_Optimizer* opt, TG_Graph* g, TG_Output loss, TG_Variable* const* var_list, int n,
    TG_Output* grad_values, TG_Output* grad_indices, TG_Output* grad_dense_shape,
    TG_Variable** vars, int max, int* num_vars, TG_Status* status);
/* apply_gradients over n (gradient, variable) pairs as compute_gradients returns them
 * (possibly transformed by the caller); `name` may be NULL. */
TG_CAPI_EXPORT extern TG_Operation* TG_OptimizerApplyGradients(
    TG_Optimizer* opt, TG_Graph* g, const TG_Output* grad_values, const TG_Output* grad_indices,
    const TG_Output* grad_dense_shape, TG_Variable* const* vars, int n, TG_Variable* global_step,
    const char* name, TG_Status* status);
/* The slot variable of `var` (Adam: "m", "v"; Momentum: "momentum"; RMSProp: "rms",
 * "momentum", "mg"; Adagrad: "accumulator"), or NULL if none was made. */
TG_CAPI_EXPORT extern TG_Variable* TG_OptimizerGetSlot(const TG_Optimizer* opt,
                                                       const TG_Variable* var,
                                                       const char* slot_name);

/* tf.train.get_or_create_global_step(): the int64 scalar variable "global_step" (zero, not
 * trainable, in the "global_step" collection). */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphGetOrCreateGlobalStep(TG_Graph* g, TG_Status* status);

/* ===================================================================================== */
/* Training builders: initializers, random seeds, embedding lookup, dropout, losses      */
/* ===================================================================================== */

/* tf.set_random_seed(seed): the graph-level seed. Random ops built afterwards take TF 1.x's
 * seeds (random_seed.get_seed): graph seed + op seed, or graph seed + the number of ops made
 * so far when the op has none; with only an op seed the graph seed is 87654321; with
 * neither the op is nondeterministic. A seeded graph draws the same numbers in every fresh
 * session (a session's later runs draw new ones). */
TG_CAPI_EXPORT extern void TG_GraphSetRandomSeed(TG_Graph* g, int64_t seed, TG_Status* status);
/* 1 and *seed set when the graph has a graph-level seed, else 0. */
TG_CAPI_EXPORT extern int TG_GraphGetRandomSeed(TG_Graph* g, int64_t* seed);

/* TensorFlow's initializers (tf.zeros_initializer, tf.ones_initializer,
 * tf.constant_initializer, tf.random_normal_initializer, tf.random_uniform_initializer,
 * tf.truncated_normal_initializer, tf.glorot_uniform_initializer). */
typedef enum TG_InitializerKind {
  TG_INIT_ZEROS = 0,
  TG_INIT_ONES = 1,
  TG_INIT_CONSTANT = 2,         /* `tensor` if not NULL, else `value` */
  TG_INIT_RANDOM_NORMAL = 3,    /* mean + stddev * N(0, 1) */
  TG_INIT_RANDOM_UNIFORM = 4,   /* U[minval, maxval) */
  TG_INIT_TRUNCATED_NORMAL = 5, /* as normal, redrawn beyond 2 stddev */
  TG_INIT_GLOROT_UNIFORM = 6    /* U[-l, l), l = sqrt(6 / (fan_in + fan_out)) (TF's fans) */
} TG_InitializerKind;

typedef struct TG_Initializer {
  size_t struct_size; /* sizeof(TG_Initializer); set by TG_InitInitializer */
  TG_InitializerKind kind;
  double value;            /* TG_INIT_CONSTANT without a tensor */
  /* TG_INIT_CONSTANT: a scalar (filled) or a tensor with as many elements as the shape (taken
   * in row-major order), of the variable's dtype. Copied; may be NULL. */
  const TG_Tensor* tensor;
  double mean, stddev;     /* normal kinds (defaults 0, 1) */
  double minval, maxval;   /* uniform (defaults 0, 1) */
  int has_seed;            /* nonzero: `seed` is the op-level seed */
  int64_t seed;
} TG_Initializer;

/* Fills `init` with TensorFlow's defaults for `kind` (value 0, mean 0, stddev 1, minval 0,
 * maxval 1, no seed). */
TG_CAPI_EXPORT extern void TG_InitInitializer(TG_Initializer* init, TG_InitializerKind kind);

/* The initializer's value for dims[0, num_dims) (fully defined) and `dtype`, built under the
 * current name scope with TF's names ("zeros", "Const", "random_uniform/RandomUniform", ...).
 * Zeros, ones and constants take float, double and integer dtypes; the random kinds float or
 * double. Zeros and ones of 1000 elements or more are a Fill, as in TF. */
TG_CAPI_EXPORT extern TG_Output TG_InitializerValue(TG_Graph* g, const TG_Initializer* init,
                                                    TG_DataType dtype, const int64_t* dims,
                                                    int num_dims, TG_Status* status);
/* tf.get_variable(name, shape, dtype, initializer=...): as TG_GraphGetVariable, the value built
 * under "<var>/Initializer/" (e.g. "W/Initializer/random_uniform"). dtype TG_INVALID_DTYPE =
 * TG_FLOAT. */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphGetVariableWithInit(
    TG_Graph* g, const char* name, TG_DataType dtype, const int64_t* dims, int num_dims,
    const TG_Initializer* init, const TG_VariableOptions* opts, TG_Status* status);
/* tf.Variable(lambda: initializer(shape, dtype), name=opts->name): a new variable whose
 * value is built under "<var>/Initializer/". */
TG_CAPI_EXPORT extern TG_Variable* TG_GraphNewVariableWithInit(
    TG_Graph* g, const TG_Initializer* init, TG_DataType dtype, const int64_t* dims,
    int num_dims, const TG_VariableOptions* opts, TG_Status* status);

/* In the functions below `name` NULL or "" takes TensorFlow's default; the name opens a name
 * scope (made unique) under the current one. */

/* tf.nn.embedding_lookup(params, ids): GatherV2 on axis 0 named as the scope (default
 * "embedding_lookup"), colocated with params' op, followed by "<scope>/Identity" (the result).
 * ids int32/int64 of any shape. Its gradient with respect to params is sparse (see
 * TG_AddGradientsSparse), so optimizers update only the rows looked up. */
TG_CAPI_EXPORT extern TG_Output TG_EmbeddingLookup(TG_Graph* g, TG_Output params, TG_Output ids,
                                                   const char* name, TG_Status* status);
/* tf.nn.dropout(x, keep_prob, seed) of TF 1.x (rate = 1 - keep_prob):
 * x / keep_prob * floor(keep_prob + U[0, 1)), under "dropout". keep_prob_tensor, when its
 * oper is not NULL, is a scalar of x's dtype used instead of `keep_prob` (e.g. a placeholder
 * fed 1 at evaluation). A constant keep_prob must be in (0, 1]; 1 returns x itself. `seed`
 * NULL: no op-level seed. x float or double. */
TG_CAPI_EXPORT extern TG_Output TG_Dropout(TG_Graph* g, TG_Output x, double keep_prob,
                                           TG_Output keep_prob_tensor, const int64_t* seed,
                                           const char* name, TG_Status* status);
/* tf.nn.l2_loss(t): the L2Loss op (sum(t^2) / 2), named `name` (default "L2Loss"). */
TG_CAPI_EXPORT extern TG_Output TG_L2Loss(TG_Graph* g, TG_Output t, const char* name,
                                          TG_Status* status);
/* tf.nn.sigmoid_cross_entropy_with_logits(labels, logits): element-wise
 * max(x, 0) - x * z + log(1 + exp(-|x|)) under "logistic_loss" (the result is the op named
 * as the scope). labels and logits: same float dtype and shape. */
TG_CAPI_EXPORT extern TG_Output TG_SigmoidCrossEntropyWithLogits(TG_Graph* g, TG_Output labels,
                                                                 TG_Output logits,
                                                                 const char* name,
                                                                 TG_Status* status);

typedef struct TG_NceLossOptions {
  size_t struct_size;         /* sizeof(TG_NceLossOptions); set by TG_InitNceLossOptions */
  int num_true;               /* labels per example (default 1) */
  int remove_accidental_hits; /* nonzero: sampled candidates equal to a true label count 0 */
  int has_seed;               /* nonzero: `seed` is the sampler's op-level seed */
  int64_t seed;
  /* TF's sampled_values: NULL, or 3 tensors (sampled_candidates [num_sampled] int64,
   * true_expected_count [batch, num_true], sampled_expected_count [num_sampled]) used
   * instead of a LogUniformCandidateSampler. */
  const TG_Output* sampled_values;
  const char* name;           /* NULL: "nce_loss" */
} TG_NceLossOptions;

TG_CAPI_EXPORT extern void TG_InitNceLossOptions(TG_NceLossOptions* opts);
/* tf.nn.nce_loss(weights [num_classes, dim], biases [num_classes], labels [batch, num_true]
 * int32/int64, inputs [batch, dim], num_sampled, num_classes): the per-example NCE loss
 * [batch] (the op "<scope>", default scope "nce_loss"). Without sampled_values, a
 * LogUniformCandidateSampler (unique, range_max = num_classes) draws num_sampled classes per
 * run; the logits of true and sampled classes, less the log of their expected counts, go
 * through the sigmoid cross entropy with labels 1/num_true and 0, summed per example.
 * Differentiable with respect to weights and biases (sparse gradients) and inputs. weights,
 * biases and inputs share one float dtype. `opts` may be NULL (defaults). */
TG_CAPI_EXPORT extern TG_Output TG_NceLoss(TG_Graph* g, TG_Output weights, TG_Output biases,
                                           TG_Output labels, TG_Output inputs,
                                           int64_t num_sampled, int64_t num_classes,
                                           const TG_NceLossOptions* opts, TG_Status* status);

/* ===================================================================================== */
/* GraphDef import and export                                                            */
/* ===================================================================================== */

/* The graph as a serialized GraphDef (deterministic bytes), written into `output`. */
TG_CAPI_EXPORT extern void TG_GraphToGraphDef(TG_Graph* g, TG_Buffer* output_graph_def,
                                              TG_Status* status);
/* The graph as a text-format GraphDef (not NUL-terminated; length in output->length). */
TG_CAPI_EXPORT extern void TG_GraphToGraphDefText(TG_Graph* g, TG_Buffer* output_text,
                                                  TG_Status* status);

/* Caller owns: TG_DeleteImportGraphDefOptions. */
typedef struct TG_ImportGraphDefOptions TG_ImportGraphDefOptions;
TG_CAPI_EXPORT extern TG_ImportGraphDefOptions* TG_NewImportGraphDefOptions(void);
TG_CAPI_EXPORT extern void TG_DeleteImportGraphDefOptions(TG_ImportGraphDefOptions* opts);
/* Prefix for imported names: "scope" makes "scope/x", made unique like a name scope
 * ("scope_1" when taken); a prefix ending in '/' is used as is. Default none, as
 * TF_NewImportGraphDefOptions (Python's import_graph_def passes "import"). NULL or "" =
 * none. Copied. */
TG_CAPI_EXPORT extern void TG_ImportGraphDefOptionsSetPrefix(TG_ImportGraphDefOptions* opts,
                                                             const char* prefix);
/* Uses `dst` (a tensor of the destination graph) wherever the GraphDef uses
 * src_name:src_index. */
TG_CAPI_EXPORT extern void TG_ImportGraphDefOptionsAddInputMapping(
    TG_ImportGraphDefOptions* opts, const char* src_name, int src_index, TG_Output dst);
/* Imported ops without inputs get a control input on `oper` (of the destination graph). */
TG_CAPI_EXPORT extern void TG_ImportGraphDefOptionsAddControlDependency(
    TG_ImportGraphDefOptions* opts, TG_Operation* oper);
/* Asks for the imported tensor oper_name:index (a name of the GraphDef, before the prefix). */
TG_CAPI_EXPORT extern void TG_ImportGraphDefOptionsAddReturnOutput(
    TG_ImportGraphDefOptions* opts, const char* oper_name, int index);
TG_CAPI_EXPORT extern int TG_ImportGraphDefOptionsNumReturnOutputs(
    const TG_ImportGraphDefOptions* opts);
TG_CAPI_EXPORT extern void TG_ImportGraphDefOptionsAddReturnOperation(
    TG_ImportGraphDefOptions* opts, const char* oper_name);
TG_CAPI_EXPORT extern int TG_ImportGraphDefOptionsNumReturnOperations(
    const TG_ImportGraphDefOptions* opts);
/* Nonzero: the TG_Buffer given to import holds a text-format GraphDef (default 0: binary). */
TG_CAPI_EXPORT extern void TG_ImportGraphDefOptionsSetTextFormat(TG_ImportGraphDefOptions* opts,
                                                                 int text_format);
/* Nonzero (default): `_class` colocation attrs must name ops that exist. */
TG_CAPI_EXPORT extern void TG_ImportGraphDefOptionsSetValidateColocationConstraints(
    TG_ImportGraphDefOptions* opts, int enable);

/* Imports every node of the GraphDef in `graph_def` into `g`, all or nothing: on failure
 * the graph is unchanged and the status names the offending node. `opts` may be NULL
 * (defaults). */
TG_CAPI_EXPORT extern void TG_GraphImportGraphDef(TG_Graph* g, const TG_Buffer* graph_def,
                                                  const TG_ImportGraphDefOptions* opts,
                                                  TG_Status* status);

/* Functions (GraphDef.library, TF's FunctionDefLibrary). Import adds a GraphDef's library
 * to the graph's, export writes it back; PartitionedCall / StatefulPartitionedCall, If /
 * StatelessIf, While / StatelessWhile and Case / StatelessCase nodes call them by name (a
 * `func` attr, set with TG_SetAttrValueProto), and run their bodies when a session runs
 * the node. */
/* How many functions the graph's library holds (0 for a NULL graph). */
TG_CAPI_EXPORT extern int TG_GraphNumFunctions(TG_Graph* g);
/* Adds the functions and gradient pairings of a serialized FunctionDefLibrary, all or
 * nothing: INVALID_ARGUMENT for bytes that do not parse, a function without a name or twice
 * in the bytes, or a name the graph holds with another definition (the same definition
 * again is fine). Function bodies are checked when a plan first runs a node calling them. */
TG_CAPI_EXPORT extern void TG_GraphAddFunctionLibrary(TG_Graph* g, const void* proto,
                                                      size_t proto_len, TG_Status* status);
/* The graph's library as a serialized FunctionDefLibrary (functions sorted by name). */
TG_CAPI_EXPORT extern void TG_GraphGetFunctionLibrary(TG_Graph* g, TG_Buffer* output,
                                                      TG_Status* status);

/* Caller owns: TG_DeleteImportGraphDefResults. */
typedef struct TG_ImportGraphDefResults TG_ImportGraphDefResults;
/* As TG_GraphImportGraphDef; returns NULL on failure. */
TG_CAPI_EXPORT extern TG_ImportGraphDefResults* TG_GraphImportGraphDefWithResults(
    TG_Graph* g, const TG_Buffer* graph_def, const TG_ImportGraphDefOptions* opts,
    TG_Status* status);
/* *outputs points into `results` (valid until it is deleted), in the order asked for. */
TG_CAPI_EXPORT extern void TG_ImportGraphDefResultsReturnOutputs(
    TG_ImportGraphDefResults* results, int* num_outputs, TG_Output** outputs);
TG_CAPI_EXPORT extern void TG_ImportGraphDefResultsReturnOperations(
    TG_ImportGraphDefResults* results, int* num_opers, TG_Operation*** opers);
/* Input mappings whose source was not found in the GraphDef. Arrays and names point into
 * `results`. */
TG_CAPI_EXPORT extern void TG_ImportGraphDefResultsMissingUnusedInputMappings(
    TG_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes);
TG_CAPI_EXPORT extern void TG_DeleteImportGraphDefResults(TG_ImportGraphDefResults* results);

/* ===================================================================================== */
/* Sessions                                                                              */
/* ===================================================================================== */

/* A session runs the fragment of a graph needed for what a run fetches and targets, and
 * keeps state between runs: variable values live in the session (two sessions on one graph
 * have separate variables) for its whole life. The graph must outlive the session; it may
 * grow while the session exists (new operations can be run by later calls). A session is
 * thread-safe: TG_SessionRun calls may overlap. */
typedef struct TG_SessionOptions TG_SessionOptions;
typedef struct TG_Session TG_Session;
typedef struct TG_RunOptions TG_RunOptions;
typedef struct TG_RunMetadata TG_RunMetadata;

/* Defaults: as many inter-op and intra-op threads as the machine has hardware threads, no
 * soft placement, no placement log, not deterministic, default device /device:CPU:0, every
 * graph rewrite on (TG_SetSessionRewrite). */
TG_CAPI_EXPORT extern TG_SessionOptions* TG_NewSessionOptions(void);
TG_CAPI_EXPORT extern void TG_DeleteSessionOptions(TG_SessionOptions* options);
/* <= 0: the number of hardware threads. 1 inter-op thread runs every node on the caller. */
TG_CAPI_EXPORT extern void TG_SetSessionInterOpThreads(TG_SessionOptions* options, int threads);
TG_CAPI_EXPORT extern void TG_SetSessionIntraOpThreads(TG_SessionOptions* options, int threads);
/* Non-zero: an op whose requested device does not exist or has no kernel for it runs on a
 * device that has one. Zero: such a run fails with TG_INVALID_ARGUMENT naming the op, the
 * requested device and the devices that have a kernel. */
TG_CAPI_EXPORT extern void TG_SetSessionAllowSoftPlacement(TG_SessionOptions* options, int allow);
/* Non-zero: when a run is planned, each op's device is written to standard error as
 * "name (Type): /device:CPU:0". */
TG_CAPI_EXPORT extern void TG_SetSessionLogDevicePlacement(TG_SessionOptions* options, int log);
/* Non-zero: one order of execution for every run on every platform (ops run one at a time
 * on the calling thread, in topological order with ties broken by creation order), so
 * stateful ops without control dependencies between them always run in the same order. */
TG_CAPI_EXPORT extern void TG_SetSessionDeterministic(TG_SessionOptions* options, int on);
/* Where ops without a device request run, e.g. "/device:CPU:0". Checked by TG_NewSession. */
TG_CAPI_EXPORT extern void TG_SetSessionDefaultDevice(TG_SessionOptions* options,
                                                      const char* device);
/* Switches one plan-time graph rewrite on (non-zero) or off, like TensorFlow's grappler
 * RewriterConfig; all but "auto_mixed_precision" are on by default. Rewrites apply to the
 * plan of each run, never to the graph, and (but for auto_mixed_precision's rounding) leave
 * every fetched value unchanged; they never touch ops that are fetched, fed, targets,
 * stateful, on a device other than the CPU, or in a fragment with control flow. Names:
 *   "constant_folding"            stateless ops with constant inputs computed once, at plan
 *                                 time: Const ops in their place
 *   "common_subgraph_elimination" of identical ops (type, inputs, attrs, device) one runs
 *   "identity_removal"            Identity ops bypassed, NoOps turned into direct control edges
 *   "arithmetic_optimization"     x*1, x+0, x-0, Neg(Neg(x)), inverse Transposes become x
 *   "dependency_optimization"     stateless work that only NoOps wait for is dropped
 *   "remapping"                   MatMul / Conv2D + BiasAdd (+ Relu, Relu6, Elu or LeakyRelu)
 *                                 fused into one _FusedMatMul / _FusedConv2D; MaxPoolGrad +
 *                                 ReluGrad into one _FusedMaxPoolGrad, whose second output
 *                                 (the per-channel sums) stands in for a BiasAddGrad of the
 *                                 ReluGrad's result
 *   "auto_mixed_precision"        off by default: the contractions (MatMul, BatchMatMulV2,
 *                                 Conv2D, _FusedMatMul, _FusedConv2D, Conv2DBackpropInput,
 *                                 Conv2DBackpropFilter) run in bfloat16 where the CPU has
 *                                 native bf16 kernels (oneDNN's, AVX512_BF16 or AMX), and so do
 *                                 BiasAdd, BiasAddGrad, Relu, ReluGrad, Relu6, Relu6Grad,
 *                                 MaxPool, MaxPoolGrad and Reshape ops whose inputs are bf16
 *                                 already; Cast ops (float to bfloat16 and back) keep weights,
 *                                 loss and every other op float; elsewhere it changes nothing
 *   "all"                         every one of them ("all" on leaves auto_mixed_precision as
 *                                 it is; "all" off switches it off too).
 * TG_INVALID_ARGUMENT naming the known names for another name (or a NULL one). */
TG_CAPI_EXPORT extern void TG_SetSessionRewrite(TG_SessionOptions* options, const char* name,
                                                int on, TG_Status* status);

/* A new session on `graph` (which must outlive it), with the devices of the plugins loaded
 * so far. `options` may be NULL (defaults); it is only read during the call. */
TG_CAPI_EXPORT extern TG_Session* TG_NewSession(TG_Graph* graph, const TG_SessionOptions* options,
                                                TG_Status* status);
/* Waits for runs in flight; later runs fail with TG_FAILED_PRECONDITION. Idempotent. */
TG_CAPI_EXPORT extern void TG_CloseSession(TG_Session* session, TG_Status* status);
/* Closes (if needed) and frees the session and its variable values. NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_DeleteSession(TG_Session* session, TG_Status* status);

/* The session's devices: names like "/device:CPU:0", their type ("CPU") and a description.
 * Strings are owned by the session and live as long as it does; NULL for an index out of
 * range. */
TG_CAPI_EXPORT extern int TG_SessionNumDevices(const TG_Session* session);
TG_CAPI_EXPORT extern const char* TG_SessionDeviceName(const TG_Session* session, int index);
TG_CAPI_EXPORT extern const char* TG_SessionDeviceType(const TG_Session* session, int index);
TG_CAPI_EXPORT extern const char* TG_SessionDeviceDescription(const TG_Session* session,
                                                              int index);

/* Run options: trace_level > 0 collects per-node step stats into the run metadata. */
TG_CAPI_EXPORT extern TG_RunOptions* TG_NewRunOptions(void);
TG_CAPI_EXPORT extern void TG_DeleteRunOptions(TG_RunOptions* options);
TG_CAPI_EXPORT extern void TG_SetRunOptionsTraceLevel(TG_RunOptions* options, int trace_level);

/* What a traced run recorded: one entry per executed node, in completion order. Strings
 * are owned by the metadata and live until it is deleted or reused by another run. Copies
 * the session inserts between memory spaces are entries too: op type "_Copy", named after
 * the tensor copied, on the device that is not the host side of the copy. */
TG_CAPI_EXPORT extern TG_RunMetadata* TG_NewRunMetadata(void);
TG_CAPI_EXPORT extern void TG_DeleteRunMetadata(TG_RunMetadata* metadata);
TG_CAPI_EXPORT extern int TG_RunMetadataNumNodes(const TG_RunMetadata* metadata);
TG_CAPI_EXPORT extern const char* TG_RunMetadataNodeName(const TG_RunMetadata* metadata, int i);
TG_CAPI_EXPORT extern const char* TG_RunMetadataNodeOpType(const TG_RunMetadata* metadata, int i);
TG_CAPI_EXPORT extern const char* TG_RunMetadataNodeDevice(const TG_RunMetadata* metadata, int i);
/* Nanoseconds since the run started, and the node's duration. -1 for a bad index. */
TG_CAPI_EXPORT extern int64_t TG_RunMetadataNodeStartNs(const TG_RunMetadata* metadata, int i);
TG_CAPI_EXPORT extern int64_t TG_RunMetadataNodeDurationNs(const TG_RunMetadata* metadata, int i);
/* Bytes of the node's outputs. -1 for a bad index. */
TG_CAPI_EXPORT extern int64_t TG_RunMetadataNodeOutputBytes(const TG_RunMetadata* metadata,
                                                            int i);
/* Which thread ran the node: 0 the thread that called TG_SessionRun, k > 0 the k-th thread
 * of the session's inter-op pool (a timeline's rows; TensorFlow's NodeExecStats.thread_id).
 * -1 for a bad index. */
TG_CAPI_EXPORT extern int TG_RunMetadataNodeThreadId(const TG_RunMetadata* metadata, int i);
/* Host memory the traced run allocated for tensors (outputs, temporaries, copies): the most
 * held at once, and the sum of all allocations. Forwarded and reused buffers, feeds and
 * in-place variable updates allocate nothing. 0 for an untraced run, -1 for NULL. */
TG_CAPI_EXPORT extern int64_t TG_RunMetadataPeakBytes(const TG_RunMetadata* metadata);
TG_CAPI_EXPORT extern int64_t TG_RunMetadataAllocatedBytes(const TG_RunMetadata* metadata);

/* Runs the fragment of the graph needed for `outputs` and `target_opers`.
 *   inputs/input_values[ninputs]: feeds. Any tensor of the graph can be fed (not only a
 *     placeholder); its value replaces the tensor and what computes it is not run. Feeds
 *     are checked (dtype, shape against the tensor's static shape) before anything runs.
 *     The values are only read during the call (the caller still owns them).
 *   outputs[noutputs]: fetches; output_values[i] receives a new tensor the caller owns
 *     (TG_DeleteTensor), or NULL when the run fails. A tensor fetched several times is
 *     computed once; fetch order changes nothing else.
 *   target_opers[ntargets]: ops to run for their effects; nothing is returned for them.
 *   run_options, run_metadata: may be NULL.
 * Errors: TG_INVALID_ARGUMENT for a needed placeholder that is not fed (naming it, its
 * dtype and shape) or a bad feed; TG_FAILED_PRECONDITION for reading an uninitialized
 * variable (naming it) or a closed session; a kernel's error names its node. A failed run
 * leaves nothing running when it returns. With control flow (Switch, Merge, Enter, ...):
 * TG_INVALID_ARGUMENT for a fetch that is dead in this run (on an untaken branch:
 * "Retval[i] does not have value", naming it), for a fetch inside a while loop, for inputs
 * from two frames, and for a cycle not closed by NextIteration -> Merge (naming its nodes). */
TG_CAPI_EXPORT extern void TG_SessionRun(TG_Session* session, const TG_RunOptions* run_options,
                                         const TG_Output* inputs,
                                         TG_Tensor* const* input_values, int ninputs,
                                         const TG_Output* outputs, TG_Tensor** output_values,
                                         int noutputs, const TG_Operation* const* target_opers,
                                         int ntargets, TG_RunMetadata* run_metadata,
                                         TG_Status* status);

/* ===================================================================================== */
/* Plugins                                                                               */
/* ===================================================================================== */

/* Plugins are shared libraries built against tgraph/plugin.h that bring op definitions,
 * kernels, devices, checkpoint savers and gradient functions. They are loaded at run time
 * with local symbol binding (two plugins never see each other's symbols).
 *
 * A loaded plugin stays loaded for the life of the process (graphs, plans and sessions may
 * use what it registered at any time), so TG_Plugin handles and every string the accessors
 * below return are owned by the library and valid until the process exits; never free
 * them. A plugin that fails to load registers nothing; the status names the file and the
 * reason, and the process goes on. Loading is thread-safe (loads are serialised). */
typedef struct TG_Plugin TG_Plugin;

/* The plugin ABI version (TG_PLUGIN_ABI_VERSION) this library implements: plugins that
 * declare this version or an older one load; newer ones are refused. */
TG_CAPI_EXPORT extern uint32_t TG_CorePluginAbiVersion(void);

/* Loads the plugin at `path` and returns it, or NULL with the status set: TG_NOT_FOUND (no
 * such file, no TG_PluginInit, a kernel for an unknown op), TG_INVALID_ARGUMENT (not a
 * shared library, a malformed registration), TG_FAILED_PRECONDITION (built for a newer
 * ABI), TG_ALREADY_EXISTS (an op, kernel, device or saver registered before), or the code
 * the plugin's init failed with. Loading the same file again (by canonical path) returns
 * the first load and does nothing else. */
TG_CAPI_EXPORT extern const TG_Plugin* TG_LoadPlugin(const char* path, TG_Status* status);

/* Discovery: loads every plugin in, in this order, the entries of TGRAPH_PLUGIN_PATH
 * (colon-separated plugin files or directories), the install's plugin directory, and the
 * plugin directories next to libtgraph (<libdir>/tgraph/plugins for a relocated install,
 * plugins/ in the build tree). In a directory every "*.so" file is a plugin; a file whose
 * name matches an already loaded plugin's is skipped (the first one found wins), and of
 * the CPU variants of a plugin only the best one is loaded (below). Every
 * file is tried: returns how many plugins this call loaded; the status is TG_OK if none
 * failed, else the first failure's code with every failure's message. */
TG_CAPI_EXPORT extern int TG_LoadPluginsFromSearchPath(TG_Status* status);

/* The discovery entries above, in order, joined with ':' (not NUL-terminated). */
TG_CAPI_EXPORT extern void TG_GetPluginSearchPath(TG_Buffer* output, TG_Status* status);

/* Loaded plugins, in load order; TG_GetPlugin returns NULL for an index out of range. */
TG_CAPI_EXPORT extern int TG_NumPlugins(void);
TG_CAPI_EXPORT extern const TG_Plugin* TG_GetPlugin(int index);

/* What the plugin declared about itself; NULL plugin: "" (0 for the ABI version). */
TG_CAPI_EXPORT extern const char* TG_PluginName(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern const char* TG_PluginVersion(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern uint32_t TG_PluginAbiVersion(const TG_Plugin* plugin);
/* The library's canonical path. */
TG_CAPI_EXPORT extern const char* TG_PluginFile(const TG_Plugin* plugin);

/* What it registered, in registration order. Counts are 0 and names NULL for a NULL plugin
 * or an index out of range. */
TG_CAPI_EXPORT extern int TG_PluginNumOps(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern const char* TG_PluginOpName(const TG_Plugin* plugin, int i);
TG_CAPI_EXPORT extern int TG_PluginNumKernels(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern const char* TG_PluginKernelOpType(const TG_Plugin* plugin, int i);
TG_CAPI_EXPORT extern const char* TG_PluginKernelDeviceType(const TG_Plugin* plugin, int i);
TG_CAPI_EXPORT extern int TG_PluginNumDevices(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern const char* TG_PluginDeviceType(const TG_Plugin* plugin, int i);
TG_CAPI_EXPORT extern int TG_PluginNumSavers(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern const char* TG_PluginSaverFormat(const TG_Plugin* plugin, int i);
TG_CAPI_EXPORT extern int TG_PluginNumGradients(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern const char* TG_PluginGradientOpType(const TG_Plugin* plugin, int i);
/* Kernels of other plugins (or of the core) that one of its kernels outranks for some node
 * (a higher priority, overlapping type constraints), one line each: "kernel Relu on CPU
 * [T in {float}] priority 10 overrides Relu on CPU [...] priority 0 of plugin 'cpu'". */
TG_CAPI_EXPORT extern int TG_PluginNumKernelOverrides(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern const char* TG_PluginKernelOverride(const TG_Plugin* plugin, int i);

/* What the plugin logged while it loaded ("INFO: ...", "WARNING: ..."), whether or not it
 * was printed: e.g. why a GPU backend found no device. NULL for an index out of range. */
TG_CAPI_EXPORT extern int TG_PluginNumMessages(const TG_Plugin* plugin);
TG_CAPI_EXPORT extern const char* TG_PluginMessage(const TG_Plugin* plugin, int i);

/* ---- CPU variants ----
 * A plugin may be shipped built for several x86-64 ISA levels, as files
 * "<name>.<level>.so" with <level> one of "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"
 * (e.g. libtgraph_cpu.x86-64-v3.so). Discovery loads only the best one the running CPU
 * supports (read from the CPU at run time), capped by the environment variable
 * TGRAPH_CPU_VARIANT=<level>; TG_LoadPlugin("<dir>/<name>.so") of a file that does not exist
 * loads that best variant; TG_LoadPlugin of a variant file the CPU cannot run fails with
 * TG_FAILED_PRECONDITION naming the missing features, before any of its code runs. */

/* The plugin's level, e.g. "x86-64-v3"; "" when its file is not a CPU variant. */
TG_CAPI_EXPORT extern const char* TG_PluginCpuVariant(const TG_Plugin* plugin);
/* The best level this process loads: the CPU's, lowered by TGRAPH_CPU_VARIANT. */
TG_CAPI_EXPORT extern const char* TG_CpuVariantLevel(void);

/* ---- what discovery found ----
 * Each plugin file the last TG_LoadPluginsFromSearchPath call considered, in search order,
 * and what became of it. Strings are valid until the process exits. */
typedef enum TG_PluginOutcome {
  TG_PLUGIN_LOADED = 0,             /* loaded by that call or before it */
  TG_PLUGIN_SHADOWED = 1,           /* a file of the same name was loaded from earlier */
  TG_PLUGIN_VARIANT_NOT_CHOSEN = 2, /* another CPU variant of it was chosen, or none runs */
  TG_PLUGIN_FAILED = 3              /* the load failed: the reason is the status message */
} TG_PluginOutcome;
TG_CAPI_EXPORT extern int TG_NumPluginCandidates(void);
/* The path as found on the search path; NULL for an index out of range. */
TG_CAPI_EXPORT extern const char* TG_PluginCandidateFile(int index);
/* TG_PLUGIN_FAILED for an index out of range. */
TG_CAPI_EXPORT extern TG_PluginOutcome TG_PluginCandidateOutcome(int index);
/* Why it was not loaded; "" when it was (and for an index out of range). */
TG_CAPI_EXPORT extern const char* TG_PluginCandidateReason(int index);
/* The plugin, when loaded; NULL otherwise. */
TG_CAPI_EXPORT extern const TG_Plugin* TG_PluginCandidatePlugin(int index);

/* Always refused with TG_FAILED_PRECONDITION (TG_INVALID_ARGUMENT for NULL): plugins stay
 * loaded for the life of the process, so nothing can be left pointing into an unloaded
 * library. */
TG_CAPI_EXPORT extern void TG_UnloadPlugin(const TG_Plugin* plugin, TG_Status* status);

/* ===================================================================================== */
/* The op registry                                                                       */
/* ===================================================================================== */

/* Every op this process can build: the standard set and what loaded plugins defined. */

/* The number of registered ops. Loading a plugin may add more. */
TG_CAPI_EXPORT extern int TG_NumRegisteredOps(void);
/* Op `index` in name order (as of this call: a plugin loaded in between shifts the order);
 * NULL for an index out of range. Owned by the library; valid until the process exits. */
TG_CAPI_EXPORT extern const char* TG_RegisteredOpName(int index);

/* A snapshot of one op's definition and of what can run it. Caller owns: TG_DeleteOpInfo.
 * Strings are owned by the snapshot (valid until it is deleted); kernels registered after it
 * was taken are not in it. */
typedef struct TG_OpInfo TG_OpInfo;
/* TG_NOT_FOUND naming the op when no op of that type is registered. */
TG_CAPI_EXPORT extern TG_OpInfo* TG_NewOpInfo(const char* op_type, TG_Status* status);
/* NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_DeleteOpInfo(TG_OpInfo* info);
TG_CAPI_EXPORT extern const char* TG_OpInfoName(const TG_OpInfo* info);
/* The one-line summary the definition gives ("" if none). */
TG_CAPI_EXPORT extern const char* TG_OpInfoSummary(const TG_OpInfo* info);
TG_CAPI_EXPORT extern int TG_OpInfoIsStateful(const TG_OpInfo* info);
/* Arguments and attrs, in definition order, spelled as TensorFlow's REGISTER_OP specs:
 * inputs/outputs "a: T", "values: N * T", "ref: Ref(T)", "y: float"; attrs
 * "T: {float, double}", "N: int >= 1", "padding: {'SAME', 'VALID'} = 'SAME'",
 * "transpose_a: bool = false". Counts are 0 and specs NULL for a NULL info or an index out
 * of range. */
TG_CAPI_EXPORT extern int TG_OpInfoNumInputs(const TG_OpInfo* info);
TG_CAPI_EXPORT extern const char* TG_OpInfoInput(const TG_OpInfo* info, int i);
TG_CAPI_EXPORT extern int TG_OpInfoNumOutputs(const TG_OpInfo* info);
TG_CAPI_EXPORT extern const char* TG_OpInfoOutput(const TG_OpInfo* info, int i);
TG_CAPI_EXPORT extern int TG_OpInfoNumAttrs(const TG_OpInfo* info);
TG_CAPI_EXPORT extern const char* TG_OpInfoAttr(const TG_OpInfo* info, int i);
/* The device types ("CPU", "GPU", ...) with at least one kernel for the op, sorted (for TF1
 * control flow, Switch, Merge, Enter, ..., which the executor runs itself: every device type
 * registered). */
TG_CAPI_EXPORT extern int TG_OpInfoNumKernelDeviceTypes(const TG_OpInfo* info);
TG_CAPI_EXPORT extern const char* TG_OpInfoKernelDeviceType(const TG_OpInfo* info, int i);
/* The plugin that defined the op; NULL for the core's own ops. */
TG_CAPI_EXPORT extern const TG_Plugin* TG_OpInfoPlugin(const TG_OpInfo* info);

/* ===================================================================================== */
/* GraphDef summaries                                                                    */
/* ===================================================================================== */

/* What a GraphDef or MetaGraphDef holds, decoded without importing it: nodes whose ops are
 * not registered here can be described too. Caller owns: TG_DeleteGraphDefSummary. Strings
 * are owned by the summary and valid until it is deleted. */
typedef struct TG_GraphDefSummary TG_GraphDefSummary;

/* Decodes data[0, length): a GraphDef or a MetaGraphDef, serialized or in text format
 * (whichever the bytes are). TG_INVALID_ARGUMENT when they are neither (truncated,
 * malformed; for text the message gives the line and column). */
TG_CAPI_EXPORT extern TG_GraphDefSummary* TG_NewGraphDefSummary(const void* data, size_t length,
                                                                TG_Status* status);
/* NULL is a no-op. */
TG_CAPI_EXPORT extern void TG_DeleteGraphDefSummary(TG_GraphDefSummary* summary);
/* 1 when the bytes were a MetaGraphDef (else a GraphDef); 1 when they were text format. */
TG_CAPI_EXPORT extern int TG_GraphDefSummaryIsMetaGraphDef(const TG_GraphDefSummary* summary);
TG_CAPI_EXPORT extern int TG_GraphDefSummaryIsText(const TG_GraphDefSummary* summary);
/* The graph (a MetaGraphDef's graph_def) as a serialized GraphDef, ready for
 * TG_GraphImportGraphDef. */
TG_CAPI_EXPORT extern void TG_GraphDefSummaryGraphDef(const TG_GraphDefSummary* summary,
                                                      TG_Buffer* output, TG_Status* status);

/* Nodes in file order. Accessors return NULL (counts 0) for an index out of range. */
TG_CAPI_EXPORT extern int TG_GraphDefSummaryNumNodes(const TG_GraphDefSummary* summary);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryNodeName(const TG_GraphDefSummary* summary,
                                                             int node);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryNodeOp(const TG_GraphDefSummary* summary,
                                                           int node);
/* The device as written in the file ("" if none). */
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryNodeDevice(
    const TG_GraphDefSummary* summary, int node);
/* Inputs as written: "x", "x:1", "^control". */
TG_CAPI_EXPORT extern int TG_GraphDefSummaryNodeNumInputs(const TG_GraphDefSummary* summary,
                                                          int node);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryNodeInput(const TG_GraphDefSummary* summary,
                                                              int node, int input);
/* Attrs in name order, each value as one line of text: "float", "[?,3]" (? = unknown dim,
 * "<unknown>" = unknown rank), "'SAME'", "true", "[1, 2]", "<tensor float [2,3]>". */
TG_CAPI_EXPORT extern int TG_GraphDefSummaryNodeNumAttrs(const TG_GraphDefSummary* summary,
                                                         int node);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryNodeAttrName(
    const TG_GraphDefSummary* summary, int node, int attr);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryNodeAttrText(
    const TG_GraphDefSummary* summary, int node, int attr);
/* The text of the attr named `attr_name`, or NULL when the node has none. */
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryNodeAttr(const TG_GraphDefSummary* summary,
                                                             int node, const char* attr_name);

/* A MetaGraphDef's collections in key order (none for a GraphDef). The kind is
 * "node_list", "bytes_list", "int64_list", "float_list" or "any_list"; items are node or
 * tensor names, numbers, 'printable bytes', "variable <name>" for a serialized VariableDef,
 * "<N bytes>" otherwise, or "<type url>" for an Any. */
TG_CAPI_EXPORT extern int TG_GraphDefSummaryNumCollections(const TG_GraphDefSummary* summary);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryCollectionKey(
    const TG_GraphDefSummary* summary, int collection);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryCollectionKind(
    const TG_GraphDefSummary* summary, int collection);
TG_CAPI_EXPORT extern int TG_GraphDefSummaryCollectionSize(const TG_GraphDefSummary* summary,
                                                           int collection);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryCollectionItem(
    const TG_GraphDefSummary* summary, int collection, int item);

/* The GraphDef's function library: its functions in file order, each with the op types of
 * its body's nodes (what `tgraph info` checks for kernels too). NULL / 0 when out of range. */
TG_CAPI_EXPORT extern int TG_GraphDefSummaryNumFunctions(const TG_GraphDefSummary* summary);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryFunctionName(
    const TG_GraphDefSummary* summary, int function);
TG_CAPI_EXPORT extern int TG_GraphDefSummaryFunctionNumNodes(const TG_GraphDefSummary* summary,
                                                             int function);
TG_CAPI_EXPORT extern const char* TG_GraphDefSummaryFunctionNodeOp(
    const TG_GraphDefSummary* summary, int function, int node);

/* ===================================================================================== */
/* Checkpoint files: list, read and write tensors through the saver plugins              */
/* ===================================================================================== */
/* TensorFlow's CheckpointReader and BundleWriter over whatever saver plugin the prefix
 * selects: the one whose file extension it ends with (".safetensors"), else the default
 * format "tensorflow_v2" (the V2 checkpoint: PREFIX.index + PREFIX.data-00000-of-00001).
 * The first call of this section loads the plugins of the search path (as
 * TG_LoadPluginsFromSearchPath), and again when no loaded saver serves a prefix.
 * Errors name the file and the tensor: TG_NOT_FOUND (no checkpoint, a missing data file, an
 * unknown tensor, no saver plugin), TG_DATA_LOSS (a checksum mismatch, a truncated or corrupt
 * file), TG_INVALID_ARGUMENT (NULL arguments, an index out of range). */

/* What a checkpoint holds (names, dtypes and shapes, listed when the reader is created;
 * tensor data is read only by TG_CheckpointReaderRead). */
typedef struct TG_CheckpointReader TG_CheckpointReader;

/* NULL and a status when there is no readable checkpoint at `prefix`. */
TG_CAPI_EXPORT extern TG_CheckpointReader* TG_NewCheckpointReader(const char* prefix,
                                                                  TG_Status* status);
TG_CAPI_EXPORT extern void TG_DeleteCheckpointReader(TG_CheckpointReader* reader);
/* The saver format that reads it, e.g. "tensorflow_v2"; owned by the reader. */
TG_CAPI_EXPORT extern const char* TG_CheckpointReaderFormat(const TG_CheckpointReader* reader);
/* Tensors in name order; index in [0, TG_CheckpointReaderNumTensors). Out-of-range indices
 * give NULL, TG_INVALID_DTYPE and -1. Names are owned by the reader. */
TG_CAPI_EXPORT extern int TG_CheckpointReaderNumTensors(const TG_CheckpointReader* reader);
TG_CAPI_EXPORT extern const char* TG_CheckpointReaderTensorName(
    const TG_CheckpointReader* reader, int index);
TG_CAPI_EXPORT extern TG_DataType TG_CheckpointReaderTensorType(
    const TG_CheckpointReader* reader, int index);
TG_CAPI_EXPORT extern int TG_CheckpointReaderTensorNumDims(const TG_CheckpointReader* reader,
                                                           int index);
/* Copies the tensor's dims into dims[0, num_dims); num_dims must be its number of dims. */
TG_CAPI_EXPORT extern void TG_CheckpointReaderTensorDims(const TG_CheckpointReader* reader,
                                                         int index, int64_t* dims, int num_dims,
                                                         TG_Status* status);
/* The index of tensor `name`, or -1 when the checkpoint has none of that name. */
TG_CAPI_EXPORT extern int TG_CheckpointReaderFind(const TG_CheckpointReader* reader,
                                                  const char* name);
/* Reads tensor `name` (its checksum checked) into a new tensor the caller owns
 * (TG_DeleteTensor). Safe to call from several threads on one reader. */
TG_CAPI_EXPORT extern TG_Tensor* TG_CheckpointReaderRead(const TG_CheckpointReader* reader,
                                                         const char* name, TG_Status* status);

/* Non-zero when a checkpoint the prefix's saver recognises exists at `prefix`
 * (tf.train.checkpoint_exists). */
TG_CAPI_EXPORT extern int TG_CheckpointExists(const char* prefix);
/* Writes `n` tensors under `names` as one checkpoint at `prefix`, atomically (files written
 * under temporary names, synced, then renamed; a failed write leaves a checkpoint already at
 * `prefix` as it was). The prefix's directory is created if needed. */
TG_CAPI_EXPORT extern void TG_CheckpointWrite(const char* prefix, const char* const* names,
                                              TG_Tensor* const* tensors, int n,
                                              TG_Status* status);
/* Deletes the checkpoint's files; no checkpoint there is not an error. */
TG_CAPI_EXPORT extern void TG_CheckpointRemove(const char* prefix, TG_Status* status);
/* Merges the checkpoints at prefixes[0, n) into one at `destination` (MergeV2Checkpoints):
 * their files are moved, not copied; the sources' directories are deleted too when
 * `delete_old_dirs` is non-zero and they are left empty. */
TG_CAPI_EXPORT extern void TG_CheckpointMerge(const char* const* prefixes, int n,
                                              const char* destination, int delete_old_dirs,
                                              TG_Status* status);

/* ===================================================================================== */
/* Saver (tf.train.Saver): save, restore, rotate, checkpoint state                       */
/* ===================================================================================== */
/* A Saver adds TensorFlow 1.x's saver nodes to the graph (save/Const, save/SaveV2,
 * save/control_dependency, save/RestoreV2, save/Assign*, save/restore_all), whose kernels
 * hand the files to the saver plugin the path selects: "tensorflow_v2" (TF's V2
 * checkpoints: prefix.index + prefix.data-00000-of-00001) unless a loaded saver plugin
 * claims the path's extension (".safetensors"). A MetaGraph's SaverDef, TensorFlow's
 * included, gives a Saver too (TG_NewSaverFromDef). Beside its checkpoints a Saver keeps
 * TensorFlow's `checkpoint` state file, and deletes old checkpoints past max_to_keep. */

typedef struct TG_Saver TG_Saver;

typedef struct TG_SaverOptions {
  /* sizeof(TG_SaverOptions) as the caller was compiled; set by TG_InitSaverOptions. */
  size_t struct_size;
  /* The name scope of the saver's nodes; NULL or "" = "save" (made unique: "save_1"). */
  const char* name;
  /* The variables to save; NULL (num_vars 0) = every variable of TG_GLOBAL_VARIABLES,
   * each under its op name ("dense/kernel"). */
  TG_Variable* const* var_list;
  int num_vars;
  /* Optional: the names the variables get in the checkpoint (a name map, as
   * Saver({"name": var})); num_vars entries, or NULL for the op names. */
  const char* const* save_names;
  /* Checkpoints kept (the oldest beyond are deleted); 0 keeps all. Default 5. */
  int max_to_keep;
  /* Besides the last max_to_keep, one checkpoint per this many hours is kept. Default 10000. */
  float keep_checkpoint_every_n_hours;
  /* Nonzero: TF's sharded=True. The variables of each requested device are saved by their
   * own SaveV2 (on that device's CPU:0) into "<path>_temp/part-0000i-of-0000n", then merged
   * into one V2 checkpoint at <path> (MergeV2Checkpoints) and the parts' directory removed.
   * The result has one data file per device. Sharded saves write the tensorflow_v2 format:
   * a path whose extension selects another saver (".safetensors") fails the save with
   * TG_UNIMPLEMENTED. Default 0. */
  int sharded;
  /* The filename tensor's default when nothing is fed; NULL = "model". */
  const char* filename;
} TG_SaverOptions;

/* Fills `opts` with the defaults above (struct_size = sizeof). */
TG_CAPI_EXPORT extern void TG_InitSaverOptions(TG_SaverOptions* opts);

/* tf.compat.v1.train.Saver(var_list, max_to_keep, ...): adds the saver's nodes to `g`.
 * `opts` may be NULL (defaults). Errors: INVALID_ARGUMENT for no variables or two under one
 * name, FAILED_PRECONDITION for a finalized graph. Free with TG_DeleteSaver (the nodes stay
 * in the graph). */
TG_CAPI_EXPORT extern TG_Saver* TG_NewSaver(TG_Graph* g, const TG_SaverOptions* opts,
                                            TG_Status* status);
/* A Saver over nodes already in `g`, named by a serialized SaverDef (from
 * TG_SaverToSaverDef, or a MetaGraph's saver_def, e.g. one TensorFlow wrote). NOT_FOUND
 * naming a node the SaverDef names that `g` lacks. */
TG_CAPI_EXPORT extern TG_Saver* TG_NewSaverFromDef(TG_Graph* g, const void* saver_def,
                                                   size_t len, TG_Status* status);
TG_CAPI_EXPORT extern void TG_DeleteSaver(TG_Saver* saver);

/* The serialized SaverDef (filename_tensor_name "save/Const:0", save_tensor_name
 * "save/control_dependency:0", restore_op_name "save/restore_all", ...). */
TG_CAPI_EXPORT extern void TG_SaverToSaverDef(const TG_Saver* saver, TG_Buffer* saver_def,
                                              TG_Status* status);

/* Saver.save(sess, save_path, global_step): writes the variables' current values to
 * `save_path`, or "<save_path>-<*global_step>" when global_step is not NULL (for a path
 * ending in a format's extension the step goes before it: "m.safetensors" ->
 * "m-100.safetensors"), and returns that prefix (owned by the saver, valid until its next save or its deletion); NULL on
 * failure. Then, when `meta_graph` is not NULL, writes it (a serialized MetaGraphDef) to
 * "<prefix>.meta"; deletes the checkpoints beyond max_to_keep; and rewrites the state file
 * `latest_filename` (NULL = "checkpoint") in the prefix's directory. A save that fails
 * leaves the checkpoints already there whole and the state file pointing at the newest.
 * NOT_FOUND when the directory does not exist. */
TG_CAPI_EXPORT extern const char* TG_SaverSave(TG_Saver* saver, TG_Session* session,
                                               const char* save_path, const int64_t* global_step,
                                               const TG_Buffer* meta_graph,
                                               const char* latest_filename, TG_Status* status);
/* Saver.restore(sess, save_path): assigns every variable its value in the checkpoint at
 * `save_path`. NOT_FOUND when there is no checkpoint there or it lacks a variable (naming
 * it), INVALID_ARGUMENT for a variable of another dtype or shape (naming both), DATA_LOSS for
 * a corrupt file (naming it and the tensor). A restore that fails assigns nothing. */
TG_CAPI_EXPORT extern void TG_SaverRestore(TG_Saver* saver, TG_Session* session,
                                           const char* save_path, TG_Status* status);

/* The checkpoints this saver keeps (Saver.last_checkpoints), oldest first; the strings are
 * owned by the saver and valid until its next save. */
TG_CAPI_EXPORT extern int TG_SaverNumLastCheckpoints(const TG_Saver* saver);
TG_CAPI_EXPORT extern const char* TG_SaverLastCheckpoint(const TG_Saver* saver, int i);
/* Saver.recover_last_checkpoints(paths): after a restart, the checkpoints a new Saver
 * should go on rotating (oldest first; those that no longer exist are skipped). */
TG_CAPI_EXPORT extern void TG_SaverRecoverLastCheckpoints(TG_Saver* saver,
                                                          const char* const* paths, int num_paths);

/* tf.train.latest_checkpoint(checkpoint_dir, latest_filename): fills `path` with the newest
 * checkpoint's prefix named by the state file (relative names joined to the directory) and
 * returns 1; returns 0 (and leaves `path` alone) when there is no state file or that
 * checkpoint is gone. A state file that does not parse is DATA_LOSS naming it.
 * `latest_filename` NULL = "checkpoint". */
TG_CAPI_EXPORT extern int TG_LatestCheckpoint(const char* checkpoint_dir,
                                              const char* latest_filename, TG_Buffer* path,
                                              TG_Status* status);
/* The state file, as TensorFlow's tf.train.get_checkpoint_state returns it: a serialized
 * CheckpointState proto in `state`. NOT_FOUND when there is none. */
TG_CAPI_EXPORT extern void TG_GetCheckpointState(const char* checkpoint_dir,
                                                 const char* latest_filename, TG_Buffer* state,
                                                 TG_Status* status);

/* ===================================================================================== */
/* MetaGraphs: export and import with collections and the SaverDef                       */
/* ===================================================================================== */
/* A MetaGraphDef (TensorFlow's `.meta`) holds MetaInfoDef (stripped op list, tags,
 * versions), the GraphDef, the SaverDef and the collections, written as TF writes them:
 * the variable collections (TG_GLOBAL_VARIABLES, TG_TRAINABLE_VARIABLES, TG_LOCAL_VARIABLES,
 * TG_MODEL_VARIABLES, TG_GLOBAL_STEP, "moving_average_variables", "metric_variables") as
 * serialized VariableDefs, operations and tensors (and variables under other keys) as node
 * names, bytes / int64 / float items as such. Import rebuilds them: imported variables are
 * TG_Variable objects of the graph (seen by TG_GlobalVariablesInitializer and the variable
 * accessors). Export is deterministic: export, import, export gives the same bytes.
 * MetaInfoDef.tensorflow_git_version says "tgraph <version>"; tensorflow_version is left
 * empty (TensorFlow parses it as its own version number). */

typedef struct TG_MetaGraphExportOptions {
  /* sizeof(TG_MetaGraphExportOptions) as the caller was compiled; set by
   * TG_InitMetaGraphExportOptions. */
  size_t struct_size;
  /* NULL or "": the whole graph. Else only nodes "scope" and "scope/..." are written, with
   * names relative to the scope; inputs from outside become "$unbound_inputs_<name>" (listed
   * in the "unbound_inputs" collection) and collection items, variables and the SaverDef
   * outside the scope are left out, as TF's export_scope does. */
  const char* export_scope;
  /* Nonzero: every node's device is written as "". */
  int clear_devices;
  /* Nonzero: attrs holding their OpDef default are left out (MetaInfoDef records it). */
  int strip_default_attrs;
  /* MetaInfoDef.tags. */
  const char* const* tags;
  int num_tags;
  /* MetaInfoDef.meta_graph_version (NULL = ""). */
  const char* meta_graph_version;
  /* A serialized SaverDef to write (saver_def_len bytes; NULL = no SaverDef), e.g. what the
   * Saver API or TG_ImportMetaGraph handed out. */
  const void* saver_def;
  size_t saver_def_len;
} TG_MetaGraphExportOptions;

/* Defaults: struct_size = sizeof, whole graph, devices kept, defaults kept, no tags, no
 * SaverDef. */
TG_CAPI_EXPORT extern void TG_InitMetaGraphExportOptions(TG_MetaGraphExportOptions* opts);

/* The graph as a serialized MetaGraphDef (deterministic bytes), written into `out`. `opts` may
 * be NULL (defaults). A collection whose items are not of one kind (e.g. an int64 after an
 * operation) is INVALID_ARGUMENT naming it. */
TG_CAPI_EXPORT extern void TG_ExportMetaGraph(TG_Graph* g, const TG_MetaGraphExportOptions* opts,
                                              TG_Buffer* out, TG_Status* status);
/* As TG_ExportMetaGraph, written to `path` (binary `.meta`) atomically: a temporary file
 * beside it, fsync, rename; on failure `path` keeps what it held. */
TG_CAPI_EXPORT extern void TG_WriteMetaGraphFile(TG_Graph* g, const char* path,
                                                 const TG_MetaGraphExportOptions* opts,
                                                 TG_Status* status);

typedef struct TG_MetaGraphImportOptions {
  /* sizeof(TG_MetaGraphImportOptions); set by TG_InitMetaGraphImportOptions. */
  size_t struct_size;
  /* NULL or "": names unchanged. Else every name gets the prefix "<scope>/", the scope made
   * unique like a name scope ("scope_1" when "scope" is taken), as TF's import_scope. */
  const char* import_scope;
  /* Nonzero: the imported nodes get no device. */
  int clear_devices;
} TG_MetaGraphImportOptions;

/* Defaults: struct_size = sizeof, no scope, devices kept. */
TG_CAPI_EXPORT extern void TG_InitMetaGraphImportOptions(TG_MetaGraphImportOptions* opts);

/* Imports the MetaGraphDef in proto[0, len) (binary, or text format) into `g`: the GraphDef
 * (all or nothing; every name the collections and the SaverDef use is checked first, so on
 * failure the graph is unchanged), then the collections. When `saver_def_out` is not NULL it
 * receives the serialized SaverDef with its names under the import scope (length 0 when the
 * MetaGraph has none), ready for the Saver API. `opts` may be NULL (defaults). Bad input is
 * INVALID_ARGUMENT; resource variables are UNIMPLEMENTED. */
TG_CAPI_EXPORT extern void TG_ImportMetaGraph(TG_Graph* g, const void* proto, size_t len,
                                              const TG_MetaGraphImportOptions* opts,
                                              TG_Buffer* saver_def_out, TG_Status* status);
/* As TG_ImportMetaGraph from a `.meta` file (binary or text); errors name the file. */
TG_CAPI_EXPORT extern void TG_ImportMetaGraphFile(TG_Graph* g, const char* path,
                                                  const TG_MetaGraphImportOptions* opts,
                                                  TG_Buffer* saver_def_out, TG_Status* status);

/* ===================================================================================== */
/* Event files (TensorBoard) and summaries                                               */
/* ===================================================================================== */

/* tf.summary.scalar(name, tensor): a ScalarSummary of a real scalar, whose output (a
 * serialized Summary, string scalar) is added to the TG_SUMMARIES collection. As in
 * TensorFlow, `name` (characters other than [A-Za-z0-9_./-] become '_') opens a name scope
 * whose full name is the tag and the op's name: "loss" twice gives tags "loss" and "loss_1",
 * inside scope "train" the tag is "train/loss"; the tag is a Const "<tag>/tags". Returns
 * {NULL, -1} on error. */
TG_CAPI_EXPORT extern TG_Output TG_SummaryScalar(TG_Graph* g, const char* name, TG_Output tensor,
                                                 TG_Status* status);
/* tf.summary.histogram(name, values): a HistogramSummary of a real tensor of any shape (its
 * values must be finite when it runs), named and collected like TG_SummaryScalar (the tag
 * Const is "<tag>/tag"). */
TG_CAPI_EXPORT extern TG_Output TG_SummaryHistogram(TG_Graph* g, const char* name,
                                                    TG_Output values, TG_Status* status);
/* tf.summary.merge(inputs, name): a MergeSummary of inputs[0, n) (string tensors holding
 * serialized Summary protos), "Merge/MergeSummary" when name is NULL or "", else
 * "<name>/<name>" as TensorFlow names it. Running it fails with INVALID_ARGUMENT naming a
 * tag that two inputs share. Not added to a collection. */
TG_CAPI_EXPORT extern TG_Output TG_SummaryMerge(TG_Graph* g, const TG_Output* inputs, int n,
                                                const char* name, TG_Status* status);
/* tf.summary.merge_all(key): TG_SummaryMerge of the tensors of collection `key` (NULL or "":
 * TG_SUMMARIES). When it holds none, returns {NULL, -1} with an OK status, as TF returns
 * None. */
TG_CAPI_EXPORT extern TG_Output TG_SummaryMergeAll(TG_Graph* g, const char* key,
                                                   TG_Status* status);

/* tf.summary.FileWriter: writes an event file that TensorBoard reads,
 * <logdir>/events.out.tfevents.<10-digit unix seconds>.<hostname><filename_suffix>. Its first
 * record holds the file version ("brain.Event:2"). Writes are buffered until
 * TG_FileWriterFlush or TG_FileWriterClose; write errors (a full disk) may show only there,
 * as statuses naming the file. Thread-safe. */
typedef struct TG_FileWriter TG_FileWriter;

/* Creates `logdir` (and its parents) and a new event file in it. `filename_suffix` may be
 * NULL. ALREADY_EXISTS when a file of that name exists (another writer in the same second:
 * give a suffix), PERMISSION_DENIED / FAILED_PRECONDITION naming the directory when it
 * cannot be created. Caller owns: TG_DeleteFileWriter. */
TG_CAPI_EXPORT extern TG_FileWriter* TG_NewFileWriter(const char* logdir,
                                                      const char* filename_suffix,
                                                      TG_Status* status);
/* The event file's path ("" for NULL). Owned by the writer. */
TG_CAPI_EXPORT extern const char* TG_FileWriterPath(const TG_FileWriter* writer);
/* add_graph(graph): the graph's GraphDef (as TG_GraphToGraphDef), for TensorBoard's graph
 * tab. */
TG_CAPI_EXPORT extern void TG_FileWriterAddGraph(TG_FileWriter* writer, const TG_Graph* graph,
                                                 TG_Status* status);
/* add_summary(summary, global_step): summary[0, length) is a serialized Summary, e.g. the
 * value of a summary op fetched from a session (TG_TensorGetString(t, 0, ...)).
 * INVALID_ARGUMENT when it does not parse. */
TG_CAPI_EXPORT extern void TG_FileWriterAddSummary(TG_FileWriter* writer, const void* summary,
                                                   size_t length, int64_t step,
                                                   TG_Status* status);
/* A scalar summary (a simple_value, as tf.summary.scalar writes) without a graph. */
TG_CAPI_EXPORT extern void TG_FileWriterAddScalar(TG_FileWriter* writer, const char* tag,
                                                  float value, int64_t step, TG_Status* status);
/* A histogram of values[0, n) with TensorFlow's buckets, as tf.summary.histogram writes it;
 * INVALID_ARGUMENT naming the tag when a value is NaN or infinite. */
TG_CAPI_EXPORT extern void TG_FileWriterAddHistogram(TG_FileWriter* writer, const char* tag,
                                                     const double* values, int64_t n,
                                                     int64_t step, TG_Status* status);
/* SessionLog's status values. */
typedef enum TG_SessionLogStatus {
  TG_SESSION_LOG_UNSPECIFIED = 0,
  TG_SESSION_LOG_START = 1,
  TG_SESSION_LOG_STOP = 2,
  TG_SESSION_LOG_CHECKPOINT = 3
} TG_SessionLogStatus;
/* add_session_log(SessionLog(status, checkpoint_path, msg), step); the strings may be NULL.
 * TensorBoard drops the events after a START's step from an earlier run (a restart). */
TG_CAPI_EXPORT extern void TG_FileWriterAddSessionLog(TG_FileWriter* writer,
                                                      TG_SessionLogStatus log_status,
                                                      const char* checkpoint_path,
                                                      const char* msg, int64_t step,
                                                      TG_Status* status);
TG_CAPI_EXPORT extern void TG_FileWriterFlush(TG_FileWriter* writer, TG_Status* status);
/* Flushes and closes the file; later adds fail with FAILED_PRECONDITION naming it. */
TG_CAPI_EXPORT extern void TG_FileWriterClose(TG_FileWriter* writer, TG_Status* status);
/* Closes (dropping any error: call TG_FileWriterClose to see it) and frees. NULL is a
 * no-op. */
TG_CAPI_EXPORT extern void TG_DeleteFileWriter(TG_FileWriter* writer);

/* ===================================================================================== */
/* Freezing and cutting graphs                                                           */
/* ===================================================================================== */
/* TensorFlow's graph_util on serialized GraphDefs (TG_Buffer in, TG_Buffer out; the output
 * is deterministic binary). Name lists are C strings; an input GraphDef that does not parse
 * is INVALID_ARGUMENT. */

/* graph_util.convert_variables_to_constants(sess, graph_def, output_node_names,
 * variable_names_whitelist, variable_names_blacklist): the nodes that output_node_names[0,
 * num_outputs) need (see TG_ExtractSubGraph), with every VariableV2 among them replaced by a
 * Const of the same name, dtype and device holding the variable's current value in
 * `session` (read in one run). V/read and other readers keep working; Assign initializers and
 * other nodes the outputs do not need are gone, so the result runs without initializing
 * anything, here or in TensorFlow. `graph` is the graph `session` runs; `graph_def` NULL
 * freezes `graph` itself, else a GraphDef of (a part of) it whose variables exist in `graph`.
 * whitelist: num_whitelist == -1 means all variables (TF's None), else only those named;
 * blacklist[0, num_blacklist): never frozen. An uninitialized variable fails with the
 * session's FAILED_PRECONDITION naming it; an unknown output node is INVALID_ARGUMENT naming
 * it. */
TG_CAPI_EXPORT extern void TG_ConvertVariablesToConstants(
    TG_Session* session, TG_Graph* graph, const TG_Buffer* graph_def,
    const char* const* output_node_names, int num_outputs, const char* const* whitelist,
    int num_whitelist, const char* const* blacklist, int num_blacklist,
    TG_Buffer* output_graph_def, TG_Status* status);

/* graph_util.extract_sub_graph(graph_def, dest_nodes): the nodes reachable backwards from
 * dest_nodes[0, num_dest) over data and control inputs, in their original order (library and
 * versions kept). A dest node not in the graph is INVALID_ARGUMENT naming it. */
TG_CAPI_EXPORT extern void TG_ExtractSubGraph(const TG_Buffer* graph_def,
                                              const char* const* dest_nodes, int num_dest,
                                              TG_Buffer* output_graph_def, TG_Status* status);

/* graph_util.remove_training_nodes(graph_def, protected_nodes): drops the Identity,
 * StopGradient, PreventGradient and CheckNumerics nodes not in protected_nodes[0,
 * num_protected), rewiring their readers to their input. As in TF an Identity-like node with
 * control inputs, or used as one, stays; CheckNumerics always goes (control inputs on it are
 * dropped, data readers rewired — TF drops those data inputs too, leaving broken nodes). */
TG_CAPI_EXPORT extern void TG_RemoveTrainingNodes(const TG_Buffer* graph_def,
                                                  const char* const* protected_nodes,
                                                  int num_protected,
                                                  TG_Buffer* output_graph_def,
                                                  TG_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TGRAPH_C_API_H_ */
