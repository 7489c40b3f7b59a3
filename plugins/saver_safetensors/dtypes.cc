#include "dtypes.h"

#include <array>

namespace tgraph_safetensors {
namespace {

// safetensors 0.8's Dtype enum. F4 is float4_e2m1fn packed two to a byte, which tgraph's
// TG_FLOAT4_E2M1FN (one element per byte) does not match; F6_* and F8_E8M0 have no tgraph
// type. Those files still parse (offsets are checked with the right element size), but
// their tensors cannot be restored.
constexpr SafetensorsDtype kDtypes[] = {
    {"BOOL", 8, TG_BOOL},
    {"U8", 8, TG_UINT8},
    {"I8", 8, TG_INT8},
    {"U16", 16, TG_UINT16},
    {"I16", 16, TG_INT16},
    {"F16", 16, TG_HALF},
    {"BF16", 16, TG_BFLOAT16},
    {"U32", 32, TG_UINT32},
    {"I32", 32, TG_INT32},
    {"F32", 32, TG_FLOAT},
    {"U64", 64, TG_UINT64},
    {"I64", 64, TG_INT64},
    {"F64", 64, TG_DOUBLE},
    {"C64", 64, TG_COMPLEX64},
    {"F8_E5M2", 8, TG_FLOAT8_E5M2},
    {"F8_E4M3", 8, TG_FLOAT8_E4M3FN},  // torch.float8_e4m3fn is written as "F8_E4M3"
    {"F8_E4M3FNUZ", 8, TG_FLOAT8_E4M3FNUZ},
    {"F8_E5M2FNUZ", 8, TG_FLOAT8_E5M2FNUZ},
    {"F8_E8M0", 8, TG_INVALID_DTYPE},
    {"F6_E2M3", 6, TG_INVALID_DTYPE},
    {"F6_E3M2", 6, TG_INVALID_DTYPE},
    {"F4", 4, TG_INVALID_DTYPE},
};

// Indexed by TG_DataType's base value (tgraph/types.h).
constexpr std::array<const char*, 34> kTgraphNames = {
    "invalid",       "float",          "double",          "int32",
    "uint8",         "int16",          "int8",            "string",
    "complex64",     "int64",          "bool",            "qint8",
    "quint8",        "qint32",         "bfloat16",        "qint16",
    "quint16",       "uint16",         "complex128",      "half",
    "resource",      "variant",        "uint32",          "uint64",
    "float8_e5m2",   "float8_e4m3fn",  "float8_e4m3fnuz", "float8_e4m3b11fnuz",
    "float8_e5m2fnuz", "int4",         "uint4",           "int2",
    "uint2",         "float4_e2m1fn",
};

}  // namespace

const SafetensorsDtype* FindSafetensorsDtype(std::string_view name) {
  for (const SafetensorsDtype& d : kDtypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

const SafetensorsDtype* SafetensorsDtypeFor(TG_DataType dtype) {
  if (dtype == TG_INVALID_DTYPE) return nullptr;
  for (const SafetensorsDtype& d : kDtypes) {
    if (d.dtype == dtype) return &d;
  }
  return nullptr;
}

std::string DtypeName(TG_DataType dtype) {
  int v = static_cast<int>(dtype);
  std::string suffix;
  if (v > TG_DATA_TYPE_REF_OFFSET) {
    v -= TG_DATA_TYPE_REF_OFFSET;
    suffix = "_ref";
  }
  if (v < 0 || v >= static_cast<int>(kTgraphNames.size())) {
    return "dtype " + std::to_string(static_cast<int>(dtype));
  }
  std::string name = kTgraphNames[static_cast<size_t>(v)];
  name += suffix;
  return name;
}

}  // namespace tgraph_safetensors
