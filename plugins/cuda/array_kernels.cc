// Data movement on the device, float32 and int32: NoOp, Const (float uploaded once per device,
// then a device-side copy per run; int32 in host memory), Identity, Reshape, Squeeze and
// ExpandDims (aliases, no copy), Fill, Tile, ZerosLike, Cast between float and int32, and
// float GatherV2 with int32 indices (device code: misc.cu).
#include <cstring>
#include <map>
#include <mutex>
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

// The value of a host-memory int32/int64 input's element i.
int64_t IndexAt(const TensorView& t, int64_t i) {
  return t.dtype() == TG_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

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
    TensorView in = ctx.input(0), shape = ctx.input(1);
    if (shape.rank() > 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "shape must be a vector, got shape " +
                                        ShapeString(shape.dims()));
      return;
    }
    std::vector<int64_t> dims;
    int unknown = -1;
    int64_t product = 1;
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const int64_t d = IndexAt(shape, i);
      if (d == -1) {
        if (unknown >= 0) {
          ctx.Fail(TG_INVALID_ARGUMENT, "only one input size may be -1, not both " +
                                            std::to_string(unknown) + " and " + std::to_string(i));
          return;
        }
        unknown = static_cast<int>(i);
      } else if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "size " + std::to_string(i) +
                                          " must be non-negative, not " + std::to_string(d));
        return;
      } else {
        product *= d;
      }
      dims.push_back(d);
    }
    const int64_t n = in.num_elements();
    if (unknown >= 0) {
      if (product == 0 || n % product != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Input to reshape is a tensor with " + std::to_string(n) +
                                          " values, which cannot be reshaped to " +
                                          ShapeString(dims));
        return;
      }
      dims[static_cast<size_t>(unknown)] = n / product;
      product = n;
    }
    if (product != n) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Input to reshape is a tensor with " + std::to_string(n) +
                                        " values, but the requested shape has " +
                                        std::to_string(product) + " (shape " +
                                        ShapeString(in.dims()) + " to " + ShapeString(dims) + ")");
      return;
    }
    ctx.SetOutputAlias(0, in, dims);
  }
};

// Squeeze(input): drops the size-1 dims listed in squeeze_dims (all of them when empty).
class SqueezeKernel {
 public:
  explicit SqueezeKernel(Construction& c) { c.GetAttr("squeeze_dims", &axes_); }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<bool> squeeze(dims.size(), false);
    for (int64_t a : axes_) {
      if (a < -rank || a >= rank) {
        ctx.Fail(TG_INVALID_ARGUMENT, "squeeze dimension " + std::to_string(a) +
                                          " is out of range for a tensor of rank " +
                                          std::to_string(rank) + " (expected [" +
                                          std::to_string(-rank) + ", " + std::to_string(rank) +
                                          "))");
        return;
      }
      const size_t axis = static_cast<size_t>(a < 0 ? a + rank : a);
      if (dims[axis] != 1) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Can not squeeze dim[" + std::to_string(axis) +
                                          "], expected a dimension of 1, got " +
                                          std::to_string(dims[axis]));
        return;
      }
      squeeze[axis] = true;
    }
    std::vector<int64_t> out;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (!(axes_.empty() ? dims[i] == 1 : squeeze[i])) out.push_back(dims[i]);
    }
    ctx.SetOutputAlias(0, in, out);
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
    TensorView in = ctx.input(0), dim_t = ctx.input(1);
    if (dim_t.num_elements() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "'dim' must be a tensor with a single value, got shape " +
                                        ShapeString(dim_t.dims()));
      return;
    }
    const int64_t dim = IndexAt(dim_t, 0);
    std::vector<int64_t> dims = in.dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    if (dim < -rank - 1 || dim > rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Tried to expand dim index " + std::to_string(dim) +
                                        " for tensor with " + std::to_string(rank) +
                                        " dimensions.");
      return;
    }
    dims.insert(dims.begin() + (dim < 0 ? dim + rank + 1 : dim), 1);
    ctx.SetOutputAlias(0, in, dims);
  }
};

// Fill(dims, value): dims is host memory, value a device scalar; 4-byte dtypes only, whose
// bits the kernel copies.
class FillKernel {
 public:
  explicit FillKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView dims_t = ctx.input(0), value = ctx.input(1);
    if (dims_t.rank() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "dims must be a vector, got shape " +
                                        ShapeString(dims_t.dims()));
      return;
    }
    if (value.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "value must be a scalar, got shape " +
                                        ShapeString(value.dims()));
      return;
    }
    std::vector<int64_t> dims;
    int64_t n = 1;
    for (int64_t i = 0; i < dims_t.num_elements(); ++i) {
      const int64_t d = IndexAt(dims_t, i);
      if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "dims[" + std::to_string(i) + "] = " + std::to_string(d) +
                                          " must be non-negative");
        return;
      }
      dims.push_back(d);
      n = d == 0 || n <= 0x7fffffff ? n * d : n;
    }
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
    TensorView in = ctx.input(0), mult = ctx.input(1);
    const std::vector<int64_t> in_dims = in.dims();
    if (mult.rank() != 1 || mult.num_elements() != static_cast<int64_t>(in_dims.size())) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected multiples argument to be a vector of length " +
                                        std::to_string(in_dims.size()) + " but got shape " +
                                        ShapeString(mult.dims()));
      return;
    }
    std::vector<int64_t> out_dims;
    int64_t n = 1;
    for (size_t d = 0; d < in_dims.size(); ++d) {
      const int64_t m = IndexAt(mult, static_cast<int64_t>(d));
      if (m < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Expected multiples[" + std::to_string(d) +
                                          "] >= 0, but got " + std::to_string(m));
        return;
      }
      out_dims.push_back(in_dims[d] * m);
      n = out_dims.back() == 0 || n <= 0x7fffffff ? n * out_dims.back() : n;
    }
    if (!CheckIntSized(ctx, n, "the output") || !CheckIntSized(ctx, in.num_elements(), "input")) {
      return;
    }
    // Output dims of size 1 are dropped (coordinate 0 in and out); an untiled dim is merged
    // into the kept dim before it ((c1 % in1) * in2 + c2 is (c1 * in2 + c2) % (in1 * in2)).
    TileShape s{};
    for (size_t d = 0; d < out_dims.size(); ++d) {
      if (out_dims[d] == 1) continue;
      if (s.rank > 0 && out_dims[d] == in_dims[d]) {
        s.out[s.rank - 1] *= static_cast<int>(out_dims[d]);
        s.in[s.rank - 1] *= static_cast<int>(in_dims[d]);
        continue;
      }
      if (s.rank == kMaxTileRank) {
        ctx.Fail(TG_UNIMPLEMENTED, "Tile of " + ShapeString(in_dims) + " needs more than " +
                                       std::to_string(kMaxTileRank) + " dims after merging");
        return;
      }
      s.out[s.rank] = static_cast<int>(out_dims[d]);
      s.in[s.rank] = static_cast<int>(in_dims[d]);
      ++s.rank;
    }
    s.n = static_cast<int>(n);
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || n == 0) return;
    CudaOk(ctx, LaunchTile32(DataOf<const uint32_t>(in), DataOf<uint32_t>(out), s, dev->stream()),
           "launch");
  }
};

// GatherV2(params, indices, axis), batch_dims 0: int32 indices in device memory, axis on
// the host. Bad indices are found by the kernel, which flags the first bad position; the
// host reads the flag back (this op waits for the stream) and fails the node with it, as
// the CPU plugin words it. An empty output reads no index, so checks none.
class GatherV2Kernel {
 public:
  explicit GatherV2Kernel(Construction& c) {
    if (c.HasAttr("batch_dims")) c.GetAttr("batch_dims", &batch_dims_);
  }
  void Compute(Context& ctx) {
    TensorView params = ctx.input(0), indices = ctx.input(1), axis_t = ctx.input(2);
    if (batch_dims_ != 0) {
      ctx.Fail(TG_UNIMPLEMENTED, "GatherV2 with batch_dims " + std::to_string(batch_dims_) +
                                     " is not implemented on " + DeviceType());
      return;
    }
    if (axis_t.num_elements() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "axis must be a scalar, got shape " +
                                        ShapeString(axis_t.dims()));
      return;
    }
    const std::vector<int64_t> pd = params.dims(), id = indices.dims();
    const int64_t rank = static_cast<int64_t>(pd.size());
    if (rank < 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "params must be at least 1 dimensional");
      return;
    }
    int64_t axis = IndexAt(axis_t, 0);
    if (axis < -rank || axis >= rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected axis in the range [" + std::to_string(-rank) +
                                        ", " + std::to_string(rank) + "), but got " +
                                        std::to_string(axis));
      return;
    }
    if (axis < 0) axis += rank;
    int64_t outer = 1, inner = 1;
    std::vector<int64_t> out_dims;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis) outer *= pd[static_cast<size_t>(d)];
      if (d > axis) inner *= pd[static_cast<size_t>(d)];
      if (d == axis) out_dims.insert(out_dims.end(), id.begin(), id.end());
      if (d != axis) out_dims.push_back(pd[static_cast<size_t>(d)]);
    }
    const int64_t nidx = indices.num_elements(), limit = pd[static_cast<size_t>(axis)];
    const int64_t n = outer * nidx * inner;
    if (!CheckIntSized(ctx, params.num_elements(), "params") ||
        !CheckIntSized(ctx, n, "the output")) {
      return;
    }
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
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
                               static_cast<int>(inner), flag_p, dev->stream()),
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
    // The position as a coordinate of indices, e.g. indices[1,2].
    std::string where;
    int64_t flat = bad;
    for (size_t d = id.size(); d-- > 0;) {
      where = std::to_string(flat % id[d]) + (where.empty() ? "" : ",") + where;
      flat /= id[d];
    }
    ctx.Fail(TG_INVALID_ARGUMENT, "indices[" + where + "] = " + std::to_string(value) +
                                      " is not in [0, " + std::to_string(limit) + ")");
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
  init.Kernel<NoOpKernel>(KernelBuilder("NoOp", type));
  init.Kernel<ConstKernel>(KernelBuilder("Const", type).TypeConstraint("dtype", TG_FLOAT));
  init.Kernel<ConstKernel>(
      KernelBuilder("Const", type).TypeConstraint("dtype", TG_INT32).HostMemory("output"));
  init.Kernel<IdentityKernel>(KernelBuilder("Identity", type).TypeConstraint("T", types));
  init.Kernel<ReshapeKernel>(KernelBuilder("Reshape", type)
                                 .TypeConstraint("T", types)
                                 .TypeConstraint("Tshape", {TG_INT32, TG_INT64})
                                 .HostMemory("shape"));
  init.Kernel<SqueezeKernel>(KernelBuilder("Squeeze", type).TypeConstraint("T", types));
  init.Kernel<ExpandDimsKernel>(KernelBuilder("ExpandDims", type)
                                    .TypeConstraint("T", types)
                                    .TypeConstraint("Tdim", {TG_INT32, TG_INT64})
                                    .HostMemory("dim"));
  init.Kernel<FillKernel>(KernelBuilder("Fill", type)
                              .TypeConstraint("T", types)
                              .TypeConstraint("index_type", {TG_INT32, TG_INT64})
                              .HostMemory("dims"));
  init.Kernel<TileKernel>(KernelBuilder("Tile", type)
                              .TypeConstraint("T", types)
                              .TypeConstraint("Tmultiples", {TG_INT32, TG_INT64})
                              .HostMemory("multiples"));
  init.Kernel<GatherV2Kernel>(KernelBuilder("GatherV2", type)
                                  .TypeConstraint("Tparams", TG_FLOAT)
                                  .TypeConstraint("Tindices", TG_INT32)
                                  .TypeConstraint("Taxis", {TG_INT32, TG_INT64})
                                  .HostMemory("axis"));
  init.Kernel<ZerosLikeKernel>(KernelBuilder("ZerosLike", type).TypeConstraint("T", types));
  init.Kernel<CastKernel>(KernelBuilder("Cast", type)
                              .TypeConstraint("SrcT", types)
                              .TypeConstraint("DstT", types));
}

}  // namespace tgraph_cuda
