// Launch geometry shared by the plugin's device code (*.cu). Element counts reach the
// launchers as ints (the host checks they fit) but are widened here: n + kBlock - 1
// overflows an int for n near 2^31.
#pragma once

#include <cstdint>

namespace tgraph_cuda {

constexpr int kBlock = 256;  // threads per block

// Blocks for kernels with one thread per element (each tests i < n once): not capped.
inline int BlocksPerElement(int64_t n) { return static_cast<int>((n + kBlock - 1) / kBlock); }

// Blocks for grid-stride kernels: capped, the loop covers the rest.
constexpr int64_t kMaxStrideBlocks = int64_t{1} << 20;
inline int StrideBlocks(int64_t n) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<int>(blocks < kMaxStrideBlocks ? blocks : kMaxStrideBlocks);
}

// A grid-stride loop's first item and step.
__device__ inline int64_t FirstItem() {
  return blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
}
__device__ inline int64_t Stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

}  // namespace tgraph_cuda
