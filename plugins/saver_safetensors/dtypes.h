// The element types of the safetensors format and the tgraph dtypes they stand for.
#pragma once

#include <string>
#include <string_view>

#include "tgraph/types.h"

namespace tgraph_safetensors {

struct SafetensorsDtype {
  const char* name;   // as the header spells it: "F32", "BF16", "F8_E4M3", ...
  int bits;           // per element; F4 and F6 pack several elements into a byte
  TG_DataType dtype;  // TG_INVALID_DTYPE where tgraph has no such type
};

// Every dtype the format defines (as of safetensors 0.8), or nullptr for a name it lacks.
const SafetensorsDtype* FindSafetensorsDtype(std::string_view name);
// The safetensors dtype holding `dtype` byte for byte, or nullptr (strings, complex128, the
// quantized and sub-byte integer types: safetensors has no type for them).
const SafetensorsDtype* SafetensorsDtypeFor(TG_DataType dtype);
// tgraph's name of `dtype` ("float", "string", ...) for messages.
std::string DtypeName(TG_DataType dtype);

}  // namespace tgraph_safetensors
