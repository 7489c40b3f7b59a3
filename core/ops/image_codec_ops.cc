// Image codec ops: TensorFlow graphs that preprocess in the graph (Inception's
// classify_image_graph_def.pb starts with DecodeJpeg; serving graphs take encoded image
// strings). Signatures, attrs, defaults and shape functions are TensorFlow's.
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
  });
}

}  // namespace tgraph
