// Sparse updates on the device, float32: ScatterUpdate (float and int32), ScatterAdd,
// ScatterSub, SparseApplyMomentum, SparseApplyAdagrad, SparseApplyRMSProp and
// SparseApplyCenteredRMSProp with int32 or int64 indices, UnsortedSegmentSum (with the host
// kernels of plugins/device_common/host_kernels.h: what a sparse optimizer step sums
// duplicate rows with), and GatherV2 with int64 indices (what embedding lookups of int64
// ids, e.g. NCE's sampled classes, need next to their variable). The CPU plugin's semantics: plugins/cpu/variable_ops.cc, training_sparse_ops.cc.
// The OpenCL plugin's sparse_kernels.cc does the same; its tests run on every machine.
//
// Indices live in host memory: the host checks them and groups their positions by row
// (plugins/device_common/sparse_args.h) before anything is queued, so a rejected update
// changes nothing and its error names the bad position, and the device applies a row's
// updates in the order of `indices` (sparse.cu). The plan goes to a temporary in device
// memory by cudaMemcpyAsync, which returns once the pageable source is staged (see
// CopyHostToDevice in cuda_device.cc), and the temporary is freed in stream order after the
// kernel.
#include <iterator>
#include <string>
#include <vector>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/array_args.h"
#include "device_common/host_kernels.h"
#include "device_common/sparse_args.h"
#include "var_refs.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using tgraph_device_common::CheckScatter;
using tgraph_device_common::CheckSparseApply;
using tgraph_device_common::PlanRows;
using tgraph_device_common::RowPlan;

// groups * row work items, and every element they touch, must fit the kernels' ints.
bool CheckSizes(Context& ctx, const RowPlan& plan, int64_t row, int64_t var_elements,
                int64_t update_elements) {
  return CheckIntSized(ctx, var_elements, "the variable") &&
         CheckIntSized(ctx, update_elements, "the updates") &&
         CheckIntSized(ctx, plan.groups * row, "the update's work");
}

// ScatterUpdate / ScatterAdd / ScatterSub(ref, indices, updates).
template <ScatterOp kOp>
class ScatterKernel {
 public:
  explicit ScatterKernel(Construction& c) { c.GetAttr("use_locking", &use_locking_); }
  void Compute(Context& ctx) {
    TensorView indices = ctx.input(1), updates = ctx.input(2);
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    {
      Context::RefLock lock(ctx, 0, use_locking_);
      TensorMut params = ctx.MutableRefInput(0);
      if (!ctx.ok()) return;
      const std::vector<int64_t> p_dims = params.dims();
      int64_t row = 0;
      bool scalar = false;
      RowPlan plan;
      if (!CheckScatter(ctx, p_dims, indices, updates, &row, &scalar) ||
          !PlanRows(ctx, indices, p_dims[0], &plan) ||
          !CheckSizes(ctx, plan, row, params.num_elements(), updates.num_elements())) {
        return;
      }
      if (plan.groups != 0 && row != 0) {
        const int32_t* p = Upload(ctx, *dev, plan.packed);
        if (p == nullptr ||
            !CudaOk(ctx,
                    LaunchScatter(kOp, DataOf<void>(params), DataOf<const void>(updates), p,
                                  static_cast<int>(plan.groups), static_cast<int>(row), scalar,
                                  dev->stream()),
                    "launch")) {
          return;
        }
      }
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_locking_ = false;
};

// A sparse optimizer update: its dense op's inputs in order (the first kSlots are the
// variables, kGrad the gradient rows, the others scalars; the sparse op has `indices` right
// after grad), and how to launch it on the checked pointers (`in` in dense order).
struct MomentumRule {
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad", "momentum"};
  static constexpr int kSlots = 2, kGrad = 3;
  explicit MomentumRule(Construction& c) { c.GetAttr("use_nesterov", &nesterov); }
  bool nesterov = false;
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, const int* plan,
                     int groups, int row, cudaStream_t s) const {
    return LaunchSparseApplyMomentum(v.data(0), v.data(1), in[2], in[3], in[4], plan, groups,
                                     row, nesterov, s);
  }
};

struct AdagradRule {
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad"};
  static constexpr int kSlots = 2, kGrad = 3;
  explicit AdagradRule(Construction& c) {
    if (c.HasAttr("update_slots")) c.GetAttr("update_slots", &update_slots);
  }
  bool update_slots = true;
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, const int* plan,
                     int groups, int row, cudaStream_t s) const {
    return LaunchSparseApplyAdagrad(v.data(0), v.data(1), in[2], in[3], plan, groups, row,
                                    update_slots, s);
  }
};

struct RMSPropRule {
  static constexpr const char* kInputs[] = {"var", "ms",       "mom",     "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 3, kGrad = 7;
  explicit RMSPropRule(Construction&) {}
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, const int* plan,
                     int groups, int row, cudaStream_t s) const {
    const RMSPropScalars k{in[3], in[4], in[5], in[6]};
    return LaunchSparseApplyRMSProp(v.data(0), nullptr, v.data(1), v.data(2), k, in[7], plan,
                                    groups, row, s);
  }
};

struct CenteredRMSPropRule {
  static constexpr const char* kInputs[] = {"var", "mg",       "ms",      "mom", "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 4, kGrad = 8;
  explicit CenteredRMSPropRule(Construction&) {}
  cudaError_t Launch(const VarRefs& v, const std::vector<const float*>& in, const int* plan,
                     int groups, int row, cudaStream_t s) const {
    const RMSPropScalars k{in[4], in[5], in[6], in[7]};
    return LaunchSparseApplyRMSProp(v.data(0), v.data(1), v.data(2), v.data(3), k, in[8], plan,
                                    groups, row, s);
  }
};

template <typename Rule>
class SparseApplyKernel {
 public:
  static constexpr int kNumInputs = static_cast<int>(std::size(Rule::kInputs));

  explicit SparseApplyKernel(Construction& c) : rule_(c) {
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
      int64_t row = 0;
      RowPlan plan;
      TensorView grad = ctx.input(Rule::kGrad);
      if (!CheckSparseApply(ctx, var, Rule::kInputs, kNumInputs, Rule::kSlots, Rule::kGrad,
                            &row) ||
          !PlanRows(ctx, ctx.input(Rule::kGrad + 1), var[0], &plan) ||
          !CheckSizes(ctx, plan, row, tgraph_device_common::Product(var),
                      grad.num_elements())) {
        return;
      }
      if (plan.groups != 0 && row != 0) {
        // Device pointers in dense order; past the gradient, the sparse op's inputs are one
        // further on (indices sits after grad).
        std::vector<const float*> in(kNumInputs, nullptr);
        for (int i = Rule::kSlots; i < kNumInputs; ++i) {
          const int at = i <= Rule::kGrad ? i : i + 1;
          in[static_cast<size_t>(i)] = DataOf<const float>(ctx.input(at));
        }
        const int32_t* p = Upload(ctx, *dev, plan.packed);
        if (p == nullptr ||
            !CudaOk(ctx,
                    rule_.Launch(refs, in, p, static_cast<int>(plan.groups),
                                 static_cast<int>(row), dev->stream()),
                    "launch")) {
          return;
        }
      }
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  Rule rule_;
  bool use_locking_ = false;
};

// UnsortedSegmentSum(data, segment_ids, num_segments), float data: the output is zeroed,
// then each segment's rows are added in the order of segment_ids (ScatterAdd's device kernel
// over the host's plan: the CPU's sums in the CPU's order). Negative ids are dropped, ids
// past num_segments fail the node before anything is queued.
class UnsortedSegmentSumKernel {
 public:
  explicit UnsortedSegmentSumKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView data = ctx.input(0), ids = ctx.input(1);
    std::vector<int64_t> out_dims;
    int64_t inner = 0;
    RowPlan plan;
    if (!tgraph_device_common::CheckUnsortedSegmentSum(ctx, data, ids, ctx.input(2), &out_dims,
                                                       &inner) ||
        !PlanRows(ctx, ids, out_dims[0], &plan, /*drop_negative=*/true, "segment_ids") ||
        !CheckSizes(ctx, plan, inner, tgraph_device_common::Product(out_dims),
                    data.num_elements())) {
      return;
    }
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || out.byte_size() == 0) return;
    if (!CudaOk(ctx, cudaMemsetAsync(DataOf<void>(out), 0, out.byte_size(), dev->stream()),
                "zeroing the output") ||
        plan.groups == 0 || inner == 0) {
      return;
    }
    const int32_t* p = Upload(ctx, *dev, plan.packed);
    if (p == nullptr) return;
    CudaOk(ctx,
           LaunchScatter(ScatterOp::kAdd, DataOf<void>(out), DataOf<const void>(data), p,
                         static_cast<int>(plan.groups), static_cast<int>(inner), false,
                         dev->stream()),
           "launch");
  }
};

// GatherV2(params, indices, axis) with int64 indices in host memory, 4-byte elements: the
// host checks the indices (the first bad one fails the node as the CPU plugin words it) and
// hands the device int positions.
class GatherV2Int64Kernel {
 public:
  explicit GatherV2Int64Kernel(Construction& c) {
    if (c.HasAttr("batch_dims")) c.GetAttr("batch_dims", &batch_dims_);
  }
  void Compute(Context& ctx) {
    TensorView params = ctx.input(0), indices = ctx.input(1);
    tgraph_device_common::GatherPlan plan;
    if (!tgraph_device_common::PlanGatherV2(ctx, batch_dims_, params, indices, ctx.input(2),
                                            &plan)) {
      return;
    }
    if (!CheckIntSized(ctx, params.num_elements(), "params") ||
        !CheckIntSized(ctx, plan.n, "the output") || !CheckIntSized(ctx, indices.num_elements(), "indices")) {
      return;
    }
    std::vector<int32_t> pos;
    if (!tgraph_device_common::CheckedPositions(ctx, indices, plan.limit, &pos)) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || plan.n == 0) return;
    const int32_t* p = Upload(ctx, *dev, pos);
    if (p == nullptr) return;
    CudaOk(ctx,
           LaunchGatherChecked32(DataOf<const uint32_t>(params), p, DataOf<uint32_t>(out),
                                 static_cast<int>(plan.n), static_cast<int>(plan.nidx),
                                 static_cast<int>(plan.limit), static_cast<int>(plan.inner),
                                 static_cast<int>(plan.outer), dev->stream()),
           "launch");
  }

 private:
  int64_t batch_dims_ = 0;
};

template <typename Rule>
void RegisterSparseApply(tgraph::plugin::Init& init, const char* op) {
  AddDeviceKernel<SparseApplyKernel<Rule>>(init, KernelBuilder(op, DeviceType())
                                           .TypeConstraint("T", TG_FLOAT)
                                           .TypeConstraint("Tindices", {TG_INT32, TG_INT64})
                                           .HostMemory("indices"));
}

}  // namespace

void RegisterSparseKernels(tgraph::plugin::Init& init) {
  const std::string& type = DeviceType();
  auto scatter = [&](const char* op, std::initializer_list<TG_DataType> types) {
    return KernelBuilder(op, type)
        .TypeConstraint("T", types)
        .TypeConstraint("Tindices", {TG_INT32, TG_INT64})
        .HostMemory("indices");
  };
  AddDeviceKernel<ScatterKernel<ScatterOp::kUpdate>>(init, scatter("ScatterUpdate", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<ScatterKernel<ScatterOp::kAdd>>(init, scatter("ScatterAdd", {TG_FLOAT}));
  AddDeviceKernel<ScatterKernel<ScatterOp::kSub>>(init, scatter("ScatterSub", {TG_FLOAT}));
  RegisterSparseApply<MomentumRule>(init, "SparseApplyMomentum");
  RegisterSparseApply<AdagradRule>(init, "SparseApplyAdagrad");
  RegisterSparseApply<RMSPropRule>(init, "SparseApplyRMSProp");
  RegisterSparseApply<CenteredRMSPropRule>(init, "SparseApplyCenteredRMSProp");
  AddDeviceKernel<UnsortedSegmentSumKernel>(init, KernelBuilder("UnsortedSegmentSum", type)
                                            .TypeConstraint("T", TG_FLOAT)
                                            .TypeConstraint("Tindices", {TG_INT32, TG_INT64})
                                            .TypeConstraint("Tnumsegments", {TG_INT32, TG_INT64})
                                            .HostMemory("segment_ids")
                                            .HostMemory("num_segments"));
  // Unique, Shape and int32 StridedSlice, the rest of a sparse update's deduplication.
  tgraph_device_common::RegisterHostKernels(init, type);
  AddDeviceKernel<GatherV2Int64Kernel>(init, KernelBuilder("GatherV2", type)
                                       .TypeConstraint("Tparams", TG_FLOAT)
                                       .TypeConstraint("Tindices", TG_INT64)
                                       .TypeConstraint("Taxis", {TG_INT32, TG_INT64})
                                       .HostMemory("indices")
                                       .HostMemory("axis"));
}

}  // namespace tgraph_cuda
