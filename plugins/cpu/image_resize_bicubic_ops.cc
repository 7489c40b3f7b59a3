// ResizeBicubic and its gradient ResizeBicubicGrad (NHWC), with TensorFlow's weights: each
// output coordinate reads the four source pixels around its source location x (floor(x) - 1
// to floor(x) + 2, clamped to the image), weighted by the cubic convolution kernel of Keys at
// the fraction of x, which TF quantizes to 1/1024 (its table of coefficients). Legacy
// coordinates (x = o * scale) use a = -0.75 and keep the clamped pixels' weights;
// half_pixel_centers (x = (o + 0.5) * scale - 0.5) uses a = -0.5, gives the pixels outside the
// image weight 0 and renormalizes the others to sum to 1. Any real type in, float out; the
// gradient spreads each output gradient over the same 16 pixels by the same weights.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "array_kernel_util.h"
#include "image_resize_util.h"

namespace tgraph_cpu {
namespace {

using namespace image_resize;

constexpr int64_t kTableSize = 1024;  // TF's quantization of the fraction

// The four source indices of one output coordinate and their weights.
struct Cubic {
  std::array<int64_t, 4> index;
  std::array<float, 4> weight;
};

// Keys' kernel at distance d in [0, 1] (the two inner taps) and d + 1 in [1, 2] (outer).
float Inner(float d, float a) { return ((a + 2) * d - (a + 3)) * d * d + 1; }
float Outer(float d, float a) {
  const float x = d + 1;
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

std::vector<Cubic> CubicWeights(int64_t out, int64_t in, float scale, bool half_pixel) {
  const float a = half_pixel ? -0.5f : -0.75f;
  std::vector<Cubic> w(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float x = half_pixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                               : static_cast<float>(o) * scale;
    const int64_t base = static_cast<int64_t>(std::floor(x));
    const int64_t q = std::lrint((x - static_cast<float>(base)) * kTableSize);
    const float d = static_cast<float>(q) / kTableSize, e = static_cast<float>(kTableSize - q) / kTableSize;
    Cubic& c = w[static_cast<size_t>(o)];
    c.weight = {Outer(d, a), Inner(d, a), Inner(e, a), Outer(e, a)};
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      const int64_t i = base - 1 + k;
      c.index[k] = std::clamp<int64_t>(i, 0, in - 1);
      if (half_pixel && c.index[k] != i) c.weight[k] = 0;
      sum += c.weight[k];
    }
    if (half_pixel && std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
      for (float& v : c.weight) v /= sum;
    }
  }
  return w;
}

// The 4 taps of Cubic, as image_resize_util.h's ResizeSeparable and ResizeGradOp take them.
struct CubicTaps {
  using Coord = Cubic;
  static constexpr int kTaps = 4;
  static constexpr double kCost = 64;
  static std::vector<Cubic> Weights(int64_t out, int64_t in, float scale, bool half_pixel) {
    return CubicWeights(out, in, scale, half_pixel);
  }
  static int Count(const Cubic&) { return kTaps; }
  static int64_t Index(const Cubic& c, int k) { return c.index[static_cast<size_t>(k)]; }
  static float Weight(const Cubic& c, int k) { return c.weight[static_cast<size_t>(k)]; }
};

template <typename T>
class ResizeBicubicOp {
 public:
  explicit ResizeBicubicOp(Construction& c) { GetResizeAttrs(c, &attrs_); }
  void Compute(Context& ctx) {
    std::vector<int64_t> in;
    int64_t oh = 0, ow = 0;
    TensorMut out;
    if (!Prepare(ctx, &in, &oh, &ow, &out)) return;
    const int64_t h = in[1], w = in[2], c = in[3];
    const std::vector<Cubic> ys = CubicWeights(oh, h, Scale(h, oh, attrs_.align_corners), attrs_.half_pixel);
    const std::vector<Cubic> xs = CubicWeights(ow, w, Scale(w, ow, attrs_.align_corners), attrs_.half_pixel);
    ResizeSeparable<CubicTaps>(ctx, ctx.input(0).data<T>(), in, oh, ow, ys, xs, 1.0f,
                               static_cast<double>(ow * c) * 40, out.mutable_data<float>());
  }

 private:
  ResizeAttrs attrs_;
};

}  // namespace

void RegisterImageResizeBicubicKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  RegisterResizeForRealTypes<ResizeBicubicOp>(init, "ResizeBicubic");
  init.Kernel<ResizeGradOp<CubicTaps, float>>(
      KernelBuilder("ResizeBicubicGrad", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<ResizeGradOp<CubicTaps, double>>(
      KernelBuilder("ResizeBicubicGrad", "CPU").TypeConstraint("T", TG_DOUBLE));
}

}  // namespace tgraph_cpu
