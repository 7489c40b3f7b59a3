// Where (tf.where with one argument): the coordinates of the true (non-zero) elements of a
// bool (or numeric) tensor, as int64 [num_true, rank] in row-major order. boolean_mask is built on it (Where, Squeeze,
// GatherV2), which is how report_uninitialized_variables picks the names it reports.
#include <cstdint>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

template <typename T>
class WhereOp {
 public:
  explicit WhereOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView input = ctx.input(0);
    const std::vector<int64_t> dims = input.dims();
    const int64_t n = input.num_elements();
    const T* values = input.data<T>();
    int64_t num_true = 0;
    for (int64_t i = 0; i < n; ++i) num_true += values[i] != T(0) ? 1 : 0;
    const auto rank = static_cast<int64_t>(dims.size());
    TensorMut out = ctx.AllocateOutput(0, {num_true, rank});
    if (!ctx.ok() || num_true == 0 || rank == 0) return;
    int64_t* coords = out.mutable_data<int64_t>();
    int64_t row = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (values[i] == T(0)) continue;
      // Unravel i into coordinates, last dimension fastest.
      int64_t rest = i;
      for (int64_t d = rank - 1; d >= 0; --d) {
        const int64_t size = dims[static_cast<size_t>(d)];
        coords[row * rank + d] = rest % size;
        rest /= size;
      }
      ++row;
    }
  }
};

}  // namespace

void RegisterWhereKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<WhereOp<bool>>(KernelBuilder("Where", "CPU").TypeConstraint("T", TG_BOOL));
  // TF's Where takes numbers too (their non-zero elements).
  init.Kernel<WhereOp<float>>(KernelBuilder("Where", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<WhereOp<double>>(KernelBuilder("Where", "CPU").TypeConstraint("T", TG_DOUBLE));
  init.Kernel<WhereOp<int32_t>>(KernelBuilder("Where", "CPU").TypeConstraint("T", TG_INT32));
  init.Kernel<WhereOp<int64_t>>(KernelBuilder("Where", "CPU").TypeConstraint("T", TG_INT64));
}

}  // namespace tgraph_cpu
