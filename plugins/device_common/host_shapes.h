// Shape helpers every device plugin's host side uses: the "[2,3]" spelling of dims in
// messages, the value of a host-memory index input, and element counts.
//
// plugins/device_common is plugin-side code shared by the OpenCL and CUDA plugins (their
// host-side argument checks and shape computations, which must word errors the same way):
// header-only, over tgraph/plugin.hpp only, never core/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

inline std::string ShapeString(const std::vector<int64_t>& dims) {
  // Appended piecewise: GCC 12 at -O3 warns falsely (-Wrestrict) on `"," + to_string(d)`.
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(dims[i]);
  }
  s += ']';
  return s;
}

// The value of a host-memory int32/int64 input's element i.
inline int64_t IndexAt(const tgraph::plugin::TensorView& t, int64_t i) {
  return t.dtype() == TG_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

inline int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

}  // namespace tgraph_device_common
