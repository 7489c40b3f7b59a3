// y = f(x) element-wise over T elements, in place when the input buffer can be forwarded: the
// host side of every one-input kernel of the plugin (the float UnaryOps of cwise_kernels.cc,
// LogicalNot's bools in compare_kernels.cc). kLaunch is the device code's launch.
#pragma once

#include <cstdint>

#include "cuda_common.h"

namespace tgraph_cuda {

template <typename T, cudaError_t (*kLaunch)(const T* x, T* y, int n, cudaStream_t stream)>
class UnaryKernel {
 public:
  explicit UnaryKernel(tgraph::plugin::Construction&) {}
  void Compute(tgraph::plugin::Context& ctx) {
    const tgraph::plugin::TensorView x = ctx.input(0);
    const int64_t n = x.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    const tgraph::plugin::TensorMut y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || n == 0) return;
    CudaOk(ctx, kLaunch(DataOf<const T>(x), DataOf<T>(y), static_cast<int>(n), dev->stream()),
           "launch");
  }
};

}  // namespace tgraph_cuda
