// Conv2D (NHWC): im2col + one Eigen contraction per chunk of output pixels.
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

// Conv2D of inputs 0 and 1 into output 0 (Conv2D's kernel, and _FusedConv2D's before its
// epilogue). On failure the context holds the error and the result is invalid.
template <typename T>
TensorMut Conv2DToOutput(Context& ctx, const ConvAttrs& attrs) {
  const auto input = ctx.input(0);
  const auto filter = ctx.input(1);
  ConvGeometry g;
  if (!Conv2DForwardGeometry(ctx, attrs, input, filter, &g)) return TensorMut();
  auto out = ctx.AllocateOutput(0, {g.batch, g.out_h, g.out_w, g.out_depth});
  if (!ctx.ok()) return out;
  const int64_t pixels = g.pixels(), out_depth = g.out_depth;
  if (pixels == 0 || out_depth == 0) return out;
  T* o = out.template mutable_data<T>();
  const int64_t patch = g.patch();  // one row of the patch matrix
  if (patch == 0) {
    std::fill(o, o + pixels * out_depth, T(0));
    return out;
  }
  const T* in = input.template data<T>();
  const T* f = filter.template data<T>();
  EigenCpu eigen(ctx);

  if (g.InputIsPatchMatrix()) {
    Contract<T>(eigen.device(), in, pixels, patch, false, f, patch, out_depth, false, o);
    return out;
  }

  const int64_t chunk = ChunkRows<T>(patch, pixels);
  auto scratch = ctx.AllocateTemp(DTypeOf<T>::value, {chunk, patch});
  if (!ctx.ok()) return out;
  T* cols = scratch.template mutable_data<T>();
  for (int64_t start = 0; start < pixels; start += chunk) {
    const int64_t rows = std::min(chunk, pixels - start);
    Im2Col(ctx, in, g, start, rows, cols);
    if (!ctx.ok()) return out;
    Contract<T>(eigen.device(), cols, rows, patch, false, f, patch, out_depth, false,
                o + start * out_depth);
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
