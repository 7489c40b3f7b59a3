// Uncompressed Windows bitmaps as TensorFlow's DecodeBmp reads them: the pixel data's offset,
// width, height (negative: rows stored top-down) and bits per pixel from the headers; 8-bit
// pixels are gray levels (any palette is ignored), 24 and 32 bits BGR(A), turned into
// RGB(A). The file must be exactly the headers plus the padded rows.
#include "image_codec.h"

#include <cstring>
#include <limits>

namespace tgraph_cpu::image_codec {
namespace {

int32_t Le32(const uint8_t* p) {
  uint32_t v = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  int32_t s;
  std::memcpy(&s, &v, sizeof(s));
  return s;
}

}  // namespace

bool DecodeBmp(std::string_view bytes, int channels, Image* image, std::string* error) {
  if (bytes.size() < 30) {  // through the bits-per-pixel field
    *error = "Invalid BMP data: " + std::to_string(bytes.size()) +
             " bytes is shorter than its headers";
    return false;
  }
  const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
  const int32_t offset = Le32(b + 10), width = Le32(b + 18), height = Le32(b + 22);
  const int bpp = b[28] | b[29] << 8;
  const int file_channels = bpp / 8;
  if (file_channels != 1 && file_channels != 3 && file_channels != 4) {
    *error = "Number of channels inherent in the image must be 1, 3 or 4, was " +
             std::to_string(file_channels);
    return false;
  }
  if (width <= 0) return *error = "Width must be positive", false;
  if (height == 0) return *error = "Height must be nonzero", false;
  if (offset < 0) return *error = "header size must be nonnegative", false;
  const int64_t rows = height < 0 ? -static_cast<int64_t>(height) : height;
  if (int64_t{width} * rows >= std::numeric_limits<int32_t>::max() / 8) {
    *error = "Total possible pixel bytes must be less than 2^30";
    return false;
  }
  const int out_channels = channels == 0 ? file_channels : channels;
  const int64_t row_size = (int64_t{file_channels} * width + 3) / 4 * 4;
  const int64_t diff = static_cast<int64_t>(bytes.size()) - offset - row_size * rows;
  if (diff != 0) {
    *error = "Input size should match (header_size + row_size * abs_height) but they differ by " +
             std::to_string(diff);
    return false;
  }
  const bool top_down = height < 0;
  image->height = rows;
  image->width = width;
  image->channels = out_channels;
  image->bits = 8;
  image->data.assign(static_cast<size_t>(rows * width * out_channels), 0);
  for (int64_t y = 0; y < rows; ++y) {
    const uint8_t* src = b + offset + (top_down ? y : rows - 1 - y) * row_size;
    uint8_t* dst = image->data.data() + y * width * out_channels;
    for (int64_t x = 0; x < width; ++x, src += file_channels, dst += out_channels) {
      if (file_channels == 1) {
        dst[0] = src[0];
        if (out_channels >= 3) dst[1] = dst[2] = src[0];
      } else {
        dst[0] = src[2];
        dst[1] = src[1];
        dst[2] = src[0];
      }
      if (out_channels == 4) dst[3] = file_channels == 4 ? src[3] : 255;
    }
  }
  return true;
}

}  // namespace tgraph_cpu::image_codec
