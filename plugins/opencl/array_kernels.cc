// Data movement on the device, float32 and int32: NoOp, Const (float uploaded once per device,
// then a device-side copy per run; int32 in host memory), Identity, Reshape, Squeeze and
// ExpandDims (aliases, no copy), Fill, Tile, Pad, ZerosLike, Cast between float and int32, and
// float GatherV2 (any axis and batch_dims) with int32 indices (program "misc", cl_sources.cc).
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "device_common/array_args.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using tgraph_device_common::ExpandDimsDims;
using tgraph_device_common::FailBadIndex;
using tgraph_device_common::FillDims;
using tgraph_device_common::GatherPlan;
using tgraph_device_common::PlanGatherV2;
using tgraph_device_common::PlanPad;
using tgraph_device_common::PlanTile;
using tgraph_device_common::ReshapeDims;

// Const: the value is copied out of the attr at creation (it lives only that long), written
// to each device once, and copied device-side into every run's output, so a run moves no
// constant over the host link. An int32 Const is registered with its output in host memory
// (as TensorFlow's GPU kernels): int32 tensors in a graph are mostly shapes, axes and
// multiples, which the kernels read on the host; a device consumer gets it copied in.
class ConstKernel {
 public:
  explicit ConstKernel(Construction& c) {
    TensorView value = c.GetTensorAttr("value");
    if (!c.ok()) return;
    host_ = value.dtype() == TG_INT32;
    dims_ = value.dims();
    const auto* p = value.data<unsigned char>();
    if (p != nullptr) bytes_.assign(p, p + value.byte_size());
  }
  void Compute(Context& ctx) {
    TensorMut out = ctx.AllocateOutput(0, dims_);
    if (!ctx.ok() || bytes_.empty()) return;
    if (host_) {
      std::memcpy(out.mutable_data<unsigned char>(), bytes_.data(), bytes_.size());
      return;
    }
    ClDevice& dev = DeviceOf(ctx);
    try {
      cl::Buffer uploaded;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = uploaded_.find(dev.ordinal());
        if (it == uploaded_.end()) {
          cl::Buffer b(dev.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes_.size(),
                       bytes_.data());
          it = uploaded_.emplace(dev.ordinal(), b).first;
        }
        uploaded = it->second;
      }
      dev.queue().enqueueCopyBuffer(uploaded, MemOf(out), 0, 0, bytes_.size());
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "uploading the constant");
    }
  }

 private:
  std::vector<int64_t> dims_;
  std::vector<unsigned char> bytes_;
  bool host_ = false;  // int32: registered with its output in host memory
  std::mutex mu_;
  std::map<int, cl::Buffer> uploaded_;  // by device ordinal
};

// NoOp (a training op groups its updates with one): nothing to enqueue. Registered so that
// the group lands with its updates instead of needing soft placement.
class NoOpKernel {
 public:
  explicit NoOpKernel(Construction&) {}
  void Compute(Context&) {}
};

class IdentityKernel {
 public:
  explicit IdentityKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    ctx.SetOutputAlias(0, in, in.dims());
  }
};

// Reshape(tensor, shape): shape is host memory; one -1 is inferred.
class ReshapeKernel {
 public:
  explicit ReshapeKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> dims;
    if (!ReshapeDims(ctx, in, ctx.input(1), &dims)) return;
    ctx.SetOutputAlias(0, in, dims);
  }
};

// Fill(dims, value): dims is host memory, value a device scalar; 4-byte dtypes only, whose
// bits the kernel copies.
class FillKernel {
 public:
  explicit FillKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView value = ctx.input(1);
    std::vector<int64_t> dims;
    int64_t n = 1;
    if (!FillDims(ctx, ctx.input(0), value, &dims, &n)) return;
    if (!CheckIntSized(ctx, n, "the output")) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok() || n == 0) return;
    const cl_mem vm = BufferOf(value), om = BufferOf(out);
    const cl_int count = static_cast<cl_int>(n);
    Launch(ctx, "misc", "tg_fill32", {A(vm), A(om), A(count)}, {static_cast<size_t>(n)});
  }
};

class ZerosLikeKernel {
 public:
  explicit ZerosLikeKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok() || out.byte_size() == 0) return;
    try {
      DeviceOf(ctx).queue().enqueueFillBuffer(MemOf(out), cl_uint{0}, 0, out.byte_size());
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "filling zeros");
    }
  }
};

// Squeeze(input): an alias without the size-1 dims listed in squeeze_dims (all of them when
// empty).
class SqueezeKernel {
 public:
  explicit SqueezeKernel(Construction& c) { c.GetAttr("squeeze_dims", &axes_); }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> dims;
    if (!tgraph_device_common::SqueezeDims(ctx, in.dims(), axes_, &dims)) return;
    ctx.SetOutputAlias(0, in, dims);
  }

 private:
  std::vector<int64_t> axes_;
};

// ExpandDims(input, dim): an alias with a 1 inserted at `dim` (host memory, in
// [-rank - 1, rank]).
class ExpandDimsKernel {
 public:
  explicit ExpandDimsKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> dims;
    if (!ExpandDimsDims(ctx, in, ctx.input(1), &dims)) return;
    ctx.SetOutputAlias(0, in, dims);
  }
};

// Matches the TileShape struct of the OpenCL source.
constexpr int kMaxTileRank = 6;
struct TileShape {
  cl_int rank;
  cl_int n;
  cl_int out[kMaxTileRank];
  cl_int in[kMaxTileRank];
};

// Tile(input, multiples): multiples is host memory; 4-byte dtypes (the bits are copied).
class TileKernel {
 public:
  explicit TileKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> out_dims;
    TileShape s;
    if (!PlanTile(ctx, CheckIntSized, &out_dims, &s)) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || s.n == 0) return;
    const cl_mem im = BufferOf(in), om = BufferOf(out);
    Launch(ctx, "misc", "tg_tile32", {A(im), A(om), A(s)}, {static_cast<size_t>(s.n)});
  }
};

// Matches the PadShape struct of the OpenCL source.
constexpr int kMaxPadRank = 8;
struct PadShape {
  cl_int rank;
  cl_int n;
  cl_int out[kMaxPadRank];
  cl_int in[kMaxPadRank];
  cl_int before[kMaxPadRank];
};

// Pad(input, paddings) with zeros: paddings is host memory; 4-byte dtypes (the bits are
// copied). No padding: the input itself.
class PadKernel {
 public:
  explicit PadKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> out_dims;
    PadShape s;
    if (!PlanPad(ctx, CheckIntSized, &out_dims, &s)) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || s.n == 0) return;
    const cl_mem im = in.num_elements() == 0 ? nullptr : BufferOf(in), om = BufferOf(out);
    Launch(ctx, "misc", "tg_pad32", {A(im), A(om), A(s)}, {static_cast<size_t>(s.n)});
  }
};

// GatherV2(params, indices, axis), any batch_dims: int32 indices in device memory, axis on
// the host. Bad indices are found by the kernel (see tg_gather32); the host reads the flag
// back (a blocking read: this op waits for the queue) and fails the node with the first bad
// position, as the CPU plugin words it. An empty output reads no index, so checks none.
class GatherV2Kernel {
 public:
  explicit GatherV2Kernel(Construction& c) {
    if (c.HasAttr("batch_dims")) c.GetAttr("batch_dims", &batch_dims_);
  }
  void Compute(Context& ctx) {
    TensorView params = ctx.input(0), indices = ctx.input(1);
    GatherPlan plan;
    if (!PlanGatherV2(ctx, batch_dims_, params, indices, ctx.input(2), &plan)) return;
    const int64_t nidx = plan.nidx, limit = plan.limit, n = plan.n;
    if (!CheckIntSized(ctx, params.num_elements(), "params") ||
        !CheckIntSized(ctx, n, "the output")) {
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || n == 0) return;
    ClDevice& dev = DeviceOf(ctx);
    cl_int bad = 0x7fffffff;  // the first bad index position, INT_MAX if none
    cl::Buffer bad_mem;
    try {
      bad_mem = cl::Buffer(dev.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof bad,
                           &bad);
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "allocating the index check flag");
      return;
    }
    const cl_mem pm = limit == 0 ? nullptr : BufferOf(params), im = BufferOf(indices),
                 om = BufferOf(out), flag = bad_mem();
    const cl_int N = static_cast<cl_int>(n), J = static_cast<cl_int>(nidx),
                 L = static_cast<cl_int>(limit), I = static_cast<cl_int>(plan.inner),
                 O = static_cast<cl_int>(plan.outer);
    if (!Launch(ctx, "misc", "tg_gather32",
                {A(pm), A(im), A(om), A(N), A(J), A(L), A(I), A(O), A(flag)},
                {static_cast<size_t>(n)})) {
      return;
    }
    int32_t value = 0;
    try {
      dev.queue().enqueueReadBuffer(bad_mem, CL_TRUE, 0, sizeof bad, &bad);
      if (bad == 0x7fffffff) return;
      dev.queue().enqueueReadBuffer(MemOf(indices), CL_TRUE,
                                    static_cast<size_t>(bad) * sizeof value, sizeof value, &value);
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "reading the index check back");
      return;
    }
    FailBadIndex(ctx, indices.dims(), bad, value, limit);
  }

 private:
  int64_t batch_dims_ = 0;
};

// Cast between float and int32 (the same dtype: the input itself).
class CastKernel {
 public:
  explicit CastKernel(Construction& c) {
    c.GetAttr("SrcT", &src_);
    c.GetAttr("DstT", &dst_);
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    if (src_ == dst_) {
      ctx.SetOutputAlias(0, in, in.dims());
      return;
    }
    const int64_t n = in.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok() || n == 0) return;
    const cl_mem im = BufferOf(in), om = BufferOf(out);
    const cl_int count = static_cast<cl_int>(n);
    Launch(ctx, "misc", src_ == TG_FLOAT ? "tg_cast_f2i" : "tg_cast_i2f", {A(im), A(om), A(count)},
           {static_cast<size_t>(n)});
  }

 private:
  TG_DataType src_ = TG_FLOAT, dst_ = TG_FLOAT;
};

}  // namespace

void RegisterArrayKernels(tgraph::plugin::Init& init) {
  const std::initializer_list<TG_DataType> types = {TG_FLOAT, TG_INT32};
  AddDeviceKernel<ConstKernel>(init, KernelBuilder("Const", DeviceType()).TypeConstraint("dtype", TG_FLOAT));
  AddDeviceKernel<ConstKernel>(init, 
      KernelBuilder("Const", DeviceType()).TypeConstraint("dtype", TG_INT32).HostMemory("output"));
  AddDeviceKernel<NoOpKernel>(init, KernelBuilder("NoOp", DeviceType()));
  AddDeviceKernel<IdentityKernel>(init, KernelBuilder("Identity", DeviceType())
                                  .TypeConstraint("T", types)
                                  .CostPerElementNs(tgraph_device_common::kViewCostPerElementNs));
  AddDeviceKernel<ReshapeKernel>(init, KernelBuilder("Reshape", DeviceType())
                                 .TypeConstraint("T", types)
                                 .TypeConstraint("Tshape", {TG_INT32, TG_INT64})
                                 .HostMemory("shape")
                                 .CostPerElementNs(tgraph_device_common::kViewCostPerElementNs));
  AddDeviceKernel<SqueezeKernel>(init, KernelBuilder("Squeeze", DeviceType())
                                 .TypeConstraint("T", types)
                                 .CostPerElementNs(tgraph_device_common::kViewCostPerElementNs));
  AddDeviceKernel<FillKernel>(init, KernelBuilder("Fill", DeviceType())
                              .TypeConstraint("T", types)
                              .TypeConstraint("index_type", {TG_INT32, TG_INT64})
                              .HostMemory("dims"));
  AddDeviceKernel<ExpandDimsKernel>(init, KernelBuilder("ExpandDims", DeviceType())
                                    .TypeConstraint("T", types)
                                    .TypeConstraint("Tdim", {TG_INT32, TG_INT64})
                                    .HostMemory("dim")
                                    .CostPerElementNs(tgraph_device_common::kViewCostPerElementNs));
  AddDeviceKernel<TileKernel>(init, KernelBuilder("Tile", DeviceType())
                              .TypeConstraint("T", types)
                              .TypeConstraint("Tmultiples", {TG_INT32, TG_INT64})
                              .HostMemory("multiples"));
  AddDeviceKernel<PadKernel>(init, KernelBuilder("Pad", DeviceType())
                             .TypeConstraint("T", types)
                             .TypeConstraint("Tpaddings", {TG_INT32, TG_INT64})
                             .HostMemory("paddings"));
  AddDeviceKernel<GatherV2Kernel>(init, KernelBuilder("GatherV2", DeviceType())
                                  .TypeConstraint("Tparams", TG_FLOAT)
                                  .TypeConstraint("Tindices", TG_INT32)
                                  .TypeConstraint("Taxis", {TG_INT32, TG_INT64})
                                  .HostMemory("axis"));
  AddDeviceKernel<ZerosLikeKernel>(init, KernelBuilder("ZerosLike", DeviceType()).TypeConstraint("T", types));
  AddDeviceKernel<CastKernel>(init, KernelBuilder("Cast", DeviceType())
                              .TypeConstraint("SrcT", types)
                              .TypeConstraint("DstT", types));
}

}  // namespace tgraph_opencl
