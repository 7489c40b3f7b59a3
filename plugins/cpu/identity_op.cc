// Identity: output 0 shares input 0's buffer (no copy), for every dtype; reading a ref input
// gives the variable's current value; StopGradient runs as Identity; IdentityN shares each
// input's buffer with the output of its index. NoOp: nothing (a control-dependency anchor).
#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

class IdentityOp {
 public:
  explicit IdentityOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    ctx.SetOutputAlias(0, in, in.dims());
  }
};

class IdentityNOp {
 public:
  explicit IdentityNOp(Construction&) {}
  void Compute(Context& ctx) {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      TensorView in = ctx.input(i);
      ctx.SetOutputAlias(i, in, in.dims());
    }
  }
};

class NoOpKernel {
 public:
  explicit NoOpKernel(Construction&) {}
  void Compute(Context&) {}
};

}  // namespace

void RegisterIdentityKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<IdentityOp>(KernelBuilder("Identity", "CPU").CostPerElementNs(kViewCostPerElementNs));
  // StopGradient only matters to gradient building; running it is Identity.
  init.Kernel<IdentityOp>(
      KernelBuilder("StopGradient", "CPU").CostPerElementNs(kViewCostPerElementNs));
  init.Kernel<IdentityNOp>(KernelBuilder("IdentityN", "CPU").CostPerElementNs(kViewCostPerElementNs));
  init.Kernel<NoOpKernel>(KernelBuilder("NoOp", "CPU"));
}

}  // namespace tgraph_cpu
