// Conv2D (NHWC): im2col + one Eigen contraction per chunk of output pixels; grouped
// convolutions group by group.
//
// The filter [KH, KW, C, OC] is already the row-major matrix [KH*KW*C, OC]. For each chunk
// of output pixels, the input patches are gathered into a [pixels, KH*KW*C] matrix (zeros
// where the window hangs over the padding), which is multiplied by the filter straight into
// the output. 1x1 convolutions with stride 1 and windows covering the whole image skip the
// gather: the input already is the patch matrix.
#include <algorithm>
#include <cstring>
#include <string>

#include "conv2d_geometry.h"
#include "conv_pool_common.h"
#include "eigen_device.h"

namespace tgraph_cpu::nn {
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;

namespace {

// One plain convolution: `in` [batch, in_h, in_w, g.depth] by `f` [patch, g.out_depth] into
// `o` [pixels, g.out_depth]. False when the context failed (a scratch allocation).
template <typename T>
bool PlainConv(Context& ctx, EigenCpu& eigen, const T* in, const T* f, const ConvGeometry& g,
               T* o) {
  const int64_t pixels = g.pixels(), out_depth = g.out_depth, patch = g.patch();
  if (patch == 0) {
    std::fill(o, o + pixels * out_depth, T(0));
    return true;
  }
  if (g.InputIsPatchMatrix()) {
    Contract<T>(eigen.device(), in, pixels, patch, false, f, patch, out_depth, false, o);
    return true;
  }
  const int64_t chunk = ChunkRows<T>(patch, pixels);
  auto scratch = ctx.AllocateTemp(DTypeOf<T>::value, {chunk, patch});
  if (!ctx.ok()) return false;
  T* cols = scratch.template mutable_data<T>();
  for (int64_t start = 0; start < pixels; start += chunk) {
    const int64_t rows = std::min(chunk, pixels - start);
    Im2Col(ctx, in, g, start, rows, cols);
    if (!ctx.ok()) return false;
    Contract<T>(eigen.device(), cols, rows, patch, false, f, patch, out_depth, false,
                o + start * out_depth);
  }
  return true;
}

// A grouped convolution (TensorFlow's semantics): input channels [k * kd, (k + 1) * kd) of
// group k meet filter columns [k * ocg, (k + 1) * ocg), kd being the filter's input depth and
// ocg = out_depth / groups. Each group is gathered into contiguous scratch, convolved as a
// plain convolution, and its output columns scattered into place.
template <typename T>
bool GroupedConv(Context& ctx, EigenCpu& eigen, const T* in, const T* f, const ConvGeometry& g,
                 int64_t groups, T* o) {
  const ConvGeometry gg = GroupGeometry(g, groups);
  const int64_t positions = g.batch * g.in_h * g.in_w, rows = g.k_h * g.k_w * gg.depth;
  const int64_t pixels = g.pixels();
  auto in_g = ctx.AllocateTemp(DTypeOf<T>::value, {positions, gg.depth});
  auto f_g = ctx.AllocateTemp(DTypeOf<T>::value, {rows, gg.out_depth});
  auto o_g = ctx.AllocateTemp(DTypeOf<T>::value, {pixels, gg.out_depth});
  if (!ctx.ok()) return false;
  T* ig = in_g.template mutable_data<T>();
  T* fg = f_g.template mutable_data<T>();
  T* og = o_g.template mutable_data<T>();
  for (int64_t k = 0; k < groups; ++k) {
    CopyColumns(ctx, in, g.depth, k * gg.depth, ig, gg.depth, 0, positions, gg.depth);
    CopyColumns(ctx, f, g.out_depth, k * gg.out_depth, fg, gg.out_depth, 0, rows, gg.out_depth);
    if (!PlainConv(ctx, eigen, ig, fg, gg, og)) return false;
    CopyColumns(ctx, og, gg.out_depth, 0, o, g.out_depth, k * gg.out_depth, pixels, gg.out_depth);
  }
  return true;
}

}  // namespace

// Conv2D of inputs 0 and 1 into output 0 (Conv2D's kernel, and _FusedConv2D's before its
// epilogue), grouped or not. On failure the context holds the error and the result is invalid.
template <typename T>
TensorMut Conv2DToOutput(Context& ctx, const ConvAttrs& attrs) {
  const auto input = ctx.input(0);
  const auto filter = ctx.input(1);
  ConvGeometry g;
  int64_t groups = 1;
  if (!Conv2DForwardGeometry(ctx, attrs, input, filter, &g, &groups)) return TensorMut();
  auto out = ctx.AllocateOutput(0, {g.batch, g.out_h, g.out_w, g.out_depth});
  if (!ctx.ok()) return out;
  if (g.pixels() == 0 || g.out_depth == 0) return out;
  T* o = out.template mutable_data<T>();
  const T* in = input.template data<T>();
  const T* f = filter.template data<T>();
  EigenCpu eigen(ctx);
  if (groups > 1) {
    GroupedConv(ctx, eigen, in, f, g, groups, o);
  } else {
    PlainConv(ctx, eigen, in, f, g, o);
  }
  return out;
}

template TensorMut Conv2DToOutput<float>(Context&, const ConvAttrs&);
template TensorMut Conv2DToOutput<double>(Context&, const ConvAttrs&);

namespace {

template <typename T>
class Conv2DOp {
 public:
  explicit Conv2DOp(Construction& c) { GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) { Conv2DToOutput<T>(ctx, attrs_); }

 private:
  ConvAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<Conv2DOp<T>>(
      tgraph::plugin::KernelBuilder("Conv2D", "CPU").TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterConv2D(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
