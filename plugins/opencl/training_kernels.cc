// Variables and their updates on the device, float32: VariableV2 (placement only), Assign,
// AssignAdd / AssignSub, and the dense optimizer updates ApplyGradientDescent,
// ApplyMomentum, ApplyAdam, ApplyAdagrad, ApplyRMSProp and ApplyCenteredRMSProp with the
// CPU plugin's semantics (plugins/cpu/variable_ops.cc, assign_kernel.h, training_dense_ops.cc).
//
// A variable's storage lives in this device's memory (the core allocates it through our
// allocator when a kernel here reallocates the ref). Every update is an enqueued kernel or
// buffer copy: the variable's lock (use_locking) orders the enqueues, and the in-order queue
// orders the writes. Hyper-parameters (lr, momentum, beta1_power, ...) are device scalars,
// as TensorFlow's GPU kernels take them: they are usually Consts or variables on the same
// device, and the update kernel reads them itself, so a training step makes no host round
// trip. Shapes and ranks are checked on the host before anything is enqueued, so a rejected
// update changes nothing.
#include <iterator>
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "cpu/assign_kernel.h"
#include "locked_refs.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// The executor binds VariableV2's ref output to the session's variable slot itself; the
// kernel exists so that placement may put a variable on this device.
class VariableV2Kernel {
 public:
  explicit VariableV2Kernel(Construction&) {}
  void Compute(Context& ctx) {
    ctx.Fail(TG_INTERNAL,
             "VariableV2's ref output is its session's variable slot, bound by the executor; "
             "the kernel cannot produce it on its own");
  }
};

// Assign (plugins/cpu/assign_kernel.h, the CPU's rules): the variable adopts a value buffer
// nobody else holds, in this device's memory; else the value is copied on the queue.
struct DeviceCopy {
  void operator()(Context& ctx, const TensorMut& dst, const TensorView& src) const {
    const size_t bytes = src.byte_size();
    if (bytes == 0 || BufferOf(src) == BufferOf(dst)) return;
    try {
      DeviceOf(ctx).queue().enqueueCopyBuffer(MemOf(src), MemOf(dst), 0, 0, bytes);
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "copying the value into the variable");
    }
  }
};
using AssignKernel = tgraph_cpu::AssignKernel<DeviceCopy>;

// AssignAdd / AssignSub: var = var (+|-) value, through the element-wise kernels of program
// "cwise" with the output aliasing the first operand.
class AssignUpdateKernel {
 public:
  AssignUpdateKernel(Construction& c, const char* cl_kernel) : cl_kernel_(cl_kernel) {
    c.GetAttr("use_locking", &use_locking_);
  }
  void Compute(Context& ctx) {
    TensorView value = ctx.input(1);
    {
      Context::RefLock lock(ctx, 0, use_locking_);
      TensorMut var = ctx.MutableRefInput(0);
      if (!ctx.ok()) return;
      if (var.dims() != value.dims()) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Cannot update variable with shape " +
                                          ShapeString(var.dims()) + " using a Tensor with shape " +
                                          ShapeString(value.dims()) + ", shapes must be equal.");
        return;
      }
      const int64_t n = var.num_elements();
      if (!CheckIntSized(ctx, n, "the variable")) return;
      if (n != 0) {
        const cl_mem vm = BufferOf(var), xm = BufferOf(value);
        const cl_int count = static_cast<cl_int>(n);
        if (!Launch(ctx, "cwise", cl_kernel_, {A(vm), A(xm), A(vm), A(count)},
                    {static_cast<size_t>(n)})) {
          return;
        }
      }
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  const char* cl_kernel_;
  bool use_locking_ = false;
};

struct AssignAddKernel : AssignUpdateKernel {
  explicit AssignAddKernel(Construction& c) : AssignUpdateKernel(c, "tg_add_same") {}
};
struct AssignSubKernel : AssignUpdateKernel {
  explicit AssignSubKernel(Construction& c) : AssignUpdateKernel(c, "tg_sub_same") {}
};

// ---- optimizer updates ----
//
// A rule names its op's inputs in order (the first kSlots are the variables it writes, kGrad
// is the gradient, every other input a scalar), its OpenCL kernel, and the bool attr passed
// to the kernel after the element count (nullptr: none). The kernel's arguments are the
// inputs' buffers in op order, then the count, then the flag.
struct GradientDescentRule {
  static constexpr const char* kOp = "ApplyGradientDescent";
  static constexpr const char* kKernel = "tg_apply_gradient_descent";
  static constexpr const char* kInputs[] = {"var", "alpha", "delta"};
  static constexpr int kSlots = 1, kGrad = 2;
  static constexpr const char* kFlag = nullptr;
  static constexpr bool kFlagDefault = false;
};
struct MomentumRule {
  static constexpr const char* kOp = "ApplyMomentum";
  static constexpr const char* kKernel = "tg_apply_momentum";
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad", "momentum"};
  static constexpr int kSlots = 2, kGrad = 3;
  static constexpr const char* kFlag = "use_nesterov";
  static constexpr bool kFlagDefault = false;
};
struct AdamRule {
  static constexpr const char* kOp = "ApplyAdam";
  static constexpr const char* kKernel = "tg_apply_adam";
  static constexpr const char* kInputs[] = {"var",  "m",     "v",     "beta1_power", "beta2_power",
                                            "lr",   "beta1", "beta2", "epsilon",     "grad"};
  static constexpr int kSlots = 3, kGrad = 9;
  static constexpr const char* kFlag = "use_nesterov";
  static constexpr bool kFlagDefault = false;
};
struct AdagradRule {
  static constexpr const char* kOp = "ApplyAdagrad";
  static constexpr const char* kKernel = "tg_apply_adagrad";
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad"};
  static constexpr int kSlots = 2, kGrad = 3;
  static constexpr const char* kFlag = "update_slots";
  static constexpr bool kFlagDefault = true;
};
struct RMSPropRule {
  static constexpr const char* kOp = "ApplyRMSProp";
  static constexpr const char* kKernel = "tg_apply_rms_prop";
  static constexpr const char* kInputs[] = {"var", "ms",       "mom",     "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 3, kGrad = 7;
  static constexpr const char* kFlag = nullptr;
  static constexpr bool kFlagDefault = false;
};
struct CenteredRMSPropRule {
  static constexpr const char* kOp = "ApplyCenteredRMSProp";
  static constexpr const char* kKernel = "tg_apply_centered_rms_prop";
  static constexpr const char* kInputs[] = {"var", "mg",       "ms",      "mom", "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 4, kGrad = 8;
  static constexpr const char* kFlag = nullptr;
  static constexpr bool kFlagDefault = false;
};

template <typename Rule>
class ApplyKernel {
 public:
  static constexpr int kNumInputs = static_cast<int>(std::size(Rule::kInputs));

  explicit ApplyKernel(Construction& c) {
    c.GetAttr("use_locking", &use_locking_);
    flag_ = Rule::kFlagDefault;
    if (Rule::kFlag != nullptr && c.HasAttr(Rule::kFlag)) c.GetAttr(Rule::kFlag, &flag_);
  }

  void Compute(Context& ctx) {
    {
      LockedRefs refs(ctx, Rule::kSlots, use_locking_);
      if (!refs.ok() || !Check(ctx, refs)) return;
      const int64_t n = refs[0].num_elements();
      if (!CheckIntSized(ctx, n, "var")) return;
      if (n != 0) {
        std::vector<cl_mem> mems(kNumInputs);
        for (int i = 0; i < kNumInputs; ++i) {
          mems[static_cast<size_t>(i)] = i < Rule::kSlots ? BufferOf(refs[i]) : BufferOf(ctx.input(i));
        }
        std::vector<Arg> args;
        for (const cl_mem& m : mems) args.push_back(A(m));
        const cl_int count = static_cast<cl_int>(n), flag = flag_ ? 1 : 0;
        args.push_back(A(count));
        if (Rule::kFlag != nullptr) args.push_back(A(flag));
        if (!Launch(ctx, "train", Rule::kKernel, args, {static_cast<size_t>(n)})) return;
      }
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  // Every slot and the gradient have var's shape; every other input is a scalar.
  static bool Check(Context& ctx, const LockedRefs& refs) {
    const std::vector<int64_t> var = refs[0].dims();
    for (int i = 1; i < kNumInputs; ++i) {
      const std::vector<int64_t> dims = i < Rule::kSlots ? refs[i].dims() : ctx.input(i).dims();
      if (i < Rule::kSlots || i == Rule::kGrad) {
        if (dims != var) {
          ctx.Fail(TG_INVALID_ARGUMENT, std::string("var and ") + Rule::kInputs[i] +
                                            " do not have the same shape: " + ShapeString(var) +
                                            " vs " + ShapeString(dims));
          return false;
        }
      } else if (!dims.empty()) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 std::string(Rule::kInputs[i]) + " is not a scalar: " + ShapeString(dims));
        return false;
      }
    }
    return true;
  }

  bool use_locking_ = false;
  bool flag_ = false;
};

}  // namespace

void RegisterTrainingKernels(tgraph::plugin::Init& init) {
  const std::string& type = DeviceType();
  AddDeviceKernel<VariableV2Kernel>(init, 
      KernelBuilder("VariableV2", type).TypeConstraint("dtype", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<AssignKernel>(init, 
      KernelBuilder("Assign", type).TypeConstraint("T", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<AssignAddKernel>(init, KernelBuilder("AssignAdd", type).TypeConstraint("T", TG_FLOAT));
  AddDeviceKernel<AssignSubKernel>(init, KernelBuilder("AssignSub", type).TypeConstraint("T", TG_FLOAT));
  auto apply = [&](const char* op) { return KernelBuilder(op, type).TypeConstraint("T", TG_FLOAT); };
  AddDeviceKernel<ApplyKernel<GradientDescentRule>>(init, apply(GradientDescentRule::kOp));
  AddDeviceKernel<ApplyKernel<MomentumRule>>(init, apply(MomentumRule::kOp));
  AddDeviceKernel<ApplyKernel<AdamRule>>(init, apply(AdamRule::kOp));
  AddDeviceKernel<ApplyKernel<AdagradRule>>(init, apply(AdagradRule::kOp));
  AddDeviceKernel<ApplyKernel<RMSPropRule>>(init, apply(RMSPropRule::kOp));
  AddDeviceKernel<ApplyKernel<CenteredRMSPropRule>>(init, apply(CenteredRMSPropRule::kOp));
}

}  // namespace tgraph_opencl
