// Sparse updates on the device, float32: ScatterUpdate (float and int32), ScatterAdd,
// ScatterSub, SparseApplyMomentum, SparseApplyAdagrad, SparseApplyRMSProp and
// SparseApplyCenteredRMSProp with int32 or int64 indices, UnsortedSegmentSum (with the host
// kernels of plugins/device_common/host_kernels.h: what a sparse optimizer step sums
// duplicate rows with), and GatherV2 with int64 indices (what embedding lookups of int64
// ids, e.g. NCE's sampled classes, need next to their variable). The CPU plugin's semantics: plugins/cpu/variable_ops.cc, training_sparse_ops.cc.
//
// Indices live in host memory: the host checks them and groups their positions by row
// (plugins/device_common/sparse_args.h) before anything is enqueued, so a rejected update
// changes nothing and its error names the bad position, and the device applies a row's
// updates in the order of `indices` (program "train", cl_sources_train.cc). The plan goes
// to the device in a buffer created from it (a copy made at creation, so the host's vector
// may go at once; OpenCL keeps the buffer while the kernel that reads it is queued).
#include <iterator>
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "device_common/array_args.h"
#include "device_common/host_kernels.h"
#include "device_common/sparse_args.h"
#include "locked_refs.h"

namespace tgraph_opencl {
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
enum class Scatter { kUpdate, kAdd, kSub };

template <Scatter kOp>
class ScatterKernel {
 public:
  explicit ScatterKernel(Construction& c) { c.GetAttr("use_locking", &use_locking_); }
  void Compute(Context& ctx) {
    TensorView indices = ctx.input(1), updates = ctx.input(2);
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
      if (plan.groups != 0 && row != 0 && !Run(ctx, params, updates, plan, row, scalar)) return;
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  static bool Run(Context& ctx, const TensorMut& params, const TensorView& updates,
                  const RowPlan& plan, int64_t row, bool scalar) {
    cl::Buffer packed = Upload(ctx, plan.packed);
    if (!ctx.ok()) return false;
    const cl_mem pm = BufferOf(params), um = BufferOf(updates), plan_mem = packed();
    const cl_int groups = static_cast<cl_int>(plan.groups), r = static_cast<cl_int>(row),
                 s = scalar ? 1 : 0, subtract = kOp == Scatter::kSub ? 1 : 0;
    const size_t work = static_cast<size_t>(plan.groups * row);
    if constexpr (kOp == Scatter::kUpdate) {
      return Launch(ctx, "train", "tg_scatter_update32",
                    {A(pm), A(um), A(plan_mem), A(groups), A(r), A(s)}, {work});
    } else {
      return Launch(ctx, "train", "tg_scatter_add_sub",
                    {A(pm), A(um), A(plan_mem), A(groups), A(r), A(s), A(subtract)}, {work});
    }
  }

  bool use_locking_ = false;
};

// A sparse optimizer update: its dense op's inputs in order (the first kSlots are the
// variables, kGrad the gradient rows, the others scalars; the sparse op has `indices` right
// after grad), its OpenCL kernel, and the bool attr passed after the plan (0 when none).
struct MomentumRule {
  static constexpr const char* kKernel = "tg_sparse_apply_momentum";
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad", "momentum"};
  static constexpr int kSlots = 2, kGrad = 3;
  static constexpr const char* kFlag = "use_nesterov";
  static constexpr bool kFlagDefault = false;
};
struct AdagradRule {
  static constexpr const char* kKernel = "tg_sparse_apply_adagrad";
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad"};
  static constexpr int kSlots = 2, kGrad = 3;
  static constexpr const char* kFlag = "update_slots";
  static constexpr bool kFlagDefault = true;
};
struct RMSPropRule {
  static constexpr const char* kKernel = "tg_sparse_apply_rms_prop";
  static constexpr const char* kInputs[] = {"var", "ms",       "mom",     "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 3, kGrad = 7;
  static constexpr const char* kFlag = nullptr;
  static constexpr bool kFlagDefault = false;
};
struct CenteredRMSPropRule {
  static constexpr const char* kKernel = "tg_sparse_apply_centered_rms_prop";
  static constexpr const char* kInputs[] = {"var", "mg",       "ms",      "mom", "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 4, kGrad = 8;
  static constexpr const char* kFlag = nullptr;
  static constexpr bool kFlagDefault = false;
};

template <typename Rule>
class SparseApplyKernel {
 public:
  static constexpr int kNumInputs = static_cast<int>(std::size(Rule::kInputs));

  explicit SparseApplyKernel(Construction& c) {
    c.GetAttr("use_locking", &use_locking_);
    flag_ = Rule::kFlagDefault;
    if (Rule::kFlag != nullptr && c.HasAttr(Rule::kFlag)) c.GetAttr(Rule::kFlag, &flag_);
  }

  void Compute(Context& ctx) {
    {
      LockedRefs refs(ctx, Rule::kSlots, use_locking_);
      if (!refs.ok()) return;
      const std::vector<int64_t> var = refs[0].dims();
      for (int i = 1; i < Rule::kSlots; ++i) {
        if (refs[i].dims() != var) {
          ctx.Fail(TG_INVALID_ARGUMENT, std::string("var and ") + Rule::kInputs[i] +
                                            " do not have the same shape: " + ShapeString(var) +
                                            " vs " + ShapeString(refs[i].dims()));
          return;
        }
      }
      int64_t row = 0;
      RowPlan plan;
      TensorView grad = ctx.input(Rule::kGrad);
      if (!CheckSparseApply(ctx, var, Rule::kInputs, kNumInputs, Rule::kSlots, Rule::kGrad,
                            &row) ||
          !PlanRows(ctx, ctx.input(Rule::kGrad + 1), var[0], &plan) ||
          !CheckSizes(ctx, plan, row, refs[0].num_elements(), grad.num_elements())) {
        return;
      }
      if (plan.groups != 0 && row != 0 && !Run(ctx, refs, plan, row)) return;
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool Run(Context& ctx, const LockedRefs& refs, const RowPlan& plan, int64_t row) const {
    cl::Buffer packed = Upload(ctx, plan.packed);
    if (!ctx.ok()) return false;
    std::vector<cl_mem> mems(kNumInputs);
    for (int i = 0; i < kNumInputs; ++i) {
      // Dense position i; past the gradient, the sparse op's inputs are one further on.
      mems[static_cast<size_t>(i)] = i < Rule::kSlots  ? BufferOf(refs[i])
                                     : i <= Rule::kGrad ? BufferOf(ctx.input(i))
                                                        : BufferOf(ctx.input(i + 1));
    }
    std::vector<Arg> args;
    for (const cl_mem& m : mems) args.push_back(A(m));
    const cl_mem plan_mem = packed();
    const cl_int groups = static_cast<cl_int>(plan.groups), r = static_cast<cl_int>(row),
                 flag = flag_ ? 1 : 0;
    args.push_back(A(plan_mem));
    args.push_back(A(groups));
    args.push_back(A(r));
    args.push_back(A(flag));
    return Launch(ctx, "train", Rule::kKernel, args, {static_cast<size_t>(plan.groups * row)});
  }

  bool use_locking_ = false;
  bool flag_ = false;
};

// UnsortedSegmentSum(data, segment_ids, num_segments), float data: the output is zeroed,
// then each segment's rows are added in the order of segment_ids (ScatterAdd's device kernel
// over the host's plan: the CPU's sums in the CPU's order). Negative ids are dropped, ids
// past num_segments fail the node before anything is enqueued.
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
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || out.byte_size() == 0) return;
    try {
      DeviceOf(ctx).queue().enqueueFillBuffer(MemOf(out), cl_float{0}, 0, out.byte_size());
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "zeroing the output");
      return;
    }
    if (plan.groups == 0 || inner == 0) return;
    cl::Buffer packed = Upload(ctx, plan.packed);
    if (!ctx.ok()) return;
    const cl_mem om = BufferOf(out), dm = BufferOf(data), plan_mem = packed();
    const cl_int groups = static_cast<cl_int>(plan.groups), r = static_cast<cl_int>(inner),
                 scalar = 0, subtract = 0;
    Launch(ctx, "train", "tg_scatter_add_sub",
           {A(om), A(dm), A(plan_mem), A(groups), A(r), A(scalar), A(subtract)},
           {static_cast<size_t>(plan.groups * inner)});
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
        !CheckIntSized(ctx, plan.n, "the output") ||
        !CheckIntSized(ctx, indices.num_elements(), "indices")) {
      return;
    }
    std::vector<int32_t> pos;
    if (!tgraph_device_common::CheckedPositions(ctx, indices, plan.limit, &pos)) return;
    TensorMut out = ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || plan.n == 0) return;
    cl::Buffer pos_mem = Upload(ctx, pos);
    if (!ctx.ok()) return;
    const cl_mem pm = BufferOf(params), om = BufferOf(out), idx = pos_mem();
    const cl_int n = static_cast<cl_int>(plan.n), J = static_cast<cl_int>(plan.nidx),
                 L = static_cast<cl_int>(plan.limit), I = static_cast<cl_int>(plan.inner),
                 O = static_cast<cl_int>(plan.outer);
    Launch(ctx, "train", "tg_gather_checked32",
           {A(pm), A(idx), A(om), A(n), A(J), A(L), A(I), A(O)}, {static_cast<size_t>(plan.n)});
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
  AddDeviceKernel<ScatterKernel<Scatter::kUpdate>>(init, scatter("ScatterUpdate", {TG_FLOAT, TG_INT32}));
  AddDeviceKernel<ScatterKernel<Scatter::kAdd>>(init, scatter("ScatterAdd", {TG_FLOAT}));
  AddDeviceKernel<ScatterKernel<Scatter::kSub>>(init, scatter("ScatterSub", {TG_FLOAT}));
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

}  // namespace tgraph_opencl
