#include "core/base/dtype.h"

#include <array>

namespace tgraph {
namespace {

struct TypeInfo {
  const char* name;
  size_t size;
};

// Indexed by base DataType value.
constexpr std::array<TypeInfo, kLastBaseDataType + 1> kTypeInfo = {{
    {"invalid", 0},          {"float", 4},           {"double", 8},
    {"int32", 4},            {"uint8", 1},           {"int16", 2},
    {"int8", 1},             {"string", 0},          {"complex64", 8},
    {"int64", 8},            {"bool", 1},            {"qint8", 1},
    {"quint8", 1},           {"qint32", 4},          {"bfloat16", 2},
    {"qint16", 2},           {"quint16", 2},         {"uint16", 2},
    {"complex128", 16},      {"half", 2},            {"resource", 0},
    {"variant", 0},          {"uint32", 4},          {"uint64", 8},
    {"float8_e5m2", 1},      {"float8_e4m3fn", 1},   {"float8_e4m3fnuz", 1},
    {"float8_e4m3b11fnuz", 1}, {"float8_e5m2fnuz", 1}, {"int4", 1},
    {"uint4", 1},            {"int2", 1},            {"uint2", 1},
    {"float4_e2m1fn", 1},
}};

}  // namespace

bool IsValidDataType(int value) {
  return (value >= 1 && value <= kLastBaseDataType) ||
         (value > kDataTypeRefOffset + 0 && value <= kDataTypeRefOffset + kLastBaseDataType);
}

DataType MakeRefType(DataType dtype) {
  return IsRefType(dtype) || dtype == DT_INVALID
             ? dtype
             : static_cast<DataType>(dtype + kDataTypeRefOffset);
}

std::string DataTypeName(DataType dtype) {
  if (!IsValidDataType(dtype)) return dtype == DT_INVALID ? "invalid" : "unknown_dtype";
  std::string name = kTypeInfo[BaseType(dtype)].name;
  if (IsRefType(dtype)) name += "_ref";
  return name;
}

std::optional<DataType> DataTypeFromName(std::string_view name) {
  bool ref = false;
  constexpr std::string_view kRefSuffix = "_ref";
  if (name.size() > kRefSuffix.size() && name.ends_with(kRefSuffix)) {
    ref = true;
    name.remove_suffix(kRefSuffix.size());
  }
  for (int v = 1; v <= kLastBaseDataType; ++v) {
    if (name == kTypeInfo[v].name) {
      auto dtype = static_cast<DataType>(v);
      return ref ? MakeRefType(dtype) : dtype;
    }
  }
  return std::nullopt;
}

size_t DataTypeSize(DataType dtype) {
  if (!IsValidDataType(dtype)) return 0;
  return kTypeInfo[BaseType(dtype)].size;
}


}  // namespace tgraph
