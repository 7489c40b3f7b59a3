// The CPU plugin's image codec kernels (image_codec_kernels.cc), a static library of their
// own: they have no vector code, so every CPU variant links the one copy, and only this
// library sees libjpeg's and libpng's headers.
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

// DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeBmp, DecodeImage, ExtractJpegShape,
// EncodeJpeg, EncodeJpegVariableQuality, EncodePng.
void RegisterImageCodecKernels(tgraph::plugin::Init& init);

}  // namespace tgraph_cpu
