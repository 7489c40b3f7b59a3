// y = f(x) element-wise, in place when the input buffer can be forwarded: the host side of
// every one-input kernel of the plugin whatever its element type (the float ones of
// cwise_kernels.cc, LogicalNot's bools in compare_kernels.cc), which launches OpenCL kernel
// `name` of program `program` over (x, y, count).
#pragma once

#include <cstdint>

#include "cl_common.h"

namespace tgraph_opencl {

class UnaryKernel {
 public:
  UnaryKernel(const char* program, const char* name) : program_(program), name_(name) {}
  void Compute(tgraph::plugin::Context& ctx) {
    const tgraph::plugin::TensorView x = ctx.input(0);
    const int64_t n = x.num_elements();
    if (!CheckIntSized(ctx, n, "the input")) return;
    const tgraph::plugin::TensorMut y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || n == 0) return;
    const cl_mem xm = BufferOf(x), ym = BufferOf(y);
    const cl_int count = static_cast<cl_int>(n);
    Launch(ctx, program_, name_, {A(xm), A(ym), A(count)}, {static_cast<size_t>(n)});
  }

 private:
  const char* program_;
  const char* name_;
};

}  // namespace tgraph_opencl
