// Element-wise float kernels: binary ops (same shape, or broadcast through strides),
// activations, their gradients, BiasAdd and AssignAdd/Sub. One thread per element; the
// launch wrappers are declared in cuda_launch.h.
#include <cmath>

#include "broadcast_index.cuh"
#include "cuda_launch.h"
#include "launch_geometry.cuh"

namespace tgraph_cuda {
namespace {

int Blocks(int64_t n) { return BlocksPerElement(n); }

struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct Sub {
  __device__ float operator()(float a, float b) const { return a - b; }
};
struct Mul {
  __device__ float operator()(float a, float b) const { return a * b; }
};
struct Div {
  __device__ float operator()(float a, float b) const { return a / b; }
};
// NaN in either operand gives NaN, as TensorFlow's maximum (fmaxf would drop it).
struct Maximum {
  __device__ float operator()(float a, float b) const {
    return (isnan(a) || isnan(b)) ? NAN : fmaxf(a, b);
  }
};

template <typename F>
__global__ void BinarySame(F f, const float* x, const float* y, float* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = f(x[i], y[i]);
}

template <typename F>
__global__ void BinaryBroadcast(F f, const float* x, const float* y, float* z,
                                BroadcastShape s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n) return;
  int xi, yi;
  BroadcastOffsets(s, i, &xi, &yi);
  z[i] = f(x[xi], y[yi]);
}

template <typename F>
cudaError_t Binary(F f, const float* x, const float* y, float* z, int n, cudaStream_t stream) {
  BinarySame<<<Blocks(n), kBlock, 0, stream>>>(f, x, y, z, n);
  return cudaGetLastError();
}

template <typename F>
cudaError_t Broadcast(F f, const float* x, const float* y, float* z, const BroadcastShape& s,
                      cudaStream_t stream) {
  BinaryBroadcast<<<Blocks(s.n), kBlock, 0, stream>>>(f, x, y, z, s);
  return cudaGetLastError();
}

struct Neg {
  __device__ float operator()(float a) const { return -a; }
};
struct Exp {
  __device__ float operator()(float a) const { return expf(a); }
};
struct Log {
  __device__ float operator()(float a) const { return logf(a); }
};
struct Tanh {
  __device__ float operator()(float a) const { return tanhf(a); }
};
struct Sigmoid {
  __device__ float operator()(float a) const { return 1.0f / (1.0f + expf(-a)); }
};
struct Relu {
  __device__ float operator()(float a) const { return isnan(a) ? a : fmaxf(a, 0.0f); }
};
// log(1 + exp(a)) as the CPU plugin and TensorFlow: a itself above -threshold, exp(a) below
// threshold, threshold = log(FLT_EPSILON) + 2 = -13.942385.
struct Softplus {
  __device__ float operator()(float a) const {
    return a > 13.942385f ? a : (a < -13.942385f ? expf(a) : log1pf(expf(a)));
  }
};

template <typename F>
__global__ void UnaryKernel(F f, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = f(x[i]);
}

template <typename F>
cudaError_t Unary(F f, const float* x, float* y, int n, cudaStream_t stream) {
  UnaryKernel<<<Blocks(n), kBlock, 0, stream>>>(f, x, y, n);
  return cudaGetLastError();
}

// g where the features are > 0, else 0 (NaN features give 0).
struct ReluGrad {
  __device__ float operator()(float g, float f) const { return f > 0.0f ? g : 0.0f; }
};
// From the activation's output y and the incoming gradient dy.
struct SigmoidGrad {
  __device__ float operator()(float y, float dy) const { return dy * y * (1.0f - y); }
};
struct TanhGrad {
  __device__ float operator()(float y, float dy) const { return dy * (1.0f - y * y); }
};
// Softplus'(f) = sigmoid(f): g / (1 + exp(-f)) (0 where exp(-f) overflows).
struct SoftplusGrad {
  __device__ float operator()(float g, float f) const { return g / (expf(-f) + 1.0f); }
};

__global__ void BiasAddKernel(const float* x, const float* bias, float* y, int n, int channels,
                              int inner) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + bias[(i / inner) % channels];
}

}  // namespace

cudaError_t LaunchBinary(BinaryOp op, const float* x, const float* y, float* z, int n,
                         cudaStream_t stream) {
  switch (op) {
    case BinaryOp::kAdd: return Binary(Add{}, x, y, z, n, stream);
    case BinaryOp::kSub: return Binary(Sub{}, x, y, z, n, stream);
    case BinaryOp::kMul: return Binary(Mul{}, x, y, z, n, stream);
    case BinaryOp::kDiv: return Binary(Div{}, x, y, z, n, stream);
    case BinaryOp::kMaximum: return Binary(Maximum{}, x, y, z, n, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchBinaryBroadcast(BinaryOp op, const float* x, const float* y, float* z,
                                  const BroadcastShape& s, cudaStream_t stream) {
  switch (op) {
    case BinaryOp::kAdd: return Broadcast(Add{}, x, y, z, s, stream);
    case BinaryOp::kSub: return Broadcast(Sub{}, x, y, z, s, stream);
    case BinaryOp::kMul: return Broadcast(Mul{}, x, y, z, s, stream);
    case BinaryOp::kDiv: return Broadcast(Div{}, x, y, z, s, stream);
    case BinaryOp::kMaximum: return Broadcast(Maximum{}, x, y, z, s, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchUnary(UnaryOp op, const float* x, float* y, int n, cudaStream_t stream) {
  switch (op) {
    case UnaryOp::kNeg: return Unary(Neg{}, x, y, n, stream);
    case UnaryOp::kExp: return Unary(Exp{}, x, y, n, stream);
    case UnaryOp::kLog: return Unary(Log{}, x, y, n, stream);
    case UnaryOp::kTanh: return Unary(Tanh{}, x, y, n, stream);
    case UnaryOp::kSigmoid: return Unary(Sigmoid{}, x, y, n, stream);
    case UnaryOp::kRelu: return Unary(Relu{}, x, y, n, stream);
    case UnaryOp::kSoftplus: return Unary(Softplus{}, x, y, n, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchGrad(GradOp op, const float* a, const float* b, float* y, int n,
                       cudaStream_t stream) {
  switch (op) {
    case GradOp::kRelu: return Binary(ReluGrad{}, a, b, y, n, stream);
    case GradOp::kSigmoid: return Binary(SigmoidGrad{}, a, b, y, n, stream);
    case GradOp::kTanh: return Binary(TanhGrad{}, a, b, y, n, stream);
    case GradOp::kSoftplus: return Binary(SoftplusGrad{}, a, b, y, n, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchBiasAdd(const float* x, const float* bias, float* y, int n, int channels,
                          int inner, cudaStream_t stream) {
  BiasAddKernel<<<Blocks(n), kBlock, 0, stream>>>(x, bias, y, n, channels, inner);
  return cudaGetLastError();
}

cudaError_t LaunchAssignUpdate(float* var, const float* value, int n, bool subtract,
                               cudaStream_t stream) {
  // In place: z aliases x, element by element, so each thread reads before it writes.
  return subtract ? Binary(Sub{}, var, value, var, n, stream)
                  : Binary(Add{}, var, value, var, n, stream);
}

}  // namespace tgraph_cuda
