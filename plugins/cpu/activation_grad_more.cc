// LeakyReluGrad and SeluGrad on the CPU: TensorFlow's own backward graphs of LeakyRelu and
// Selu hold them (tgraph's autodiff writes those gradients with element-wise ops). Inputs
// of one shape; a plain loop per element, in float for half and bfloat16.
//   LeakyReluGrad: features > 0 ? gradients : alpha * gradients
//   SeluGrad:      outputs < 0 ? gradients * (outputs + scale * alpha) : gradients * scale
#include <Eigen/Core>

#include <string>
#include <type_traits>
#include <vector>

#include "array_kernel_util.h"
#include "model_op_kernels.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using array_util::ShapeString;

// Selu's constants (TensorFlow's, from the SELU paper).
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

// C = double for double, else float.
template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T, bool kLeaky>
class ActivationGradOp {
 public:
  explicit ActivationGradOp(Construction& c) {
    if constexpr (kLeaky) c.GetAttr("alpha", &alpha_);
  }

  void Compute(Context& ctx) {
    const TensorView g = ctx.input(0), f = ctx.input(1);
    if (g.dims() != f.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string("gradients and ") + (kLeaky ? "features" : "outputs") +
                                        " must have the same shape, but are " + ShapeString(g.dims()) +
                                        " and " + ShapeString(f.dims()));
      return;
    }
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, g.dims());
    if (!ctx.ok()) return;
    const T* pg = g.data<T>();
    const T* pf = f.data<T>();
    T* po = out.mutable_data<T>();
    using C = tgraph_cpu::Compute<T>;
    const C alpha = static_cast<C>(alpha_), scale = static_cast<C>(kSeluScale),
            scaled_alpha = static_cast<C>(kSeluScale * kSeluAlpha);
    ctx.ParallelFor(g.num_elements(), 2.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const C gi = static_cast<C>(pg[i]), fi = static_cast<C>(pf[i]);
        if constexpr (kLeaky) {
          po[i] = static_cast<T>(fi > C(0) ? gi : alpha * gi);
        } else {
          po[i] = static_cast<T>(fi < C(0) ? gi * (fi + scaled_alpha) : gi * scale);
        }
      }
    });
  }

 private:
  float alpha_ = 0.2f;
};

template <bool kLeaky>
void RegisterFor(tgraph::plugin::Init& init, const char* op) {
  init.Kernel<ActivationGradOp<float, kLeaky>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<ActivationGradOp<double, kLeaky>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_DOUBLE));
  init.Kernel<ActivationGradOp<Eigen::half, kLeaky>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_HALF));
  init.Kernel<ActivationGradOp<Eigen::bfloat16, kLeaky>>(
      KernelBuilder(op, "CPU").TypeConstraint("T", TG_BFLOAT16));
}

}  // namespace

void RegisterActivationGradMoreKernels(tgraph::plugin::Init& init) {
  RegisterFor<true>(init, "LeakyReluGrad");
  RegisterFor<false>(init, "SeluGrad");
}

}  // namespace tgraph_cpu
