// What the CPU plugin's image resizing kernels share (image_resize_ops.cc: bilinear and
// nearest; image_resize_bicubic_ops.cc; image_resize_area_op.cc): the align_corners /
// half_pixel_centers attrs, the checks of images and size (and of a gradient's grads and
// original_image) with the output's allocation, and TensorFlow's scale (in / out, or
// (in - 1) / (out - 1) with align_corners).
#pragma once

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

}  // namespace image_resize
}  // namespace tgraph_cpu
