// MatMul (cuBLAS SGEMM), BiasAdd, BiasAddGrad, Softmax, Sum/Mean/Max/Min/Prod over any
// axes and ArgMax, float32 (device code: cwise.cu, reduce.cu).
#include <cmath>
#include <string>
#include <vector>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/reduce_args.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// C[M,N] = op(A)[M,K] * op(B)[K,N] in row-major memory. cuBLAS is column-major, where a
// row-major X reads as X^T; so it computes C^T[N,M] = op(B)^T * op(A)^T, passing B first:
// a row-major B[K,N] read column-major is B^T with leading dimension N (no transpose
// needed), a row-major B stored [N,K] (transpose_b) is read with leading dimension K and
// transposed; the same for A.
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut c = ctx.AllocateOutput(0, {m, n});
    if (!ctx.ok() || m * n == 0) return;
    float* cp = DataOf<float>(c);
    if (k == 0) {  // an empty sum: zeros
      CudaOk(ctx, cudaMemsetAsync(cp, 0, c.byte_size(), dev->stream()), "filling zeros");
      return;
    }
    const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
    const float one = 1.0f, zero = 0.0f;
    std::lock_guard<std::mutex> lock(dev->blas_mutex());
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    cublasHandle_t handle = dev->Blas(&st);
    if (handle != nullptr) {
      st = cublasSgemm(handle, tb_ ? CUBLAS_OP_T : CUBLAS_OP_N, ta_ ? CUBLAS_OP_T : CUBLAS_OP_N,
                       N, M, K, &one, DataOf<const float>(b), tb_ ? K : N,
                       DataOf<const float>(a), ta_ ? M : K, &zero, cp, N);
    }
    if (st != CUBLAS_STATUS_SUCCESS) {
      ctx.Fail(st == CUBLAS_STATUS_ALLOC_FAILED ? TG_RESOURCE_EXHAUSTED : TG_INTERNAL,
               std::string(handle == nullptr ? "creating the cuBLAS handle" : "cublasSgemm") +
                   ": " + cublasGetStatusName(st) + ": " + cublasGetStatusString(st));
    }
  }

 private:
  bool ta_ = false, tb_ = false;
};

bool ReadDataFormat(Construction& c, bool* nchw) {
  std::string format = "NHWC";
  if (c.HasAttr("data_format")) c.GetAttr("data_format", &format);
  if (format != "NHWC" && format != "NCHW") {
    c.Fail(TG_INVALID_ARGUMENT, "unknown data_format '" + format + "'");
    return false;
  }
  *nchw = format == "NCHW";
  return true;
}

class BiasAddKernel {
 public:
  explicit BiasAddKernel(Construction& c) { ReadDataFormat(c, &nchw_); }
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || n == 0) return;
    CudaOk(ctx,
           LaunchBiasAdd(DataOf<const float>(x), DataOf<const float>(bias), DataOf<float>(y),
                         static_cast<int>(n), static_cast<int>(c), static_cast<int>(inner),
                         dev->stream()),
           "launch");
  }

 private:
  bool nchw_ = false;
};

// BiasAddGrad(out_backprop): the sum over every dim but the channel one, as ReduceSum over
// [outer, reduce, inner] views. NHWC is one pass ([1, N*H*W, C]); NCHW sums the spatial
// dims first ([N*C, H*W, 1]) into a temporary, then the batch ([1, N, C]).
class BiasAddGradKernel {
 public:
  explicit BiasAddGradKernel(Construction& c) { ReadDataFormat(c, &nchw_); }
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, {c});
    if (!ctx.ok() || c == 0) return;
    const float* src = n == 0 ? nullptr : DataOf<const float>(g);  // an empty sum reads nothing
    int64_t reduce = batch;
    TensorMut partial;
    if (spatial != 1) {  // NCHW with spatial dims: sum them first
      partial = ctx.AllocateTemp(TG_FLOAT, {batch * c});
      if (!ctx.ok()) return;
      if (batch != 0) {
        if (!CudaOk(ctx,
                    LaunchReduceSum(src, DataOf<float>(partial), static_cast<int>(batch * c),
                                    static_cast<int>(spatial), 1, 1.0f, dev->stream()),
                    "launch")) {
          return;
        }
        src = DataOf<const float>(partial);
      }
    } else if (!nchw_) {
      reduce = batch * spatial;
    }
    CudaOk(ctx,
           LaunchReduceSum(src, DataOf<float>(out), static_cast<int>(c),
                           static_cast<int>(reduce), static_cast<int>(c), 1.0f, dev->stream()),
           "launch");
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut y = ctx.AllocateOutput(0, x.dims());
    const int64_t cols = x.dim(x.rank() - 1);
    if (!ctx.ok() || n == 0) return;
    CudaOk(ctx,
           LaunchSoftmax(DataOf<const float>(x), DataOf<float>(y), static_cast<int>(n / cols),
                         static_cast<int>(cols), dev->stream()),
           "launch");
  }
};

// Sum / Mean / Max / Min / Prod over any set of axes (device_common/reduce_args.h plans
// them). Sum, Mean and Max over one block of axes ([outer, reduce, inner]) take the
// dedicated kernels; everything else ReduceAny.
using tgraph_device_common::ReduceOp;

template <ReduceOp kOp, bool kMean>
class ReduceKernel {
 public:
  explicit ReduceKernel(Construction& c) {
    if (c.HasAttr("keep_dims")) c.GetAttr("keep_dims", &keep_dims_);
  }
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0);
    const std::vector<int64_t> dims = x.dims();
    tgraph_device_common::ReducePlan plan;
    if (!tgraph_device_common::PlanReduction(ctx, dims, ctx.input(1), keep_dims_, &plan)) return;
    if (!CheckIntSized(ctx, x.num_elements(), "the input")) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut y = ctx.AllocateOutput(0, plan.out_dims);
    if (!ctx.ok() || plan.outputs == 0) return;
    const float* xp = x.num_elements() == 0 ? nullptr : DataOf<const float>(x);
    float* yp = DataOf<float>(y);
    const int outputs = static_cast<int>(plan.outputs);
    // Mean of an empty axis: 0 * inf = NaN, as 0 / 0.
    const float scale =
        kMean ? (plan.reduce == 0 ? INFINITY : 1.0f / static_cast<float>(plan.reduce)) : 1.0f;
    if (plan.adjacent && (kOp == ReduceOp::kSum || kOp == ReduceOp::kMax)) {
      const int reduce = static_cast<int>(plan.reduce), inner = static_cast<int>(plan.inner);
      CudaOk(ctx,
             kOp == ReduceOp::kMax
                 ? LaunchReduceMax(xp, yp, outputs, reduce, inner, dev->stream())
                 : LaunchReduceSum(xp, yp, outputs, reduce, inner, scale, dev->stream()),
             "launch");
      return;
    }
    ReduceShape s;
    if (!tgraph_device_common::FillReduceShape(ctx, plan, dims, &s)) return;
    CudaOk(ctx, LaunchReduceAny(xp, yp, outputs, s, static_cast<int>(kOp), scale, dev->stream()),
           "launch");
  }

 private:
  bool keep_dims_ = false;
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
    std::vector<int64_t> out_dims;
    int64_t inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis) out_dims.push_back(dims[static_cast<size_t>(d)]);
      if (d > axis) inner *= dims[static_cast<size_t>(d)];
    }
    if (!CheckIntSized(ctx, x.num_elements(), "the input")) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut y = ctx.AllocateOutput(0, out_dims);
    const int64_t n = x.num_elements() / reduce;
    if (!ctx.ok() || n == 0) return;
    const float* xp = DataOf<const float>(x);
    const int N = static_cast<int>(n), R = static_cast<int>(reduce), I = static_cast<int>(inner);
    CudaOk(ctx,
           out_type_ == TG_INT32
               ? LaunchArgMax(xp, DataOf<int32_t>(y), N, R, I, dev->stream())
               : LaunchArgMax(xp, DataOf<int64_t>(y), N, R, I, dev->stream()),
           "launch");
  }

 private:
  TG_DataType out_type_ = TG_INT64;
};

}  // namespace

void RegisterNnKernels(tgraph::plugin::Init& init) {
  auto f = [](const char* op) {
    return KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT);
  };
  AddDeviceKernel<MatMulKernel>(init, f("MatMul"));
  AddDeviceKernel<BiasAddKernel>(init, f("BiasAdd"));
  AddDeviceKernel<BiasAddGradKernel>(init, f("BiasAddGrad"));
  AddDeviceKernel<SoftmaxKernel>(init, f("Softmax"));
  auto reduction = [&](const char* op) {
    return f(op).TypeConstraint("Tidx", {TG_INT32, TG_INT64}).HostMemory("reduction_indices");
  };
  AddDeviceKernel<ReduceKernel<ReduceOp::kSum, false>>(init, reduction("Sum"));
  AddDeviceKernel<ReduceKernel<ReduceOp::kSum, true>>(init, reduction("Mean"));
  AddDeviceKernel<ReduceKernel<ReduceOp::kMax, false>>(init, reduction("Max"));
  AddDeviceKernel<ReduceKernel<ReduceOp::kMin, false>>(init, reduction("Min"));
  AddDeviceKernel<ReduceKernel<ReduceOp::kProd, false>>(init, reduction("Prod"));
  AddDeviceKernel<ArgMaxKernel>(init, f("ArgMax")
                                .TypeConstraint("Tidx", {TG_INT32, TG_INT64})
                                .TypeConstraint("output_type", {TG_INT32, TG_INT64})
                                .HostMemory("dimension"));
}

}  // namespace tgraph_cuda
