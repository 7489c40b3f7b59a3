// Identity: output 0 shares input 0's buffer (no copy), for every dtype; reading a ref input
// gives the variable's current value; StopGradient runs as Identity. NoOp: nothing (a control-dependency anchor).
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
  init.Kernel<NoOpKernel>(KernelBuilder("NoOp", "CPU"));
}

}  // namespace tgraph_cpu
