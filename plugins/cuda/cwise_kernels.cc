// Element-wise float kernels: Add/AddV2/Sub/Mul/RealDiv/Maximum with NumPy broadcasting,
// Neg/Exp/Log/Tanh/Sigmoid/Relu/Softplus, ReluGrad/SigmoidGrad/TanhGrad/SoftplusGrad, and
// AddN (device code: cwise.cu). Comparisons and logical ops: compare_kernels.cc.
#include <string>
#include <vector>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/array_args.h"
#include "device_common/binary_args.h"
#include "unary_kernel.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using tgraph_device_common::BinaryPlan;
using tgraph_device_common::PlanBinary;
using tgraph_device_common::Product;

template <BinaryOp kOp>
class BinaryKernel {
 public:
  explicit BinaryKernel(Construction&) {}
  void Compute(Context& ctx) {
    BinaryPlan plan;
    BroadcastShape s;
    if (!PlanBinary(ctx, CheckIntSized, &plan, &s)) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut z = ctx.input(0).dims() == plan.out_dims
                      ? ctx.ForwardOrAllocateOutput(0, 0, plan.out_dims)
                      : ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || plan.n == 0) return;
    const float* xp = DataOf<const float>(ctx.input(0));
    const float* yp = DataOf<const float>(ctx.input(1));
    float* zp = DataOf<float>(z);
    if (plan.same) {
      CudaOk(ctx, LaunchBinary(kOp, xp, yp, zp, static_cast<int>(plan.n), dev->stream()),
             "launch");
      return;
    }
    CudaOk(ctx, LaunchBinaryBroadcast(kOp, xp, yp, zp, s, dev->stream()), "launch");
  }
};

// The float UnaryOps (unary_kernel.h).
template <UnaryOp kOp>
cudaError_t LaunchUnaryOp(const float* x, float* y, int n, cudaStream_t stream) {
  return LaunchUnary(kOp, x, y, n, stream);
}
template <UnaryOp kOp>
using FloatUnaryKernel = UnaryKernel<float, LaunchUnaryOp<kOp>>;

// Two-input gradient kernels without broadcasting, as TensorFlow's. ReluGrad and
// SoftplusGrad(gradients, features) want one shape and may reuse `gradients`; SigmoidGrad / TanhGrad(y, dy) want
// one element count, take y's shape and may reuse dy (usually dead after this op).
template <GradOp kOp>
class GradKernel {
 public:
  explicit GradKernel(Construction&) {}
  void Compute(Context& ctx) {
    // (gradients, features) pairs: one shape, `gradients` reusable.
    constexpr bool kFeatures = kOp == GradOp::kRelu || kOp == GradOp::kSoftplus;
    constexpr int kForward = kFeatures ? 0 : 1;
    const char* first = kFeatures ? "gradients" : "y";
    const char* second = kFeatures ? "features" : "dy";
    TensorView a = ctx.input(0), b = ctx.input(1);
    const std::vector<int64_t> ad = a.dims(), bd = b.dims();
    if (kFeatures ? ad != bd : a.num_elements() != b.num_elements()) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string(first) + " and " + second +
                                        " must have the same " +
                                        (kFeatures ? "shape" : "number of elements") + ", got " +
                                        ShapeString(ad) + " and " + ShapeString(bd));
      return;
    }
    const int64_t n = a.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    // Forwarding hands over a buffer as is: only one that already has the output's shape.
    const bool can_forward = (kForward == 0 ? ad : bd) == ad;
    TensorMut y = can_forward ? ctx.ForwardOrAllocateOutput(kForward, 0, ad)
                              : ctx.AllocateOutput(0, ad);
    if (!ctx.ok() || n == 0) return;
    CudaOk(ctx,
           LaunchGrad(kOp, DataOf<const float>(a), DataOf<const float>(b), DataOf<float>(y),
                      static_cast<int>(n), dev->stream()),
           "launch");
  }
};

// AddN(inputs...), float: out = in0 + in1, then out += in_k for each further input, one
// launch each (in place past the first), the CPU plugin's order of sums. One input: an
// alias of it.
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok() || n == 0) return;
    float* o = DataOf<float>(out);
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const float* x = i == 1 ? DataOf<const float>(first) : o;
      if (!CudaOk(ctx,
                  LaunchBinary(BinaryOp::kAdd, x, DataOf<const float>(ctx.input(i)), o,
                               static_cast<int>(n), dev->stream()),
                  "launch")) {
        return;
      }
    }
  }
};

}  // namespace

void RegisterCwiseKernels(tgraph::plugin::Init& init) {
  auto f = [](const char* op) {
    return KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT);
  };
  AddDeviceKernel<BinaryKernel<BinaryOp::kAdd>>(init, f("Add"));
  AddDeviceKernel<BinaryKernel<BinaryOp::kAdd>>(init, f("AddV2"));
  AddDeviceKernel<BinaryKernel<BinaryOp::kSub>>(init, f("Sub"));
  AddDeviceKernel<BinaryKernel<BinaryOp::kMul>>(init, f("Mul"));
  AddDeviceKernel<BinaryKernel<BinaryOp::kDiv>>(init, f("RealDiv"));
  AddDeviceKernel<BinaryKernel<BinaryOp::kMaximum>>(init, f("Maximum"));
  AddDeviceKernel<FloatUnaryKernel<UnaryOp::kNeg>>(init, f("Neg"));
  AddDeviceKernel<FloatUnaryKernel<UnaryOp::kExp>>(init, f("Exp"));
  AddDeviceKernel<FloatUnaryKernel<UnaryOp::kLog>>(init, f("Log"));
  AddDeviceKernel<FloatUnaryKernel<UnaryOp::kTanh>>(init, f("Tanh"));
  AddDeviceKernel<FloatUnaryKernel<UnaryOp::kSigmoid>>(init, f("Sigmoid"));
  AddDeviceKernel<FloatUnaryKernel<UnaryOp::kRelu>>(init, f("Relu"));
  AddDeviceKernel<FloatUnaryKernel<UnaryOp::kSoftplus>>(init, f("Softplus"));
  AddDeviceKernel<GradKernel<GradOp::kRelu>>(init, f("ReluGrad"));
  AddDeviceKernel<GradKernel<GradOp::kSigmoid>>(init, f("SigmoidGrad"));
  AddDeviceKernel<GradKernel<GradOp::kTanh>>(init, f("TanhGrad"));
  AddDeviceKernel<GradKernel<GradOp::kSoftplus>>(init, f("SoftplusGrad"));
  AddDeviceKernel<AddNKernel>(init, f("AddN"));
}

}  // namespace tgraph_cuda
