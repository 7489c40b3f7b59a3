// Where (tf.where with one argument): the coordinates of the true elements of a bool tensor,
// as int64 [num_true, rank] in row-major order. boolean_mask is built on it (Where, Squeeze,
// GatherV2), which is how report_uninitialized_variables picks the names it reports.
#include <cstdint>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

class WhereOp {
 public:
  explicit WhereOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView input = ctx.input(0);
    const std::vector<int64_t> dims = input.dims();
    const int64_t n = input.num_elements();
    const bool* values = input.data<bool>();
    int64_t num_true = 0;
    for (int64_t i = 0; i < n; ++i) num_true += values[i] ? 1 : 0;
    const auto rank = static_cast<int64_t>(dims.size());
    TensorMut out = ctx.AllocateOutput(0, {num_true, rank});
    if (!ctx.ok() || num_true == 0 || rank == 0) return;
    int64_t* coords = out.mutable_data<int64_t>();
    int64_t row = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!values[i]) continue;
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
  init.Kernel<WhereOp>(KernelBuilder("Where", "CPU").TypeConstraint("T", TG_BOOL));
}

}  // namespace tgraph_cpu
