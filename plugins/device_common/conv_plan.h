// The whole host side of the GPU plugins' Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter,
// MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad: each Plan* checks the node with the CPU
// plugin's rules (conv_args.h, pool_args.h) and the backend's element-count limit
// (`check_int_sized`, as PlanTile and PlanPad take it), and says what to allocate and what to
// launch. The backend binds its device, allocates `out_dims`, and then, unless `n` is 0,
// fills zeros (`zeros`) or launches over ConvShapeOf(g, n). RegisterConvPool registers the
// backend's kernels of the seven.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device_common/conv_args.h"
#include "device_common/int_sized.h"
#include "device_common/pool_args.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

struct ConvPlan {
  ConvGeometry g;
  std::vector<int64_t> out_dims;
  int64_t n = 0;       // the output's elements, one launch item each
  bool zeros = false;  // no term reaches the output (an empty operand): zeros, no launch
};

// The geometry's element counts (the filter's too, `with_filter`: a pooling has none) and
// index arithmetic fit the kernels' ints. False after failing the node.
template <class CheckIntSized>
bool ConvIntSized(tgraph::plugin::Context& ctx, const ConvGeometry& g,
                  const std::string& device_type, CheckIntSized check_int_sized,
                  bool with_filter) {
  return check_int_sized(ctx, g.InputSize(), "the input") &&
         (!with_filter || check_int_sized(ctx, g.FilterSize(), "the filter")) &&
         check_int_sized(ctx, g.OutputSize(), "the output") &&
         ConvGeometryFitsInt(ctx, g, device_type);
}

// Conv2D(input, filter).
template <class CheckIntSized>
bool PlanConv2D(tgraph::plugin::Context& ctx, const ConvAttrs& a, const std::string& device_type,
                CheckIntSized check_int_sized, ConvPlan* p) {
  const tgraph::plugin::TensorView x = ctx.input(0), f = ctx.input(1);
  if (!ConvGeometryOf(ctx, a, device_type, x.dims(), f.dims(), &p->g) ||
      !ConvIntSized(ctx, p->g, device_type, check_int_sized, true)) {
    return false;
  }
  p->out_dims = p->g.OutputDims();
  p->n = p->g.OutputSize();
  p->zeros = x.num_elements() == 0 || f.num_elements() == 0;
  return true;
}

// Conv2DBackpropInput(input_sizes, filter, out_backprop): input_sizes in host memory, 4
// values (or height and width: batch from out_backprop, depth from the filter).
template <class CheckIntSized>
bool PlanConv2DBackpropInput(tgraph::plugin::Context& ctx, const ConvAttrs& a,
                             const std::string& device_type, CheckIntSized check_int_sized,
                             ConvPlan* p) {
  std::vector<int64_t> sizes;
  if (!ReadConvSizes(ctx, 0, "input_sizes", {4, 2}, &sizes)) return false;
  const tgraph::plugin::TensorView f = ctx.input(1), dy = ctx.input(2);
  if (sizes.size() == 2) {
    if (dy.rank() != 4 || f.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "filter and out_backprop must be 4-D, got shapes " +
                                        ShapeString(f.dims()) + " and " +
                                        ShapeString(dy.dims()));
      return false;
    }
    sizes = a.nchw ? std::vector<int64_t>{dy.dim(0), f.dim(2), sizes[0], sizes[1]}
                   : std::vector<int64_t>{dy.dim(0), sizes[0], sizes[1], f.dim(2)};
  }
  if (!ConvBackpropGeometryOf(ctx, a, device_type, sizes, f.dims(), dy.dims(), &p->g) ||
      !ConvIntSized(ctx, p->g, device_type, check_int_sized, true)) {
    return false;
  }
  p->out_dims = std::move(sizes);
  p->n = p->g.InputSize();
  p->zeros = dy.num_elements() == 0 || f.num_elements() == 0;
  return true;
}

// Conv2DBackpropFilter(input, filter_sizes, out_backprop): filter_sizes in host memory.
template <class CheckIntSized>
bool PlanConv2DBackpropFilter(tgraph::plugin::Context& ctx, const ConvAttrs& a,
                              const std::string& device_type, CheckIntSized check_int_sized,
                              ConvPlan* p) {
  std::vector<int64_t> sizes;
  if (!ReadConvSizes(ctx, 1, "filter_sizes", {4}, &sizes)) return false;
  const tgraph::plugin::TensorView x = ctx.input(0), dy = ctx.input(2);
  if (!ConvBackpropGeometryOf(ctx, a, device_type, x.dims(), sizes, dy.dims(), &p->g) ||
      !ConvIntSized(ctx, p->g, device_type, check_int_sized, true)) {
    return false;
  }
  p->out_dims = std::move(sizes);
  p->n = p->g.FilterSize();
  p->zeros = x.num_elements() == 0 || dy.num_elements() == 0;
  return true;
}

// MaxPool / AvgPool(input) (NHWC).
template <class CheckIntSized>
bool PlanPool(tgraph::plugin::Context& ctx, const PoolAttrs& a, const std::string& device_type,
              CheckIntSized check_int_sized, ConvPlan* p) {
  if (!PoolGeometryOf(ctx, a, ctx.input(0).dims(), "input", &p->g) ||
      !ConvIntSized(ctx, p->g, device_type, check_int_sized, false)) {
    return false;
  }
  p->out_dims = p->g.OutputDims();
  p->n = p->g.OutputSize();
  return true;
}

// MaxPoolGrad(orig_input, orig_output, grad): orig_output is only checked for its shape, as
// on the CPU.
template <class CheckIntSized>
bool PlanMaxPoolGrad(tgraph::plugin::Context& ctx, const PoolAttrs& a,
                     const std::string& device_type, CheckIntSized check_int_sized,
                     ConvPlan* p) {
  if (!PoolGeometryOf(ctx, a, ctx.input(0).dims(), "orig_input", &p->g) ||
      !CheckPooledShape(ctx, "orig_output", ctx.input(1).dims(), p->g) ||
      !CheckPooledShape(ctx, "grad", ctx.input(2).dims(), p->g) ||
      !ConvIntSized(ctx, p->g, device_type, check_int_sized, false)) {
    return false;
  }
  p->out_dims = p->g.InputDims();
  p->n = p->g.InputSize();
  p->zeros = p->g.OutputSize() == 0;
  return true;
}

// AvgPoolGrad(orig_input_shape, grad): orig_input_shape in host memory.
template <class CheckIntSized>
bool PlanAvgPoolGrad(tgraph::plugin::Context& ctx, const PoolAttrs& a,
                     const std::string& device_type, CheckIntSized check_int_sized,
                     ConvPlan* p) {
  std::vector<int64_t> sizes;
  if (!ReadConvSizes(ctx, 0, "orig_input_shape", {4}, &sizes) ||
      !PoolGeometryOf(ctx, a, sizes, "orig_input_shape", &p->g) ||
      !CheckPooledShape(ctx, "grad", ctx.input(1).dims(), p->g) ||
      !ConvIntSized(ctx, p->g, device_type, check_int_sized, false)) {
    return false;
  }
  p->out_dims = std::move(sizes);
  p->n = p->g.InputSize();
  p->zeros = p->g.OutputSize() == 0;
  return true;
}

// Registers the backend's kernels of the seven ops, float32, the shape inputs in host
// memory (PoolKernel<true> is MaxPool, <false> AvgPool), each through
// IntSizedKernel<Backend, ...> (int_sized.h).
template <class Backend, class Conv2DKernel, class BackpropInputKernel, class BackpropFilterKernel,
          template <bool> class PoolKernel, class MaxPoolGradKernel, class AvgPoolGradKernel>
void RegisterConvPool(tgraph::plugin::Init& init, const std::string& device_type) {
  auto f = [&](const char* op) {
    return tgraph::plugin::KernelBuilder(op, device_type).TypeConstraint("T", TG_FLOAT);
  };
  init.Kernel<IntSizedKernel<Backend, Conv2DKernel>>(f("Conv2D"));
  init.Kernel<IntSizedKernel<Backend, BackpropInputKernel>>(
      f("Conv2DBackpropInput").HostMemory("input_sizes"));
  init.Kernel<IntSizedKernel<Backend, BackpropFilterKernel>>(
      f("Conv2DBackpropFilter").HostMemory("filter_sizes"));
  init.Kernel<IntSizedKernel<Backend, PoolKernel<true>>>(f("MaxPool"));
  init.Kernel<IntSizedKernel<Backend, PoolKernel<false>>>(f("AvgPool"));
  init.Kernel<IntSizedKernel<Backend, MaxPoolGradKernel>>(f("MaxPoolGrad"));
  init.Kernel<IntSizedKernel<Backend, AvgPoolGradKernel>>(
      f("AvgPoolGrad").HostMemory("orig_input_shape"));
}

}  // namespace tgraph_device_common
