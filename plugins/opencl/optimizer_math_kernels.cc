// Element-wise float32 Sqrt and Square: the ops of the optimizers' sparse updates (TF 1.x's
// sparse Adam: v_t = ScatterAdd(v * beta2, ..., Square(grad) ...); var -= lr_t * m_t /
// (Sqrt(v_t) + epsilon)) beyond the cwise set. Those ops are colocated with their variable,
// so the group, variable included, stays on the device only if all of them have kernels
// here: Sqrt and Square do, and so do the duplicate-summing ops before them (Unique, Shape
// and StridedSlice of a shape: device_common/host_kernels.h; UnsortedSegmentSum:
// sparse_kernels.cc). Program "train" (cl_sources_train.cc).
#include <string>

#include "cl_common.h"
#include "cl_kernels.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

class UnaryKernel {
 public:
  UnaryKernel(Construction&, const char* cl_kernel) : cl_kernel_(cl_kernel) {}
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0);
    const int64_t n = x.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    TensorMut y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || n == 0) return;
    const cl_mem xm = BufferOf(x), ym = BufferOf(y);
    const cl_int count = static_cast<cl_int>(n);
    Launch(ctx, "train", cl_kernel_, {A(xm), A(ym), A(count)}, {static_cast<size_t>(n)});
  }

 private:
  const char* cl_kernel_;
};

struct SqrtKernel : UnaryKernel {
  explicit SqrtKernel(Construction& c) : UnaryKernel(c, "tg_sqrt") {}
};
struct SquareKernel : UnaryKernel {
  explicit SquareKernel(Construction& c) : UnaryKernel(c, "tg_square") {}
};

}  // namespace

void RegisterOptimizerMathKernels(tgraph::plugin::Init& init) {
  AddDeviceKernel<SqrtKernel>(init, KernelBuilder("Sqrt", DeviceType()).TypeConstraint("T", TG_FLOAT));
  AddDeviceKernel<SquareKernel>(init, KernelBuilder("Square", DeviceType()).TypeConstraint("T", TG_FLOAT));
}

}  // namespace tgraph_opencl
