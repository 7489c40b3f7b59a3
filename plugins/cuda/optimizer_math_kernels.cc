// Element-wise float32 Sqrt and Square: the ops of the optimizers' sparse updates (TF 1.x's
// sparse Adam: v_t = ScatterAdd(v * beta2, ..., Square(grad) ...); var -= lr_t * m_t /
// (Sqrt(v_t) + epsilon)) beyond the cwise set. Those ops are colocated with their variable,
// so the group, variable included, stays on the device only if all of them have kernels
// here: Sqrt and Square do, and so do the duplicate-summing ops before them (Unique, Shape
// and StridedSlice of a shape: device_common/host_kernels.h; UnsortedSegmentSum:
// sparse_kernels.cc). Device code: sparse.cu.
#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

template <OptimizerMathOp kOp>
class UnaryKernel {
 public:
  explicit UnaryKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0);
    const int64_t n = x.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || n == 0) return;
    CudaOk(ctx,
           LaunchOptimizerMath(kOp, DataOf<const float>(x), DataOf<float>(y),
                               static_cast<int>(n), dev->stream()),
           "launch");
  }
};

}  // namespace

void RegisterOptimizerMathKernels(tgraph::plugin::Init& init) {
  auto f = [](const char* op) {
    return KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT);
  };
  AddDeviceKernel<UnaryKernel<OptimizerMathOp::kSqrt>>(init, f("Sqrt"));
  AddDeviceKernel<UnaryKernel<OptimizerMathOp::kSquare>>(init, f("Square"));
}

}  // namespace tgraph_cuda
