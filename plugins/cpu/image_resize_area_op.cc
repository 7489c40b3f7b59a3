// ResizeArea (NHWC), TensorFlow's: output pixel (y, x) covers the source rectangle
// [y * sy, (y + 1) * sy) x [x * sx, (x + 1) * sx) (s the scale: in / out, or (in - 1) /
// (out - 1) with align_corners, where the rectangle may reach past the image: those cells read
// the last row or column); its value is the mean of the source pixels weighted by how much of
// each the rectangle covers. Its one attr is align_corners (TF's op has no half_pixel_centers).
// Any real type in, float out. TF defines no gradient for it.
#include <algorithm>
#include <cmath>
#include <vector>

#include "array_kernel_util.h"
#include "image_resize_util.h"

namespace tgraph_cpu {
namespace {

using namespace image_resize;

// The source cells one output coordinate covers and the covered length of each.
struct Span {
  std::vector<int64_t> index;
  std::vector<float> weight;
};

std::vector<Span> Spans(int64_t out, int64_t in, float scale) {
  std::vector<Span> spans(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float lo = static_cast<float>(o) * scale, hi = static_cast<float>(o + 1) * scale;
    Span& s = spans[static_cast<size_t>(o)];
    for (int64_t i = static_cast<int64_t>(std::floor(lo)); i < static_cast<int64_t>(std::ceil(hi)); ++i) {
      const float cell = static_cast<float>(i);
      s.index.push_back(std::clamp<int64_t>(i, 0, in - 1));
      s.weight.push_back(std::min(cell + 1, hi) - std::max(cell, lo));
    }
  }
  return spans;
}

// A Span's taps, as image_resize_util.h's ResizeSeparable takes them.
struct SpanTaps {
  using Coord = Span;
  static int Count(const Span& s) { return static_cast<int>(s.index.size()); }
  static int64_t Index(const Span& s, int k) { return s.index[static_cast<size_t>(k)]; }
  static float Weight(const Span& s, int k) { return s.weight[static_cast<size_t>(k)]; }
};

template <typename T>
class ResizeAreaOp {
 public:
  explicit ResizeAreaOp(Construction& c) { c.GetAttr("align_corners", &align_corners_); }
  void Compute(Context& ctx) {
    std::vector<int64_t> in;
    int64_t oh = 0, ow = 0;
    TensorMut out;
    if (!Prepare(ctx, &in, &oh, &ow, &out)) return;
    const int64_t h = in[1], w = in[2], c = in[3];
    const float sy = Scale(h, oh, align_corners_), sx = Scale(w, ow, align_corners_);
    const std::vector<Span> ys = Spans(oh, h, sy), xs = Spans(ow, w, sx);
    ResizeSeparable<SpanTaps>(ctx, ctx.input(0).data<T>(), in, oh, ow, ys, xs, 1.0f / (sy * sx),
                              static_cast<double>(ow * c) * 4 * (sy + 1) * (sx + 1),
                              out.mutable_data<float>());
  }

 private:
  bool align_corners_ = false;
};

}  // namespace

void RegisterImageResizeAreaKernels(tgraph::plugin::Init& init) {
  RegisterResizeForRealTypes<ResizeAreaOp>(init, "ResizeArea");
}

}  // namespace tgraph_cpu
