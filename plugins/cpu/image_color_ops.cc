// RGBToHSV and HSVToRGB (tf.image.rgb_to_hsv / hsv_to_rgb) and the adjustments tf.image's
// augmentations apply: AdjustContrastv2 (each channel of each image moved away from its mean
// by contrast_factor), AdjustHue (the hue turned by delta of a full turn) and
// AdjustSaturation (HSV saturation scaled, clamped to [0, 1]). The formulas are TensorFlow's
// CPU kernels' (hue in [0, 1), 0 for grays; saturation range / max, 0 for black). half and
// bfloat16 are computed in float, double in double.
#include "image_color_kernels.h"

#include <Eigen/Core>  // Eigen::half, Eigen::bfloat16

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// The type the arithmetic runs in.
template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

std::string ShapeString(const TensorView& t) {
  std::string s = "[";
  for (int i = 0; i < t.rank(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(t.dim(i));
  }
  return s + "]";
}

// Input 0 has rank >= min_rank and 3 channels (when `rgb`); input 1 (if any) is a scalar.
bool CheckInputs(Context& ctx, int min_rank, bool rgb, const char* scalar_name) {
  TensorView in = ctx.input(0);
  if (in.rank() < min_rank) {
    ctx.Fail(TG_INVALID_ARGUMENT, "input must be at least " + std::to_string(min_rank) +
                                      "-D, got shape" + ShapeString(in));
    return false;
  }
  if (rgb && in.dim(in.rank() - 1) != 3) {
    ctx.Fail(TG_INVALID_ARGUMENT, "input must have 3 channels but input only has " +
                                      std::to_string(in.dim(in.rank() - 1)) + " channels.");
    return false;
  }
  if (scalar_name != nullptr && ctx.input(1).rank() != 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(scalar_name) + " must be scalar: " +
                                      ShapeString(ctx.input(1)));
    return false;
  }
  return true;
}

// RGB -> HSV of one pixel.
template <typename A>
void ToHsv(A r, A g, A b, A* h, A* s, A* v) {
  const A max = std::max(r, std::max(g, b));
  const A range = max - std::min(r, std::min(g, b));
  *s = max > 0 ? range / max : A(0);
  const A norm = A(1) / (A(6) * range);
  A hue;
  if (r == max) {
    hue = norm * (g - b);
  } else if (g == max) {
    hue = norm * (b - r) + A(2) / A(6);
  } else {
    hue = norm * (r - g) + A(4) / A(6);
  }
  if (!(range > 0)) hue = 0;
  if (hue < 0) hue += A(1);
  *h = hue;
  *v = max;
}

// HSV -> RGB of one pixel: each channel's share from piecewise-linear ramps in 6 * h.
template <typename A>
void ToRgb(A h, A s, A v, A* r, A* g, A* b) {
  const A dh = h * A(6);
  auto ramp = [](A x) { return std::min(A(1), std::max(A(0), x)); };
  const A dr = ramp(std::abs(dh - A(3)) - A(1));
  const A dg = ramp(A(2) - std::abs(dh - A(2)));
  const A db = ramp(A(2) - std::abs(dh - A(4)));
  const A one_s = A(1) - s;
  *r = (one_s + s * dr) * v;
  *g = (one_s + s * dg) * v;
  *b = (one_s + s * db) * v;
}

template <typename T, bool kToHsv>
class ColorspaceOp {
 public:
  explicit ColorspaceOp(Construction&) {}
  void Compute(Context& ctx) {
    if (!CheckInputs(ctx, 1, true, nullptr)) return;
    TensorView in = ctx.input(0);
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    const T* x = in.data<T>();
    T* y = out.mutable_data<T>();
    using A = Acc<T>;
    for (int64_t i = 0; i < in.num_elements(); i += 3) {
      A a, b, c;
      if constexpr (kToHsv) {
        ToHsv<A>(A(x[i]), A(x[i + 1]), A(x[i + 2]), &a, &b, &c);
      } else {
        ToRgb<A>(A(x[i]), A(x[i + 1]), A(x[i + 2]), &a, &b, &c);
      }
      y[i] = T(a);
      y[i + 1] = T(b);
      y[i + 2] = T(c);
    }
  }
};

template <typename T>
class AdjustContrastOp {
 public:
  explicit AdjustContrastOp(Construction&) {}
  void Compute(Context& ctx) {
    if (!CheckInputs(ctx, 3, false, "contrast_factor")) return;
    TensorView in = ctx.input(0);
    const float factor = *ctx.input(1).data<float>();
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    const int r = in.rank();
    const int64_t channels = in.dim(r - 1), pixels = in.dim(r - 2) * in.dim(r - 3);
    const int64_t images = pixels * channels == 0 ? 0 : in.num_elements() / (pixels * channels);
    const T* x = in.data<T>();
    T* y = out.mutable_data<T>();
    std::vector<double> sums(static_cast<size_t>(channels));
    for (int64_t n = 0; n < images; ++n) {
      const T* xi = x + n * pixels * channels;
      T* yi = y + n * pixels * channels;
      std::fill(sums.begin(), sums.end(), 0.0);
      for (int64_t p = 0; p < pixels; ++p) {
        for (int64_t c = 0; c < channels; ++c) sums[c] += float(xi[p * channels + c]);
      }
      for (int64_t c = 0; c < channels; ++c) sums[c] /= static_cast<double>(pixels);
      for (int64_t p = 0; p < pixels; ++p) {
        for (int64_t c = 0; c < channels; ++c) {
          const float mean = static_cast<float>(sums[c]);
          yi[p * channels + c] = T((float(xi[p * channels + c]) - mean) * factor + mean);
        }
      }
    }
  }
};

// AdjustHue and AdjustSaturation: per pixel through HSV.
template <typename T, bool kHue>
class AdjustHsvOp {
 public:
  explicit AdjustHsvOp(Construction&) {}
  void Compute(Context& ctx) {
    if (!CheckInputs(ctx, 3, true, kHue ? "delta" : "scale")) return;
    TensorView in = ctx.input(0);
    const float amount = *ctx.input(1).data<float>();
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    const T* x = in.data<T>();
    T* y = out.mutable_data<T>();
    for (int64_t i = 0; i < in.num_elements(); i += 3) {
      float h, s, v, r, g, b;
      ToHsv<float>(float(x[i]), float(x[i + 1]), float(x[i + 2]), &h, &s, &v);
      if constexpr (kHue) {
        h += amount;
        h -= std::floor(h);  // back into [0, 1)
        if (h >= 1) h = 0;
      } else {
        s = std::min(1.0f, std::max(0.0f, s * amount));
      }
      ToRgb<float>(h, s, v, &r, &g, &b);
      y[i] = T(r);
      y[i + 1] = T(g);
      y[i + 2] = T(b);
    }
  }
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init, TG_DataType dtype, bool adjust) {
  init.Kernel<ColorspaceOp<T, true>>(KernelBuilder("RGBToHSV", "CPU").TypeConstraint("T", dtype));
  init.Kernel<ColorspaceOp<T, false>>(KernelBuilder("HSVToRGB", "CPU").TypeConstraint("T", dtype));
  if (!adjust) return;
  init.Kernel<AdjustContrastOp<T>>(
      KernelBuilder("AdjustContrastv2", "CPU").TypeConstraint("T", dtype));
  init.Kernel<AdjustHsvOp<T, true>>(KernelBuilder("AdjustHue", "CPU").TypeConstraint("T", dtype));
  init.Kernel<AdjustHsvOp<T, false>>(
      KernelBuilder("AdjustSaturation", "CPU").TypeConstraint("T", dtype));
}

}  // namespace

void RegisterImageColorKernels(tgraph::plugin::Init& init) {
  // The adjustments run on float only, as TensorFlow's CPU kernels (its op defs allow half,
  // which tf.image's functions convert to float first).
  RegisterFor<float>(init, TG_FLOAT, true);
  RegisterFor<Eigen::half>(init, TG_HALF, false);
  RegisterFor<double>(init, TG_DOUBLE, false);
  RegisterFor<Eigen::bfloat16>(init, TG_BFLOAT16, false);
}

}  // namespace tgraph_cpu
