// JPEG through libjpeg-turbo, with TensorFlow's choices: its default DCT (the fast integer
// one), its component counts (gray, RGB; CMYK and YCCK files are converted to RGB from the
// library's CMYK output, Adobe's inverted values when the file has Adobe's marker), and its
// truncated-file handling (an error unless try_recover_truncated, which ends the data with
// an EOI marker and keeps the rows decoded so far if they are at least acceptable_fraction).
//
// libjpeg reports a fatal error by calling error_exit, which must not return. Ours longjmps
// back to the one setjmp in Guarded(); the frames it unwinds are libjpeg's (C) and the
// callbacks below, none holding anything with a destructor, and the decompressor objects
// (which release libjpeg's memory in their destructors) live in the callers, outside the
// jump. Warnings (corrupt but decodable data) are ignored, as TensorFlow ignores them.
#include "image_codec.h"

#include <csetjmp>
#include <cstddef>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstdlib>
#include <cstring>

#include <jpeglib.h>
#include <jerror.h>  // ERREXIT, WARNMS

namespace tgraph_cpu::image_codec {
namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void ErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}
void Silent(j_common_ptr) {}  // libjpeg would print warnings on stderr

// A source over the whole input in memory.
struct Source {
  jpeg_source_mgr pub;
  const JOCTET* data;
  size_t size;
  bool try_recover_truncated;
};
const JOCTET kEoi[2] = {0xFF, JPEG_EOI};

void InitSource(j_decompress_ptr) {}
// Called when libjpeg has used up the data: the input ended before the image did.
boolean FillInputBuffer(j_decompress_ptr cinfo) {
  auto* src = reinterpret_cast<Source*>(cinfo->src);
  if (src->pub.next_input_byte != kEoi && src->try_recover_truncated) {
    // End the data as if the file had: the decoder fills the rest of the image.
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = kEoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(cinfo, JERR_INPUT_EOF);
  return FALSE;
}
void SkipInputData(j_decompress_ptr cinfo, long count) {
  auto* src = reinterpret_cast<Source*>(cinfo->src);
  if (count <= 0) return;
  const size_t n = static_cast<size_t>(count);
  if (n > src->pub.bytes_in_buffer) {
    // Skipping past the end: as running out of data.
    src->pub.next_input_byte += src->pub.bytes_in_buffer;
    src->pub.bytes_in_buffer = 0;
    (*src->pub.fill_input_buffer)(cinfo);
    return;
  }
  src->pub.next_input_byte += n;
  src->pub.bytes_in_buffer -= n;
}
void TermSource(j_decompress_ptr) {}

// Owns a decompressor; its destructor releases whatever libjpeg allocated, also after an
// error jumped out of the library.
struct Decompressor {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  Source src;

  Decompressor() {
    std::memset(&cinfo, 0, sizeof(cinfo));
    std::memset(&src, 0, sizeof(src));
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = ErrorExit;
    err.pub.output_message = Silent;
    err.message[0] = '\0';
  }
  ~Decompressor() { jpeg_destroy_decompress(&cinfo); }  // safe on a never-created one
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Runs in Guarded: may jump out.
  void Start(std::string_view bytes, bool try_recover_truncated) {
    jpeg_create_decompress(&cinfo);
    src.pub.init_source = InitSource;
    src.pub.fill_input_buffer = FillInputBuffer;
    src.pub.skip_input_data = SkipInputData;
    src.pub.resync_to_restart = jpeg_resync_to_restart;
    src.pub.term_source = TermSource;
    src.pub.next_input_byte = reinterpret_cast<const JOCTET*>(bytes.data());
    src.pub.bytes_in_buffer = bytes.size();
    src.data = src.pub.next_input_byte;
    src.size = bytes.size();
    src.try_recover_truncated = try_recover_truncated;
    cinfo.src = &src.pub;
    jpeg_read_header(&cinfo, TRUE);
  }
};

// Runs fn(arg) where libjpeg may fail: false (with the library's message in *err) when it
// did. The only automatic variables here are the unmodified arguments, so none is clobbered
// by the jump.
template <typename Fn, typename Arg>
bool Guarded(ErrorManager* err, Fn fn, Arg* arg) {
  if (setjmp(err->jump) != 0) return false;
  fn(arg);
  return true;
}

struct DecodeJob {
  Decompressor* d;
  std::string_view bytes;
  const JpegDecodeOptions* options;
  Image* image;
  const char* failure;  // a check of ours failed (not libjpeg): the message
};

void RunDecode(DecodeJob* job) {
  Decompressor& d = *job->d;
  const JpegDecodeOptions& o = *job->options;
  d.Start(job->bytes, o.try_recover_truncated);
  jpeg_decompress_struct& cinfo = d.cinfo;
  int components = o.channels == 0 ? (cinfo.num_components < 3 ? cinfo.num_components : 3)
                                   : o.channels;
  if (components == 2) components = 1;  // a 2-component JPEG has no RGB meaning: gray
  bool cmyk = false;
  if (components == 1) {
    cinfo.out_color_space = JCS_GRAYSCALE;
  } else if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    cinfo.out_color_space = JCS_CMYK;  // converted to RGB below
    cmyk = true;
  } else {
    cinfo.out_color_space = JCS_RGB;
  }
  cinfo.do_fancy_upsampling = o.fancy_upscaling ? TRUE : FALSE;
  cinfo.scale_num = 1;
  cinfo.scale_denom = static_cast<unsigned>(o.ratio);
  cinfo.dct_method = o.fast_dct ? JDCT_IFAST : JDCT_ISLOW;
  jpeg_calc_output_dimensions(&cinfo);
  int64_t height = cinfo.output_height, width = cinfo.output_width;
  if (height * width * components >= kMaxSamples) {
    job->failure = "the image is too large to decode";
    return;
  }
  jpeg_start_decompress(&cinfo);
  int64_t out_h = height, out_w = width, left = 0;  // the window, and its x in the rows read
  if (o.crop) {
    if (o.crop_y < 0 || o.crop_x < 0 || o.crop_h <= 0 || o.crop_w <= 0 ||
        o.crop_y + o.crop_h > height || o.crop_x + o.crop_w > width) {
      job->failure = "the crop window is not inside the image";
      return;
    }
    // libjpeg widens the columns it decodes to whole iMCUs: x may move left, w grow.
    JDIMENSION x = static_cast<JDIMENSION>(o.crop_x), w = static_cast<JDIMENSION>(o.crop_w);
    jpeg_crop_scanline(&cinfo, &x, &w);
    left = o.crop_x - static_cast<int64_t>(x);
    if (jpeg_skip_scanlines(&cinfo, static_cast<JDIMENSION>(o.crop_y)) !=
        static_cast<JDIMENSION>(o.crop_y)) {
      job->failure = "could not skip to the crop window";
      return;
    }
    out_h = o.crop_h;
    out_w = o.crop_w;
  }
  Image& image = *job->image;
  image.height = out_h;
  image.width = out_w;
  image.channels = components;
  image.bits = 8;
  const size_t stride = static_cast<size_t>(out_w) * static_cast<size_t>(components);
  image.data.assign(stride * static_cast<size_t>(out_h), 0);
  // Rows are read into the library's own row (freed with cinfo) when they need converting
  // (CMYK) or cutting (a crop); else straight into the image.
  const bool staged = cmyk || o.crop;
  const int read_components = cmyk ? 4 : components;
  JSAMPARRAY staging =
      staged ? (*cinfo.mem->alloc_sarray)(
                   reinterpret_cast<j_common_ptr>(&cinfo), JPOOL_IMAGE,
                   static_cast<JDIMENSION>(cinfo.output_width * read_components), 1)
             : nullptr;
  height = out_h;
  width = out_w;
  int64_t rows = 0;
  while (rows < height) {
    uint8_t* out = image.data.data() + static_cast<size_t>(rows) * stride;
    JSAMPROW row = staged ? staging[0] : out;
    if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) break;
    if (staged) row += left * read_components;
    if (cmyk) {
      const bool adobe = cinfo.saw_Adobe_marker;
      for (int64_t x = 0; x < width; ++x) {
        const int c = row[4 * x], m = row[4 * x + 1], y = row[4 * x + 2], k = row[4 * x + 3];
        if (adobe) {  // Adobe writes inverted CMYK
          out[3 * x] = static_cast<uint8_t>(k * c / 255);
          out[3 * x + 1] = static_cast<uint8_t>(k * m / 255);
          out[3 * x + 2] = static_cast<uint8_t>(k * y / 255);
        } else {
          out[3 * x] = static_cast<uint8_t>((255 - k) * (255 - c) / 255);
          out[3 * x + 1] = static_cast<uint8_t>((255 - k) * (255 - m) / 255);
          out[3 * x + 2] = static_cast<uint8_t>((255 - k) * (255 - y) / 255);
        }
      }
    } else if (staged) {
      std::memcpy(out, row, stride);
    }
    ++rows;
  }
  if (rows < height) {
    // The decoder stopped early (the data ran out with recovery on).
    if (static_cast<double>(rows) < static_cast<double>(o.acceptable_fraction) *
                                        static_cast<double>(height)) {
      job->failure = "the image is truncated: fewer rows than acceptable_fraction";
      return;
    }
    jpeg_abort_decompress(&cinfo);  // the rest stays zero
    return;
  }
  if (o.crop) {
    jpeg_abort_decompress(&cinfo);  // rows below the window are not read
    return;
  }
  jpeg_finish_decompress(&cinfo);
}

std::string Message(size_t size, const char* detail) {
  std::string m = "Invalid JPEG data or crop window, data size ";
  m += std::to_string(size);
  if (detail != nullptr && detail[0] != '\0') m.append(": ").append(detail);
  return m;
}

struct ShapeJob {
  Decompressor* d;
  std::string_view bytes;
};
void RunShape(ShapeJob* job) { job->d->Start(job->bytes, false); }

struct Compressor {
  jpeg_compress_struct cinfo;
  ErrorManager err;
  unsigned char* buffer = nullptr;  // jpeg_mem_dest's output, malloc'ed by libjpeg
  unsigned long size = 0;           // NOLINT(runtime/int): libjpeg's type

  Compressor() {
    std::memset(&cinfo, 0, sizeof(cinfo));
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = ErrorExit;
    err.pub.output_message = Silent;
    err.message[0] = '\0';
  }
  ~Compressor() {
    jpeg_destroy_compress(&cinfo);
    std::free(buffer);
  }
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
};

struct EncodeJob {
  Compressor* c;
  const uint8_t* pixels;
  int64_t height, width;
  int channels;
  const JpegEncodeOptions* options;
};

void RunEncode(EncodeJob* job) {
  Compressor& c = *job->c;
  const JpegEncodeOptions& o = *job->options;
  jpeg_create_compress(&c.cinfo);
  jpeg_mem_dest(&c.cinfo, &c.buffer, &c.size);
  jpeg_compress_struct& cinfo = c.cinfo;
  cinfo.image_width = static_cast<JDIMENSION>(job->width);
  cinfo.image_height = static_cast<JDIMENSION>(job->height);
  cinfo.input_components = job->channels;
  cinfo.in_color_space = job->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  cinfo.optimize_coding = o.optimize_size ? TRUE : FALSE;
  cinfo.density_unit = static_cast<UINT8>(o.density_unit);
  cinfo.X_density = static_cast<UINT16>(o.x_density);
  cinfo.Y_density = static_cast<UINT16>(o.y_density);
  jpeg_set_quality(&cinfo, o.quality, TRUE);
  if (o.progressive) jpeg_simple_progression(&cinfo);
  if (!o.chroma_downsampling) {
    for (int i = 0; i < cinfo.num_components; ++i) {
      cinfo.comp_info[i].h_samp_factor = 1;
      cinfo.comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(&cinfo, TRUE);
  if (!o.xmp_metadata.empty()) {
    // An XMP packet: APP1 holding Adobe's namespace name, a NUL, then the packet.
    static const char kXmpName[] = "http://ns.adobe.com/xap/1.0/";
    const size_t name_size = sizeof(kXmpName);  // with its NUL
    jpeg_write_m_header(&cinfo, JPEG_APP0 + 1,
                        static_cast<unsigned>(name_size + o.xmp_metadata.size()));
    for (size_t i = 0; i < name_size; ++i) jpeg_write_m_byte(&cinfo, kXmpName[i]);
    for (const char ch : o.xmp_metadata) jpeg_write_m_byte(&cinfo, static_cast<uint8_t>(ch));
  }
  const size_t stride = static_cast<size_t>(job->width) * static_cast<size_t>(job->channels);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(job->pixels + cinfo.next_scanline * stride);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
}

}  // namespace

bool DecodeJpeg(std::string_view bytes, const JpegDecodeOptions& options, Image* image,
                std::string* error) {
  Decompressor d;
  DecodeJob job{&d, bytes, &options, image, nullptr};
  if (!Guarded(&d.err, RunDecode, &job)) {
    *error = Message(bytes.size(), d.err.message);
    return false;
  }
  if (job.failure != nullptr) {
    *error = Message(bytes.size(), job.failure);
    return false;
  }
  return true;
}

bool JpegShape(std::string_view bytes, int64_t* height, int64_t* width, int* components,
               std::string* error) {
  Decompressor d;
  ShapeJob job{&d, bytes};
  if (!Guarded(&d.err, RunShape, &job)) {
    *error = "Invalid JPEG data, size " + std::to_string(bytes.size()) + ": " + d.err.message;
    return false;
  }
  *height = d.cinfo.image_height;
  *width = d.cinfo.image_width;
  *components = d.cinfo.num_components;
  return true;
}

bool EncodeJpeg(const uint8_t* pixels, int64_t height, int64_t width, int channels,
                const JpegEncodeOptions& options, std::string* out, std::string* error) {
  if (height > JPEG_MAX_DIMENSION || width > JPEG_MAX_DIMENSION) {
    *error = "image too large for JPEG: " + std::to_string(height) + "x" + std::to_string(width);
    return false;
  }
  if (options.xmp_metadata.size() > 65533 - 29) {  // one marker segment holds it
    *error = "xmp_metadata is too long for a JPEG marker: " +
             std::to_string(options.xmp_metadata.size()) + " bytes";
    return false;
  }
  Compressor c;
  EncodeJob job{&c, pixels, height, width, channels, &options};
  if (!Guarded(&c.err, RunEncode, &job)) {
    *error = std::string("JPEG encoding failed: ") + c.err.message;
    return false;
  }
  out->assign(reinterpret_cast<const char*>(c.buffer), c.size);
  return true;
}

Format Classify(std::string_view b) {
  auto starts = [&](std::string_view magic) { return b.substr(0, magic.size()) == magic; };
  if (starts("\xff\xd8\xff")) return Format::kJpeg;
  if (starts("\x89PNG\r\n\x1a\n")) return Format::kPng;
  if (starts("GIF87a") || starts("GIF89a")) return Format::kGif;
  if (starts("BM")) return Format::kBmp;
  return Format::kUnknown;
}

}  // namespace tgraph_cpu::image_codec
