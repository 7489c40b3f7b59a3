// Conv2DBackpropInput (NHWC): one Eigen contraction and a col2im per chunk of output rows.
//
// With the filter as the matrix F [patch, out_depth] (patch = KH*KW*C), the forward pass is
// out = cols(x) * F, so the input's gradient is col2im(dy * F^T): for each chunk of output
// rows, dy's rows times F^T give the patch matrix of gradients [pixels, patch], whose entries
// are summed back into the input positions they were gathered from. The sum is done as a
// gather, one input row per work item (each input row adds up the patch entries that came
// from it), so no two threads ever write the same element. 1x1 convolutions at stride 1 and
// windows covering the whole image skip col2im: dx is dy * F^T directly. A grouped
// convolution's dx is computed group by group.
#include <algorithm>
#include <vector>

#include "eigen_device.h"
#include "nn_backprop_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

// Adds the patch-matrix rows of output rows [r0, r1) (flat n * out_h + oh, `cols` holding
// out_w * patch values per output row) into dx, which is [batch, in_h, in_w, depth].
template <typename T>
void Col2Im(Context& ctx, const T* cols, const ConvGeometry& g, int64_t r0, int64_t r1, T* dx) {
  const int64_t patch = g.patch(), depth = g.depth;
  // The flat input rows (n * in_h + ih) these output rows' windows can reach.
  const int64_t n0 = r0 / g.out_h, oh0 = r0 % g.out_h;
  const int64_t n1 = (r1 - 1) / g.out_h, oh1 = (r1 - 1) % g.out_h;
  const int64_t lo = n0 * g.in_h + std::max<int64_t>(oh0 * g.s_h - g.pad_top, 0);
  const int64_t hi =
      n1 * g.in_h + std::min<int64_t>(oh1 * g.s_h - g.pad_top + (g.k_h - 1) * g.d_h, g.in_h - 1);
  if (hi < lo) return;
  const double cost = static_cast<double>(g.k_h * g.out_w * g.k_w * depth) /
                      static_cast<double>(std::max<int64_t>(g.s_h, 1));
  ctx.ParallelFor(hi - lo + 1, cost, [&](int64_t begin, int64_t end) {
    for (int64_t q = lo + begin; q < lo + end; ++q) {
      const int64_t n = q / g.in_h, ih = q % g.in_h;
      T* dst_row = dx + q * g.in_w * depth;
      for (int64_t kh = 0; kh < g.k_h; ++kh) {
        const int64_t t = ih + g.pad_top - kh * g.d_h;  // oh * s_h when a window row hits ih
        if (t < 0 || t % g.s_h != 0) continue;
        const int64_t oh = t / g.s_h;
        if (oh >= g.out_h) continue;
        const int64_t r = n * g.out_h + oh;
        if (r < r0 || r >= r1) continue;
        const T* src_row = cols + (r - r0) * g.out_w * patch + kh * g.k_w * depth;
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const T* src = src_row + ow * patch;
          for (int64_t kw = 0; kw < g.k_w; ++kw, src += depth) {
            const int64_t iw = ow * g.s_w - g.pad_left + kw * g.d_w;
            if (iw < 0 || iw >= g.in_w) continue;
            T* dst = dst_row + iw * depth;
            for (int64_t c = 0; c < depth; ++c) dst[c] += src[c];
          }
        }
      }
    }
  });
}

template <typename T>
void FillZero(Context& ctx, T* p, int64_t n) {
  ctx.ParallelFor(n, 0.25, [&](int64_t b, int64_t e) { std::fill(p + b, p + e, T(0)); });
}

// dx [input_size] of one plain convolution from dy [pixels, out_depth] and the filter f
// [patch, out_depth]. False when the context failed.
template <typename T>
bool PlainBackpropInput(Context& ctx, EigenCpu& eigen, const T* grad, const T* f,
                        const ConvGeometry& g, T* dx) {
  const int64_t total = g.input_size();
  const int64_t pixels = g.pixels(), patch = g.patch(), out_depth = g.out_depth;
  if (pixels == 0 || out_depth == 0) {
    FillZero(ctx, dx, total);  // no window touches the input, or no filters: no gradient
    return true;
  }
  if (g.InputIsPatchMatrix()) {
    Contract<T>(eigen.device(), grad, pixels, out_depth, false, f, patch, out_depth, true, dx);
    return true;
  }
  FillZero(ctx, dx, total);
  const int64_t out_rows = g.batch * g.out_h;
  const int64_t chunk = ChunkRows<T>(g.out_w * patch, out_rows);
  auto scratch = ctx.AllocateTemp(DTypeOf<T>::value, {chunk * g.out_w, patch});
  if (!ctx.ok()) return false;
  T* cols = scratch.template mutable_data<T>();
  for (int64_t r0 = 0; r0 < out_rows; r0 += chunk) {
    const int64_t r1 = std::min(r0 + chunk, out_rows);
    const int64_t rows = (r1 - r0) * g.out_w;
    Contract<T>(eigen.device(), grad + r0 * g.out_w * out_depth, rows, out_depth, false, f, patch,
                out_depth, true, cols);
    Col2Im(ctx, cols, g, r0, r1, dx);
    if (!ctx.ok()) return false;
  }
  return true;
}

// A grouped convolution's dx, group by group (conv_ops.cc's GroupedConv): group k's channels
// of dx come from its columns of dy and of the filter.
template <typename T>
bool GroupedBackpropInput(Context& ctx, EigenCpu& eigen, const T* grad, const T* f,
                          const ConvGeometry& g, int64_t groups, T* dx) {
  const ConvGeometry gg = GroupGeometry(g, groups);
  const int64_t positions = g.batch * g.in_h * g.in_w, rows = g.k_h * g.k_w * gg.depth;
  const int64_t pixels = g.pixels();
  auto grad_g = ctx.AllocateTemp(DTypeOf<T>::value, {pixels, gg.out_depth});
  auto f_g = ctx.AllocateTemp(DTypeOf<T>::value, {rows, gg.out_depth});
  auto dx_g = ctx.AllocateTemp(DTypeOf<T>::value, {positions, gg.depth});
  if (!ctx.ok()) return false;
  T* dg = grad_g.template mutable_data<T>();
  T* fg = f_g.template mutable_data<T>();
  T* xg = dx_g.template mutable_data<T>();
  for (int64_t k = 0; k < groups; ++k) {
    CopyColumns(ctx, grad, g.out_depth, k * gg.out_depth, dg, gg.out_depth, 0, pixels, gg.out_depth);
    CopyColumns(ctx, f, g.out_depth, k * gg.out_depth, fg, gg.out_depth, 0, rows, gg.out_depth);
    if (!PlainBackpropInput(ctx, eigen, dg, fg, gg, xg)) return false;
    CopyColumns(ctx, xg, gg.depth, 0, dx, g.depth, k * gg.depth, positions, gg.depth);
  }
  return true;
}

template <typename T>
class Conv2DBackpropInputOp {
 public:
  explicit Conv2DBackpropInputOp(Construction& c) { GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    std::vector<int64_t> sizes;
    if (!ReadShapeInput(ctx, 0, "input_sizes", {4, 2}, &sizes)) return;
    const auto filter = ctx.input(1);
    const auto dy = ctx.input(2);
    if (sizes.size() == 2) {
      // Height and width only (TF accepts this): batch from dy, depth from the filter.
      if (dy.rank() != 4 || filter.rank() != 4) {
        ctx.Fail(TG_INVALID_ARGUMENT, "filter and out_backprop must be 4-D, got shapes " +
                                          ShapeString(filter.dims()) + " and " +
                                          ShapeString(dy.dims()));
        return;
      }
      sizes = {dy.dim(0), sizes[0], sizes[1], filter.dim(2)};
    }
    ConvGeometry g;
    int64_t groups = 1;
    if (!ConvBackpropGeometry(ctx, attrs_, sizes, filter.dims(), dy.dims(), &g, &groups)) return;
    auto out = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok()) return;
    if (g.input_size() == 0) return;
    T* dx = out.template mutable_data<T>();
    const T* f = filter.template data<T>();
    const T* grad = dy.template data<T>();
    EigenCpu eigen(ctx);
    if (groups > 1) {
      GroupedBackpropInput(ctx, eigen, grad, f, g, groups, dx);
    } else {
      PlainBackpropInput(ctx, eigen, grad, f, g, dx);
    }
  }

 private:
  ConvAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<Conv2DBackpropInputOp<T>>(tgraph::plugin::KernelBuilder("Conv2DBackpropInput", "CPU")
                                            .TypeConstraint("T", DTypeOf<T>::value)
                                            .HostMemory("input_sizes"));
}

}  // namespace

void RegisterConv2DBackpropInput(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
