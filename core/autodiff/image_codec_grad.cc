// The image codec ops (core/ops/image_codec_ops.cc) have no gradient, as in TensorFlow:
// their inputs or outputs are encoded strings, and decoding quantizes to integers. Nor do
// HSVToRGB (TensorFlow's NotDifferentiable) and the Adjust* ops (none registered there).
// RGBToHSV has one in TensorFlow that is not built here yet (the gradient coverage test
// lists it).
#include "core/autodiff/gradient_registry.h"

namespace tgraph {

Status RegisterImageCodecGradients(GradientFunctionRegistry& registry) {
  Status first;
  for (const char* op : {"DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage",
                         "ExtractJpegShape", "EncodeJpeg", "EncodePng", "HSVToRGB",
                         "AdjustContrastv2", "AdjustHue", "AdjustSaturation"}) {
    Status s = registry.RegisterNotDifferentiable(op);
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first;
}

}  // namespace tgraph
