// DepthwiseConv2dNativeBackpropInput and DepthwiseConv2dNativeBackpropFilter (NHWC): the
// gradients of DepthwiseConv2dNative (depthwise_conv_op.cc), over the same window geometry
// (conv_pool_common.h). Each work item owns what it writes, so no two threads add into one
// element: the input gradient is split by image, the filter gradient by filter tap (kh, kw).
// Sums are kept in float for half / bfloat16.
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
using tgraph::plugin::TensorView;

// The geometry from the input and filter shapes, checked against out_backprop's shape.
bool Geometry(Context& ctx, const ConvAttrs& attrs, const std::vector<int64_t>& in,
              const std::vector<int64_t>& f, const TensorView& dy, ConvGeometry* g) {
  if (in.size() != 4 || f.size() != 4 || dy.rank() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "input, filter and out_backprop must be 4-D, got " +
                                      ShapeString(in) + ", " + ShapeString(f) + " and " +
                                      ShapeString(dy.dims()));
    return false;
  }
  if (f[2] != in[3] || f[0] <= 0 || f[1] <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "the filter " + ShapeString(f) +
                                      " must have positive height and width and the input's "
                                      "depth (input " + ShapeString(in) + ")");
    return false;
  }
  g->batch = in[0];
  g->in_h = in[1];
  g->in_w = in[2];
  g->depth = in[3];
  g->k_h = f[0];
  g->k_w = f[1];
  std::string error;
  if (!ComputeConvGeometry(attrs, g, &error)) {
    ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(in) + ", filter " + ShapeString(f));
    return false;
  }
  const std::vector<int64_t> want = {g->batch, g->out_h, g->out_w, g->depth * f[3]};
  if (dy.dims() != want) {
    ctx.Fail(TG_INVALID_ARGUMENT, "out_backprop must have shape " + ShapeString(want) +
                                      ", but has shape " + ShapeString(dy.dims()));
    return false;
  }
  return true;
}

template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// dx[n, ih, iw, c] = sum of dy[n, oh, ow, c * M + m] * filter[kh, kw, c, m] over the windows
// that read (ih, iw).
template <typename T>
class BackpropInputOp {
 public:
  explicit BackpropInputOp(Construction& c) { nn::GetConvAttrs(c, &attrs_); }
  void Compute(Context& ctx) {
    std::vector<int64_t> in;
    if (!nn::ReadShapeInput(ctx, 0, "input_sizes", {4}, &in)) return;
    const TensorView filter = ctx.input(1), dy = ctx.input(2);
    const std::vector<int64_t> f = filter.dims();
    ConvGeometry g;
    if (!Geometry(ctx, attrs_, in, f, dy, &g)) return;
    auto out = ctx.AllocateOutput(0, in);
    if (!ctx.ok()) return;
    const int64_t m = f[3], depth = g.depth, od = depth * m;
    const int64_t image = g.in_h * g.in_w * depth;
    const T* w = filter.template data<T>();
    const T* d = dy.template data<T>();
    T* o = out.template mutable_data<T>();
    ctx.ParallelFor(g.batch, static_cast<double>(g.out_h * g.out_w * g.k_h * g.k_w * od) * 2,
                    [&](int64_t b, int64_t e) {
      std::vector<Acc<T>> acc(static_cast<size_t>(image));
      for (int64_t n = b; n < e; ++n) {
        std::fill(acc.begin(), acc.end(), Acc<T>(0));
        for (int64_t oh = 0; oh < g.out_h; ++oh) {
          for (int64_t ow = 0; ow < g.out_w; ++ow) {
            const T* grad = d + ((n * g.out_h + oh) * g.out_w + ow) * od;
            for (int64_t kh = 0; kh < g.k_h; ++kh) {
              const int64_t ih = oh * g.s_h - g.pad_top + kh * g.d_h;
              if (ih < 0 || ih >= g.in_h) continue;
              for (int64_t kw = 0; kw < g.k_w; ++kw) {
                const int64_t iw = ow * g.s_w - g.pad_left + kw * g.d_w;
                if (iw < 0 || iw >= g.in_w) continue;
                Acc<T>* a = acc.data() + (ih * g.in_w + iw) * depth;
                const T* tap = w + (kh * g.k_w + kw) * od;
                for (int64_t c = 0; c < depth; ++c) {
                  Acc<T> s = 0;
                  for (int64_t q = 0; q < m; ++q) {
                    s += static_cast<Acc<T>>(grad[c * m + q]) * static_cast<Acc<T>>(tap[c * m + q]);
                  }
                  a[c] += s;
                }
              }
            }
          }
        }
        T* dst = o + n * image;
        for (int64_t i = 0; i < image; ++i) dst[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
      }
    });
  }

 private:
  ConvAttrs attrs_;
};

// dfilter[kh, kw, c, m] = sum over images and output pixels of
// input[n, ih, iw, c] * dy[n, oh, ow, c * M + m].
template <typename T>
class BackpropFilterOp {
 public:
  explicit BackpropFilterOp(Construction& c) { nn::GetConvAttrs(c, &attrs_); }
  void Compute(Context& ctx) {
    std::vector<int64_t> f;
    if (!nn::ReadShapeInput(ctx, 1, "filter_sizes", {4}, &f)) return;
    const TensorView input = ctx.input(0), dy = ctx.input(2);
    ConvGeometry g;
    if (!Geometry(ctx, attrs_, input.dims(), f, dy, &g)) return;
    auto out = ctx.AllocateOutput(0, f);
    if (!ctx.ok()) return;
    const int64_t m = f[3], depth = g.depth, od = depth * m;
    const T* x = input.template data<T>();
    const T* d = dy.template data<T>();
    T* o = out.template mutable_data<T>();
    ctx.ParallelFor(g.k_h * g.k_w, static_cast<double>(g.pixels() * od) * 2,
                    [&](int64_t b, int64_t e) {
      std::vector<Acc<T>> acc(static_cast<size_t>(od));
      for (int64_t tap = b; tap < e; ++tap) {
        const int64_t kh = tap / g.k_w, kw = tap % g.k_w;
        std::fill(acc.begin(), acc.end(), Acc<T>(0));
        for (int64_t n = 0; n < g.batch; ++n) {
          for (int64_t oh = 0; oh < g.out_h; ++oh) {
            const int64_t ih = oh * g.s_h - g.pad_top + kh * g.d_h;
            if (ih < 0 || ih >= g.in_h) continue;
            for (int64_t ow = 0; ow < g.out_w; ++ow) {
              const int64_t iw = ow * g.s_w - g.pad_left + kw * g.d_w;
              if (iw < 0 || iw >= g.in_w) continue;
              const T* px = x + ((n * g.in_h + ih) * g.in_w + iw) * depth;
              const T* grad = d + ((n * g.out_h + oh) * g.out_w + ow) * od;
              for (int64_t c = 0; c < depth; ++c) {
                const Acc<T> xv = static_cast<Acc<T>>(px[c]);
                for (int64_t q = 0; q < m; ++q) {
                  acc[static_cast<size_t>(c * m + q)] += xv * static_cast<Acc<T>>(grad[c * m + q]);
                }
              }
            }
          }
        }
        T* dst = o + tap * od;
        for (int64_t i = 0; i < od; ++i) dst[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
      }
    });
  }

 private:
  ConvAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<BackpropInputOp<T>>(KernelBuilder("DepthwiseConv2dNativeBackpropInput", "CPU")
                                      .TypeConstraint("T", DTypeOf<T>::value)
                                      .HostMemory("input_sizes"));
  init.Kernel<BackpropFilterOp<T>>(KernelBuilder("DepthwiseConv2dNativeBackpropFilter", "CPU")
                                       .TypeConstraint("T", DTypeOf<T>::value)
                                       .HostMemory("filter_sizes"));
}

}  // namespace

void RegisterDepthwiseConvBackpropKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu
