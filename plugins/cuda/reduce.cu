// Reductions over rows: Sum/Mean (and BiasAddGrad) and Max over an [outer, reduce, inner]
// view, any reduction over any axes (ReduceAny), ArgMax, Softmax, and the two softmax cross-entropies. One block of kThreads per
// output or row; partial results are combined in shared memory. Launch wrappers: cuda_launch.h.
#include <cmath>
#include <cstdint>

#include "cuda_launch.h"

namespace tgraph_cuda {
namespace {

constexpr int kThreads = 256;  // a power of two

// The block-wide sum / max of v (every thread gets it). `part` is kThreads floats of shared
// memory; it may be reused right after the call returns.
__device__ float BlockSum(float* part, float v) {
  const int l = threadIdx.x;
  part[l] = v;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if (l < w) part[l] += part[l + w];
    __syncthreads();
  }
  v = part[0];
  __syncthreads();
  return v;
}

__device__ float BlockMax(float* part, float v) {
  const int l = threadIdx.x;
  part[l] = v;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if (l < w) part[l] = fmaxf(part[l], part[l + w]);
    __syncthreads();
  }
  v = part[0];
  __syncthreads();
  return v;
}

__global__ void ReduceSumKernel(const float* x, float* y, int reduce, int inner, float scale) {
  __shared__ float part[kThreads];
  const int64_t o = blockIdx.x, p = o / inner, q = o % inner;
  float s = 0.0f;
  for (int r = threadIdx.x; r < reduce; r += kThreads) s += x[(p * reduce + r) * inner + q];
  s = BlockSum(part, s);
  if (threadIdx.x == 0) y[o] = s * scale;
}

// The larger of a and b, NaN if either is.
__device__ float NanMax(float a, float b) { return isnan(a) ? a : (isnan(b) || b > a) ? b : a; }

__global__ void ReduceMaxKernel(const float* x, float* y, int reduce, int inner) {
  __shared__ float part[kThreads];
  const int64_t o = blockIdx.x, p = o / inner, q = o % inner;
  float m = -INFINITY;
  for (int r = threadIdx.x; r < reduce; r += kThreads) {
    m = NanMax(m, x[(p * reduce + r) * inner + q]);
  }
  const int l = threadIdx.x;
  part[l] = m;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if (l < w) part[l] = NanMax(part[l], part[l + w]);
    __syncthreads();
  }
  if (l == 0) y[o] = part[0];
}

// The smaller of a and b, NaN if either is.
__device__ float NanMin(float a, float b) { return isnan(a) ? a : (isnan(b) || b < a) ? b : a; }

__device__ float Fold(int op, float a, float b) {
  return op == 0 ? a + b : op == 1 ? NanMax(a, b) : op == 2 ? NanMin(a, b) : a * b;
}

// Any reduction over any axes (see LaunchReduceAny): one block per output, grid-stride over
// the outputs (the output is the same for the whole block, so every thread reaches each
// __syncthreads).
__global__ void ReduceAnyKernel(const float* x, float* y, int64_t outputs, ReduceShape s,
                                int op, float scale) {
  __shared__ float part[kThreads];
  const int l = threadIdx.x;
  const float identity = op == 0 ? 0.0f : op == 1 ? -INFINITY : op == 2 ? INFINITY : 1.0f;
  for (int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
    int64_t base = 0, r = o;
    for (int d = s.kept_rank - 1; d >= 0; --d) {
      base += (r % s.kept_dims[d]) * s.kept_strides[d];
      r /= s.kept_dims[d];
    }
    float acc = identity;
    for (int64_t i = l; i < s.reduce; i += kThreads) {
      int64_t at = base, t = i;
      for (int d = s.red_rank - 1; d >= 0; --d) {
        at += (t % s.red_dims[d]) * s.red_strides[d];
        t /= s.red_dims[d];
      }
      acc = Fold(op, acc, x[at]);
    }
    part[l] = acc;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w >>= 1) {
      if (l < w) part[l] = Fold(op, part[l], part[l + w]);
      __syncthreads();
    }
    if (l == 0) y[o] = op == 0 ? part[0] * scale : part[0];
    __syncthreads();  // part is written again for the next output
  }
}

// One output per thread (the reduced dim is usually short: classes).
template <typename Out>
__global__ void ArgMaxKernel(const float* x, Out* y, int n, int reduce, int inner) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= n) return;
  const float* xp = x + static_cast<int64_t>(o / inner) * reduce * inner + o % inner;
  float best = xp[0];
  int at = 0;
  for (int r = 1; r < reduce && !isnan(best); ++r) {
    const float v = xp[static_cast<int64_t>(r) * inner];
    if (isnan(v) || v > best) {
      best = v;
      at = r;
    }
  }
  y[o] = static_cast<Out>(at);
}

template <typename Out>
cudaError_t ArgMax(const float* x, Out* y, int n, int reduce, int inner, cudaStream_t stream) {
  ArgMaxKernel<Out><<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(x, y, n, reduce,
                                                                           inner);
  return cudaGetLastError();
}

__global__ void SoftmaxKernel(const float* x, float* y, int cols) {
  __shared__ float part[kThreads];
  const float* xr = x + static_cast<int64_t>(blockIdx.x) * cols;
  float* yr = y + static_cast<int64_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, xr[c]);
  m = BlockMax(part, m);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) s += expf(xr[c] - m);
  s = BlockSum(part, s);
  for (int c = threadIdx.x; c < cols; c += kThreads) yr[c] = expf(xr[c] - m) / s;
}

//   loss[b] = sum_c labels[b, c] * (logsumexp(f[b]) - f[b, c])
//   backprop[b, c] = softmax(f[b])[c] - labels[b, c]
__global__ void SoftmaxXentKernel(const float* f, const float* lab, float* loss, float* bp,
                                  int cols, int f_row, int f_col, int l_row, int l_col) {
  __shared__ float part[kThreads];
  const int64_t b = blockIdx.x;
  const float* fr = f + b * f_row;
  const float* lr = lab + b * l_row;
  float* br = bp + b * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    m = fmaxf(m, fr[static_cast<int64_t>(c) * f_col]);
  }
  m = BlockMax(part, m);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    s += expf(fr[static_cast<int64_t>(c) * f_col] - m);
  }
  const float log_sum = logf(BlockSum(part, s));
  float t = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    const float z = fr[static_cast<int64_t>(c) * f_col] - m;
    const float y = lr[static_cast<int64_t>(c) * l_col];
    t += y * (log_sum - z);
    br[c] = expf(z - log_sum) - y;
  }
  t = BlockSum(part, t);
  if (threadIdx.x == 0) loss[b] = t;
}

// The label is the same for the whole block, so the early return skips no __syncthreads.
template <typename L>
__global__ void SparseXentKernel(const float* f, const L* labels, float* loss, float* bp,
                                 int cols, int* bad) {
  __shared__ float part[kThreads];
  const int64_t b = blockIdx.x;
  const int64_t label = static_cast<int64_t>(labels[b]);
  if (label < 0 || label >= cols) {
    if (threadIdx.x == 0) atomicMin(bad, static_cast<int>(b));
    return;
  }
  const float* fr = f + b * cols;
  float* br = bp + b * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, fr[c]);
  m = BlockMax(part, m);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) s += expf(fr[c] - m);
  const float log_sum = logf(BlockSum(part, s));
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    br[c] = expf(fr[c] - m - log_sum) - (c == label ? 1.0f : 0.0f);
  }
  if (threadIdx.x == 0) loss[b] = log_sum - (fr[label] - m);
}

template <typename L>
cudaError_t SparseXent(const float* f, const L* labels, float* loss, float* bp, int batch,
                       int cols, int* bad, cudaStream_t stream) {
  SparseXentKernel<L><<<batch, kThreads, 0, stream>>>(f, labels, loss, bp, cols, bad);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchReduceSum(const float* x, float* y, int outputs, int reduce, int inner,
                            float scale, cudaStream_t stream) {
  ReduceSumKernel<<<outputs, kThreads, 0, stream>>>(x, y, reduce, inner, scale);
  return cudaGetLastError();
}

cudaError_t LaunchReduceMax(const float* x, float* y, int outputs, int reduce, int inner,
                            cudaStream_t stream) {
  ReduceMaxKernel<<<outputs, kThreads, 0, stream>>>(x, y, reduce, inner);
  return cudaGetLastError();
}

cudaError_t LaunchReduceAny(const float* x, float* y, int outputs, const ReduceShape& shape,
                            int op, float scale, cudaStream_t stream) {
  if (outputs <= 0) return cudaSuccess;
  constexpr int kMaxBlocks = 1 << 20;  // the kernel strides over the rest
  ReduceAnyKernel<<<outputs < kMaxBlocks ? outputs : kMaxBlocks, kThreads, 0, stream>>>(
      x, y, outputs, shape, op, scale);
  return cudaGetLastError();
}

cudaError_t LaunchArgMax(const float* x, int32_t* y, int outputs, int reduce, int inner,
                         cudaStream_t stream) {
  return ArgMax(x, y, outputs, reduce, inner, stream);
}

cudaError_t LaunchArgMax(const float* x, int64_t* y, int outputs, int reduce, int inner,
                         cudaStream_t stream) {
  return ArgMax(x, y, outputs, reduce, inner, stream);
}

cudaError_t LaunchSoftmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  SoftmaxKernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
  return cudaGetLastError();
}

cudaError_t LaunchSoftmaxXent(const float* features, const float* labels, float* loss,
                              float* backprop, int batch, int cols, int f_row, int f_col,
                              int l_row, int l_col, cudaStream_t stream) {
  SoftmaxXentKernel<<<batch, kThreads, 0, stream>>>(features, labels, loss, backprop, cols,
                                                    f_row, f_col, l_row, l_col);
  return cudaGetLastError();
}

cudaError_t LaunchSparseXent(const float* features, const int32_t* labels, float* loss,
                             float* backprop, int batch, int cols, int* bad,
                             cudaStream_t stream) {
  return SparseXent(features, labels, loss, backprop, batch, cols, bad, stream);
}

cudaError_t LaunchSparseXent(const float* features, const int64_t* labels, float* loss,
                             float* backprop, int batch, int cols, int* bad,
                             cudaStream_t stream) {
  return SparseXent(features, labels, loss, backprop, batch, cols, bad, stream);
}

}  // namespace tgraph_cuda
