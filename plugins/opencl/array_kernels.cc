// Data movement on the device, float32 and int32: NoOp, Const (float uploaded once per device,
// then a device-side copy per run; int32 in host memory), Identity, Reshape and ExpandDims
// (aliases, no copy), Fill, Tile, ZerosLike, Cast between float and int32, and float
// GatherV2 with int32 indices (program "misc", cl_sources.cc).
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

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
      const int64_t d = shape.dtype() == TG_INT32 ? shape.data<int32_t>()[i]
                                                  : shape.data<int64_t>()[i];
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
      const int64_t d = dims_t.dtype() == TG_INT32 ? dims_t.data<int32_t>()[i]
                                                   : dims_t.data<int64_t>()[i];
      if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "dims[" + std::to_string(i) + "] = " + std::to_string(d) +
                                          " must be non-negative");
        return;
      }
      dims.push_back(d);
      n = d == 0 || n <= 0x7fffffff ? n * d : n;
    }
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
    const int64_t dim = dim_t.dtype() == TG_INT32 ? dim_t.data<int32_t>()[0]
                                                  : dim_t.data<int64_t>()[0];
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
    TensorView in = ctx.input(0), mult = ctx.input(1);
    const std::vector<int64_t> in_dims = in.dims();
    if (mult.rank() != 1 || mult.num_elements() != static_cast<int64_t>(in_dims.size())) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected multiples argument to be a vector of length " +
                                        std::to_string(in_dims.size()) + " but got shape " +
                                        ShapeString(mult.dims()));
      return;
    }
    std::vector<int64_t> out_dims;
    TileShape s{};
    int64_t n = 1;
    for (size_t d = 0; d < in_dims.size(); ++d) {
      const int64_t m = mult.dtype() == TG_INT32 ? mult.data<int32_t>()[d]
                                                 : mult.data<int64_t>()[d];
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
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || n == 0) return;
    // Output dims of size 1 are dropped (coordinate 0 in and out); an untiled dim is merged
    // into the kept dim before it ((c1 % in1) * in2 + c2 is (c1 * in2 + c2) % (in1 * in2)).
    for (size_t d = 0; d < out_dims.size(); ++d) {
      if (out_dims[d] == 1) continue;
      if (s.rank > 0 && out_dims[d] == in_dims[d]) {
        s.out[s.rank - 1] *= static_cast<cl_int>(out_dims[d]);
        s.in[s.rank - 1] *= static_cast<cl_int>(in_dims[d]);
        continue;
      }
      if (s.rank == kMaxTileRank) {
        ctx.Fail(TG_UNIMPLEMENTED, "Tile of " + ShapeString(in_dims) + " needs more than " +
                                       std::to_string(kMaxTileRank) + " dims after merging");
        return;
      }
      s.out[s.rank] = static_cast<cl_int>(out_dims[d]);
      s.in[s.rank] = static_cast<cl_int>(in_dims[d]);
      ++s.rank;
    }
    s.n = static_cast<cl_int>(n);
    const cl_mem im = BufferOf(in), om = BufferOf(out);
    Launch(ctx, "misc", "tg_tile32", {A(im), A(om), A(s)}, {static_cast<size_t>(n)});
  }
};

// GatherV2(params, indices, axis), batch_dims 0: int32 indices in device memory, axis on
// the host. Bad indices are found by the kernel (see tg_gather32); the host reads the flag
// back (a blocking read: this op waits for the queue) and fails the node with the first bad
// position, as the CPU plugin words it. An empty output reads no index, so checks none.
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
    int64_t axis = axis_t.dtype() == TG_INT32 ? axis_t.data<int32_t>()[0]
                                              : axis_t.data<int64_t>()[0];
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
    TensorMut out = ctx.AllocateOutput(0, out_dims);
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
                 L = static_cast<cl_int>(limit), I = static_cast<cl_int>(inner);
    if (!Launch(ctx, "misc", "tg_gather32",
                {A(pm), A(im), A(om), A(N), A(J), A(L), A(I), A(flag)},
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
  init.Kernel<ConstKernel>(KernelBuilder("Const", DeviceType()).TypeConstraint("dtype", TG_FLOAT));
  init.Kernel<ConstKernel>(
      KernelBuilder("Const", DeviceType()).TypeConstraint("dtype", TG_INT32).HostMemory("output"));
  init.Kernel<NoOpKernel>(KernelBuilder("NoOp", DeviceType()));
  init.Kernel<IdentityKernel>(KernelBuilder("Identity", DeviceType()).TypeConstraint("T", types));
  init.Kernel<ReshapeKernel>(KernelBuilder("Reshape", DeviceType())
                                 .TypeConstraint("T", types)
                                 .TypeConstraint("Tshape", {TG_INT32, TG_INT64})
                                 .HostMemory("shape"));
  init.Kernel<FillKernel>(KernelBuilder("Fill", DeviceType())
                              .TypeConstraint("T", types)
                              .TypeConstraint("index_type", {TG_INT32, TG_INT64})
                              .HostMemory("dims"));
  init.Kernel<ExpandDimsKernel>(KernelBuilder("ExpandDims", DeviceType())
                                    .TypeConstraint("T", types)
                                    .TypeConstraint("Tdim", {TG_INT32, TG_INT64})
                                    .HostMemory("dim"));
  init.Kernel<TileKernel>(KernelBuilder("Tile", DeviceType())
                              .TypeConstraint("T", types)
                              .TypeConstraint("Tmultiples", {TG_INT32, TG_INT64})
                              .HostMemory("multiples"));
  init.Kernel<GatherV2Kernel>(KernelBuilder("GatherV2", DeviceType())
                                  .TypeConstraint("Tparams", TG_FLOAT)
                                  .TypeConstraint("Tindices", TG_INT32)
                                  .TypeConstraint("Taxis", {TG_INT32, TG_INT64})
                                  .HostMemory("axis"));
  init.Kernel<ZerosLikeKernel>(KernelBuilder("ZerosLike", DeviceType()).TypeConstraint("T", types));
  init.Kernel<CastKernel>(KernelBuilder("Cast", DeviceType())
                              .TypeConstraint("SrcT", types)
                              .TypeConstraint("DstT", types));
}

}  // namespace tgraph_opencl
