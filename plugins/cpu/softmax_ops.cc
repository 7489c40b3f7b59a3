// Softmax and LogSoftmax over the last dimension, one row per work item, numerically
// stable (the row's maximum is subtracted before exponentiating). Rows are Eigen arrays, so
// exp/log use Eigen's vectorised kernels.
#include <string>

#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

template <typename T, bool kLog>
class SoftmaxOp {
 public:
  explicit SoftmaxOp(Construction&) {}

  void Compute(Context& ctx) {
    const auto logits = ctx.input(0);
    if (logits.rank() < 1) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "logits must have rank at least 1, got shape " + ShapeString(logits.dims()));
      return;
    }
    const std::vector<int64_t> dims = logits.dims();
    auto out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok()) return;
    const int64_t classes = dims.back();
    const int64_t total = logits.num_elements();
    if (total == 0) return;
    const int64_t rows = total / classes;
    const T* in = logits.template data<T>();
    T* o = out.template mutable_data<T>();
    using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
    ctx.ParallelFor(rows, static_cast<double>(classes) * 10.0, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        Eigen::Map<const Row> x(in + r * classes, classes);
        Eigen::Map<Row> y(o + r * classes, classes);
        const T max = x.maxCoeff();
        // In place is fine: every element is read before it is written.
        y = x - max;
        if constexpr (kLog) {
          const T log_sum = std::log(y.exp().sum());
          y -= log_sum;
        } else {
          y = y.exp();
          y *= T(1) / y.sum();
        }
      }
    });
  }
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<SoftmaxOp<T, false>>(
      tgraph::plugin::KernelBuilder("Softmax", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<SoftmaxOp<T, true>>(
      tgraph::plugin::KernelBuilder("LogSoftmax", "CPU").TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterSoftmax(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
