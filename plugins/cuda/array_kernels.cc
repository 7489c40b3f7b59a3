// Data movement on the device, float32 and int32: NoOp, Const (float uploaded once per device,
// then a device-side copy per run; int32 in host memory), Identity, Reshape, Squeeze and
// ExpandDims (aliases, no copy), Fill, Tile, Pad, ZerosLike, Cast between float and int32, and
// float GatherV2 (any axis and batch_dims) with int32 indices (device code: misc.cu).
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/array_args.h"

namespace tgraph_cuda {
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

// Const: the value is copied out of the attr at creation (it lives only that long), uploaded
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
  ~ConstKernel() {
    for (const auto& [ordinal, ptr] : uploaded_) {
      if (cudaSetDevice(ordinal) == cudaSuccess) cudaFree(ptr);  // waits for its readers
    }
  }
  ConstKernel(const ConstKernel&) = delete;
  ConstKernel& operator=(const ConstKernel&) = delete;

  void Compute(Context& ctx) {
    TensorMut out = ctx.AllocateOutput(0, dims_);
    if (!ctx.ok() || bytes_.empty()) return;
    if (host_) {
      std::memcpy(out.mutable_data<unsigned char>(), bytes_.data(), bytes_.size());
      return;
    }
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    void* uploaded = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = uploaded_.find(dev->ordinal());
      if (it == uploaded_.end()) {
        // bytes_ lives as long as this kernel, so the upload may complete later.
        if (!CudaOk(ctx, cudaMalloc(&uploaded, bytes_.size()), "allocating the constant") ||
            !CudaOk(ctx,
                    cudaMemcpyAsync(uploaded, bytes_.data(), bytes_.size(),
                                    cudaMemcpyHostToDevice, dev->stream()),
                    "uploading the constant")) {
          if (uploaded != nullptr) cudaFree(uploaded);
          return;
        }
        it = uploaded_.emplace(dev->ordinal(), uploaded).first;
      }
      uploaded = it->second;
    }
    CudaOk(ctx,
           cudaMemcpyAsync(DataOf<void>(out), uploaded, bytes_.size(), cudaMemcpyDeviceToDevice,
                           dev->stream()),
           "copying the constant");
  }

 private:
  std::vector<int64_t> dims_;
  std::vector<unsigned char> bytes_;
  bool host_ = false;  // int32: registered with its output in host memory
  std::mutex mu_;
  std::map<int, void*> uploaded_;  // by device ordinal
};

// NoOp (a training op groups its updates with one): nothing to do. Registered so that a
// NoOp under a GPU device scope is placed with the ops it groups.
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

// Squeeze(input): drops the size-1 dims listed in squeeze_dims (all of them when empty).
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok() || n == 0) return;
    CudaOk(ctx,
           LaunchFill32(DataOf<const uint32_t>(value), DataOf<uint32_t>(out),
                        static_cast<int>(n), dev->stream()),
           "launch");
  }
};

class ZerosLikeKernel {
 public:
  explicit ZerosLikeKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok() || out.byte_size() == 0) return;
    CudaOk(ctx, cudaMemsetAsync(DataOf<void>(out), 0, out.byte_size(), dev->stream()),
           "filling zeros");
  }
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || s.n == 0) return;
    CudaOk(ctx, LaunchTile32(DataOf<const uint32_t>(in), DataOf<uint32_t>(out), s, dev->stream()),
           "launch");
  }
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || s.n == 0) return;
    CudaOk(ctx, LaunchPad32(DataOf<const uint32_t>(in), DataOf<uint32_t>(out), s, dev->stream()),
           "launch");
  }
};

// GatherV2(params, indices, axis), any batch_dims: int32 indices in device memory, axis on
// the host. Bad indices are found by the kernel, which flags the first bad position; the
// host reads the flag back (this op waits for the stream) and fails the node with it, as
// the CPU plugin words it. An empty output reads no index, so checks none.
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || n == 0) return;
    TensorMut flag = ctx.AllocateTemp(TG_INT32, {1});
    if (!ctx.ok()) return;
    int* flag_p = DataOf<int>(flag);
    const int32_t* idx_p = DataOf<const int32_t>(indices);
    if (!CudaOk(ctx, cudaMemsetAsync(flag_p, 0x7f, sizeof(int), dev->stream()),
                "setting the index check flag") ||
        !CudaOk(ctx,
                LaunchGather32(limit == 0 ? nullptr : DataOf<const uint32_t>(params), idx_p,
                               DataOf<uint32_t>(out), static_cast<int>(n),
                               static_cast<int>(nidx), static_cast<int>(limit),
                               static_cast<int>(plan.inner), static_cast<int>(plan.outer),
                               flag_p, dev->stream()),
                "launch")) {
      return;
    }
    int bad = kNoFlag;
    if (!ReadFlag(ctx, *dev, flag_p, &bad) || bad == kNoFlag) return;
    int32_t value = 0;
    if (!CudaOk(ctx,
                cudaMemcpyAsync(&value, idx_p + bad, sizeof value, cudaMemcpyDeviceToHost,
                                dev->stream()),
                "reading the bad index") ||
        !CudaOk(ctx, cudaStreamSynchronize(dev->stream()), "reading the bad index")) {
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok() || n == 0) return;
    const cudaError_t err =
        src_ == TG_FLOAT
            ? LaunchCastFloatToInt32(DataOf<const float>(in), DataOf<int32_t>(out),
                                     static_cast<int>(n), dev->stream())
            : LaunchCastInt32ToFloat(DataOf<const int32_t>(in), DataOf<float>(out),
                                     static_cast<int>(n), dev->stream());
    CudaOk(ctx, err, "launch");
  }

 private:
  TG_DataType src_ = TG_FLOAT, dst_ = TG_FLOAT;
};

}  // namespace

void RegisterArrayKernels(tgraph::plugin::Init& init) {
  const std::string& type = DeviceType();
  const std::initializer_list<TG_DataType> types = {TG_FLOAT, TG_INT32};
  AddDeviceKernel<NoOpKernel>(init, KernelBuilder("NoOp", type));
  AddDeviceKernel<ConstKernel>(init, KernelBuilder("Const", type).TypeConstraint("dtype", TG_FLOAT));
  AddDeviceKernel<ConstKernel>(init, 
      KernelBuilder("Const", type).TypeConstraint("dtype", TG_INT32).HostMemory("output"));
  AddDeviceKernel<IdentityKernel>(init, KernelBuilder("Identity", type)
                                  .TypeConstraint("T", types)
                                  .CostPerElementNs(tgraph_device_common::kViewCostPerElementNs));
  AddDeviceKernel<ReshapeKernel>(init, KernelBuilder("Reshape", type)
                                 .TypeConstraint("T", types)
                                 .TypeConstraint("Tshape", {TG_INT32, TG_INT64})
                                 .HostMemory("shape")
                                 .CostPerElementNs(tgraph_device_common::kViewCostPerElementNs));
  AddDeviceKernel<SqueezeKernel>(init, KernelBuilder("Squeeze", type)
                                 .TypeConstraint("T", types)
                                 .CostPerElementNs(tgraph_device_common::kViewCostPerElementNs));
  AddDeviceKernel<ExpandDimsKernel>(init, KernelBuilder("ExpandDims", type)
                                    .TypeConstraint("T", types)
                                    .TypeConstraint("Tdim", {TG_INT32, TG_INT64})
                                    .HostMemory("dim")
                                    .CostPerElementNs(tgraph_device_common::kViewCostPerElementNs));
  AddDeviceKernel<FillKernel>(init, KernelBuilder("Fill", type)
                              .TypeConstraint("T", types)
                              .TypeConstraint("index_type", {TG_INT32, TG_INT64})
                              .HostMemory("dims"));
  AddDeviceKernel<TileKernel>(init, KernelBuilder("Tile", type)
                              .TypeConstraint("T", types)
                              .TypeConstraint("Tmultiples", {TG_INT32, TG_INT64})
                              .HostMemory("multiples"));
  AddDeviceKernel<PadKernel>(init, KernelBuilder("Pad", type)
                             .TypeConstraint("T", types)
                             .TypeConstraint("Tpaddings", {TG_INT32, TG_INT64})
                             .HostMemory("paddings"));
  AddDeviceKernel<GatherV2Kernel>(init, KernelBuilder("GatherV2", type)
                                  .TypeConstraint("Tparams", TG_FLOAT)
                                  .TypeConstraint("Tindices", TG_INT32)
                                  .TypeConstraint("Taxis", {TG_INT32, TG_INT64})
                                  .HostMemory("axis"));
  AddDeviceKernel<ZerosLikeKernel>(init, KernelBuilder("ZerosLike", type).TypeConstraint("T", types));
  AddDeviceKernel<CastKernel>(init, KernelBuilder("Cast", type)
                              .TypeConstraint("SrcT", types)
                              .TypeConstraint("DstT", types));
}

}  // namespace tgraph_cuda
