// The image codec ops (core/ops/image_codec_ops.cc) have no gradient, as in TensorFlow:
// their inputs or outputs are encoded strings, and decoding quantizes to integers.
#include "core/autodiff/gradient_registry.h"

namespace tgraph {

Status RegisterImageCodecGradients(GradientFunctionRegistry& registry) {
  Status first;
  for (const char* op : {"DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage",
                         "ExtractJpegShape", "EncodeJpeg", "EncodePng"}) {
    Status s = registry.RegisterNotDifferentiable(op);
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first;
}

}  // namespace tgraph
