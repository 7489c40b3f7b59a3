// All and Any: logical AND / OR of a bool tensor over the given axes (keep_dims as for Sum).
// One pass over the input in order, each element folded into its output slot; no Eigen.
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

template <bool kAll>
class BoolReductionOp {
 public:
  explicit BoolReductionOp(Construction& c) { c.GetAttr("keep_dims", &keep_dims_); }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<int64_t> axes;
    if (!ReadIndexVector(ctx, 1, "reduction_indices", &axes, /*allow_scalar=*/true)) return;
    std::vector<bool> reduced(dims.size(), false);
    for (int64_t a : axes) {
      int64_t axis;
      if (!CanonicalAxis(ctx, a, rank, false, "reduction_indices value", &axis)) return;
      reduced[static_cast<size_t>(axis)] = true;
    }
    // Output dims, and each input dim's stride in the output (0 where reduced).
    std::vector<int64_t> out_dims, kept;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!reduced[d]) {
        out_dims.push_back(dims[d]);
        kept.push_back(dims[d]);
      } else if (keep_dims_) {
        out_dims.push_back(1);
      }
    }
    std::vector<int64_t> out_stride(dims.size(), 0);
    int64_t stride = 1;
    for (size_t d = dims.size(), k = kept.size(); d-- > 0;) {
      if (reduced[d]) continue;
      out_stride[d] = stride;
      stride *= kept[--k];
    }
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    bool* o = out.mutable_data<bool>();
    const int64_t n_out = NumElements(out_dims);
    std::fill(o, o + n_out, kAll);
    const int64_t n = in.num_elements();
    if (n == 0) return;
    const bool* x = in.data<bool>();
    // The odometer over the input's dims, and the output slot it lands in.
    std::vector<int64_t> idx(dims.size(), 0);
    int64_t slot = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (kAll) {
        o[slot] = o[slot] && x[i];
      } else {
        o[slot] = o[slot] || x[i];
      }
      for (size_t d = dims.size(); d-- > 0;) {
        slot += out_stride[d];
        if (++idx[d] < dims[d]) break;
        slot -= out_stride[d] * dims[d];
        idx[d] = 0;
      }
    }
  }

 private:
  bool keep_dims_ = false;
};

}  // namespace

void RegisterBoolReductionKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<BoolReductionOp<true>>(KernelBuilder("All", "CPU")
                                         .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                                         .HostMemory("reduction_indices"));
  init.Kernel<BoolReductionOp<false>>(KernelBuilder("Any", "CPU")
                                          .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                                          .HostMemory("reduction_indices"));
}

}  // namespace tgraph_cpu
