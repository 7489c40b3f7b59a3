// Element-wise float kernels: Add/AddV2/Sub/Mul/RealDiv/Maximum with NumPy broadcasting,
// Neg/Exp/Log/Tanh/Sigmoid/Relu/Softplus, ReluGrad/SigmoidGrad/TanhGrad/SoftplusGrad, and
// AddN (program "cwise", cl_sources.cc). Comparisons and logical ops: compare_kernels.cc.
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "device_common/array_args.h"
#include "device_common/binary_args.h"
#include "unary_kernel.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using tgraph_device_common::BinaryPlan;
using tgraph_device_common::PlanBinary;
using tgraph_device_common::Product;

class BinaryKernel {
 public:
  BinaryKernel(Construction&, const char* name) : name_(name) {}
  void Compute(Context& ctx) {
    BinaryPlan plan;
    Bcast b;
    if (!PlanBinary(ctx, CheckIntSized, &plan, &b)) return;
    TensorMut z = ctx.input(0).dims() == plan.out_dims
                      ? ctx.ForwardOrAllocateOutput(0, 0, plan.out_dims)
                      : ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || plan.n == 0) return;
    const cl_mem xm = BufferOf(ctx.input(0)), ym = BufferOf(ctx.input(1)), zm = BufferOf(z);
    const size_t n = static_cast<size_t>(plan.n);
    if (plan.same) {
      const cl_int count = static_cast<cl_int>(plan.n);
      Launch(ctx, "cwise", (name_ + "_same").c_str(), {A(xm), A(ym), A(zm), A(count)}, {n});
      return;
    }
    Launch(ctx, "cwise", (name_ + "_bcast").c_str(), {A(xm), A(ym), A(zm), A(b)}, {n});
  }

 private:
  std::string name_;
};

// One class per OpenCL kernel name (the wrapper constructs kernels from Construction only).
#define TG_CL_BINARY(Class, cl_name)                                   \
  struct Class : BinaryKernel {                                        \
    explicit Class(Construction& c) : BinaryKernel(c, cl_name) {}      \
  };
TG_CL_BINARY(AddKernel, "tg_add")
TG_CL_BINARY(SubKernel, "tg_sub")
TG_CL_BINARY(MulKernel, "tg_mul")
TG_CL_BINARY(DivKernel, "tg_div")
TG_CL_BINARY(MaximumKernel, "tg_maximum")
#undef TG_CL_BINARY

// The float unary ops of program "cwise" (unary_kernel.h).
#define TG_CL_UNARY(Class, cl_name)                                   \
  struct Class : UnaryKernel {                                        \
    explicit Class(Construction&) : UnaryKernel("cwise", cl_name) {}  \
  };
TG_CL_UNARY(NegKernel, "tg_neg")
TG_CL_UNARY(ExpKernel, "tg_exp")
TG_CL_UNARY(LogKernel, "tg_log")
TG_CL_UNARY(TanhKernel, "tg_tanh")
TG_CL_UNARY(SigmoidKernel, "tg_sigmoid")
TG_CL_UNARY(ReluKernel, "tg_relu")
TG_CL_UNARY(SoftplusKernel, "tg_softplus")
#undef TG_CL_UNARY

// Two-input gradient kernels without broadcasting, as TensorFlow's. ReluGrad and
// SoftplusGrad(gradients, features) want one shape and may reuse `gradients`; SigmoidGrad / TanhGrad(y, dy) want
// one element count, take y's shape and may reuse dy (usually dead after this op).
class GradKernel {
 public:
  GradKernel(Construction&, const char* name, bool same_shape, int forward, const char* first,
             const char* second)
      : name_(name), same_shape_(same_shape), forward_(forward), first_(first), second_(second) {}
  void Compute(Context& ctx) {
    TensorView a = ctx.input(0), b = ctx.input(1);
    const std::vector<int64_t> ad = a.dims(), bd = b.dims();
    if (same_shape_ ? ad != bd : a.num_elements() != b.num_elements()) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string(first_) + " and " + second_ +
                                        " must have the same " +
                                        (same_shape_ ? "shape" : "number of elements") +
                                        ", got " + ShapeString(ad) + " and " + ShapeString(bd));
      return;
    }
    const int64_t n = a.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    // Forwarding hands over a buffer as is: only one that already has the output's shape.
    const bool can_forward = (forward_ == 0 ? ad : bd) == ad;
    TensorMut y = can_forward ? ctx.ForwardOrAllocateOutput(forward_, 0, ad)
                              : ctx.AllocateOutput(0, ad);
    if (!ctx.ok() || n == 0) return;
    const cl_mem am = BufferOf(a), bm = BufferOf(b), ym = BufferOf(y);
    const cl_int count = static_cast<cl_int>(n);
    Launch(ctx, "cwise", name_, {A(am), A(bm), A(ym), A(count)}, {static_cast<size_t>(n)});
  }

 private:
  const char* name_;
  bool same_shape_;
  int forward_;
  const char* first_;
  const char* second_;
};

struct ReluGradKernel : GradKernel {
  explicit ReluGradKernel(Construction& c)
      : GradKernel(c, "tg_relu_grad", true, 0, "gradients", "features") {}
};
struct SoftplusGradKernel : GradKernel {
  explicit SoftplusGradKernel(Construction& c)
      : GradKernel(c, "tg_softplus_grad", true, 0, "gradients", "features") {}
};
struct SigmoidGradKernel : GradKernel {
  explicit SigmoidGradKernel(Construction& c)
      : GradKernel(c, "tg_sigmoid_grad", false, 1, "y", "dy") {}
};
struct TanhGradKernel : GradKernel {
  explicit TanhGradKernel(Construction& c)
      : GradKernel(c, "tg_tanh_grad", false, 1, "y", "dy") {}
};

// AddN(inputs...), float: out = in0 + in1, then out += in_k for each further input, one
// launch each (tg_add_same, in place past the first), the CPU plugin's order of sums. One
// input: an alias of it.
class AddNKernel {
 public:
  explicit AddNKernel(Construction&) {}
  void Compute(Context& ctx) {
    std::vector<int64_t> dims;
    if (!tgraph_device_common::CheckAddNShapes(ctx, &dims)) return;
    TensorView first = ctx.input(0);
    if (ctx.num_inputs() == 1) {
      ctx.SetOutputAlias(0, first, dims);
      return;
    }
    const int64_t n = Product(dims);
    if (!CheckIntSized(ctx, n, "the output")) return;
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok() || n == 0) return;
    const cl_mem om = BufferOf(out);
    const cl_int count = static_cast<cl_int>(n);
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const cl_mem xm = i == 1 ? BufferOf(first) : om, ym = BufferOf(ctx.input(i));
      if (!Launch(ctx, "cwise", "tg_add_same", {A(xm), A(ym), A(om), A(count)},
                  {static_cast<size_t>(n)})) {
        return;
      }
    }
  }
};

}  // namespace

void RegisterCwiseKernels(tgraph::plugin::Init& init) {
  auto f = [](const char* op) { return KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT); };
  AddDeviceKernel<AddKernel>(init, f("Add"));
  AddDeviceKernel<AddKernel>(init, f("AddV2"));
  AddDeviceKernel<SubKernel>(init, f("Sub"));
  AddDeviceKernel<MulKernel>(init, f("Mul"));
  AddDeviceKernel<DivKernel>(init, f("RealDiv"));
  AddDeviceKernel<MaximumKernel>(init, f("Maximum"));
  AddDeviceKernel<NegKernel>(init, f("Neg"));
  AddDeviceKernel<ExpKernel>(init, f("Exp"));
  AddDeviceKernel<LogKernel>(init, f("Log"));
  AddDeviceKernel<TanhKernel>(init, f("Tanh"));
  AddDeviceKernel<SigmoidKernel>(init, f("Sigmoid"));
  AddDeviceKernel<ReluKernel>(init, f("Relu"));
  AddDeviceKernel<SoftplusKernel>(init, f("Softplus"));
  AddDeviceKernel<SoftplusGradKernel>(init, f("SoftplusGrad"));
  AddDeviceKernel<ReluGradKernel>(init, f("ReluGrad"));
  AddDeviceKernel<SigmoidGradKernel>(init, f("SigmoidGrad"));
  AddDeviceKernel<TanhGradKernel>(init, f("TanhGrad"));
  AddDeviceKernel<AddNKernel>(init, f("AddN"));
}

}  // namespace tgraph_opencl
