// MatMul (tiled, local memory), BiasAdd, BiasAddGrad, Softmax, Sum/Mean/Max/Min/Prod over
// any axes and ArgMax, float32 (programs "matmul" and "reduce", cl_sources.cc).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "device_common/reduce_args.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

class MatMulKernel {
 public:
  explicit MatMulKernel(Construction& c) {
    c.GetAttr("transpose_a", &ta_);
    c.GetAttr("transpose_b", &tb_);
  }
  void Compute(Context& ctx) {
    TensorView a = ctx.input(0), b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "MatMul needs 2-D inputs, got shapes " +
                                        ShapeString(a.dims()) + " and " + ShapeString(b.dims()));
      return;
    }
    const int64_t m = a.dim(ta_ ? 1 : 0), k = a.dim(ta_ ? 0 : 1);
    const int64_t kb = b.dim(tb_ ? 1 : 0), n = b.dim(tb_ ? 0 : 1);
    if (k != kb) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: " + ShapeString(a.dims()) +
                                        ", In[1]: " + ShapeString(b.dims()));
      return;
    }
    if (!CheckIntSized(ctx, a.num_elements(), "input a") ||
        !CheckIntSized(ctx, b.num_elements(), "input b") ||
        !CheckIntSized(ctx, m * n, "the output")) {
      return;
    }
    TensorMut c = ctx.AllocateOutput(0, {m, n});
    if (!ctx.ok() || m * n == 0) return;
    if (k == 0) {  // an empty sum: zeros
      try {
        DeviceOf(ctx).queue().enqueueFillBuffer(static_cast<const ClBuffer*>(
                                                    tgraph::plugin::Api()->tensor_data(c.raw()))
                                                    ->mem,
                                                0.0f, 0, c.byte_size());
      } catch (const std::exception& e) {
        FailFromClError(ctx, e, "filling zeros");
      }
      return;
    }
    const cl_mem am = BufferOf(a), bm = BufferOf(b), cm = BufferOf(c);
    const cl_int M = static_cast<cl_int>(m), N = static_cast<cl_int>(n), K = static_cast<cl_int>(k);
    const cl_int ta = ta_ ? 1 : 0, tb = tb_ ? 1 : 0;
    const size_t ts = static_cast<size_t>(DeviceOf(ctx).tile());
    if (ts == 16) {  // big work-groups: 64 x 64 tiles, 4 x 8 outputs per item
      const size_t gx = (static_cast<size_t>(n) + 63) / 64 * 8;
      const size_t gy = (static_cast<size_t>(m) + 63) / 64 * 16;
      Launch(ctx, "matmul", "tg_matmul_blocked",
             {A(am), A(bm), A(cm), A(M), A(N), A(K), A(ta), A(tb)}, {gx, gy}, {8, 16});
      return;
    }
    Launch(ctx, "matmul", "tg_matmul", {A(am), A(bm), A(cm), A(M), A(N), A(K), A(ta), A(tb)},
           {static_cast<size_t>(n), static_cast<size_t>(m)}, {ts, ts});
  }

 private:
  bool ta_ = false, tb_ = false;
};

class BiasAddKernel {
 public:
  explicit BiasAddKernel(Construction& c) {
    std::string format = "NHWC";
    if (c.HasAttr("data_format")) c.GetAttr("data_format", &format);
    if (format != "NHWC" && format != "NCHW") {
      c.Fail(TG_INVALID_ARGUMENT, "unknown data_format '" + format + "'");
    }
    nchw_ = format == "NCHW";
  }
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0), bias = ctx.input(1);
    const int min_rank = nchw_ ? 3 : 2;
    if (x.rank() < min_rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "value must have rank at least " + std::to_string(min_rank) +
                                        ", got shape " + ShapeString(x.dims()));
      return;
    }
    if (bias.rank() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "bias must be 1-D, got shape " + ShapeString(bias.dims()));
      return;
    }
    const int channel_dim = nchw_ ? 1 : x.rank() - 1;
    const int64_t c = x.dim(channel_dim);
    if (bias.dim(0) != c) {
      ctx.Fail(TG_INVALID_ARGUMENT, "bias size " + std::to_string(bias.dim(0)) +
                                        " does not match the channel dimension " +
                                        std::to_string(c) + " of value " + ShapeString(x.dims()));
      return;
    }
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < x.rank(); ++d) inner *= x.dim(d);
    const int64_t n = x.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    TensorMut y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || n == 0) return;
    const cl_mem xm = BufferOf(x), bm = BufferOf(bias), ym = BufferOf(y);
    const cl_int count = static_cast<cl_int>(n), C = static_cast<cl_int>(c),
                 I = static_cast<cl_int>(inner);
    Launch(ctx, "matmul", "tg_bias_add", {A(xm), A(bm), A(ym), A(count), A(C), A(I)},
           {static_cast<size_t>(n)});
  }

 private:
  bool nchw_ = false;
};

// BiasAddGrad(out_backprop): the sum over every dim but the channel one, as tg_reduce_sum
// over [outer, reduce, inner] views. NHWC is one pass ([1, N*H*W, C]); NCHW sums the
// spatial dims first ([N*C, H*W, 1]) into a temporary, then the batch ([1, N, C]).
class BiasAddGradKernel {
 public:
  explicit BiasAddGradKernel(Construction& c) {
    std::string format = "NHWC";
    if (c.HasAttr("data_format")) c.GetAttr("data_format", &format);
    if (format != "NHWC" && format != "NCHW") {
      c.Fail(TG_INVALID_ARGUMENT, "unknown data_format '" + format + "'");
    }
    nchw_ = format == "NCHW";
  }
  void Compute(Context& ctx) {
    TensorView g = ctx.input(0);
    const int min_rank = nchw_ ? 3 : 2;
    if (g.rank() < min_rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "out_backprop must have rank at least " +
                                        std::to_string(min_rank) + " for data_format " +
                                        (nchw_ ? "NCHW" : "NHWC") + ", got shape " +
                                        ShapeString(g.dims()));
      return;
    }
    const int channel_dim = nchw_ ? 1 : g.rank() - 1;
    const int64_t c = g.dim(channel_dim), n = g.num_elements();
    int64_t batch = 1, spatial = 1;  // the dims before and after the channel dim
    for (int d = 0; d < g.rank(); ++d) {
      if (d < channel_dim) batch *= g.dim(d);
      if (d > channel_dim) spatial *= g.dim(d);
    }
    if (!CheckIntSized(ctx, n, "out_backprop")) return;
    TensorMut out = ctx.AllocateOutput(0, {c});
    if (!ctx.ok() || c == 0) return;
    const size_t rg = static_cast<size_t>(DeviceOf(ctx).reduce_group());
    const float one = 1.0f;
    const cl_int C = static_cast<cl_int>(c);
    const cl_mem om = BufferOf(out);
    cl_mem src = n == 0 ? nullptr : BufferOf(g);  // an empty sum reads nothing
    cl_int reduce = static_cast<cl_int>(batch);
    TensorMut partial;
    if (spatial != 1) {  // NCHW with spatial dims: sum them first
      const cl_int S = static_cast<cl_int>(spatial), inner1 = 1;
      partial = ctx.AllocateTemp(TG_FLOAT, {batch * c});
      if (!ctx.ok()) return;
      if (batch != 0) {
        const cl_mem pm = BufferOf(partial);
        if (!Launch(ctx, "reduce", "tg_reduce_sum", {A(src), A(pm), A(S), A(inner1), A(one)},
                    {static_cast<size_t>(batch * c) * rg}, {rg})) {
          return;
        }
        src = pm;
      }
    } else if (!nchw_) {
      reduce = static_cast<cl_int>(batch * spatial);
    }
    Launch(ctx, "reduce", "tg_reduce_sum", {A(src), A(om), A(reduce), A(C), A(one)},
           {static_cast<size_t>(c) * rg}, {rg});
  }

 private:
  bool nchw_ = false;
};

class SoftmaxKernel {
 public:
  explicit SoftmaxKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0);
    if (x.rank() < 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "logits must have >= 1 dimension, got " +
                                        ShapeString(x.dims()));
      return;
    }
    const int64_t n = x.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    TensorMut y = ctx.AllocateOutput(0, x.dims());
    const int64_t cols = x.dim(x.rank() - 1);
    if (!ctx.ok() || n == 0) return;
    const cl_mem xm = BufferOf(x), ym = BufferOf(y);
    const cl_int C = static_cast<cl_int>(cols);
    const size_t rg = static_cast<size_t>(DeviceOf(ctx).reduce_group());
    Launch(ctx, "reduce", "tg_softmax", {A(xm), A(ym), A(C)},
           {static_cast<size_t>(n / cols) * rg}, {rg});
  }
};

// Sum / Mean / Max / Min / Prod over any set of axes (device_common/reduce_args.h plans
// them). Sum, Mean and Max over one block of axes ([outer, reduce, inner]) take the
// dedicated kernels; everything else tg_reduce_any.
using tgraph_device_common::ReduceOp;

// Matches the ReduceShape struct of the OpenCL source (16 groups of each kind: see
// device_common/reduce_args.h).
struct ReduceShape {
  cl_int kept_rank, red_rank, reduce;
  cl_int kept_dims[16], kept_strides[16], red_dims[16], red_strides[16];
};

class ReduceKernel {
 public:
  ReduceKernel(Construction& c, ReduceOp op, bool mean) : op_(op), mean_(mean) {
    if (c.HasAttr("keep_dims")) c.GetAttr("keep_dims", &keep_dims_);
  }
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0);
    const std::vector<int64_t> dims = x.dims();
    tgraph_device_common::ReducePlan plan;
    if (!tgraph_device_common::PlanReduction(ctx, dims, ctx.input(1), keep_dims_, &plan)) return;
    if (!CheckIntSized(ctx, x.num_elements(), "the input")) return;
    TensorMut y = ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || plan.outputs == 0) return;
    const cl_mem xm = x.num_elements() == 0 ? nullptr : BufferOf(x), ym = BufferOf(y);
    const size_t rg = static_cast<size_t>(DeviceOf(ctx).reduce_group());
    const std::vector<size_t> global = {static_cast<size_t>(plan.outputs) * rg}, local = {rg};
    // Mean of an empty axis: 0 * inf = NaN, as 0 / 0.
    const float scale =
        mean_ ? (plan.reduce == 0 ? INFINITY : 1.0f / static_cast<float>(plan.reduce)) : 1.0f;
    if (plan.adjacent && (op_ == ReduceOp::kSum || op_ == ReduceOp::kMax)) {
      const cl_int R = static_cast<cl_int>(plan.reduce), I = static_cast<cl_int>(plan.inner);
      if (op_ == ReduceOp::kMax) {
        Launch(ctx, "reduce", "tg_reduce_max", {A(xm), A(ym), A(R), A(I)}, global, local);
      } else {
        Launch(ctx, "reduce", "tg_reduce_sum", {A(xm), A(ym), A(R), A(I), A(scale)}, global,
               local);
      }
      return;
    }
    ReduceShape s;
    if (!tgraph_device_common::FillReduceShape(ctx, plan, dims, &s)) return;
    const cl_int op = static_cast<cl_int>(op_);
    Launch(ctx, "reduce", "tg_reduce_any", {A(xm), A(ym), A(s), A(op), A(scale)}, global, local);
  }

 private:
  ReduceOp op_;
  bool mean_;
  bool keep_dims_ = false;
};

struct SumKernel : ReduceKernel {
  explicit SumKernel(Construction& c) : ReduceKernel(c, ReduceOp::kSum, false) {}
};
struct MeanKernel : ReduceKernel {
  explicit MeanKernel(Construction& c) : ReduceKernel(c, ReduceOp::kSum, true) {}
};
struct MaxKernel : ReduceKernel {
  explicit MaxKernel(Construction& c) : ReduceKernel(c, ReduceOp::kMax, false) {}
};
struct MinKernel : ReduceKernel {
  explicit MinKernel(Construction& c) : ReduceKernel(c, ReduceOp::kMin, false) {}
};
struct ProdKernel : ReduceKernel {
  explicit ProdKernel(Construction& c) : ReduceKernel(c, ReduceOp::kProd, false) {}
};

// ArgMax(input, dimension): dimension a host scalar; int32 or int64 output (output_type).
class ArgMaxKernel {
 public:
  explicit ArgMaxKernel(Construction& c) {
    if (c.HasAttr("output_type")) c.GetAttr("output_type", &out_type_);
  }
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0), dim_t = ctx.input(1);
    const std::vector<int64_t> dims = x.dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    if (dim_t.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "dimension must be a scalar, but has shape " + ShapeString(dim_t.dims()));
      return;
    }
    int64_t axis = dim_t.dtype() == TG_INT32 ? dim_t.data<int32_t>()[0] : dim_t.data<int64_t>()[0];
    if (axis < -rank || axis >= rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected dimension in the range [" + std::to_string(-rank) +
                                        ", " + std::to_string(rank) + "), but got " +
                                        std::to_string(axis));
      return;
    }
    if (axis < 0) axis += rank;
    const int64_t reduce = dims[static_cast<size_t>(axis)];
    if (reduce == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Reduction axis " + std::to_string(axis) +
                                        " is empty in shape " + ShapeString(dims));
      return;
    }
    if (out_type_ == TG_INT32 && reduce - 1 > 0x7fffffff) {
      ctx.Fail(TG_INVALID_ARGUMENT, "axis " + std::to_string(axis) + " of size " +
                                        std::to_string(reduce) + " does not fit the output type");
      return;
    }
    std::vector<int64_t> out_dims;
    int64_t inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis) out_dims.push_back(dims[static_cast<size_t>(d)]);
      if (d > axis) inner *= dims[static_cast<size_t>(d)];
    }
    if (!CheckIntSized(ctx, x.num_elements(), "the input")) return;
    TensorMut y = ctx.AllocateOutput(0, out_dims);
    const int64_t n = x.num_elements() / reduce;
    if (!ctx.ok() || n == 0) return;
    const cl_mem xm = BufferOf(x), ym = BufferOf(y);
    const cl_int N = static_cast<cl_int>(n), R = static_cast<cl_int>(reduce),
                 I = static_cast<cl_int>(inner);
    Launch(ctx, "reduce", out_type_ == TG_INT32 ? "tg_argmax_i32" : "tg_argmax_i64",
           {A(xm), A(ym), A(N), A(R), A(I)}, {static_cast<size_t>(n)});
  }

 private:
  TG_DataType out_type_ = TG_INT64;
};

}  // namespace

void RegisterNnKernels(tgraph::plugin::Init& init) {
  auto f = [](const char* op) { return KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT); };
  AddDeviceKernel<MatMulKernel>(init, f("MatMul"));
  AddDeviceKernel<BiasAddKernel>(init, f("BiasAdd"));
  AddDeviceKernel<BiasAddGradKernel>(init, f("BiasAddGrad"));
  AddDeviceKernel<SoftmaxKernel>(init, f("Softmax"));
  AddDeviceKernel<SumKernel>(init, 
      f("Sum").TypeConstraint("Tidx", {TG_INT32, TG_INT64}).HostMemory("reduction_indices"));
  AddDeviceKernel<MeanKernel>(init, 
      f("Mean").TypeConstraint("Tidx", {TG_INT32, TG_INT64}).HostMemory("reduction_indices"));
  AddDeviceKernel<MaxKernel>(init, 
      f("Max").TypeConstraint("Tidx", {TG_INT32, TG_INT64}).HostMemory("reduction_indices"));
  AddDeviceKernel<MinKernel>(init, 
      f("Min").TypeConstraint("Tidx", {TG_INT32, TG_INT64}).HostMemory("reduction_indices"));
  AddDeviceKernel<ProdKernel>(init, 
      f("Prod").TypeConstraint("Tidx", {TG_INT32, TG_INT64}).HostMemory("reduction_indices"));
  AddDeviceKernel<ArgMaxKernel>(init, f("ArgMax")
                                .TypeConstraint("Tidx", {TG_INT32, TG_INT64})
                                .TypeConstraint("output_type", {TG_INT32, TG_INT64})
                                .HostMemory("dimension"));
}

}  // namespace tgraph_opencl
