// The broadcast walk of element-wise binary kernels (cwise.cu, compare.cu): output element
// i's offsets in x and y, from the merged output dims and each operand's strides (0 along a
// broadcast dim) that the host filled in (device_common/binary_args.h).
#pragma once

#include "cuda_launch.h"

namespace tgraph_cuda {

__device__ inline void BroadcastOffsets(const BroadcastShape& s, int i, int* xi, int* yi) {
  int r = i;
  *xi = 0;
  *yi = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int c = r % s.dims[d];
    r /= s.dims[d];
    *xi += c * s.xs[d];
    *yi += c * s.ys[d];
  }
}

}  // namespace tgraph_cuda
