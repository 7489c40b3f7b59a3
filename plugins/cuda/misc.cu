// Data movement (Fill, Tile, Pad, GatherV2 over 4-byte elements), Cast between float and int32,
// and the dense optimizer updates (GradientDescent, Momentum, Adam, Adagrad, RMSProp and
// centered RMSProp). One thread per element. Launch wrappers: cuda_launch.h.
#include <climits>
#include <cmath>
#include <cstdint>

#include "cuda_launch.h"
#include "launch_geometry.cuh"

namespace tgraph_cuda {
namespace {

int Blocks(int64_t n) { return BlocksPerElement(n); }

__global__ void Fill32Kernel(const uint32_t* v, uint32_t* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v[0];
}

// Output element i reads input element (coordinate % input dim) along every dim.
__global__ void Tile32Kernel(const uint32_t* x, uint32_t* y, TileShape s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n) return;
  int r = i, xi = 0, stride = 1;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int c = r % s.out[d];
    r /= s.out[d];
    xi += (c % s.in[d]) * stride;
    stride *= s.in[d];
  }
  y[i] = x[xi];
}

__global__ void Pad32Kernel(const uint32_t* x, uint32_t* y, PadShape s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n) return;
  int r = i, xi = 0, stride = 1;
  bool inside = true;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int c = r % s.out[d] - s.before[d];
    r /= s.out[d];
    inside = inside && c >= 0 && c < s.in[d];
    xi += c * stride;
    stride *= s.in[d];
  }
  y[i] = inside ? x[xi] : 0u;  // zero bits: 0 for float and int32
}

// params viewed as [batch * outer, limit, inner], indices as [batch, num_indices].
__global__ void Gather32Kernel(const uint32_t* p, const int32_t* idx, uint32_t* y, int n,
                               int num_indices, int limit, int inner, int outer, int* bad) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t q = i % inner, r = i / inner, k = r % num_indices;
    const int64_t bo = r / num_indices;
    const int j = static_cast<int>((bo / outer) * num_indices + k);
    const int v = idx[j];
    if (v < 0 || v >= limit) {
      atomicMin(bad, j);
      continue;
    }
    y[i] = p[(bo * limit + v) * inner + q];
  }
}

__global__ void CastFloatToInt32Kernel(const float* x, int32_t* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float a = x[i];
  // Spelled out rather than left to the conversion instruction's clamping.
  if (isnan(a)) {
    y[i] = 0;
  } else if (a >= 2147483648.0f) {
    y[i] = INT_MAX;
  } else if (a <= -2147483648.0f) {
    y[i] = INT_MIN;
  } else {
    y[i] = static_cast<int32_t>(a);  // truncates toward zero
  }
}

__global__ void CastInt32ToFloatKernel(const int32_t* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = static_cast<float>(x[i]);
}

// var -= alpha * delta
__global__ void GradientDescentKernel(float* var, const float* alpha, const float* delta,
                                      int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) var[i] -= delta[i] * alpha[0];
}

// accum = accum * momentum + grad
// var -= lr * accum          (nesterov: var -= grad * lr + accum * (momentum * lr))
__global__ void MomentumKernel(float* var, float* accum, const float* lr, const float* grad,
                               const float* momentum, int n, bool nesterov) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float g = grad[i], mu = momentum[0], rate = lr[0];
  const float a = accum[i] * mu + g;
  accum[i] = a;
  var[i] -= nesterov ? g * rate + a * (mu * rate) : a * rate;
}

// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
// m += (grad - m) * (1 - beta1);  v += (grad^2 - v) * (1 - beta2)
// var -= lr_t * m / (sqrt(v) + epsilon)   (nesterov: m -> beta1 * m + (1 - beta1) * grad)
__global__ void AdamKernel(float* var, float* m, float* v, AdamScalars k, const float* grad,
                           int n, bool nesterov) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float beta1 = k.beta1[0], beta2 = k.beta2[0], eps = k.epsilon[0];
  const float lr_t = k.lr[0] * sqrtf(1.0f - k.beta2_power[0]) / (1.0f - k.beta1_power[0]);
  const float g = grad[i];
  const float mi = m[i] + (g - m[i]) * (1.0f - beta1);
  const float vi = v[i] + (g * g - v[i]) * (1.0f - beta2);
  m[i] = mi;
  v[i] = vi;
  const float step = nesterov ? g * (1.0f - beta1) + mi * beta1 : mi;
  var[i] -= step * lr_t / (sqrtf(vi) + eps);
}

// accum += grad^2 (update_slots);  var -= lr * grad / sqrt(accum)
__global__ void AdagradKernel(float* var, float* accum, const float* lr, const float* grad,
                              int n, bool update_slots) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float g = grad[i];
  float a = accum[i];
  if (update_slots) {
    a += g * g;
    accum[i] = a;
  }
  var[i] -= g * lr[0] / sqrtf(a);
}

// (centered: mg += (grad - mg) * (1 - rho))
// ms += (grad^2 - ms) * (1 - rho)
// mom = mom * momentum + lr * grad / sqrt(ms [- mg^2] + epsilon);  var -= mom
__global__ void RMSPropKernel(float* var, float* mg, float* ms, float* mom, RMSPropScalars k,
                              const float* grad, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float g = grad[i], decay = 1.0f - k.rho[0];
  const float s = ms[i] + (g * g - ms[i]) * decay;
  ms[i] = s;
  float denom = s + k.epsilon[0];
  if (mg != nullptr) {
    const float c = mg[i] + (g - mg[i]) * decay;
    mg[i] = c;
    denom = s - c * c + k.epsilon[0];
  }
  const float m = mom[i] * k.momentum[0] + g * k.lr[0] / sqrtf(denom);
  mom[i] = m;
  var[i] -= m;
}

}  // namespace

cudaError_t LaunchFill32(const uint32_t* value, uint32_t* y, int n, cudaStream_t stream) {
  Fill32Kernel<<<Blocks(n), kBlock, 0, stream>>>(value, y, n);
  return cudaGetLastError();
}

cudaError_t LaunchTile32(const uint32_t* x, uint32_t* y, const TileShape& shape,
                         cudaStream_t stream) {
  Tile32Kernel<<<Blocks(shape.n), kBlock, 0, stream>>>(x, y, shape);
  return cudaGetLastError();
}

cudaError_t LaunchPad32(const uint32_t* x, uint32_t* y, const PadShape& shape,
                        cudaStream_t stream) {
  Pad32Kernel<<<Blocks(shape.n), kBlock, 0, stream>>>(x, y, shape);
  return cudaGetLastError();
}

cudaError_t LaunchGather32(const uint32_t* params, const int32_t* indices, uint32_t* y, int n,
                           int num_indices, int limit, int inner, int outer, int* bad,
                           cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  Gather32Kernel<<<Blocks(n), kBlock, 0, stream>>>(params, indices, y, n, num_indices, limit,
                                                   inner, outer, bad);
  return cudaGetLastError();
}

cudaError_t LaunchCastFloatToInt32(const float* x, int32_t* y, int n, cudaStream_t stream) {
  CastFloatToInt32Kernel<<<Blocks(n), kBlock, 0, stream>>>(x, y, n);
  return cudaGetLastError();
}

cudaError_t LaunchCastInt32ToFloat(const int32_t* x, float* y, int n, cudaStream_t stream) {
  CastInt32ToFloatKernel<<<Blocks(n), kBlock, 0, stream>>>(x, y, n);
  return cudaGetLastError();
}

cudaError_t LaunchApplyGradientDescent(float* var, const float* alpha, const float* delta, int n,
                                       cudaStream_t stream) {
  GradientDescentKernel<<<Blocks(n), kBlock, 0, stream>>>(var, alpha, delta, n);
  return cudaGetLastError();
}

cudaError_t LaunchApplyMomentum(float* var, float* accum, const float* lr, const float* grad,
                                const float* momentum, int n, bool nesterov,
                                cudaStream_t stream) {
  MomentumKernel<<<Blocks(n), kBlock, 0, stream>>>(var, accum, lr, grad, momentum, n, nesterov);
  return cudaGetLastError();
}

cudaError_t LaunchApplyAdam(float* var, float* m, float* v, const AdamScalars& scalars,
                            const float* grad, int n, bool nesterov, cudaStream_t stream) {
  AdamKernel<<<Blocks(n), kBlock, 0, stream>>>(var, m, v, scalars, grad, n, nesterov);
  return cudaGetLastError();
}

cudaError_t LaunchApplyAdagrad(float* var, float* accum, const float* lr, const float* grad,
                               int n, bool update_slots, cudaStream_t stream) {
  AdagradKernel<<<Blocks(n), kBlock, 0, stream>>>(var, accum, lr, grad, n, update_slots);
  return cudaGetLastError();
}

cudaError_t LaunchApplyRMSProp(float* var, float* mg, float* ms, float* mom,
                               const RMSPropScalars& scalars, const float* grad, int n,
                               cudaStream_t stream) {
  RMSPropKernel<<<Blocks(n), kBlock, 0, stream>>>(var, mg, ms, mom, scalars, grad, n);
  return cudaGetLastError();
}

}  // namespace tgraph_cuda
