// PNG through libpng, with the conversions TensorFlow's decoder asks libpng for: a palette
// expanded to RGB (RGBA with a tRNS chunk), gray of fewer than 8 bits expanded, RGB to gray
// by libpng's weighted sum (0.299, 0.587, the rest blue), gray copied to RGB, alpha added
// (opaque, or from tRNS) or stripped, 16 bits cut to 8 by dropping the low byte, and 8 bits
// widened to 16 as v * 257.
//
// libpng reports a fatal error through the error callback, which must not return: ours
// longjmps to the setjmp in Guarded(). As in jpeg_codec.cc, the frames jumped over are
// libpng's and the callbacks', and the structs libpng allocated are freed by owners that
// live outside the jump.
#include "image_codec.h"

#include <csetjmp>
#include <cstring>

#include <png.h>

namespace tgraph_cpu::image_codec {
namespace {

struct Callbacks {
  std::string message;  // the library's error (set before the jump)
  std::string_view input;
  size_t read = 0;
  std::string* output = nullptr;
};

void OnError(png_structp png, png_const_charp message) {
  auto* cb = static_cast<Callbacks*>(png_get_error_ptr(png));
  // std::string's assign may throw: a message that does not fit stays empty.
  try {
    cb->message = message != nullptr ? message : "";
  } catch (...) {
  }
  png_longjmp(png, 1);
}
void OnWarning(png_structp, png_const_charp) {}  // decodable damage: ignored, as TF does

void Read(png_structp png, png_bytep out, size_t n) {
  auto* cb = static_cast<Callbacks*>(png_get_io_ptr(png));
  if (cb->input.size() - cb->read < n) png_error(png, "the PNG data ended early");
  std::memcpy(out, cb->input.data() + cb->read, n);
  cb->read += n;
}
void Write(png_structp png, png_bytep data, size_t n) {
  auto* cb = static_cast<Callbacks*>(png_get_io_ptr(png));
  try {
    cb->output->append(reinterpret_cast<const char*>(data), n);
  } catch (...) {
    png_error(png, "out of memory");
  }
}
void Flush(png_structp) {}

struct Reader {
  Callbacks cb;
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~Reader() { png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr); }
};
struct Writer {
  Callbacks cb;
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~Writer() { png_destroy_write_struct(&png, info != nullptr ? &info : nullptr); }
};

template <typename Fn, typename Arg>
bool Guarded(png_structp png, Fn fn, Arg* arg) {
  if (setjmp(png_jmpbuf(png)) != 0) return false;
  fn(arg);
  return true;
}

struct DecodeJob {
  Reader* r;
  int channels;
  int bits;
  Image* image;
  std::vector<uint8_t>* narrow;  // 8-bit rows to widen to 16 bits
  const char* failure;
};

void RunDecode(DecodeJob* job) {
  png_structp png = job->r->png;
  png_infop info = job->r->info;
  png_set_read_fn(png, &job->r->cb, Read);
  png_read_info(png, info);
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, nullptr,
               nullptr);
  const bool has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  int channels = job->channels;
  if (channels == 0) {
    channels = color_type == PNG_COLOR_TYPE_PALETTE ? (has_trns ? 4 : 3)
                                                    : png_get_channels(png, info);
  }
  const bool has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if (channels % 2 == 0) {  // alpha wanted
    if (!has_alpha) {
      if (has_trns) {
        png_set_tRNS_to_alpha(png);
      } else {
        png_set_add_alpha(png, (1u << bit_depth) - 1, PNG_FILLER_AFTER);
      }
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(png);
  }
  if (bit_depth > 8 && job->bits <= 8) png_set_strip_16(png);
  const bool widen = bit_depth <= 8 && job->bits == 16;
  png_set_packing(png);
  const int passes = png_set_interlace_handling(png);
  if (job->bits > 8 && !widen) png_set_swap(png);  // 16-bit samples in x86's byte order
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  const bool is_gray = (color_type & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (channels < 3) {
    if (!is_gray) png_set_rgb_to_gray(png, 1, 0.299, 0.587);
  } else if (is_gray) {
    png_set_gray_to_rgb(png);
  }
  png_read_update_info(png, info);
  if (static_cast<int64_t>(height) * width * channels >= kMaxSamples) {
    job->failure = "the image is too large to decode";
    return;
  }
  const int read_bits = widen ? 8 : job->bits;
  const size_t stride = static_cast<size_t>(width) * static_cast<size_t>(channels) *
                        static_cast<size_t>(read_bits / 8);
  if (png_get_rowbytes(png, info) != stride) {
    job->failure = "the PNG's rows do not have the requested layout";
    return;
  }
  Image& image = *job->image;
  image.height = height;
  image.width = width;
  image.channels = channels;
  image.bits = job->bits;
  std::vector<uint8_t>& rows = widen ? *job->narrow : image.data;
  rows.assign(stride * height, 0);
  for (int pass = 0; pass < passes; ++pass) {
    for (png_uint_32 y = 0; y < height; ++y) {
      png_read_row(png, rows.data() + y * stride, nullptr);
    }
  }
  if (widen) {
    image.data.resize(rows.size() * 2);
    auto* wide = reinterpret_cast<uint16_t*>(image.data.data());
    for (size_t i = 0; i < rows.size(); ++i) wide[i] = static_cast<uint16_t>(rows[i] * 257);
  }
}

struct EncodeJob {
  Writer* w;
  const uint8_t* pixels;
  png_uint_32 height, width;
  int channels, bits, compression;
};

void RunEncode(EncodeJob* job) {
  png_structp png = job->w->png;
  png_infop info = job->w->info;
  png_set_write_fn(png, &job->w->cb, Write, Flush);
  static const int kColorTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_compression_level(png, job->compression);
  png_set_IHDR(png, info, job->width, job->height, job->bits, kColorTypes[job->channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (job->bits > 8) png_set_swap(png);
  const size_t stride = static_cast<size_t>(job->width) * static_cast<size_t>(job->channels) *
                        static_cast<size_t>(job->bits / 8);
  for (png_uint_32 y = 0; y < job->height; ++y) {
    png_write_row(png, const_cast<png_bytep>(job->pixels + y * stride));
  }
  png_write_end(png, nullptr);
}

}  // namespace

bool DecodePng(std::string_view bytes, int channels, int bits, Image* image,
               std::string* error) {
  Reader r;
  r.cb.input = bytes;
  r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r.cb, OnError, OnWarning);
  if (r.png != nullptr) r.info = png_create_info_struct(r.png);
  if (r.png == nullptr || r.info == nullptr) {
    *error = "Invalid PNG: could not create libpng's decoder";
    return false;
  }
  std::vector<uint8_t> narrow;
  DecodeJob job{&r, channels, bits, image, &narrow, nullptr};
  if (!Guarded(r.png, RunDecode, &job)) {
    *error = "Invalid PNG data, size " + std::to_string(bytes.size()) + ": " + r.cb.message;
    return false;
  }
  if (job.failure != nullptr) {
    *error = "Invalid PNG data, size " + std::to_string(bytes.size()) + ": " + job.failure;
    return false;
  }
  return true;
}

bool EncodePng(const void* pixels, int64_t height, int64_t width, int channels, int bits,
               int compression, std::string* out, std::string* error) {
  if (height > PNG_UINT_31_MAX || width > PNG_UINT_31_MAX || height < 1 || width < 1) {
    *error = "PNG encoding failed: an image of " + std::to_string(height) + "x" +
             std::to_string(width) + " pixels cannot be written";
    return false;
  }
  Writer w;
  out->clear();
  w.cb.output = out;
  w.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w.cb, OnError, OnWarning);
  if (w.png != nullptr) w.info = png_create_info_struct(w.png);
  if (w.png == nullptr || w.info == nullptr) {
    *error = "PNG encoding failed: could not create libpng's encoder";
    return false;
  }
  EncodeJob job{&w, static_cast<const uint8_t*>(pixels), static_cast<png_uint_32>(height),
                static_cast<png_uint_32>(width), channels, bits, compression};
  if (!Guarded(w.png, RunEncode, &job)) {
    *error = "PNG encoding failed: " + w.cb.message;
    return false;
  }
  return true;
}

}  // namespace tgraph_cpu::image_codec
