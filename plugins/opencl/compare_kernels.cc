// Comparisons (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual) of float and int32
// operands with NumPy broadcasting, Equal / NotEqual of bools, and LogicalAnd / LogicalOr /
// LogicalNot: DT_BOOL outputs (program "compare", cl_sources_compare.cc). The checks and
// messages are the CPU plugin's (device_common/binary_args.h), and so is Equal / NotEqual's
// incompatible_shape_error=false: shapes that do not broadcast give a scalar answer.
#include <string>

#include "cl_common.h"
#include "cl_kernels.h"
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
using tgraph_device_common::OnMismatch;
using tgraph_device_common::PlanBinary;

// The kernel's name for the operands' dtype: "<op>_f32", "<op>_i32", "<op>_bool"; the
// logical ops take bools only and have no suffix.
std::string KernelName(const char* op, TG_DataType dtype, bool logical) {
  std::string name = op;
  if (logical) return name;
  switch (dtype) {
    case TG_FLOAT: return name.append("_f32");
    case TG_INT32: return name.append("_i32");
    default: return name.append("_bool");
  }
}

class CompareKernel {
 public:
  CompareKernel(const char* op, bool logical, OnMismatch on_mismatch)
      : op_(op), logical_(logical), on_mismatch_(on_mismatch) {}
  void Compute(Context& ctx) {
    BinaryPlan plan;
    Bcast b;
    if (!PlanBinary(ctx, CheckIntSized, &plan, &b, on_mismatch_)) return;
    TensorMut z = ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || plan.n == 0) return;
    if (plan.mismatch) {
      try {
        const cl_uchar answer = plan.answer ? 1 : 0;
        DeviceOf(ctx).queue().enqueueFillBuffer(MemOf(z), answer, 0, 1);
      } catch (const std::exception& e) {
        FailFromClError(ctx, e, "writing the scalar answer");
      }
      return;
    }
    const cl_mem xm = BufferOf(ctx.input(0)), ym = BufferOf(ctx.input(1)), zm = BufferOf(z);
    const std::string name = KernelName(op_, ctx.input(0).dtype(), logical_);
    const size_t n = static_cast<size_t>(plan.n);
    if (plan.same) {
      const cl_int count = static_cast<cl_int>(plan.n);
      Launch(ctx, "compare", (name + "_same").c_str(), {A(xm), A(ym), A(zm), A(count)}, {n});
      return;
    }
    Launch(ctx, "compare", (name + "_bcast").c_str(), {A(xm), A(ym), A(zm), A(b)}, {n});
  }

 private:
  const char* op_;
  bool logical_;
  OnMismatch on_mismatch_;
};

// One class per op (the wrapper constructs kernels from Construction only); `on_mismatch`
// may read the node's attrs through the constructor's `c`.
#define TG_CL_COMPARE(Class, cl_name, logical, on_mismatch)                            \
  struct Class : CompareKernel {                                                       \
    explicit Class([[maybe_unused]] Construction& c)                                   \
        : CompareKernel(cl_name, logical, on_mismatch) {}                              \
  };
TG_CL_COMPARE(EqualKernel, "tg_equal", false,
              tgraph_device_common::EqualityMismatch(c, /*not_equal=*/false))
TG_CL_COMPARE(NotEqualKernel, "tg_not_equal", false,
              tgraph_device_common::EqualityMismatch(c, /*not_equal=*/true))
TG_CL_COMPARE(LessKernel, "tg_less", false, OnMismatch::kFail)
TG_CL_COMPARE(LessEqualKernel, "tg_less_equal", false, OnMismatch::kFail)
TG_CL_COMPARE(GreaterKernel, "tg_greater", false, OnMismatch::kFail)
TG_CL_COMPARE(GreaterEqualKernel, "tg_greater_equal", false, OnMismatch::kFail)
TG_CL_COMPARE(LogicalAndKernel, "tg_logical_and", true, OnMismatch::kFail)
TG_CL_COMPARE(LogicalOrKernel, "tg_logical_or", true, OnMismatch::kFail)
#undef TG_CL_COMPARE

// LogicalNot: y = !x over bools (unary_kernel.h).
struct LogicalNotKernel : UnaryKernel {
  explicit LogicalNotKernel(Construction&) : UnaryKernel("compare", "tg_logical_not") {}
};

}  // namespace

void RegisterCompareKernels(tgraph::plugin::Init& init) {
  auto typed = [](const char* op, std::initializer_list<TG_DataType> types) {
    return KernelBuilder(op, DeviceType()).TypeConstraint("T", types);
  };
  AddDeviceKernel<EqualKernel>(init, typed("Equal", {TG_FLOAT, TG_INT32, TG_BOOL}));
  AddDeviceKernel<NotEqualKernel>(init, typed("NotEqual", {TG_FLOAT, TG_INT32, TG_BOOL}));
  AddDeviceKernel<LessKernel>(init, typed("Less", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<LessEqualKernel>(init, typed("LessEqual", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<GreaterKernel>(init, typed("Greater", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<GreaterEqualKernel>(init, typed("GreaterEqual", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<LogicalAndKernel>(init, KernelBuilder("LogicalAnd", DeviceType()));
  AddDeviceKernel<LogicalOrKernel>(init, KernelBuilder("LogicalOr", DeviceType()));
  AddDeviceKernel<LogicalNotKernel>(init, KernelBuilder("LogicalNot", DeviceType()));
}

}  // namespace tgraph_opencl
