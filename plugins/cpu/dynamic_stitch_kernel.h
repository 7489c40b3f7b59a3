// DynamicStitch(indices[0..N), data[0..N)): rows placed at their indices, later inputs (and
// later positions of one input) win; rows no index names are zero (TensorFlow leaves them
// undefined). data[m].shape = indices[m].shape + a trailing shape common to all inputs.
//
// Plugin-side code over tgraph/plugin.hpp only, like unique_kernel.h: the CPU plugin
// registers the kernel, the GPU plugins register it for int32 as a host-memory kernel (as
// TensorFlow's GPU int32 kernel: a stitched shape, the gradient of a reduction) and check
// and plan their float kernels with CheckStitch and LastWriters, so every device gives the
// same results and errors.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"

namespace tgraph_cpu::dynamic_stitch {

struct StitchShape {
  std::vector<int64_t> out_dims;  // [max index + 1] + the common trailing shape
  int64_t rows = 0;               // out_dims[0]
  int64_t inner = 0;              // elements per row
};

// "[m]", appended piecewise: GCC 12 -O3 gives a false -Wrestrict on "[" + to_string(m).
inline std::string Tag(int m) {
  std::string tag = "[";
  tag += std::to_string(m);
  tag += ']';
  return tag;
}

// The checks, in the CPU kernel's order and words: each data[m] starts with indices[m]'s
// shape, the trailing shapes agree, no index is negative, the output's count fits int64.
// Indices are int32 in host memory. False after failing the node.
inline bool CheckStitch(tgraph::plugin::Context& ctx, StitchShape* shape) {
  using array_util::ShapeString;
  const int n = ctx.num_inputs() / 2;
  std::vector<int64_t> extra;
  int64_t max_index = -1;
  for (int m = 0; m < n; ++m) {
    const tgraph::plugin::TensorView idx = ctx.input(m);
    const std::vector<int64_t> data_dims = ctx.input(n + m).dims();
    const std::vector<int64_t> idx_dims = idx.dims();
    const std::string tag = Tag(m);
    if (data_dims.size() < idx_dims.size() ||
        !std::equal(idx_dims.begin(), idx_dims.end(), data_dims.begin())) {
      ctx.Fail(TG_INVALID_ARGUMENT, "data" + tag + ".shape = " + ShapeString(data_dims) +
                                        " does not start with indices" + tag + ".shape = " +
                                        ShapeString(idx_dims));
      return false;
    }
    const std::vector<int64_t> rest(data_dims.begin() + static_cast<ptrdiff_t>(idx_dims.size()),
                                    data_dims.end());
    if (m == 0) {
      extra = rest;
    } else if (rest != extra) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "Need data[0].shape[" + std::to_string(ctx.input(0).rank()) + ":] = " +
                   ShapeString(extra) + " to match data" + tag + ".shape[" +
                   std::to_string(idx_dims.size()) + ":] = " + ShapeString(rest));
      return false;
    }
    const int32_t* p = idx.data<int32_t>();
    for (int64_t i = 0; i < idx.num_elements(); ++i) {
      if (p[i] < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "indices" + tag + " holds " + std::to_string(p[i]) +
                                          " at flat position " + std::to_string(i) +
                                          "; indices must be non-negative");
        return false;
      }
      max_index = std::max<int64_t>(max_index, p[i]);
    }
  }
  shape->out_dims = {max_index + 1};
  shape->out_dims.insert(shape->out_dims.end(), extra.begin(), extra.end());
  int64_t total = 0;
  if (!array_util::CheckedNumElements(ctx, shape->out_dims, &total)) return false;
  shape->rows = max_index + 1;
  shape->inner = array_util::NumElements(extra);
  return true;
}

// Which row of which input each output row ends up holding, for a device that copies all
// rows at once (no order among its threads): pairs (output row, row of data[m]) of input m
// are pairs[2 * starts[m], 2 * starts[m + 1]), one pair per output row that input m writes
// last. *every_row is false when some output row is named by no index (it must be zeroed).
// Row numbers fit int32 (indices are int32; a data input's rows are its index count).
inline void LastWriters(tgraph::plugin::Context& ctx, const StitchShape& shape,
                        std::vector<int32_t>* pairs, std::vector<int64_t>* starts,
                        bool* every_row) {
  const int n = ctx.num_inputs() / 2;
  // The last writer of each output row: input m, position i, as m * 2^32 + i (-1: none).
  std::vector<int64_t> writer(static_cast<size_t>(shape.rows), -1);
  for (int m = 0; m < n; ++m) {
    const tgraph::plugin::TensorView idx = ctx.input(m);
    const int32_t* p = idx.data<int32_t>();
    for (int64_t i = 0; i < idx.num_elements(); ++i) {
      writer[static_cast<size_t>(p[i])] = (int64_t{m} << 32) | i;
    }
  }
  std::vector<int64_t> count(static_cast<size_t>(n) + 1, 0);
  *every_row = true;
  for (int64_t w : writer) {
    if (w < 0) {
      *every_row = false;
    } else {
      ++count[static_cast<size_t>(w >> 32) + 1];
    }
  }
  starts->assign(count.size(), 0);
  for (size_t m = 1; m < count.size(); ++m) (*starts)[m] = (*starts)[m - 1] + count[m];
  pairs->assign(static_cast<size_t>(2 * starts->back()), 0);
  std::vector<int64_t> next(starts->begin(), starts->end() - 1);
  for (size_t row = 0; row < writer.size(); ++row) {
    if (writer[row] < 0) continue;
    const int64_t k = next[static_cast<size_t>(writer[row] >> 32)]++;
    (*pairs)[static_cast<size_t>(2 * k)] = static_cast<int32_t>(row);
    (*pairs)[static_cast<size_t>(2 * k + 1)] = static_cast<int32_t>(writer[row] & 0xffffffff);
  }
}

// The kernel on host memory, any element type T.
template <typename T>
class DynamicStitchOp {
 public:
  explicit DynamicStitchOp(tgraph::plugin::Construction&) {}
  void Compute(tgraph::plugin::Context& ctx) {
    StitchShape shape;
    if (!CheckStitch(ctx, &shape)) return;
    tgraph::plugin::TensorMut out = ctx.AllocateOutput(0, shape.out_dims);
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    std::fill(o, o + shape.rows * shape.inner, T(0));
    if (shape.inner == 0) return;
    const size_t row_bytes = static_cast<size_t>(shape.inner) * sizeof(T);
    // In input order, so a later index of the same row overwrites an earlier one.
    const int n = ctx.num_inputs() / 2;
    for (int m = 0; m < n; ++m) {
      const tgraph::plugin::TensorView idx = ctx.input(m);
      const int32_t* p = idx.data<int32_t>();
      const T* src = ctx.input(n + m).data<T>();
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        std::memcpy(o + static_cast<int64_t>(p[i]) * shape.inner, src + i * shape.inner,
                    row_bytes);
      }
    }
  }
};

}  // namespace tgraph_cpu::dynamic_stitch
