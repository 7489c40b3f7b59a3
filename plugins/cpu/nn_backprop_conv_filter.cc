// Conv2DBackpropFilter (NHWC): im2col + one Eigen contraction per chunk of output pixels.
//
// The forward pass is out = cols(x) * F with cols(x) the [pixels, patch] patch matrix, so the
// filter's gradient is cols(x)^T * dy, a [patch, out_depth] matrix that already is the
// filter's [KH, KW, C, OC] layout. The patch matrix is gathered chunk by chunk (the same
// im2col as Conv2D); the first chunk's product goes straight into the output, later ones
// through a scratch matrix that is added in. Eigen parallelises each product (over the long
// contracted pixel dimension when the filter is small). 1x1 convolutions at stride 1 and
// windows covering the whole image skip the gather: x already is the patch matrix. A grouped
// convolution's filter gradient is computed group by group.
#include <algorithm>
#include <vector>

#include "eigen_device.h"
#include "nn_backprop_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

// dw [patch, out_depth] of one plain convolution from its input `in` and dy [pixels,
// out_depth]. False when the context failed.
template <typename T>
bool PlainBackpropFilter(Context& ctx, EigenCpu& eigen, const T* in, const T* grad,
                         const ConvGeometry& g, T* dw) {
  const int64_t patch = g.patch(), out_depth = g.out_depth, pixels = g.pixels();
  if (pixels == 0) {  // nothing was convolved: the filter had no effect
    ctx.ParallelFor(patch * out_depth, 0.25,
                    [&](int64_t b, int64_t e) { std::fill(dw + b, dw + e, T(0)); });
    return true;
  }
  if (g.InputIsPatchMatrix()) {
    Contract<T>(eigen.device(), in, pixels, patch, true, grad, pixels, out_depth, false, dw);
    return true;
  }
  const int64_t chunk = ChunkRows<T>(patch, pixels);
  auto scratch = ctx.AllocateTemp(DTypeOf<T>::value, {chunk, patch});
  if (!ctx.ok()) return false;
  T* cols = scratch.template mutable_data<T>();
  T* partial = nullptr;  // [patch, out_depth], for the chunks after the first
  tgraph::plugin::TensorMut partial_tensor;
  if (chunk < pixels) {
    partial_tensor = ctx.AllocateTemp(DTypeOf<T>::value, {patch, out_depth});
    if (!ctx.ok()) return false;
    partial = partial_tensor.template mutable_data<T>();
  }
  for (int64_t start = 0; start < pixels; start += chunk) {
    const int64_t rows = std::min(chunk, pixels - start);
    Im2Col(ctx, in, g, start, rows, cols);
    if (!ctx.ok()) return false;
    const T* grad_rows = grad + start * out_depth;
    if (start == 0) {
      Contract<T>(eigen.device(), cols, rows, patch, true, grad_rows, rows, out_depth, false, dw);
      continue;
    }
    Contract<T>(eigen.device(), cols, rows, patch, true, grad_rows, rows, out_depth, false,
                partial);
    ctx.ParallelFor(patch * out_depth, 0.5, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) dw[i] += partial[i];
    });
  }
  return true;
}

// A grouped convolution's dw, group by group (conv_ops.cc's GroupedConv): group k's filter
// columns come from its channels of the input and its columns of dy.
template <typename T>
bool GroupedBackpropFilter(Context& ctx, EigenCpu& eigen, const T* in, const T* grad,
                           const ConvGeometry& g, int64_t groups, T* dw) {
  const ConvGeometry gg = GroupGeometry(g, groups);
  const int64_t positions = g.batch * g.in_h * g.in_w, rows = g.k_h * g.k_w * gg.depth;
  const int64_t pixels = g.pixels();
  auto in_g = ctx.AllocateTemp(DTypeOf<T>::value, {positions, gg.depth});
  auto grad_g = ctx.AllocateTemp(DTypeOf<T>::value, {pixels, gg.out_depth});
  auto dw_g = ctx.AllocateTemp(DTypeOf<T>::value, {rows, gg.out_depth});
  if (!ctx.ok()) return false;
  T* ig = in_g.template mutable_data<T>();
  T* dg = grad_g.template mutable_data<T>();
  T* wg = dw_g.template mutable_data<T>();
  for (int64_t k = 0; k < groups; ++k) {
    CopyColumns(ctx, in, g.depth, k * gg.depth, ig, gg.depth, 0, positions, gg.depth);
    CopyColumns(ctx, grad, g.out_depth, k * gg.out_depth, dg, gg.out_depth, 0, pixels, gg.out_depth);
    if (!PlainBackpropFilter(ctx, eigen, ig, dg, gg, wg)) return false;
    CopyColumns(ctx, wg, gg.out_depth, 0, dw, g.out_depth, k * gg.out_depth, rows, gg.out_depth);
  }
  return true;
}

template <typename T>
class Conv2DBackpropFilterOp {
 public:
  explicit Conv2DBackpropFilterOp(Construction& c) { GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    std::vector<int64_t> sizes;
    if (!ReadShapeInput(ctx, 1, "filter_sizes", {4}, &sizes)) return;
    const auto dy = ctx.input(2);
    ConvGeometry g;
    int64_t groups = 1;
    if (!ConvBackpropGeometry(ctx, attrs_, input.dims(), sizes, dy.dims(), &g, &groups)) return;
    auto out = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok()) return;
    // The filter has k_h * k_w * (depth / groups) rows of out_depth.
    if (g.k_h * g.k_w * (g.depth / groups) == 0 || g.out_depth == 0) return;
    T* dw = out.template mutable_data<T>();
    const T* in = input.template data<T>();
    const T* grad = dy.template data<T>();
    EigenCpu eigen(ctx);
    if (groups > 1) {
      GroupedBackpropFilter(ctx, eigen, in, grad, g, groups, dw);
    } else {
      PlainBackpropFilter(ctx, eigen, in, grad, g, dw);
    }
  }

 private:
  ConvAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<Conv2DBackpropFilterOp<T>>(
      tgraph::plugin::KernelBuilder("Conv2DBackpropFilter", "CPU")
          .TypeConstraint("T", DTypeOf<T>::value)
          .HostMemory("filter_sizes"));
}

}  // namespace

void RegisterConv2DBackpropFilter(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
