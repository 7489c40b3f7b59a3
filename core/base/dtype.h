// Element types, with TensorFlow's DataType numbering (values and _REF = +100 variants), so
// GraphDefs, checkpoints and C callers agree on every value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tgraph {

enum DataType : int {
  DT_INVALID = 0,
  DT_FLOAT = 1,
  DT_DOUBLE = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 5,
  DT_INT8 = 6,
  DT_STRING = 7,
  DT_COMPLEX64 = 8,
  DT_INT64 = 9,
  DT_BOOL = 10,
  DT_QINT8 = 11,
  DT_QUINT8 = 12,
  DT_QINT32 = 13,
  DT_BFLOAT16 = 14,
  DT_QINT16 = 15,
  DT_QUINT16 = 16,
  DT_UINT16 = 17,
  DT_COMPLEX128 = 18,
  DT_HALF = 19,
  DT_RESOURCE = 20,
  DT_VARIANT = 21,
  DT_UINT32 = 22,
  DT_UINT64 = 23,
  DT_FLOAT8_E5M2 = 24,
  DT_FLOAT8_E4M3FN = 25,
  DT_FLOAT8_E4M3FNUZ = 26,
  DT_FLOAT8_E4M3B11FNUZ = 27,
  DT_FLOAT8_E5M2FNUZ = 28,
  DT_INT4 = 29,
  DT_UINT4 = 30,
  DT_INT2 = 31,
  DT_UINT2 = 32,
  DT_FLOAT4_E2M1FN = 33,
  kLastBaseDataType = DT_FLOAT4_E2M1FN,
  kDataTypeRefOffset = 100,
  // DT_<X>_REF = DT_<X> + 100 for every base type; the ones the core names directly:
  DT_FLOAT_REF = 101,
  DT_DOUBLE_REF = 102,
  DT_INT32_REF = 103,
  DT_INT64_REF = 109,
};

// True for 1..33 and 101..133.
bool IsValidDataType(int value);
inline bool IsRefType(DataType dtype) { return dtype > kDataTypeRefOffset; }
inline DataType BaseType(DataType dtype) {  // strips _REF
  return IsRefType(dtype) ? static_cast<DataType>(dtype - kDataTypeRefOffset) : dtype;
}
DataType MakeRefType(DataType dtype);

// TensorFlow's spelling: "float", "int32", "float_ref", ... ("invalid" for DT_INVALID).
std::string DataTypeName(DataType dtype);
// Parses DataTypeName's spelling; nullopt for anything else.
std::optional<DataType> DataTypeFromName(std::string_view name);

// Bytes per element of the base type; 0 for types without a fixed-size element
// (string, resource, variant, invalid).
size_t DataTypeSize(DataType dtype);

// Types whose elements are plain bytes of DataTypeSize (memcpy-able): every valid type
// but string, resource and variant (asked on every kernel call, so inline).
inline bool IsPlainDataType(DataType dtype) {
  const int base = dtype > kDataTypeRefOffset ? dtype - kDataTypeRefOffset : dtype;
  return base >= 1 && base <= kLastBaseDataType && base != DT_STRING && base != DT_RESOURCE &&
         base != DT_VARIANT;
}

}  // namespace tgraph
