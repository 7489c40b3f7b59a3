// Variables on the device: VariableV2, Assign, AssignAdd/AssignSub, and the dense optimizer
// updates ApplyGradientDescent, ApplyMomentum, ApplyAdam, ApplyAdagrad, ApplyRMSProp and
// ApplyCenteredRMSProp (float32), with the CPU plugin's semantics (plugins/cpu/
// variable_ops.cc, assign_kernel.h, training_*.cc). The variable's storage is a slot its
// session owns, kept in this device's memory; these kernels reach it through ref
// inputs, check every shape before the first write (a rejected update changes nothing),
// queue the update on the device's stream, and forward the ref to their output. The scalar
// hyper-parameters stay in device memory: the update kernels read them there.
#include <string>
#include <vector>

#include "cpu/assign_kernel.h"
#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "var_refs.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// VariableV2: the executor binds the session's variable slot to this node's ref output
// itself. The kernel exists so placement finds VariableV2 on this device; it has nothing
// to compute and says so if it is ever called.
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
// nobody else holds, in this device's memory; else the value is copied on the stream.
struct DeviceCopy {
  void operator()(Context& ctx, const TensorMut& dst, const TensorView& src) const {
    void* d = DataOf<void>(dst);
    const void* s = DataOf<const void>(src);
    if (d == s || src.byte_size() == 0) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    CudaOk(ctx, cudaMemcpyAsync(d, s, src.byte_size(), cudaMemcpyDeviceToDevice, dev->stream()),
           "copying the value");
  }
};
using AssignKernel = tgraph_cpu::AssignKernel<DeviceCopy>;

template <bool kSubtract>
class AssignUpdateKernel {
 public:
  explicit AssignUpdateKernel(Construction& c) { c.GetAttr("use_locking", &use_locking_); }
  void Compute(Context& ctx) {
    TensorView value = ctx.input(1);
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
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
      if (n != 0 && !CudaOk(ctx,
                            LaunchAssignUpdate(DataOf<float>(var), DataOf<const float>(value),
                                               static_cast<int>(n), kSubtract, dev->stream()),
                            "launch")) {
        return;
      }
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_locking_ = false;
};

// What an update op looks like: its inputs in order (the first kSlots are variables), where
// the gradient is, and how to launch it on the checked pointers.
struct GradientDescentRule {
  static constexpr const char* kInputs[] = {"var", "alpha", "delta"};
  static constexpr int kSlots = 1, kGrad = 2;
  explicit GradientDescentRule(Construction&) {}
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, int n,
                     cudaStream_t s) const {
    return LaunchApplyGradientDescent(v.data(0), in[1], in[2], n, s);
  }
};

struct MomentumRule {
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad", "momentum"};
  static constexpr int kSlots = 2, kGrad = 3;
  explicit MomentumRule(Construction& c) { c.GetAttr("use_nesterov", &nesterov); }
  bool nesterov = false;
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, int n,
                     cudaStream_t s) const {
    return LaunchApplyMomentum(v.data(0), v.data(1), in[2], in[3], in[4], n, nesterov, s);
  }
};

struct AdamRule {
  static constexpr const char* kInputs[] = {"var",  "m",     "v",     "beta1_power", "beta2_power",
                                            "lr",   "beta1", "beta2", "epsilon",     "grad"};
  static constexpr int kSlots = 3, kGrad = 9;
  explicit AdamRule(Construction& c) { c.GetAttr("use_nesterov", &nesterov); }
  bool nesterov = false;
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, int n,
                     cudaStream_t s) const {
    const AdamScalars k{in[3], in[4], in[5], in[6], in[7], in[8]};
    return LaunchApplyAdam(v.data(0), v.data(1), v.data(2), k, in[9], n, nesterov, s);
  }
};

struct AdagradRule {
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad"};
  static constexpr int kSlots = 2, kGrad = 3;
  explicit AdagradRule(Construction& c) { c.GetAttr("update_slots", &update_slots); }
  bool update_slots = true;
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, int n,
                     cudaStream_t s) const {
    return LaunchApplyAdagrad(v.data(0), v.data(1), in[2], in[3], n, update_slots, s);
  }
};

struct RMSPropRule {
  static constexpr const char* kInputs[] = {"var", "ms",       "mom",     "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 3, kGrad = 7;
  explicit RMSPropRule(Construction&) {}
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, int n,
                     cudaStream_t s) const {
    const RMSPropScalars k{in[3], in[4], in[5], in[6]};
    return LaunchApplyRMSProp(v.data(0), nullptr, v.data(1), v.data(2), k, in[7], n, s);
  }
};

struct CenteredRMSPropRule {
  static constexpr const char* kInputs[] = {"var", "mg",       "ms",      "mom", "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 4, kGrad = 8;
  explicit CenteredRMSPropRule(Construction&) {}
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, int n,
                     cudaStream_t s) const {
    const RMSPropScalars k{in[4], in[5], in[6], in[7]};
    return LaunchApplyRMSProp(v.data(0), v.data(1), v.data(2), v.data(3), k, in[8], n, s);
  }
};

template <typename Rule>
class DenseApplyKernel {
 public:
  static constexpr int kNumInputs = static_cast<int>(std::size(Rule::kInputs));

  explicit DenseApplyKernel(Construction& c) : rule_(c) {
    c.GetAttr("use_locking", &use_locking_);
  }
  void Compute(Context& ctx) {
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    {
      VarRefs refs(ctx, Rule::kSlots, use_locking_);
      if (!refs.ok()) return;
      const std::vector<int64_t> var = refs.dims(0);
      for (int i = 1; i < Rule::kSlots; ++i) {
        if (refs.dims(i) != var) {
          ctx.Fail(TG_INVALID_ARGUMENT, std::string("var and ") + Rule::kInputs[i] +
                                            " do not have the same shape: " + ShapeString(var) +
                                            " vs " + ShapeString(refs.dims(i)));
          return;
        }
      }
      std::vector<const float*> in(kNumInputs, nullptr);
      for (int i = Rule::kSlots; i < kNumInputs; ++i) {
        TensorView t = ctx.input(i);
        if (i == Rule::kGrad) {
          if (t.dims() != var) {
            ctx.Fail(TG_INVALID_ARGUMENT, std::string("var and ") + Rule::kInputs[i] +
                                              " do not have the same shape: " + ShapeString(var) +
                                              " vs " + ShapeString(t.dims()));
            return;
          }
        } else if (t.rank() != 0) {
          ctx.Fail(TG_INVALID_ARGUMENT, std::string(Rule::kInputs[i]) + " is not a scalar: " +
                                            ShapeString(t.dims()));
          return;
        }
        in[static_cast<size_t>(i)] = DataOf<const float>(t);
      }
      int64_t n = 1;
      for (int64_t d : var) n *= d;
      if (!CheckIntSized(ctx, n, "the variable")) return;
      if (n != 0 &&
          !CudaOk(ctx, rule_.Launch(refs, in, static_cast<int>(n), dev->stream()), "launch")) {
        return;
      }
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  Rule rule_;
  bool use_locking_ = false;
};

}  // namespace

void RegisterStateKernels(tgraph::plugin::Init& init) {
  const std::string& type = DeviceType();
  const std::initializer_list<TG_DataType> types = {TG_FLOAT, TG_INT32};
  AddDeviceKernel<VariableV2Kernel>(init, KernelBuilder("VariableV2", type).TypeConstraint("dtype", types));
  AddDeviceKernel<AssignKernel>(init, KernelBuilder("Assign", type).TypeConstraint("T", types));
  auto f = [&](const char* op) { return KernelBuilder(op, type).TypeConstraint("T", TG_FLOAT); };
  AddDeviceKernel<AssignUpdateKernel<false>>(init, f("AssignAdd"));
  AddDeviceKernel<AssignUpdateKernel<true>>(init, f("AssignSub"));
  AddDeviceKernel<DenseApplyKernel<GradientDescentRule>>(init, f("ApplyGradientDescent"));
  AddDeviceKernel<DenseApplyKernel<MomentumRule>>(init, f("ApplyMomentum"));
  AddDeviceKernel<DenseApplyKernel<AdamRule>>(init, f("ApplyAdam"));
  AddDeviceKernel<DenseApplyKernel<AdagradRule>>(init, f("ApplyAdagrad"));
  AddDeviceKernel<DenseApplyKernel<RMSPropRule>>(init, f("ApplyRMSProp"));
  AddDeviceKernel<DenseApplyKernel<CenteredRMSPropRule>>(init, f("ApplyCenteredRMSProp"));
}

}  // namespace tgraph_cuda
