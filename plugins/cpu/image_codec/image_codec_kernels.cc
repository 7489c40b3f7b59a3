// Kernels of TensorFlow's image codec ops over image_codec.h. As in TensorFlow, every decode
// op sniffs the format from the bytes: DecodeJpeg and DecodePng also decode each other's
// format (TensorFlow documents it), DecodeBmp only BMP, DecodeImage all of them. GIF is not
// decoded here (no GIF library in the build): a GIF fails the node, saying so.
#include "image_codec_kernels.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "image_codec.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
namespace ic = image_codec;

const char* FormatName(ic::Format f) {
  switch (f) {
    case ic::Format::kJpeg: return "JPEG";
    case ic::Format::kPng: return "PNG";
    case ic::Format::kGif: return "GIF";
    case ic::Format::kBmp: return "BMP";
    default: return "unknown";
  }
}

std::string ShapeString(const TensorView& t) {
  std::string s = "[";
  for (int i = 0; i < t.rank(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(t.dim(i));
  }
  return s + "]";
}

// A scalar string input's bytes, or a failed node.
bool ScalarBytes(Context& ctx, std::string_view* bytes) {
  TensorView in = ctx.input(0);
  if (in.rank() != 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "contents must be scalar, got shape " + ShapeString(in));
    return false;
  }
  *bytes = in.string_at(0);
  return true;
}

class DecodeImageOp {
 public:
  explicit DecodeImageOp(Construction& c) : op_(c.op_type()) {
    c.GetAttr("channels", &channels_);
    if (c.HasAttr("dtype")) c.GetAttr("dtype", &dtype_);
    if (!c.ok()) return;
    if (channels_ != 0 && channels_ != 1 && channels_ != 3 && channels_ != 4) {
      c.Fail(TG_INVALID_ARGUMENT, "`channels` must be 0, 1, 3 or 4 but got " +
                                             std::to_string(channels_));
    }
    if (op_ == "DecodeJpeg" || op_ == "DecodeAndCropJpeg") {
      c.GetAttr("ratio", &jpeg_.ratio);
      c.GetAttr("fancy_upscaling", &jpeg_.fancy_upscaling);
      c.GetAttr("try_recover_truncated", &jpeg_.try_recover_truncated);
      c.GetAttr("acceptable_fraction", &jpeg_.acceptable_fraction);
      std::string dct;
      c.GetAttr("dct_method", &dct);
      if (!c.ok()) return;
      if (jpeg_.ratio != 1 && jpeg_.ratio != 2 && jpeg_.ratio != 4 && jpeg_.ratio != 8) {
        c.Fail(TG_INVALID_ARGUMENT,
                      "ratio must be 1, 2, 4, or 8, got " + std::to_string(jpeg_.ratio));
      }
      if (!dct.empty() && dct != "INTEGER_FAST" && dct != "INTEGER_ACCURATE") {
        c.Fail(TG_INVALID_ARGUMENT,
                      "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}");
      }
      jpeg_.fast_dct = dct != "INTEGER_ACCURATE";  // TensorFlow's default is the fast one
    }
  }

  void Compute(Context& ctx) {
    std::string_view bytes;
    if (!ScalarBytes(ctx, &bytes)) return;
    const ic::Format format = ic::Classify(bytes);
    ic::JpegDecodeOptions jpeg = jpeg_;
    if (op_ == "DecodeAndCropJpeg") {
      TensorView window = ctx.input(1);
      if (window.num_elements() != 4) {
        return ctx.Fail(TG_INVALID_ARGUMENT,
                        "crop_window must have 4 elements, got shape " + ShapeString(window));
      }
      if (format != ic::Format::kJpeg) {
        return ctx.Fail(TG_INVALID_ARGUMENT,
                        std::string("DecodeAndCropJpeg operation can run on JPEG only, but "
                                    "detected ") + FormatName(format));
      }
      const int32_t* w = window.data<int32_t>();
      jpeg.crop = true;
      jpeg.crop_y = w[0];
      jpeg.crop_x = w[1];
      jpeg.crop_h = w[2];
      jpeg.crop_w = w[3];
    }
    if (format == ic::Format::kUnknown) {
      return ctx.Fail(TG_INVALID_ARGUMENT,
                      "Unknown image file format. One of JPEG, PNG, GIF, BMP required.");
    }
    if (op_ == "DecodeBmp" ? format != ic::Format::kBmp
                           : (op_ != "DecodeImage" && format == ic::Format::kBmp)) {
      return ctx.Fail(TG_INVALID_ARGUMENT,
                      std::string("Trying to decode ") + FormatName(format) + " format using " +
                          op_ + " op. Use `decode_" +
                          (format == ic::Format::kBmp ? "bmp" : "jpeg` or `decode_png") +
                          "` or `decode_image` instead.");
    }
    ic::Image image;
    std::string error;
    bool ok = false;
    switch (format) {
      case ic::Format::kJpeg: {
        if (channels_ == 4) {
          return ctx.Fail(TG_INVALID_ARGUMENT, "JPEG does not support 4 channels");
        }
        jpeg.channels = channels_;
        ok = ic::DecodeJpeg(bytes, jpeg, &image, &error);
        break;
      }
      case ic::Format::kPng:
        ok = ic::DecodePng(bytes, channels_, dtype_ == TG_UINT8 ? 8 : 16, &image, &error);
        break;
      case ic::Format::kBmp:
        if (channels_ == 1) {
          return ctx.Fail(TG_INVALID_ARGUMENT,
                          "`channels` must be 0, 3 or 4 for BMP, but got 1");
        }
        ok = ic::DecodeBmp(bytes, channels_, &image, &error);
        break;
      default:
        return ctx.Fail(TG_UNIMPLEMENTED,
                        op_ + ": GIF decoding is not supported by this build of tgraph");
    }
    if (!ok) return ctx.Fail(TG_INVALID_ARGUMENT, error);
    Write(ctx, image);
  }

 private:
  // The decoded samples in the output's dtype: 8-bit images widen to uint16 as v << 8 (a
  // PNG's as v * 257, done by libpng), float is v / (2^bits - 1).
  void Write(Context& ctx, const ic::Image& image) {
    std::vector<int64_t> dims = {image.height, image.width, image.channels};
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    const size_t n = static_cast<size_t>(image.height * image.width * image.channels);
    const uint8_t* u8 = image.data.data();
    const auto* u16 = reinterpret_cast<const uint16_t*>(image.data.data());
    if (dtype_ == TG_UINT8) {
      std::copy(u8, u8 + n, out.mutable_data<uint8_t>());
    } else if (dtype_ == TG_UINT16) {
      uint16_t* o = out.mutable_data<uint16_t>();
      if (image.bits == 16) {
        std::copy(u16, u16 + n, o);
      } else {
        for (size_t i = 0; i < n; ++i) o[i] = static_cast<uint16_t>(u8[i] << 8);
      }
    } else {
      float* o = out.mutable_data<float>();
      if (image.bits == 16) {
        const float scale = 1.0f / 65535.0f;
        for (size_t i = 0; i < n; ++i) o[i] = static_cast<float>(u16[i]) * scale;
      } else {
        const float scale = 1.0f / 255.0f;
        for (size_t i = 0; i < n; ++i) o[i] = static_cast<float>(u8[i]) * scale;
      }
    }
  }

  std::string op_;
  int channels_ = 0;
  TG_DataType dtype_ = TG_UINT8;
  ic::JpegDecodeOptions jpeg_;
};

class ExtractJpegShapeOp {
 public:
  explicit ExtractJpegShapeOp(Construction& c) { c.GetAttr("output_type", &type_); }
  void Compute(Context& ctx) {
    std::string_view bytes;
    if (!ScalarBytes(ctx, &bytes)) return;
    int64_t height = 0, width = 0;
    int components = 0;
    std::string error;
    if (!ic::JpegShape(bytes, &height, &width, &components, &error)) {
      return ctx.Fail(TG_INVALID_ARGUMENT, error);
    }
    TensorMut out = ctx.AllocateOutput(0, std::vector<int64_t>{3});
    if (!ctx.ok()) return;
    if (type_ == TG_INT32) {
      int32_t* o = out.mutable_data<int32_t>();
      o[0] = static_cast<int32_t>(height);
      o[1] = static_cast<int32_t>(width);
      o[2] = components;
    } else {
      int64_t* o = out.mutable_data<int64_t>();
      o[0] = height;
      o[1] = width;
      o[2] = components;
    }
  }

 private:
  TG_DataType type_ = TG_INT32;
};

// The image input: rank 3 with nonzero sizes that fit in an int, or a failed node.
bool ImageDims(Context& ctx, int64_t* height, int64_t* width, int64_t* channels) {
  TensorView image = ctx.input(0);
  if (image.rank() != 3) {
    ctx.Fail(TG_INVALID_ARGUMENT, "image must be 3-dimensional" + ShapeString(image));
    return false;
  }
  *height = image.dim(0);
  *width = image.dim(1);
  *channels = image.dim(2);
  return true;
}

class EncodePngOp {
 public:
  explicit EncodePngOp(Construction& c) {
    c.GetAttr("compression", &compression_);
    c.GetAttr("T", &type_);
    if (c.ok() && (compression_ < -1 || compression_ > 9)) {
      c.Fail(TG_INVALID_ARGUMENT,
             "compression should be in [-1,9], got " + std::to_string(compression_));
    }
  }
  void Compute(Context& ctx) {
    int64_t height = 0, width = 0, channels = 0;
    if (!ImageDims(ctx, &height, &width, &channels)) return;
    if (channels < 1 || channels > 4) {
      return ctx.Fail(TG_INVALID_ARGUMENT, "image must have 1, 2, 3, or 4 channels, got " +
                                               std::to_string(channels));
    }
    std::string png, error;
    if (!ic::EncodePng(ctx.input(0).data<void>(), height, width, static_cast<int>(channels),
                       type_ == TG_UINT8 ? 8 : 16, compression_, &png, &error)) {
      return ctx.Fail(TG_INVALID_ARGUMENT, error);
    }
    TensorMut out = ctx.AllocateOutput(0, std::vector<int64_t>{});
    if (ctx.ok()) out.set_string(0, png);
  }

 private:
  int compression_ = -1;
  TG_DataType type_ = TG_UINT8;
};

class EncodeJpegOp {
 public:
  explicit EncodeJpegOp(Construction& c) {
    // EncodeJpegVariableQuality: every attr at its default; the quality is input 1.
    variable_quality_ = c.op_type() == "EncodeJpegVariableQuality";
    if (variable_quality_) return;
    std::string density_unit;
    c.GetAttr("format", &format_);
    c.GetAttr("quality", &options_.quality);
    c.GetAttr("progressive", &options_.progressive);
    c.GetAttr("optimize_size", &options_.optimize_size);
    c.GetAttr("chroma_downsampling", &options_.chroma_downsampling);
    c.GetAttr("density_unit", &density_unit);
    c.GetAttr("x_density", &options_.x_density);
    c.GetAttr("y_density", &options_.y_density);
    c.GetAttr("xmp_metadata", &options_.xmp_metadata);
    if (!c.ok()) return;
    if (format_ != "" && format_ != "grayscale" && format_ != "rgb") {
      c.Fail(TG_INVALID_ARGUMENT, "format must be '', grayscale or rgb, got " + format_);
    }
    if (options_.quality < 0 || options_.quality > 100) {
      c.Fail(TG_INVALID_ARGUMENT,
                    "quality must be in [0,100], got " + std::to_string(options_.quality));
    }
    if (density_unit != "in" && density_unit != "cm") {
      c.Fail(TG_INVALID_ARGUMENT,
                    "density_unit must be 'in' or 'cm', got " + density_unit);
    }
    options_.density_unit = density_unit == "in" ? 1 : 2;
    for (int d : {options_.x_density, options_.y_density}) {
      if (d < 0 || d > 65535) {  // a JFIF header's 16-bit field
        c.Fail(TG_INVALID_ARGUMENT,
                      "x_density and y_density must be in [0, 65535], got " + std::to_string(d));
      }
    }
  }
  void Compute(Context& ctx) {
    int64_t height = 0, width = 0, channels = 0;
    if (!ImageDims(ctx, &height, &width, &channels)) return;
    if (format_.empty()) {
      if (channels != 1 && channels != 3) {
        return ctx.Fail(TG_INVALID_ARGUMENT, "image must have 1 or 3 channels, got " +
                                                 ShapeString(ctx.input(0)));
      }
    } else {
      const int64_t want = format_ == "grayscale" ? 1 : 3;
      if (channels != want) {
        return ctx.Fail(TG_INVALID_ARGUMENT, "format " + format_ + " expects " +
                                                 std::to_string(want) + " channels, got " +
                                                 ShapeString(ctx.input(0)));
      }
    }
    if (height == 0 || width == 0) {
      return ctx.Fail(TG_INVALID_ARGUMENT,
                      "cannot encode an empty image as JPEG: " + ShapeString(ctx.input(0)));
    }
    ic::JpegEncodeOptions options = options_;
    if (variable_quality_) {
      TensorView quality = ctx.input(1);
      if (quality.rank() != 0) {
        return ctx.Fail(TG_INVALID_ARGUMENT,
                        "quality must be scalar: " + ShapeString(quality));
      }
      options.quality = *quality.data<int32_t>();
      if (options.quality < 0 || options.quality > 100) {
        return ctx.Fail(TG_INVALID_ARGUMENT, "quality must be in [0,100], got " +
                                                 std::to_string(options.quality));
      }
    }
    std::string jpeg, error;
    if (!ic::EncodeJpeg(ctx.input(0).data<uint8_t>(), height, width,
                        static_cast<int>(channels), options, &jpeg, &error)) {
      return ctx.Fail(TG_INVALID_ARGUMENT, error);
    }
    TensorMut out = ctx.AllocateOutput(0, std::vector<int64_t>{});
    if (ctx.ok()) out.set_string(0, jpeg);
  }

 private:
  bool variable_quality_ = false;
  std::string format_;
  ic::JpegEncodeOptions options_;
};

}  // namespace

void RegisterImageCodecKernels(tgraph::plugin::Init& init) {
  init.Kernel<DecodeImageOp>(KernelBuilder("DecodeJpeg", "CPU"));
  init.Kernel<DecodeImageOp>(KernelBuilder("DecodeBmp", "CPU"));
  init.Kernel<DecodeImageOp>(
      KernelBuilder("DecodePng", "CPU").TypeConstraint("dtype", {TG_UINT8, TG_UINT16}));
  init.Kernel<DecodeImageOp>(KernelBuilder("DecodeImage", "CPU")
                                 .TypeConstraint("dtype", {TG_UINT8, TG_UINT16, TG_FLOAT}));
  init.Kernel<ExtractJpegShapeOp>(
      KernelBuilder("ExtractJpegShape", "CPU").TypeConstraint("output_type", {TG_INT32, TG_INT64}));
  init.Kernel<EncodePngOp>(
      KernelBuilder("EncodePng", "CPU").TypeConstraint("T", {TG_UINT8, TG_UINT16}));
  init.Kernel<EncodeJpegOp>(KernelBuilder("EncodeJpeg", "CPU"));
  init.Kernel<EncodeJpegOp>(KernelBuilder("EncodeJpegVariableQuality", "CPU"));
  init.Kernel<DecodeImageOp>(KernelBuilder("DecodeAndCropJpeg", "CPU"));
}

}  // namespace tgraph_cpu
