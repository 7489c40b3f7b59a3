// Index-driven scatters that gradients of Gather, DynamicPartition and reductions build:
// UnsortedSegmentSum (sums rows into segments; negative ids are dropped as in TensorFlow,
// ids >= num_segments fail) and DynamicStitch (rows placed at their indices, later inputs
// win; rows no index names are zero: dynamic_stitch_kernel.h, shared with the GPU plugins).
// Both treat data as [rows, inner] with the rows given by the index tensor's elements.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "array_helper_kernels.h"
#include "array_kernel_util.h"
#include "dynamic_stitch_kernel.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using nn::DTypeOf;

// `data` starts with the dims of `prefix`; fails the node naming both shapes otherwise.
bool StartsWith(Context& ctx, const std::vector<int64_t>& data, const std::vector<int64_t>& prefix,
                const std::string& data_name, const std::string& prefix_name) {
  if (data.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), data.begin())) {
    return true;
  }
  ctx.Fail(TG_INVALID_ARGUMENT, data_name + ".shape = " + ShapeString(data) +
                                    " does not start with " + prefix_name +
                                    ".shape = " + ShapeString(prefix));
  return false;
}

template <typename T>
class UnsortedSegmentSumOp {
 public:
  explicit UnsortedSegmentSumOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView data = ctx.input(0);
    TensorView ids = ctx.input(1);
    TensorView num_t = ctx.input(2);
    if (num_t.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "num_segments should be a scalar, not shape " + ShapeString(num_t.dims()));
      return;
    }
    const int64_t num = IndexValues(num_t)[0];
    if (num < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "num_segments must be non-negative, got " + std::to_string(num));
      return;
    }
    const std::vector<int64_t> dims = data.dims();
    const std::vector<int64_t> id_dims = ids.dims();
    if (!StartsWith(ctx, dims, id_dims, "data", "segment_ids")) return;
    std::vector<int64_t> out_dims{num};
    out_dims.insert(out_dims.end(), dims.begin() + static_cast<ptrdiff_t>(id_dims.size()),
                    dims.end());
    int64_t out_n = 0;
    if (!CheckedNumElements(ctx, out_dims, &out_n)) return;
    const std::vector<int64_t> seg = IndexValues(ids);
    const int64_t rows = static_cast<int64_t>(seg.size());
    for (int64_t r = 0; r < rows; ++r) {
      if (seg[static_cast<size_t>(r)] >= num) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 BadIndexMessage(r, id_dims, seg[static_cast<size_t>(r)], num, "segment_ids"));
        return;
      }
    }
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    std::fill(o, o + out_n, T(0));
    const int64_t inner = Product(out_dims, 1, out_dims.size());
    if (rows == 0 || inner == 0) return;
    const T* in = data.data<T>();
    // Columns are independent: each worker adds every row into its own column range, so no
    // two workers touch one output element.
    ctx.ParallelFor(inner, static_cast<double>(rows), [&](int64_t b, int64_t e) {
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t s = seg[static_cast<size_t>(r)];
        if (s < 0) continue;
        const T* src = in + r * inner;
        T* dst = o + s * inner;
        for (int64_t c = b; c < e; ++c) dst[c] += src[c];
      }
    });
  }
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<UnsortedSegmentSumOp<T>>(KernelBuilder("UnsortedSegmentSum", "CPU")
                                           .TypeConstraint("T", DTypeOf<T>::value)
                                           .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
                                           .TypeConstraint("Tnumsegments", TG_ARRAY_INDEX_TYPES)
                                           .HostMemory("num_segments"));
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    init.Kernel<dynamic_stitch::DynamicStitchOp<T>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", DTypeOf<T>::value));
  }
}

}  // namespace

void RegisterArrayHelperSegmentKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<int32_t>(init);
  RegisterFor<int64_t>(init);
}

}  // namespace tgraph_cpu
