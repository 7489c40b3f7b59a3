// Image codecs behind the CPU plugin's DecodeJpeg / DecodePng / DecodeBmp / DecodeImage /
// EncodeJpeg / EncodePng / ExtractJpegShape kernels (image_codec_kernels.cc), over
// libjpeg-turbo and libpng. Each function reports bad bytes as a false return with a
// message: the libraries' errors never escape (they longjmp back into the codec, which then
// releases everything it held) and never end the process.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph_cpu::image_codec {

// A decoded image: height x width x channels samples, row-major, of 8 or 16 bits (16-bit
// samples in the machine's byte order).
struct Image {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;
  int bits = 8;
  std::vector<uint8_t> data;
};

enum class Format { kUnknown, kJpeg, kPng, kGif, kBmp };
// The format the leading magic bytes name (TensorFlow's DecodeImage sniffs the same way).
Format Classify(std::string_view bytes);

// The decoded image's size as TensorFlow bounds it: a JPEG or PNG whose height * width *
// channels reaches 2^29 samples is refused (a small file can claim a huge image).
inline constexpr int64_t kMaxSamples = int64_t{1} << 29;

struct JpegDecodeOptions {
  int channels = 0;  // 0: the file's (at most 3), 1: gray, 3: RGB
  int ratio = 1;     // 1, 2, 4 or 8: libjpeg's scaled decoding
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  float acceptable_fraction = 1;
  bool fast_dct = true;  // TensorFlow's default ("" and INTEGER_FAST); false: INTEGER_ACCURATE
  // DecodeAndCropJpeg: only the window [y, y + h) x [x, x + w) of the (scaled) image is
  // decoded, through libjpeg's cropped decoding as TensorFlow does it (the pixels near the
  // window's left edge may differ from a full decode's).
  bool crop = false;
  int64_t crop_y = 0, crop_x = 0, crop_h = 0, crop_w = 0;
};
bool DecodeJpeg(std::string_view bytes, const JpegDecodeOptions& options, Image* image,
                std::string* error);
// The header's height, width and number of components (4 for CMYK).
bool JpegShape(std::string_view bytes, int64_t* height, int64_t* width, int* components,
               std::string* error);

struct JpegEncodeOptions {
  int quality = 95;
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;
  int density_unit = 1;  // JFIF: 1 dots per inch, 2 per cm
  int x_density = 300;
  int y_density = 300;
  std::string xmp_metadata;  // written as an APP1 XMP packet when not empty
};
// pixels: height x width x channels (1 or 3) bytes, rows `stride` bytes apart.
bool EncodeJpeg(const uint8_t* pixels, int64_t height, int64_t width, int channels,
                const JpegEncodeOptions& options, std::string* out, std::string* error);

// channels: 0 (the file's; a palette gives 3, or 4 with transparency), 1, 2, 3 or 4;
// bits 8 or 16 (TensorFlow's conversions between them and between color types).
bool DecodePng(std::string_view bytes, int channels, int bits, Image* image,
               std::string* error);
// compression: -1 (zlib's default) to 9.
bool EncodePng(const void* pixels, int64_t height, int64_t width, int channels, int bits,
               int compression, std::string* out, std::string* error);

// An uncompressed Windows bitmap of 8, 24 or 32 bits a pixel; channels 0 (the file's), 1,
// 3 or 4.
bool DecodeBmp(std::string_view bytes, int channels, Image* image, std::string* error);

}  // namespace tgraph_cpu::image_codec
