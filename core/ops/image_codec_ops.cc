// Image codec ops: TensorFlow graphs that preprocess in the graph (Inception's
// classify_image_graph_def.pb starts with DecodeJpeg; serving graphs take encoded image
// strings); and the color ops tf.image's augmentations use (RGBToHSV, HSVToRGB,
// AdjustContrastv2, AdjustHue, AdjustSaturation). Signatures, attrs, defaults and shape
// functions are TensorFlow's.
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

constexpr int64_t kUnknown = PartialShape::kUnknownDim;

// A scalar string in; [height, width, channels] out, channels known when the attr sets it.
Status DecodeShape(InferenceContext& c) {
  PartialShape contents;
  TG_RETURN_IF_ERROR(c.WithRank(0, 0, &contents));
  int64_t channels = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("channels", &channels));
  if (channels < 0) return c.Error("channels must be non-negative, got ", channels);
  c.set_output(0, PartialShape({kUnknown, kUnknown, channels == 0 ? kUnknown : channels}));
  return Status::OK();
}

// DecodeImage: a GIF decodes to [frames, height, width, 3] when expand_animations is set, so
// the rank is unknown then.
Status DecodeImageShape(InferenceContext& c) {
  bool expand_animations = true;
  TG_RETURN_IF_ERROR(c.GetAttr("expand_animations", &expand_animations));
  if (!expand_animations) return DecodeShape(c);
  PartialShape contents;
  TG_RETURN_IF_ERROR(c.WithRank(0, 0, &contents));
  int64_t channels = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("channels", &channels));
  if (channels < 0) return c.Error("channels must be non-negative, got ", channels);
  c.set_output(0, PartialShape());
  return Status::OK();
}

// DecodeAndCropJpeg: [crop_height, crop_width, channels], the sizes known when crop_window
// is a constant.
Status DecodeAndCropShape(InferenceContext& c) {
  PartialShape contents;
  TG_RETURN_IF_ERROR(c.WithRank(0, 0, &contents));
  int64_t channels = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("channels", &channels));
  if (channels < 0) return c.Error("channels must be non-negative, got ", channels);
  int64_t h = kUnknown, w = kUnknown;
  if (auto v = shape_fns::ConstInts(c, 1)) {
    if (v->size() != 4) return c.Error("crop_window must have 4 elements, got ", v->size());
    h = (*v)[2];
    w = (*v)[3];
  }
  c.set_output(0, PartialShape({h, w, channels == 0 ? kUnknown : channels}));
  return Status::OK();
}

// EncodeJpegVariableQuality: an image and a scalar quality in, a scalar string out.
Status EncodeVariableQualityShape(InferenceContext& c) {
  PartialShape image, quality;
  TG_RETURN_IF_ERROR(c.WithRank(0, 3, &image));
  TG_RETURN_IF_ERROR(c.WithRank(1, 0, &quality));
  c.set_output(0, PartialShape(std::vector<int64_t>{}));
  return Status::OK();
}

// An [height, width, channels] image in, a scalar string out.
Status EncodeShape(InferenceContext& c) {
  PartialShape image;
  TG_RETURN_IF_ERROR(c.WithRank(0, 3, &image));
  c.set_output(0, PartialShape(std::vector<int64_t>{}));
  return Status::OK();
}

Status ExtractJpegShapeShape(InferenceContext& c) {
  PartialShape contents;
  TG_RETURN_IF_ERROR(c.WithRank(0, 0, &contents));
  c.set_output(0, PartialShape({3}));
  return Status::OK();
}

// Images of rank >= 3 ([..., height, width, channels]) and a scalar factor when `scalar`:
// output 0 is the images' shape.
Status AdjustShape(InferenceContext& c, bool scalar) {
  const PartialShape& images = c.input_shape(0);
  if (images.known_rank() && images.rank() < 3) {
    return c.Error("images must be at least 3-D, got ", images.ToString());
  }
  if (scalar) {
    PartialShape factor;
    TG_RETURN_IF_ERROR(c.WithRank(1, 0, &factor));
  }
  c.set_output(0, images);
  return Status::OK();
}

// [..., 3] in and out.
Status ColorspaceShape(InferenceContext& c) {
  const PartialShape& images = c.input_shape(0);
  if (images.known_rank()) {
    if (images.rank() < 1) return c.Error("images must be at least 1-D, got a scalar");
    const int64_t channels = images.dim(images.rank() - 1);
    if (channels >= 0 && channels != 3) {
      return c.Error("images must have 3 channels, got shape ", images.ToString());
    }
  }
  c.set_output(0, images);
  return Status::OK();
}

}  // namespace

Status RegisterImageCodecOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("DecodeJpeg")
          .Input("contents: string").Output("image: uint8")
          .Attr("channels: int = 0")
          .Attr("ratio: int = 1")
          .Attr("fancy_upscaling: bool = true")
          .Attr("try_recover_truncated: bool = false")
          .Attr("acceptable_fraction: float = 1.0")
          .Attr("dct_method: string = ''")
          .SetShapeFn(DecodeShape)
          .Doc("A JPEG (or PNG) image decoded to [height, width, channels] uint8: channels 0 "
               "keeps the file's, 1 gray, 3 RGB; ratio downscales by 1, 2, 4 or 8."),
      OpDefBuilder("DecodeAndCropJpeg")
          .Input("contents: string").Input("crop_window: int32").Output("image: uint8")
          .Attr("channels: int = 0")
          .Attr("ratio: int = 1")
          .Attr("fancy_upscaling: bool = true")
          .Attr("try_recover_truncated: bool = false")
          .Attr("acceptable_fraction: float = 1.0")
          .Attr("dct_method: string = ''")
          .SetShapeFn(DecodeAndCropShape)
          .Doc("The window crop_window = [y, x, height, width] of a JPEG image, decoded "
               "alone (libjpeg's cropped decoding, as TensorFlow's)."),
      OpDefBuilder("DecodePng")
          .Input("contents: string").Output("image: dtype")
          .Attr("channels: int = 0")
          .Attr("dtype: {uint8, uint16} = DT_UINT8")
          .SetShapeFn(DecodeShape)
          .Doc("A PNG (or JPEG) image decoded to [height, width, channels] of dtype: channels "
               "0 keeps the file's, 1 gray, 3 RGB, 4 RGBA."),
      OpDefBuilder("DecodeBmp")
          .Input("contents: string").Output("image: uint8")
          .Attr("channels: int = 0")
          .SetShapeFn(DecodeShape)
          .Doc("An uncompressed BMP image decoded to [height, width, channels] uint8."),
      OpDefBuilder("DecodeImage")
          .Input("contents: string").Output("image: dtype")
          .Attr("channels: int = 0")
          .Attr("dtype: {uint8, uint16, float} = DT_UINT8")
          .Attr("expand_animations: bool = true")
          .SetShapeFn(DecodeImageShape)
          .Doc("A JPEG, PNG or BMP image, its format found from its bytes, decoded to "
               "[height, width, channels] of dtype (float: scaled to [0, 1])."),
      OpDefBuilder("ExtractJpegShape")
          .Input("contents: string").Output("image_shape: output_type")
          .Attr("output_type: {int32, int64} = DT_INT32")
          .SetShapeFn(ExtractJpegShapeShape)
          .Doc("A JPEG's [height, width, components] from its header, without decoding it."),
      OpDefBuilder("EncodePng")
          .Input("image: T").Output("contents: string")
          .Attr("compression: int = -1")
          .Attr("T: {uint8, uint16} = DT_UINT8")
          .SetShapeFn(EncodeShape)
          .Doc("A [height, width, channels] image (1 to 4 channels) encoded as PNG; "
               "compression -1 (zlib's default) to 9."),
      OpDefBuilder("EncodeJpeg")
          .Input("image: uint8").Output("contents: string")
          .Attr("format: {'', 'grayscale', 'rgb'} = ''")
          .Attr("quality: int = 95")
          .Attr("progressive: bool = false")
          .Attr("optimize_size: bool = false")
          .Attr("chroma_downsampling: bool = true")
          .Attr("density_unit: {'in', 'cm'} = 'in'")
          .Attr("x_density: int = 300")
          .Attr("y_density: int = 300")
          .Attr("xmp_metadata: string = ''")
          .SetShapeFn(EncodeShape)
          .Doc("A [height, width, channels] uint8 image (1 or 3 channels) encoded as JPEG."),
      OpDefBuilder("EncodeJpegVariableQuality")
          .Input("images: uint8").Input("quality: int32").Output("contents: string")
          .SetShapeFn(EncodeVariableQualityShape)
          .Doc("EncodeJpeg with the quality (0 to 100) an input and every attr at its "
               "default."),
      OpDefBuilder("RGBToHSV")
          .Input("images: T").Output("output: T")
          .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
          .SetShapeFn(ColorspaceShape)
          .Doc("RGB in [0, 1] (last dimension 3) to hue, saturation, value, each in [0, 1]."),
      OpDefBuilder("HSVToRGB")
          .Input("images: T").Output("output: T")
          .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
          .SetShapeFn(ColorspaceShape)
          .Doc("Hue, saturation, value (last dimension 3) to RGB."),
      OpDefBuilder("AdjustContrastv2")
          .Input("images: T").Input("contrast_factor: float").Output("output: T")
          .Attr("T: {half, float} = DT_FLOAT")
          .SetShapeFn([](InferenceContext& c) { return AdjustShape(c, true); })
          .Doc("Each channel of each image: (x - mean) * contrast_factor + mean, the mean "
               "over the image's pixels."),
      OpDefBuilder("AdjustHue")
          .Input("images: T").Input("delta: float").Output("output: T")
          .Attr("T: {half, float} = DT_FLOAT")
          .SetShapeFn([](InferenceContext& c) { return AdjustShape(c, false); })
          .Doc("RGB images with the hue turned by delta (a fraction of the color wheel)."),
      OpDefBuilder("AdjustSaturation")
          .Input("images: T").Input("scale: float").Output("output: T")
          .Attr("T: {half, float} = DT_FLOAT")
          .SetShapeFn([](InferenceContext& c) { return AdjustShape(c, false); })
          .Doc("RGB images with the HSV saturation multiplied by scale (clamped to [0, 1])."),
  });
}

}  // namespace tgraph
