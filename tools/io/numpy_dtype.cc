#include "numpy_dtype.h"

#include <array>

namespace tgraph::tool {
namespace {

struct Entry {
  TG_DataType dtype;
  NumpyType numpy;
};

constexpr std::array<Entry, 14> kTable = {{
    {TG_HALF, {'f', 2, "float16"}},
    {TG_FLOAT, {'f', 4, "float32"}},
    {TG_DOUBLE, {'f', 8, "float64"}},
    {TG_INT8, {'i', 1, "int8"}},
    {TG_INT16, {'i', 2, "int16"}},
    {TG_INT32, {'i', 4, "int32"}},
    {TG_INT64, {'i', 8, "int64"}},
    {TG_UINT8, {'u', 1, "uint8"}},
    {TG_UINT16, {'u', 2, "uint16"}},
    {TG_UINT32, {'u', 4, "uint32"}},
    {TG_UINT64, {'u', 8, "uint64"}},
    {TG_BOOL, {'b', 1, "bool"}},
    {TG_COMPLEX64, {'c', 8, "complex64"}},
    {TG_COMPLEX128, {'c', 16, "complex128"}},
}};

}  // namespace

std::optional<NumpyType> NumpyTypeOf(TG_DataType dtype) {
  if (dtype == TG_STRING) return NumpyType{'S', 0, "bytes"};
  for (const Entry& e : kTable) {
    if (e.dtype == dtype) return e.numpy;
  }
  return std::nullopt;
}

TG_DataType DataTypeOfNumpy(char kind, size_t itemsize) {
  for (const Entry& e : kTable) {
    if (e.numpy.kind == kind && e.numpy.itemsize == itemsize) return e.dtype;
  }
  return TG_INVALID_DTYPE;
}

}  // namespace tgraph::tool
