// The color-space and color-adjustment kernels tf.image's augmentations use
// (image_color_ops.cc).
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

// RGBToHSV, HSVToRGB (half, bfloat16, float, double), AdjustContrastv2, AdjustHue,
// AdjustSaturation (float, as TensorFlow's CPU kernels).
void RegisterImageColorKernels(tgraph::plugin::Init& init);

}  // namespace tgraph_cpu
