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
    const T* src = ctx.input(0).data<T>();
    float* dst = out.mutable_data<float>();
    ctx.ParallelFor(in[0] * oh, static_cast<double>(ow * c) * 40, [&](int64_t b, int64_t e) {
      std::vector<float> rows(static_cast<size_t>(w * c));
      for (int64_t r = b; r < e; ++r) {
        const int64_t batch = r / oh;
        const Cubic& cy = ys[static_cast<size_t>(r % oh)];
        // The four source rows blended vertically, then each output pixel horizontally.
        std::fill(rows.begin(), rows.end(), 0.0f);
        for (int k = 0; k < 4; ++k) {
          const T* line = src + (batch * h + cy.index[k]) * w * c;
          for (int64_t i = 0; i < w * c; ++i) {
            rows[static_cast<size_t>(i)] += cy.weight[k] * static_cast<float>(line[i]);
          }
        }
        float* o = dst + r * ow * c;
        for (int64_t x = 0; x < ow; ++x) {
          const Cubic& cx = xs[static_cast<size_t>(x)];
          for (int64_t ch = 0; ch < c; ++ch) {
            float v = 0;
            for (int k = 0; k < 4; ++k) v += cx.weight[k] * rows[static_cast<size_t>(cx.index[k] * c + ch)];
            o[x * c + ch] = v;
          }
        }
      }
    });
  }

 private:
  ResizeAttrs attrs_;
};

// ResizeBicubicGrad(grads [N, h, w, C] float, original_image [N, H, W, C]) -> [N, H, W, C].
// Split by image, so no two threads add into one element.
template <typename T>
class ResizeBicubicGradOp {
 public:
  explicit ResizeBicubicGradOp(Construction& c) { GetResizeAttrs(c, &attrs_); }
  void Compute(Context& ctx) {
    TensorView grads = ctx.input(0);
    std::vector<int64_t> gd, id;
    TensorMut out;
    if (!PrepareGrad(ctx, &gd, &id, &out)) return;
    const int64_t n = id[0], h = id[1], w = id[2], c = id[3], oh = gd[1], ow = gd[2];
    const std::vector<Cubic> ys = CubicWeights(oh, h, Scale(h, oh, attrs_.align_corners), attrs_.half_pixel);
    const std::vector<Cubic> xs = CubicWeights(ow, w, Scale(w, ow, attrs_.align_corners), attrs_.half_pixel);
    const float* g = grads.data<float>();
    T* o = out.mutable_data<T>();
    ctx.ParallelFor(n, static_cast<double>(oh * ow * c) * 64, [&](int64_t b, int64_t e) {
      std::vector<float> acc(static_cast<size_t>(h * w * c));
      for (int64_t batch = b; batch < e; ++batch) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t y = 0; y < oh; ++y) {
          const Cubic& cy = ys[static_cast<size_t>(y)];
          for (int64_t x = 0; x < ow; ++x) {
            const Cubic& cx = xs[static_cast<size_t>(x)];
            const float* gp = g + ((batch * oh + y) * ow + x) * c;
            for (int ky = 0; ky < 4; ++ky) {
              for (int kx = 0; kx < 4; ++kx) {
                const float wt = cy.weight[ky] * cx.weight[kx];
                float* dst = acc.data() + (cy.index[ky] * w + cx.index[kx]) * c;
                for (int64_t ch = 0; ch < c; ++ch) dst[ch] += wt * gp[ch];
              }
            }
          }
        }
        T* dst = o + batch * h * w * c;
        for (size_t i = 0; i < acc.size(); ++i) dst[i] = static_cast<T>(acc[i]);
      }
    });
  }

 private:
  ResizeAttrs attrs_;
};

template <typename T>
void RegisterBicubic(tgraph::plugin::Init& init, TG_DataType dtype) {
  init.Kernel<ResizeBicubicOp<T>>(
      tgraph::plugin::KernelBuilder("ResizeBicubic", "CPU").TypeConstraint("T", dtype).HostMemory("size"));
}

}  // namespace

void RegisterImageResizeBicubicKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  RegisterBicubic<float>(init, TG_FLOAT);
  RegisterBicubic<double>(init, TG_DOUBLE);
  RegisterBicubic<uint8_t>(init, TG_UINT8);
  RegisterBicubic<int8_t>(init, TG_INT8);
  RegisterBicubic<uint16_t>(init, TG_UINT16);
  RegisterBicubic<int16_t>(init, TG_INT16);
  RegisterBicubic<int32_t>(init, TG_INT32);
  RegisterBicubic<int64_t>(init, TG_INT64);
  init.Kernel<ResizeBicubicGradOp<float>>(
      KernelBuilder("ResizeBicubicGrad", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<ResizeBicubicGradOp<double>>(
      KernelBuilder("ResizeBicubicGrad", "CPU").TypeConstraint("T", TG_DOUBLE));
}

}  // namespace tgraph_cpu
