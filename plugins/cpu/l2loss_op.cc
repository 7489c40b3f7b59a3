// L2Loss: sum(t ** 2) / 2 as a scalar. Fixed-size blocks are summed in parallel (in double)
// and the block sums added in order, so the result does not depend on the thread count.
#include <vector>

#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

constexpr int64_t kBlock = 1 << 14;

template <typename T>
class L2LossOp {
 public:
  explicit L2LossOp(Construction&) {}

  void Compute(Context& ctx) {
    const auto t = ctx.input(0);
    auto out = ctx.AllocateOutput(0, {});
    if (!ctx.ok()) return;
    const int64_t n = t.num_elements();
    const T* in = n > 0 ? t.template data<T>() : nullptr;
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
    ctx.ParallelFor(blocks, static_cast<double>(kBlock), [&](int64_t begin, int64_t end) {
      for (int64_t blk = begin; blk < end; ++blk) {
        const int64_t lo = blk * kBlock, hi = std::min(n, lo + kBlock);
        double sum = 0;
        for (int64_t i = lo; i < hi; ++i) {
          const double v = static_cast<double>(in[i]);
          sum += v * v;
        }
        partial[static_cast<size_t>(blk)] = sum;
      }
    });
    double total = 0;
    for (double p : partial) total += p;
    *out.template mutable_data<T>() = static_cast<T>(total / 2);
  }
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<L2LossOp<T>>(
      tgraph::plugin::KernelBuilder("L2Loss", "CPU").TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterL2Loss(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
