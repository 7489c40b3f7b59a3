// DepthwiseConv2dNative (NHWC): every input channel convolved with its own
// channel_multiplier filters, out[n, oh, ow, c * M + m] = sum over the window of
// in[n, ih, iw, c] * filter[kh, kw, c, m]. Windows, padding, strides and dilations come from
// the same code as Conv2D's (conv_pool_common.h). One output pixel per work item, its C * M
// sums kept in an accumulator (float for half / bfloat16) and vectorised along channels; no
// im2col, since there is no contraction over channels to hand to a matrix product.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "conv_pool_common.h"
#include "model_op_kernels.h"

namespace tgraph_cpu {
namespace {

using nn::ComputeConvGeometry;
using nn::ConvAttrs;
using nn::ConvGeometry;
using nn::DTypeOf;
using nn::ShapeString;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;

template <typename T>
class DepthwiseConv2dOp {
 public:
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

  explicit DepthwiseConv2dOp(Construction& c) { nn::GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    const auto filter = ctx.input(1);
    if (input.rank() != 4 || filter.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "DepthwiseConv2dNative needs a 4-D input and a 4-D filter, got shapes " +
                   ShapeString(input.dims()) + " and " + ShapeString(filter.dims()));
      return;
    }
    ConvGeometry g;
    g.batch = input.dim(0);
    g.in_h = input.dim(1);
    g.in_w = input.dim(2);
    g.depth = input.dim(3);
    g.k_h = filter.dim(0);
    g.k_w = filter.dim(1);
    const int64_t multiplier = filter.dim(3);
    if (filter.dim(2) != g.depth) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input depth must equal the filter's input depth: input " +
                                        ShapeString(input.dims()) + ", filter " +
                                        ShapeString(filter.dims()));
      return;
    }
    if (g.k_h <= 0 || g.k_w <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "filter height and width must be > 0, got filter shape " +
                                        ShapeString(filter.dims()));
      return;
    }
    std::string error;
    if (!ComputeConvGeometry(attrs_, &g, &error)) {
      ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(input.dims()) + ", filter " +
                                        ShapeString(filter.dims()));
      return;
    }
    const int64_t out_depth = g.depth * multiplier;
    auto out = ctx.AllocateOutput(0, {g.batch, g.out_h, g.out_w, out_depth});
    if (!ctx.ok()) return;
    const int64_t pixels = g.pixels();
    if (pixels == 0 || out_depth == 0) return;
    const T* in = input.template data<T>();
    const T* f = filter.template data<T>();
    T* o = out.template mutable_data<T>();
    const int64_t window = g.k_h * g.k_w;
    ctx.ParallelFor(pixels, static_cast<double>(window * out_depth) * 2.0,
                    [&](int64_t begin, int64_t end) {
      std::vector<Acc> acc(static_cast<size_t>(out_depth));
      for (int64_t p = begin; p < end; ++p) {
        const int64_t n = p / (g.out_h * g.out_w);
        const int64_t oh = (p / g.out_w) % g.out_h;
        const int64_t ow = p % g.out_w;
        std::fill(acc.begin(), acc.end(), Acc(0));
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
  }

 private:
  // acc[c * M + m] += x[c] * w[c * M + m].
  static void Accumulate(const T* x, const T* w, int64_t depth, int64_t multiplier, Acc* acc) {
    if (multiplier == 1) {
      for (int64_t c = 0; c < depth; ++c) {
        acc[c] += static_cast<Acc>(x[c]) * static_cast<Acc>(w[c]);
      }
      return;
    }
    for (int64_t c = 0; c < depth; ++c) {
      const Acc xv = static_cast<Acc>(x[c]);
      Acc* a = acc + c * multiplier;
      const T* wc = w + c * multiplier;
      for (int64_t m = 0; m < multiplier; ++m) a[m] += xv * static_cast<Acc>(wc[m]);
    }
  }

  ConvAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<DepthwiseConv2dOp<T>>(tgraph::plugin::KernelBuilder("DepthwiseConv2dNative", "CPU")
                                        .TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterDepthwiseConvKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<Eigen::half>(init);
  RegisterFor<Eigen::bfloat16>(init);
}

}  // namespace tgraph_cpu
