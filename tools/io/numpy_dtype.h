// How tgraph's element types are spelled in numpy: the kind and item size of a .npy 'descr'
// and the name numpy's repr prints. One table serves the reader, the writer and the printer.
#ifndef TGRAPH_TOOLS_IO_NUMPY_DTYPE_H_
#define TGRAPH_TOOLS_IO_NUMPY_DTYPE_H_

#include <cstddef>
#include <optional>

#include "tgraph/c_api.h"

namespace tgraph::tool {

struct NumpyType {
  char kind;         // 'f', 'i', 'u', 'b', 'c' or 'S' (fixed-width bytes)
  size_t itemsize;   // 0 for 'S': the width depends on the contents
  const char* name;  // "float32", ... as numpy's repr prints it
};

// The numpy type of a tgraph dtype; nullopt for types numpy has no code for (bfloat16,
// quantized, float8, ...).
std::optional<NumpyType> NumpyTypeOf(TG_DataType dtype);

// The tgraph dtype of a numeric numpy kind and item size; TG_INVALID_DTYPE if tgraph has none.
TG_DataType DataTypeOfNumpy(char kind, size_t itemsize);

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_NUMPY_DTYPE_H_
