// Select / SelectV2 (a broadcast of condition, t and e) and DynamicStitch (rows copied to
// their last writer's place) over 4-byte elements. Launch wrappers: cuda_launch.h.
#include <cstdint>

#include "cuda_launch.h"
#include "launch_geometry.cuh"

namespace tgraph_cuda {
namespace {

__global__ void Select32Kernel(const uint8_t* c, const uint32_t* t, const uint32_t* e,
                               uint32_t* y, SelectShape s) {
  const int64_t i = FirstItem();  // int64: the last block may reach past 2^31 - 1
  if (i >= s.n) return;
  int r = static_cast<int>(i), ci = 0, ti = 0, ei = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int k = r % s.dims[d];
    r /= s.dims[d];
    ci += k * s.cs[d];
    ti += k * s.ts[d];
    ei += k * s.es[d];
  }
  y[i] = c[ci] != 0 ? t[ti] : e[ei];
}

__global__ void Stitch32Kernel(const uint32_t* x, const int32_t* pairs, uint32_t* y, int n,
                               int inner) {
  for (int64_t i = FirstItem(); i < n; i += Stride()) {
    const int64_t k = i / inner, q = i % inner;
    y[static_cast<int64_t>(pairs[2 * k]) * inner + q] =
        x[static_cast<int64_t>(pairs[2 * k + 1]) * inner + q];
  }
}

}  // namespace

cudaError_t LaunchSelect32(const uint8_t* c, const uint32_t* t, const uint32_t* e, uint32_t* y,
                           const SelectShape& shape, cudaStream_t stream) {
  if (shape.n <= 0) return cudaSuccess;
  Select32Kernel<<<BlocksPerElement(shape.n), kBlock, 0, stream>>>(c, t, e, y, shape);
  return cudaGetLastError();
}

cudaError_t LaunchStitch32(const uint32_t* x, const int32_t* pairs, uint32_t* y, int count,
                           int inner, cudaStream_t stream) {
  const int64_t n = static_cast<int64_t>(count) * inner;
  if (n <= 0) return cudaSuccess;
  Stitch32Kernel<<<StrideBlocks(n), kBlock, 0, stream>>>(x, pairs, y, static_cast<int>(n),
                                                          inner);
  return cudaGetLastError();
}

}  // namespace tgraph_cuda
