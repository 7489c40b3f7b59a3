// Element-wise float kernels: Add/AddV2/Sub/Mul/RealDiv/Maximum with NumPy broadcasting,
// Neg/Exp/Log/Tanh/Sigmoid/Relu, and ReluGrad/SigmoidGrad/TanhGrad (device code: cwise.cu).
#include <algorithm>
#include <string>
#include <vector>

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

// The broadcast of x and y: output dims, and the operands' element strides per output dim
// (0 where an operand is broadcast), with size-1 dims dropped and mergeable dims merged.
struct BroadcastPlan {
  std::vector<int64_t> out_dims;
  std::vector<int64_t> dims, xs, ys;
};

bool PlanBroadcast(const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                   BroadcastPlan* plan) {
  const size_t rank = std::max(x.size(), y.size());
  std::vector<int64_t> xd(rank, 1), yd(rank, 1);
  std::copy(x.begin(), x.end(), xd.begin() + static_cast<long>(rank - x.size()));
  std::copy(y.begin(), y.end(), yd.begin() + static_cast<long>(rank - y.size()));
  plan->out_dims.assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    if (xd[d] != yd[d] && xd[d] != 1 && yd[d] != 1) return false;
    plan->out_dims[d] = xd[d] == 1 ? yd[d] : xd[d];
  }
  // Row-major strides, zeroed along broadcast dims; then drop size-1 output dims.
  std::vector<int64_t> xs(rank), ys(rank);
  int64_t sx = 1, sy = 1;
  for (size_t d = rank; d-- > 0;) {
    xs[d] = xd[d] == 1 ? 0 : sx;
    ys[d] = yd[d] == 1 ? 0 : sy;
    sx *= xd[d];
    sy *= yd[d];
  }
  for (size_t d = 0; d < rank; ++d) {
    if (plan->out_dims[d] == 1) continue;
    const int64_t n = plan->out_dims[d];
    // Merge with the previous kept dim when both operands step through them as one.
    if (!plan->dims.empty() && plan->xs.back() == xs[d] * n && plan->ys.back() == ys[d] * n) {
      plan->dims.back() *= n;
      plan->xs.back() = xs[d];
      plan->ys.back() = ys[d];
      continue;
    }
    plan->dims.push_back(n);
    plan->xs.push_back(xs[d]);
    plan->ys.push_back(ys[d]);
  }
  return true;
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

template <BinaryOp kOp>
class BinaryKernel {
 public:
  explicit BinaryKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0), y = ctx.input(1);
    const std::vector<int64_t> xd = x.dims(), yd = y.dims();
    BroadcastPlan plan;
    if (!PlanBroadcast(xd, yd, &plan)) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "Incompatible shapes: " + ShapeString(xd) + " vs. " + ShapeString(yd));
      return;
    }
    const int64_t n = Product(plan.out_dims);
    if (!CheckIntSized(ctx, n, "the output")) return;
    if (xd != yd && plan.dims.size() > static_cast<size_t>(kMaxBroadcastRank)) {
      ctx.Fail(TG_UNIMPLEMENTED, "broadcasting " + ShapeString(xd) + " with " + ShapeString(yd) +
                                     " needs more than " + std::to_string(kMaxBroadcastRank) +
                                     " dims after merging");
      return;
    }
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut z = xd == plan.out_dims ? ctx.ForwardOrAllocateOutput(0, 0, plan.out_dims)
                                      : ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || n == 0) return;
    const float* xp = DataOf<const float>(x);
    const float* yp = DataOf<const float>(y);
    float* zp = DataOf<float>(z);
    if (xd == yd) {
      CudaOk(ctx, LaunchBinary(kOp, xp, yp, zp, static_cast<int>(n), dev->stream()), "launch");
      return;
    }
    BroadcastShape s{};
    s.rank = static_cast<int>(plan.dims.size());
    s.n = static_cast<int>(n);
    for (size_t d = 0; d < plan.dims.size(); ++d) {
      s.dims[d] = static_cast<int>(plan.dims[d]);
      s.xs[d] = static_cast<int>(plan.xs[d]);
      s.ys[d] = static_cast<int>(plan.ys[d]);
    }
    CudaOk(ctx, LaunchBinaryBroadcast(kOp, xp, yp, zp, s, dev->stream()), "launch");
  }
};

// y = f(x), in place when the input buffer can be forwarded.
template <UnaryOp kOp>
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
           LaunchUnary(kOp, DataOf<const float>(x), DataOf<float>(y), static_cast<int>(n),
                       dev->stream()),
           "launch");
  }
};

// Two-input gradient kernels without broadcasting, as TensorFlow's. ReluGrad(gradients,
// features) wants one shape and may reuse `gradients`; SigmoidGrad / TanhGrad(y, dy) want
// one element count, take y's shape and may reuse dy (usually dead after this op).
template <GradOp kOp>
class GradKernel {
 public:
  explicit GradKernel(Construction&) {}
  void Compute(Context& ctx) {
    constexpr bool kRelu = kOp == GradOp::kRelu;
    constexpr int kForward = kRelu ? 0 : 1;
    const char* first = kRelu ? "gradients" : "y";
    const char* second = kRelu ? "features" : "dy";
    TensorView a = ctx.input(0), b = ctx.input(1);
    const std::vector<int64_t> ad = a.dims(), bd = b.dims();
    if (kRelu ? ad != bd : a.num_elements() != b.num_elements()) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string(first) + " and " + second +
                                        " must have the same " +
                                        (kRelu ? "shape" : "number of elements") + ", got " +
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

}  // namespace

void RegisterCwiseKernels(tgraph::plugin::Init& init) {
  auto f = [](const char* op) {
    return KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT);
  };
  init.Kernel<BinaryKernel<BinaryOp::kAdd>>(f("Add"));
  init.Kernel<BinaryKernel<BinaryOp::kAdd>>(f("AddV2"));
  init.Kernel<BinaryKernel<BinaryOp::kSub>>(f("Sub"));
  init.Kernel<BinaryKernel<BinaryOp::kMul>>(f("Mul"));
  init.Kernel<BinaryKernel<BinaryOp::kDiv>>(f("RealDiv"));
  init.Kernel<BinaryKernel<BinaryOp::kMaximum>>(f("Maximum"));
  init.Kernel<UnaryKernel<UnaryOp::kNeg>>(f("Neg"));
  init.Kernel<UnaryKernel<UnaryOp::kExp>>(f("Exp"));
  init.Kernel<UnaryKernel<UnaryOp::kLog>>(f("Log"));
  init.Kernel<UnaryKernel<UnaryOp::kTanh>>(f("Tanh"));
  init.Kernel<UnaryKernel<UnaryOp::kSigmoid>>(f("Sigmoid"));
  init.Kernel<UnaryKernel<UnaryOp::kRelu>>(f("Relu"));
  init.Kernel<GradKernel<GradOp::kRelu>>(f("ReluGrad"));
  init.Kernel<GradKernel<GradOp::kSigmoid>>(f("SigmoidGrad"));
  init.Kernel<GradKernel<GradOp::kTanh>>(f("TanhGrad"));
}

}  // namespace tgraph_cuda
