// Comparisons (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual) of float and int32
// operands with NumPy broadcasting, Equal / NotEqual of bools, and LogicalAnd / LogicalOr /
// LogicalNot: DT_BOOL outputs (device code: compare.cu). The checks and messages are the
// CPU plugin's (device_common/binary_args.h), and so is Equal / NotEqual's
// incompatible_shape_error=false: shapes that do not broadcast give a scalar answer.
#include <cstdint>
#include <type_traits>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
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
using tgraph_device_common::OnMismatch;
using tgraph_device_common::PlanBinary;

// The launch for the operands' dtype (bools are bytes on the device).
cudaError_t LaunchFor(CompareOp op, const TensorView& x, const TensorView& y, uint8_t* z, int n,
                      const BroadcastShape* shape, cudaStream_t stream) {
  switch (x.dtype()) {
    case TG_FLOAT:
      return LaunchCompare(op, DataOf<const float>(x), DataOf<const float>(y), z, n, shape,
                           stream);
    case TG_INT32:
      return LaunchCompare(op, DataOf<const int32_t>(x), DataOf<const int32_t>(y), z, n, shape,
                           stream);
    default:
      return LaunchCompare(op, DataOf<const uint8_t>(x), DataOf<const uint8_t>(y), z, n, shape,
                           stream);
  }
}
cudaError_t LaunchFor(LogicalOp op, const TensorView& x, const TensorView& y, uint8_t* z, int n,
                      const BroadcastShape* shape, cudaStream_t stream) {
  return LaunchLogical(op, DataOf<const uint8_t>(x), DataOf<const uint8_t>(y), z, n, shape,
                       stream);
}

// Op: a CompareOp or a LogicalOp.
template <typename Op, Op kOp>
class PredicateKernel {
 public:
  explicit PredicateKernel(Construction& c) {
    if constexpr (std::is_same_v<Op, CompareOp>) {
      if (kOp == CompareOp::kEqual || kOp == CompareOp::kNotEqual) {
        on_mismatch_ =
            tgraph_device_common::EqualityMismatch(c, /*not_equal=*/kOp == CompareOp::kNotEqual);
      }
    }
  }
  void Compute(Context& ctx) {
    BinaryPlan plan;
    BroadcastShape s;
    if (!PlanBinary(ctx, CheckIntSized, &plan, &s, on_mismatch_)) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut z = ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || plan.n == 0) return;
    uint8_t* zp = DataOf<uint8_t>(z);
    if (plan.mismatch) {
      CudaOk(ctx, cudaMemsetAsync(zp, plan.answer ? 1 : 0, 1, dev->stream()),
             "writing the scalar answer");
      return;
    }
    CudaOk(ctx,
           LaunchFor(kOp, ctx.input(0), ctx.input(1), zp, static_cast<int>(plan.n),
                     plan.same ? nullptr : &s, dev->stream()),
           "launch");
  }

 private:
  OnMismatch on_mismatch_ = OnMismatch::kFail;
};

// LogicalNot: y = !x over bools (bytes on the device).
using LogicalNotKernel = UnaryKernel<uint8_t, LaunchLogicalNot>;

template <CompareOp kOp>
using CompareKernel = PredicateKernel<CompareOp, kOp>;
template <LogicalOp kOp>
using LogicalKernel = PredicateKernel<LogicalOp, kOp>;

}  // namespace

void RegisterCompareKernels(tgraph::plugin::Init& init) {
  auto typed = [](const char* op, std::initializer_list<TG_DataType> types) {
    return KernelBuilder(op, DeviceType()).TypeConstraint("T", types);
  };
  AddDeviceKernel<CompareKernel<CompareOp::kEqual>>(
      init, typed("Equal", {TG_FLOAT, TG_INT32, TG_BOOL}));
  AddDeviceKernel<CompareKernel<CompareOp::kNotEqual>>(
      init, typed("NotEqual", {TG_FLOAT, TG_INT32, TG_BOOL}));
  AddDeviceKernel<CompareKernel<CompareOp::kLess>>(init, typed("Less", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<CompareKernel<CompareOp::kLessEqual>>(
      init, typed("LessEqual", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<CompareKernel<CompareOp::kGreater>>(
      init, typed("Greater", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<CompareKernel<CompareOp::kGreaterEqual>>(
      init, typed("GreaterEqual", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<LogicalKernel<LogicalOp::kAnd>>(init, KernelBuilder("LogicalAnd", DeviceType()));
  AddDeviceKernel<LogicalKernel<LogicalOp::kOr>>(init, KernelBuilder("LogicalOr", DeviceType()));
  AddDeviceKernel<LogicalNotKernel>(init, KernelBuilder("LogicalNot", DeviceType()));
}

}  // namespace tgraph_cuda
