// Comparisons and logical ops to bools (bytes 0 or 1): one thread per output element, over
// operands of one shape or a broadcast (broadcast_index.cuh). Every comparison with a NaN
// is false except !=, as in C++ (the CPU plugin's Eigen expressions). The launch wrappers
// are declared in cuda_launch.h.
#include "broadcast_index.cuh"
#include "cuda_launch.h"
#include "launch_geometry.cuh"

namespace tgraph_cuda {
namespace {

struct Equal {
  template <typename T>
  __device__ bool operator()(T a, T b) const { return a == b; }
};
struct NotEqual {
  template <typename T>
  __device__ bool operator()(T a, T b) const { return a != b; }
};
struct Less {
  template <typename T>
  __device__ bool operator()(T a, T b) const { return a < b; }
};
struct LessEqual {
  template <typename T>
  __device__ bool operator()(T a, T b) const { return a <= b; }
};
struct Greater {
  template <typename T>
  __device__ bool operator()(T a, T b) const { return a > b; }
};
struct GreaterEqual {
  template <typename T>
  __device__ bool operator()(T a, T b) const { return a >= b; }
};
// Bools as truth values: a byte other than 0 or 1 is true.
struct BoolEqual {
  __device__ bool operator()(uint8_t a, uint8_t b) const { return (a != 0) == (b != 0); }
};
struct BoolNotEqual {
  __device__ bool operator()(uint8_t a, uint8_t b) const { return (a != 0) != (b != 0); }
};
struct LogicalAnd {
  __device__ bool operator()(uint8_t a, uint8_t b) const { return a != 0 && b != 0; }
};
struct LogicalOr {
  __device__ bool operator()(uint8_t a, uint8_t b) const { return a != 0 || b != 0; }
};

template <typename F, typename T>
__global__ void PredicateSame(F f, const T* x, const T* y, uint8_t* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = f(x[i], y[i]) ? 1 : 0;
}

template <typename F, typename T>
__global__ void PredicateBroadcast(F f, const T* x, const T* y, uint8_t* z, BroadcastShape s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n) return;
  int xi, yi;
  BroadcastOffsets(s, i, &xi, &yi);
  z[i] = f(x[xi], y[yi]) ? 1 : 0;
}

template <typename F, typename T>
cudaError_t Predicate(F f, const T* x, const T* y, uint8_t* z, int n,
                      const BroadcastShape* shape, cudaStream_t stream) {
  if (shape == nullptr) {
    PredicateSame<<<BlocksPerElement(n), kBlock, 0, stream>>>(f, x, y, z, n);
  } else {
    PredicateBroadcast<<<BlocksPerElement(shape->n), kBlock, 0, stream>>>(f, x, y, z, *shape);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t Compare(CompareOp op, const T* x, const T* y, uint8_t* z, int n,
                    const BroadcastShape* shape, cudaStream_t stream) {
  switch (op) {
    case CompareOp::kEqual: return Predicate(Equal{}, x, y, z, n, shape, stream);
    case CompareOp::kNotEqual: return Predicate(NotEqual{}, x, y, z, n, shape, stream);
    case CompareOp::kLess: return Predicate(Less{}, x, y, z, n, shape, stream);
    case CompareOp::kLessEqual: return Predicate(LessEqual{}, x, y, z, n, shape, stream);
    case CompareOp::kGreater: return Predicate(Greater{}, x, y, z, n, shape, stream);
    case CompareOp::kGreaterEqual: return Predicate(GreaterEqual{}, x, y, z, n, shape, stream);
  }
  return cudaErrorInvalidValue;
}

__global__ void LogicalNotKernel(const uint8_t* x, uint8_t* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] == 0 ? 1 : 0;
}

}  // namespace

cudaError_t LaunchCompare(CompareOp op, const float* x, const float* y, uint8_t* z, int n,
                          const BroadcastShape* shape, cudaStream_t stream) {
  return Compare(op, x, y, z, n, shape, stream);
}

cudaError_t LaunchCompare(CompareOp op, const int32_t* x, const int32_t* y, uint8_t* z, int n,
                          const BroadcastShape* shape, cudaStream_t stream) {
  return Compare(op, x, y, z, n, shape, stream);
}

cudaError_t LaunchCompare(CompareOp op, const uint8_t* x, const uint8_t* y, uint8_t* z, int n,
                          const BroadcastShape* shape, cudaStream_t stream) {
  switch (op) {
    case CompareOp::kEqual: return Predicate(BoolEqual{}, x, y, z, n, shape, stream);
    case CompareOp::kNotEqual: return Predicate(BoolNotEqual{}, x, y, z, n, shape, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchLogical(LogicalOp op, const uint8_t* x, const uint8_t* y, uint8_t* z, int n,
                          const BroadcastShape* shape, cudaStream_t stream) {
  switch (op) {
    case LogicalOp::kAnd: return Predicate(LogicalAnd{}, x, y, z, n, shape, stream);
    case LogicalOp::kOr: return Predicate(LogicalOr{}, x, y, z, n, shape, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchLogicalNot(const uint8_t* x, uint8_t* y, int n, cudaStream_t stream) {
  LogicalNotKernel<<<BlocksPerElement(n), kBlock, 0, stream>>>(x, y, n);
  return cudaGetLastError();
}

}  // namespace tgraph_cuda
