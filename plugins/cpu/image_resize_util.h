// What the CPU plugin's image resizing kernels share (image_resize_ops.cc: bilinear and
// nearest; image_resize_bicubic_ops.cc; image_resize_area_op.cc): the align_corners /
// half_pixel_centers attrs, the checks of images and size (and of a gradient's grads and
// original_image) with the output's allocation, and TensorFlow's scale (in / out, or
// (in - 1) / (out - 1) with align_corners); ResizeSeparable, bicubic and area resizing by
// source row and column weights; and ResizeGradOp, the gradient of the bilinear and bicubic
// resizes over their weights.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "array_kernel_util.h"

namespace tgraph_cpu {

void RegisterImageResizeBicubicKernels(tgraph::plugin::Init& init);  // image_resize_bicubic_ops.cc
void RegisterImageResizeAreaKernels(tgraph::plugin::Init& init);     // image_resize_area_op.cc

namespace image_resize {

using array_util::Construction;
using array_util::Context;
using array_util::ShapeString;
using array_util::TensorMut;
using array_util::TensorView;

struct ResizeAttrs {
  bool align_corners = false;
  bool half_pixel = false;
};

// Reads the attrs; false (the construction failed) when missing or both true.
inline bool GetResizeAttrs(Construction& c, ResizeAttrs* a) {
  if (!c.GetAttr("align_corners", &a->align_corners) ||
      !c.GetAttr("half_pixel_centers", &a->half_pixel)) {
    return false;
  }
  if (a->align_corners && a->half_pixel) {
    c.Fail(TG_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.");
    return false;
  }
  return true;
}

// Reads images [N, H, W, C] and size [h, w]; allocates the float or T output
// [N, h, w, C]. False when failed.
inline bool Prepare(Context& ctx, std::vector<int64_t>* in, int64_t* out_h, int64_t* out_w,
                    TensorMut* out) {
  TensorView images = ctx.input(0);
  *in = images.dims();
  if (in->size() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "images must be 4-D [batch, height, width, channels], got " +
                                      ShapeString(*in));
    return false;
  }
  TensorView size = ctx.input(1);
  if (size.rank() != 1 || size.dim(0) != 2) {
    ctx.Fail(TG_INVALID_ARGUMENT, "size must be a vector of 2 values, got shape " +
                                      ShapeString(size.dims()));
    return false;
  }
  const int32_t* s = size.data<int32_t>();
  if (s[0] <= 0 || s[1] <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "size must be positive, got [" + std::to_string(s[0]) + "," +
                                      std::to_string(s[1]) + "]");
    return false;
  }
  if ((*in)[1] <= 0 || (*in)[2] <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "images must have positive height and width, got " +
                                      ShapeString(*in));
    return false;
  }
  *out_h = s[0];
  *out_w = s[1];
  *out = ctx.AllocateOutput(0, {(*in)[0], *out_h, *out_w, (*in)[3]});
  return ctx.ok();
}

// The gradients' checks, shared by ResizeBilinearGrad and ResizeBicubicGrad: reads grads
// [N, h, w, C] (input 0) and original_image [N, H, W, C] (input 1, H and W positive);
// allocates the output [N, H, W, C]. False when failed.
inline bool PrepareGrad(Context& ctx, std::vector<int64_t>* grads_dims,
                        std::vector<int64_t>* image_dims, TensorMut* out) {
  *grads_dims = ctx.input(0).dims();
  *image_dims = ctx.input(1).dims();
  const std::vector<int64_t>& gd = *grads_dims;
  const std::vector<int64_t>& id = *image_dims;
  if (gd.size() != 4 || id.size() != 4 || gd[0] != id[0] || gd[3] != id[3] || id[1] <= 0 ||
      id[2] <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "grads " + ShapeString(gd) + " and original_image " +
                                      ShapeString(id) +
                                      " must be 4-D with the same batch and channels");
    return false;
  }
  *out = ctx.AllocateOutput(0, id);
  return ctx.ok();
}

inline float Scale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                  : static_cast<float>(in) / static_cast<float>(out);
}

// Registers Op<T> for `op` on the CPU for one dtype, with the size in host memory; and for
// every real type ResizeBicubic and ResizeArea read.
template <template <typename> class Op, typename T>
void RegisterResize(tgraph::plugin::Init& init, const char* op, TG_DataType dtype) {
  init.Kernel<Op<T>>(
      tgraph::plugin::KernelBuilder(op, "CPU").TypeConstraint("T", dtype).HostMemory("size"));
}
template <template <typename> class Op>
void RegisterResizeForRealTypes(tgraph::plugin::Init& init, const char* op) {
  RegisterResize<Op, float>(init, op, TG_FLOAT);
  RegisterResize<Op, double>(init, op, TG_DOUBLE);
  RegisterResize<Op, uint8_t>(init, op, TG_UINT8);
  RegisterResize<Op, int8_t>(init, op, TG_INT8);
  RegisterResize<Op, uint16_t>(init, op, TG_UINT16);
  RegisterResize<Op, int16_t>(init, op, TG_INT16);
  RegisterResize<Op, int32_t>(init, op, TG_INT32);
  RegisterResize<Op, int64_t>(init, op, TG_INT64);
}

// The resizes by weights of source rows and columns (a policy Taps, as below: Count(coord)
// taps, Index(coord, k), Weight(coord, k)): ResizeBicubic and ResizeArea. Images [N, H, W,
// C] of T (in, its dims) -> [N, oh, ow, C] float (dst): each output row blends its source rows
// by ys's weights into one row, then each output pixel blends that row's pixels by xs's,
// times `norm`. Output rows split over the intra-op pool at `row_cost` each.
template <class Taps, typename T>
void ResizeSeparable(Context& ctx, const T* src, const std::vector<int64_t>& in, int64_t oh,
                     int64_t ow, const std::vector<typename Taps::Coord>& ys,
                     const std::vector<typename Taps::Coord>& xs, float norm, double row_cost,
                     float* dst) {
  const int64_t h = in[1], w = in[2], c = in[3];
  using Coord = typename Taps::Coord;
  ctx.ParallelFor(in[0] * oh, row_cost, [&](int64_t b, int64_t e) {
    std::vector<float> rows(static_cast<size_t>(w * c));
    for (int64_t r = b; r < e; ++r) {
      const int64_t batch = r / oh;
      const Coord& cy = ys[static_cast<size_t>(r % oh)];
      std::fill(rows.begin(), rows.end(), 0.0f);
      for (int k = 0; k < Taps::Count(cy); ++k) {
        const T* line = src + (batch * h + Taps::Index(cy, k)) * w * c;
        const float wy = Taps::Weight(cy, k);
        for (int64_t i = 0; i < w * c; ++i) {
          rows[static_cast<size_t>(i)] += wy * static_cast<float>(line[i]);
        }
      }
      float* o = dst + r * ow * c;
      for (int64_t x = 0; x < ow; ++x) {
        const Coord& cx = xs[static_cast<size_t>(x)];
        for (int64_t ch = 0; ch < c; ++ch) {
          float v = 0;
          for (int k = 0; k < Taps::Count(cx); ++k) {
            v += Taps::Weight(cx, k) * rows[static_cast<size_t>(Taps::Index(cx, k) * c + ch)];
          }
          o[x * c + ch] = v * norm;
        }
      }
    }
  });
}

// The gradient of an interpolating resize (ResizeBilinearGrad, ResizeBicubicGrad): grads
// [N, h, w, C] float and original_image [N, H, W, C] -> [N, H, W, C] of T. Each gradient
// pixel is spread over the Taps::kTaps x kTaps input pixels its output pixel read, by the
// forward op's weights, as TensorFlow's grad * y weight * x weight. Split by image, each
// with its own float accumulation, so no two threads add into one element.
//
// Taps, the resize's policy: kTaps (taps per dimension, every coordinate's Count), kCost
// (the intra-op pool's cost per gradient element), Coord (one output coordinate's source
// indices and weights), Weights(out, in, scale, half_pixel) -> std::vector<Coord>, and
// Index(coord, k) / Weight(coord, k) for tap k.
template <class Taps, typename T>
class ResizeGradOp {
 public:
  explicit ResizeGradOp(Construction& c) { GetResizeAttrs(c, &attrs_); }
  void Compute(Context& ctx) {
    TensorView grads = ctx.input(0);
    std::vector<int64_t> gd, id;
    TensorMut out;
    if (!PrepareGrad(ctx, &gd, &id, &out)) return;
    const int64_t n = id[0], h = id[1], w = id[2], c = id[3], oh = gd[1], ow = gd[2];
    using Coord = typename Taps::Coord;
    const std::vector<Coord> ys =
        Taps::Weights(oh, h, Scale(h, oh, attrs_.align_corners), attrs_.half_pixel);
    const std::vector<Coord> xs =
        Taps::Weights(ow, w, Scale(w, ow, attrs_.align_corners), attrs_.half_pixel);
    const float* g = grads.data<float>();
    T* o = out.mutable_data<T>();
    constexpr int kTaps = Taps::kTaps;
    ctx.ParallelFor(n, static_cast<double>(oh * ow * c) * Taps::kCost, [&](int64_t b, int64_t e) {
      std::vector<float> acc(static_cast<size_t>(h * w * c));
      for (int64_t batch = b; batch < e; ++batch) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t y = 0; y < oh; ++y) {
          const Coord& cy = ys[static_cast<size_t>(y)];
          for (int64_t x = 0; x < ow; ++x) {
            const Coord& cx = xs[static_cast<size_t>(x)];
            const float* gp = g + ((batch * oh + y) * ow + x) * c;
            for (int ky = 0; ky < kTaps; ++ky) {
              const float wy = Taps::Weight(cy, ky);
              for (int kx = 0; kx < kTaps; ++kx) {
                const float wx = Taps::Weight(cx, kx);
                float* dst = acc.data() + (Taps::Index(cy, ky) * w + Taps::Index(cx, kx)) * c;
                for (int64_t ch = 0; ch < c; ++ch) dst[ch] += gp[ch] * wy * wx;
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

}  // namespace image_resize
}  // namespace tgraph_cpu
