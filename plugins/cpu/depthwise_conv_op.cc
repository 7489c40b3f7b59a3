// DepthwiseConv2dNative (NHWC): every input channel convolved with its own
// channel_multiplier filters, out[n, oh, ow, c * M + m] = sum over the window of
// in[n, ih, iw, c] * filter[kh, kw, c, m]. Windows, padding, strides and dilations come from
// the same code as Conv2D's (conv_pool_common.h). One output pixel per work item, its C * M
// sums kept in an accumulator (float for half / bfloat16) and vectorised along channels; no
// im2col, since there is no contraction over channels to hand to a matrix product.
// _FusedDepthwiseConv2dNative runs the same code, then its epilogue (fused_contraction_ops.cc).
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "conv2d_geometry.h"
#include "conv_pool_common.h"
#include "model_op_kernels.h"

namespace tgraph_cpu {
namespace nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;

template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// acc[c * M + m] += x[c] * w[c * M + m].
template <typename T>
void Accumulate(const T* x, const T* w, int64_t depth, int64_t multiplier, Acc<T>* acc) {
  if (multiplier == 1) {
    for (int64_t c = 0; c < depth; ++c) {
      acc[c] += static_cast<Acc<T>>(x[c]) * static_cast<Acc<T>>(w[c]);
    }
    return;
  }
  for (int64_t c = 0; c < depth; ++c) {
    const Acc<T> xv = static_cast<Acc<T>>(x[c]);
    Acc<T>* a = acc + c * multiplier;
    const T* wc = w + c * multiplier;
    for (int64_t m = 0; m < multiplier; ++m) a[m] += xv * static_cast<Acc<T>>(wc[m]);
  }
}

}  // namespace

template <typename T>
TensorMut DepthwiseConv2dToOutput(Context& ctx, const ConvAttrs& attrs) {
  const auto input = ctx.input(0);
  const auto filter = ctx.input(1);
  ConvGeometry g;
  int64_t multiplier = 0;
  if (!DepthwiseForwardGeometry(ctx, attrs, input, filter, &g, &multiplier)) return TensorMut();
  const int64_t out_depth = g.out_depth;
  auto out = ctx.AllocateOutput(0, {g.batch, g.out_h, g.out_w, out_depth});
  if (!ctx.ok()) return out;
  const int64_t pixels = g.pixels();
  if (pixels == 0 || out_depth == 0) return out;
  const T* in = input.template data<T>();
  const T* f = filter.template data<T>();
  T* o = out.template mutable_data<T>();
  const int64_t window = g.k_h * g.k_w;
  ctx.ParallelFor(pixels, static_cast<double>(window * out_depth) * 2.0,
                  [&](int64_t begin, int64_t end) {
    std::vector<Acc<T>> acc(static_cast<size_t>(out_depth));
    for (int64_t p = begin; p < end; ++p) {
      const int64_t n = p / (g.out_h * g.out_w);
      const int64_t oh = (p / g.out_w) % g.out_h;
      const int64_t ow = p % g.out_w;
      std::fill(acc.begin(), acc.end(), Acc<T>(0));
      for (int64_t kh = 0; kh < g.k_h; ++kh) {
        const int64_t ih = oh * g.s_h - g.pad_top + kh * g.d_h;
        if (ih < 0 || ih >= g.in_h) continue;
        for (int64_t kw = 0; kw < g.k_w; ++kw) {
          const int64_t iw = ow * g.s_w - g.pad_left + kw * g.d_w;
          if (iw < 0 || iw >= g.in_w) continue;
          const T* x = in + ((n * g.in_h + ih) * g.in_w + iw) * g.depth;
          const T* w = f + (kh * g.k_w + kw) * out_depth;
          Accumulate(x, w, g.depth, multiplier, acc.data());
        }
      }
      T* dst = o + p * out_depth;
      for (int64_t i = 0; i < out_depth; ++i) dst[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
    }
  });
  return out;
}

template TensorMut DepthwiseConv2dToOutput<float>(Context&, const ConvAttrs&);
template TensorMut DepthwiseConv2dToOutput<double>(Context&, const ConvAttrs&);
template TensorMut DepthwiseConv2dToOutput<Eigen::half>(Context&, const ConvAttrs&);
template TensorMut DepthwiseConv2dToOutput<Eigen::bfloat16>(Context&, const ConvAttrs&);

namespace {

template <typename T>
class DepthwiseConv2dOp {
 public:
  explicit DepthwiseConv2dOp(Construction& c) { GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) { DepthwiseConv2dToOutput<T>(ctx, attrs_); }

 private:
  ConvAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<DepthwiseConv2dOp<T>>(tgraph::plugin::KernelBuilder("DepthwiseConv2dNative", "CPU")
                                        .TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace
}  // namespace nn

void RegisterDepthwiseConvKernels(tgraph::plugin::Init& init) {
  nn::RegisterFor<float>(init);
  nn::RegisterFor<double>(init);
  nn::RegisterFor<Eigen::half>(init);
  nn::RegisterFor<Eigen::bfloat16>(init);
}

}  // namespace tgraph_cpu
