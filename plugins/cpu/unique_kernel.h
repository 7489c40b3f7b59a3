// Unique: the distinct values of a vector in order of first occurrence (y), and for each
// element the position of its value in y (idx, int32 or int64), as TensorFlow. Floats compare
// with ==, so 0.0 and -0.0 are one value and every NaN is its own.
//
// Plugin-side code over tgraph/plugin.hpp only, like strided_slice_spec.h: the CPU plugin
// registers it, and the GPU plugins register it as a host-memory kernel
// (plugins/device_common/host_kernels.h), so both devices give the same results and errors.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "array_kernel_util.h"

namespace tgraph_cpu {

template <typename T>
class UniqueOp {
 public:
  explicit UniqueOp(tgraph::plugin::Construction&) {}
  void Compute(tgraph::plugin::Context& ctx) {
    const tgraph::plugin::TensorView x = ctx.input(0);
    if (x.rank() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "unique expects a 1D vector, but x has shape " + array_util::ShapeString(x.dims()));
      return;
    }
    const int64_t n = x.dim(0);
    const bool idx32 = ctx.output_type(1) == TG_INT32;
    if (idx32 && n > std::numeric_limits<int32_t>::max()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "x has " + std::to_string(n) +
                                        " elements, too many for out_idx int32; use int64");
      return;
    }
    tgraph::plugin::TensorMut idx = ctx.AllocateOutput(1, {n});
    if (!ctx.ok()) return;
    const T* in = x.data<T>();
    std::unordered_map<T, int64_t> position;
    position.reserve(static_cast<size_t>(n));
    std::vector<T> values;
    for (int64_t i = 0; i < n; ++i) {
      const auto [it, inserted] = position.try_emplace(in[i], static_cast<int64_t>(values.size()));
      if (inserted) values.push_back(in[i]);
      if (idx32) {
        idx.mutable_data<int32_t>()[i] = static_cast<int32_t>(it->second);
      } else {
        idx.mutable_data<int64_t>()[i] = it->second;
      }
    }
    tgraph::plugin::TensorMut y = ctx.AllocateOutput(0, {static_cast<int64_t>(values.size())});
    if (!ctx.ok()) return;
    std::copy(values.begin(), values.end(), y.mutable_data<T>());
  }
};

}  // namespace tgraph_cpu
