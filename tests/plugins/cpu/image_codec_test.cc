// plugins/cpu/image_codec: round trips through the encoders and decoders (PNG lossless at 8
// and 16 bits for 1 to 4 channels, JPEG within its loss), the channel conversions, BMP's
// layouts, ExtractJpegShape, and bad bytes (not an image, truncated, the wrong format for
// the op, bad attrs) failing the node with a message naming it, never crashing. Values
// against TensorFlow are compared in tests/interop/test_model_ops_image_codec.py.
#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace tgraph::testing {
namespace {

Tensor Bytes(std::string s) {
  Tensor t = Tensor::Allocate(DT_STRING, {}).value();
  t.strings() = {std::move(s)};
  return t;
}

// A smooth h x w x c image (JPEG keeps smooth images close), of uint8 or uint16 samples.
template <typename T>
Tensor Picture(DataType dtype, int64_t h, int64_t w, int64_t c) {
  std::vector<T> v;
  const double top = dtype == DT_UINT8 ? 255 : 65535;
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t k = 0; k < c; ++k) {
        v.push_back(static_cast<T>(top * (0.2 + 0.6 * ((x + 2 * y + 5 * k) % 17) / 16.0)));
      }
    }
  }
  return MakeTensor<T>(dtype, {h, w, c}, v);
}

std::string Encode(const std::string& op, const Tensor& image, AttrMap attrs = {}) {
  OpRun r = RunArgs(op, {In(image)}, std::move(attrs));
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  if (!r.status.ok()) return "";
  EXPECT_EQ(r.outputs[0].shape().rank(), 0);
  return r.outputs[0].strings()[0];
}

OpRun Decode(const std::string& op, std::string bytes, AttrMap attrs = {}) {
  return RunArgs(op, {In(Bytes(std::move(bytes)))}, std::move(attrs));
}

std::vector<int64_t> Dims(const Tensor& t) { return t.shape().dims(); }

class ImageCodecTest : public ::testing::Test {
 protected:
  void SetUp() override { LoadCpuPlugin(); }
};

TEST_F(ImageCodecTest, PngRoundTripsEveryChannelCountAt8And16Bits) {
  for (int64_t c = 1; c <= 4; ++c) {
    const Tensor u8 = Picture<uint8_t>(DT_UINT8, 5, 7, c);
    for (int compression : {-1, 0, 9}) {
      const std::string png = Encode("EncodePng", u8, {{"compression", AttrOfInt(compression)}});
      ASSERT_EQ(png.substr(1, 3), "PNG");
      OpRun r = Decode("DecodePng", png);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(Dims(r.outputs[0]), (std::vector<int64_t>{5, 7, c}));
      EXPECT_EQ(Values<uint8_t>(r.outputs[0]), Values<uint8_t>(u8)) << c;
    }
    const Tensor u16 = Picture<uint16_t>(DT_UINT16, 4, 3, c);
    const std::string png16 = Encode("EncodePng", u16, {{"T", AttrOfType(DT_UINT16)}});
    OpRun r = Decode("DecodePng", png16, {{"dtype", AttrOfType(DT_UINT16)}});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dtype(), DT_UINT16);
    EXPECT_EQ(Values<uint16_t>(r.outputs[0]), Values<uint16_t>(u16)) << c;
    // DecodeImage finds the format itself; float is the sample over 65535.
    OpRun f = Decode("DecodeImage", png16, {{"dtype", AttrOfType(DT_FLOAT)}});
    ASSERT_TRUE(f.status.ok()) << f.status.ToString();
    EXPECT_FLOAT_EQ(f.outputs[0].flat<float>()[0], u16.flat<uint16_t>()[0] / 65535.0f);
  }
}

TEST_F(ImageCodecTest, PngChannelConversions) {
  const Tensor rgba = MakeTensor<uint8_t>(DT_UINT8, {1, 2, 4}, {10, 20, 30, 40, 200, 100, 0, 255});
  const std::string png = Encode("EncodePng", rgba);
  auto decode = [&](int channels, DataType dtype = DT_UINT8) {
    OpRun r = Decode("DecodePng", png,
                     {{"channels", AttrOfInt(channels)}, {"dtype", AttrOfType(dtype)}});
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    return r;
  };
  EXPECT_EQ(Values<uint8_t>(decode(3).outputs[0]),
            (std::vector<uint8_t>{10, 20, 30, 200, 100, 0}));  // alpha stripped
  const std::vector<uint8_t> gray = Values<uint8_t>(decode(1).outputs[0]);
  ASSERT_EQ(gray.size(), 2u);
  // libpng's weights: 0.299 R + 0.587 G + 0.114 B.
  EXPECT_NEAR(gray[0], 0.299 * 10 + 0.587 * 20 + 0.114 * 30, 1);
  EXPECT_NEAR(gray[1], 0.299 * 200 + 0.587 * 100, 1);
  // 8 bits widened to 16: v * 257.
  EXPECT_EQ(Values<uint16_t>(decode(4, DT_UINT16).outputs[0]),
            (std::vector<uint16_t>{2570, 5140, 7710, 10280, 51400, 25700, 0, 65535}));
  // Gray to RGBA: copied, opaque.
  const std::string gpng = Encode("EncodePng", MakeTensor<uint8_t>(DT_UINT8, {1, 1, 1}, {77}));
  OpRun g = Decode("DecodeImage", gpng, {{"channels", AttrOfInt(4)}});
  ASSERT_TRUE(g.status.ok()) << g.status.ToString();
  EXPECT_EQ(Values<uint8_t>(g.outputs[0]), (std::vector<uint8_t>{77, 77, 77, 255}));
}

TEST_F(ImageCodecTest, JpegRoundTripsWithinItsLoss) {
  for (int64_t c : {1, 3}) {
    const Tensor image = Picture<uint8_t>(DT_UINT8, 24, 40, c);
    const std::string jpeg = Encode("EncodeJpeg", image,
                                    {{"quality", AttrOfInt(100)},
                                     {"chroma_downsampling", AttrOfBool(false)}});
    ASSERT_EQ(jpeg.substr(0, 3), "\xff\xd8\xff");
    for (const char* dct : {"", "INTEGER_ACCURATE"}) {
      OpRun r = Decode("DecodeJpeg", jpeg, {{"dct_method", AttrOfString(dct)}});
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(Dims(r.outputs[0]), (std::vector<int64_t>{24, 40, c}));
      const std::vector<uint8_t> got = Values<uint8_t>(r.outputs[0]);
      const std::vector<uint8_t> want = Values<uint8_t>(image);
      int worst = 0;
      for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
      // The fast integer DCT (TensorFlow's default) loses more than the accurate one.
      EXPECT_LE(worst, dct[0] == '\0' ? 16 : 8) << "channels " << c << " dct '" << dct << "'";
    }
    // channels 0 keeps the file's; 1 and 3 convert; ratio shrinks (rounding up).
    OpRun gray = Decode("DecodeJpeg", jpeg, {{"channels", AttrOfInt(1)}});
    ASSERT_TRUE(gray.status.ok()) << gray.status.ToString();
    EXPECT_EQ(Dims(gray.outputs[0]), (std::vector<int64_t>{24, 40, 1}));
    OpRun rgb = Decode("DecodeJpeg", jpeg, {{"channels", AttrOfInt(3)}, {"ratio", AttrOfInt(8)}});
    ASSERT_TRUE(rgb.status.ok()) << rgb.status.ToString();
    EXPECT_EQ(Dims(rgb.outputs[0]), (std::vector<int64_t>{3, 5, 3}));
    OpRun shape = Decode("ExtractJpegShape", jpeg, {{"output_type", AttrOfType(DT_INT64)}});
    ASSERT_TRUE(shape.status.ok()) << shape.status.ToString();
    EXPECT_EQ(Values<int64_t>(shape.outputs[0]), (std::vector<int64_t>{24, 40, c}));
  }
}

TEST_F(ImageCodecTest, JpegEncoderAttrs) {
  const Tensor image = Picture<uint8_t>(DT_UINT8, 16, 16, 3);
  const std::string plain = Encode("EncodeJpeg", image);
  const std::string xmp = Encode("EncodeJpeg", image, {{"xmp_metadata", AttrOfString("<x/>")}});
  EXPECT_NE(xmp.find(std::string("http://ns.adobe.com/xap/1.0/\0<x/>", 33)), std::string::npos);
  const std::string progressive = Encode("EncodeJpeg", image, {{"progressive", AttrOfBool(true)}});
  EXPECT_NE(progressive.find("\xff\xc2"), std::string::npos);  // SOF2: progressive
  // JFIF density: unit 2 (cm), 72 x 96.
  const std::string cm = Encode("EncodeJpeg", image, {{"density_unit", AttrOfString("cm")},
                                                      {"x_density", AttrOfInt(72)},
                                                      {"y_density", AttrOfInt(96)}});
  EXPECT_NE(cm.find(std::string("JFIF\0\x01\x01\x02\x00\x48\x00\x60", 12)), std::string::npos);
  EXPECT_LT(Encode("EncodeJpeg", image, {{"quality", AttrOfInt(10)}}).size(), plain.size());
  // The format names the channels it wants.
  OpRun r = RunArgs("EncodeJpeg", {In(image)}, {{"format", AttrOfString("grayscale")}});
  ExpectInvalid(r.status, {"node", "format grayscale expects 1 channels, got [16,16,3]"});
  r = RunArgs("EncodeJpeg", {In(Picture<uint8_t>(DT_UINT8, 2, 2, 4))});
  ExpectInvalid(r.status, {"node", "image must have 1 or 3 channels"});
  r = RunArgs("EncodeJpeg", {In(image)}, {{"quality", AttrOfInt(101)}});
  ExpectInvalid(r.status, {"node", "quality must be in [0,100], got 101"});
  r = RunArgs("EncodePng", {In(Picture<uint8_t>(DT_UINT8, 2, 2, 5))});
  ExpectInvalid(r.status, {"node", "image must have 1, 2, 3, or 4 channels, got 5"});
  r = RunArgs("EncodePng", {In(Picture<uint8_t>(DT_UINT8, 0, 2, 3))});
  ExpectInvalid(r.status, {"node", "PNG encoding failed"});
}

// A BMP of 2 x 3 pixels (rows padded to 4 bytes), `bits` 8, 24 or 32 a pixel.
std::string Bmp(int bits, bool top_down) {
  const int c = bits / 8, w = 3, h = 2, row = (c * w + 3) / 4 * 4;
  std::string data;
  for (int y = 0; y < h; ++y) {
    const int stored_y = top_down ? y : h - 1 - y;
    std::string r;
    for (int x = 0; x < w; ++x) {
      for (int k = 0; k < c; ++k) r += static_cast<char>(stored_y * 100 + x * 10 + k);
    }
    r.resize(static_cast<size_t>(row), '\0');
    data += r;
  }
  auto le32 = [](int32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) {
      s[i] = static_cast<char>((static_cast<uint32_t>(v) >> (8 * i)) & 255);
    }
    return s;
  };
  std::string header = "BM" + le32(54 + static_cast<int32_t>(data.size())) + le32(0) + le32(54);
  header += le32(40) + le32(w) + le32(top_down ? -h : h) + std::string("\x01\x00", 2);
  header += static_cast<char>(bits);
  header += std::string(1, '\0') + std::string(24, '\0');
  return header + data;
}

TEST_F(ImageCodecTest, BmpLayouts) {
  for (bool top_down : {false, true}) {
    OpRun r = Decode("DecodeBmp", Bmp(24, top_down));
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Dims(r.outputs[0]), (std::vector<int64_t>{2, 3, 3}));
    // Row 0 is stored_y 0; BGR -> RGB.
    EXPECT_EQ(Values<uint8_t>(r.outputs[0]),
              (std::vector<uint8_t>{2, 1, 0, 12, 11, 10, 22, 21, 20,
                                    102, 101, 100, 112, 111, 110, 122, 121, 120}));
  }
  OpRun rgba = Decode("DecodeBmp", Bmp(32, false));
  ASSERT_TRUE(rgba.status.ok()) << rgba.status.ToString();
  EXPECT_EQ(Values<uint8_t>(rgba.outputs[0])[3], 3);  // alpha kept
  OpRun gray = Decode("DecodeBmp", Bmp(8, false), {{"channels", AttrOfInt(4)}});
  ASSERT_TRUE(gray.status.ok()) << gray.status.ToString();
  const std::vector<uint8_t> first = Values<uint8_t>(gray.outputs[0]);
  ASSERT_EQ(first.size(), 24u);
  EXPECT_EQ(std::vector<uint8_t>(first.begin(), first.begin() + 4),
            (std::vector<uint8_t>{0, 0, 0, 255}));  // gray copied, opaque
  ExpectInvalid(Decode("DecodeBmp", Bmp(24, false) + "x").status,
                {"node", "Input size should match", "differ by 1"});
  ExpectInvalid(Decode("DecodeBmp", Bmp(24, false), {{"channels", AttrOfInt(1)}}).status,
                {"node", "must be 0, 3 or 4 for BMP"});
  ExpectInvalid(Decode("DecodeBmp", "BM\x01").status, {"node", "shorter than its headers"});
}

TEST_F(ImageCodecTest, BadBytesFailTheNodeNamingIt) {
  const Tensor image = Picture<uint8_t>(DT_UINT8, 32, 32, 3);
  const std::string jpeg = Encode("EncodeJpeg", image);
  const std::string png = Encode("EncodePng", image);
  for (const char* op : {"DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage"}) {
    ExpectInvalid(Decode(op, "definitely not an image").status,
                  {"node", "Unknown image file format"});
    ExpectInvalid(Decode(op, "").status, {"node", "Unknown image file format"});
  }
  // Truncated: libjpeg's and libpng's errors come back as the node's status.
  for (size_t keep : {size_t{3}, size_t{20}, size_t{200}, jpeg.size() - 2}) {
    ExpectInvalid(Decode("DecodeJpeg", jpeg.substr(0, keep)).status,
                  {"node", "Invalid JPEG data"});
  }
  for (size_t keep : {size_t{8}, size_t{30}, size_t{60}, png.size() - 20}) {
    ExpectInvalid(Decode("DecodePng", png.substr(0, keep)).status, {"node", "Invalid PNG data"});
  }
  // Garbage after a valid signature.
  std::string bad_png = png;
  for (size_t i = 40; i < bad_png.size(); i += 7) bad_png[i] = static_cast<char>(bad_png[i] ^ 0x5a);
  ExpectInvalid(Decode("DecodePng", bad_png).status, {"node", "Invalid PNG data"});
  std::string bad_jpeg = jpeg.substr(0, 2) + std::string("\xff\xc0\x00\x02", 4);
  ExpectInvalid(Decode("DecodeJpeg", bad_jpeg).status, {"node", "Invalid JPEG data"});
  ExpectInvalid(Decode("ExtractJpegShape", png).status, {"node", "Invalid JPEG data"});
  // The format must fit the op.
  ExpectInvalid(Decode("DecodeBmp", png).status,
                {"node", "Trying to decode PNG format using DecodeBmp op"});
  ExpectInvalid(Decode("DecodeJpeg", jpeg, {{"channels", AttrOfInt(4)}}).status,
                {"node", "JPEG does not support 4 channels"});
  // Truncated with recovery: the rows decoded are kept when enough; else an error.
  OpRun kept = Decode("DecodeJpeg", jpeg.substr(0, jpeg.size() * 2 / 3),
                      {{"try_recover_truncated", AttrOfBool(true)},
                       {"acceptable_fraction", AttrOfFloat(0.1f)}});
  ASSERT_TRUE(kept.status.ok()) << kept.status.ToString();
  EXPECT_EQ(Dims(kept.outputs[0]), (std::vector<int64_t>{32, 32, 3}));
  // Not a scalar.
  Tensor two = Tensor::Allocate(DT_STRING, {2}).value();
  two.strings() = {jpeg, jpeg};
  ExpectInvalid(RunArgs("DecodeJpeg", {In(two)}).status, {"node", "must be rank 0"});
  ExpectInvalid(RunArgs("DecodeJpeg", {In(two)}, {}, /*known_shapes=*/false).status,
                {"node", "contents must be scalar, got shape [2]"});
  // Bad attrs fail at construction.
  ExpectInvalid(Decode("DecodeJpeg", jpeg, {{"ratio", AttrOfInt(3)}}).status,
                {"ratio must be 1, 2, 4, or 8, got 3"});
  ExpectInvalid(Decode("DecodeJpeg", jpeg, {{"dct_method", AttrOfString("FLOAT")}}).status,
                {"dct_method must be one of"});
  ExpectInvalid(Decode("DecodePng", png, {{"channels", AttrOfInt(2)}}).status,
                {"`channels` must be 0, 1, 3 or 4 but got 2"});
}

TEST_F(ImageCodecTest, DecodeAndCropJpegAndVariableQuality) {
  const Tensor image = Picture<uint8_t>(DT_UINT8, 24, 40, 3);
  const std::string jpeg =
      Encode("EncodeJpeg", image, {{"chroma_downsampling", AttrOfBool(false)}});
  OpRun full = Decode("DecodeJpeg", jpeg);
  ASSERT_TRUE(full.status.ok()) << full.status.ToString();
  const std::vector<uint8_t> all = Values<uint8_t>(full.outputs[0]);
  auto crop = [&](std::vector<int32_t> window) {
    return RunArgs("DecodeAndCropJpeg", {In(Bytes(jpeg)), In(I32Vec(window))});
  };
  // A window on 8-pixel (iMCU) boundaries of a 4:4:4 image: the full decode's pixels.
  OpRun c = crop({8, 16, 8, 16});
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_EQ(Dims(c.outputs[0]), (std::vector<int64_t>{8, 16, 3}));
  std::vector<uint8_t> want;
  for (int y = 8; y < 16; ++y) {
    want.insert(want.end(), all.begin() + (y * 40 + 16) * 3, all.begin() + (y * 40 + 32) * 3);
  }
  EXPECT_EQ(Values<uint8_t>(c.outputs[0]), want);
  OpRun whole = crop({0, 0, 24, 40});
  ASSERT_TRUE(whole.status.ok()) << whole.status.ToString();
  EXPECT_EQ(Values<uint8_t>(whole.outputs[0]), all);
  for (const auto& bad : std::vector<std::vector<int32_t>>{
           {0, 0, 25, 40}, {-1, 0, 2, 2}, {0, 0, 0, 5}, {20, 30, 5, 5}}) {
    ExpectInvalid(crop(bad).status, {"node", "crop window"});
  }
  ExpectInvalid(RunArgs("DecodeAndCropJpeg", {In(Bytes(jpeg)), In(I32Vec({0, 0, 1}))}).status,
                {"node"});
  ExpectInvalid(RunArgs("DecodeAndCropJpeg",
                        {In(Bytes(Encode("EncodePng", image))), In(I32Vec({0, 0, 1, 1}))})
                    .status,
                {"node", "JPEG only"});

  OpRun q = RunArgs("EncodeJpegVariableQuality", {In(image), In(I32Scalar(100))});
  ASSERT_TRUE(q.status.ok()) << q.status.ToString();
  OpRun low = RunArgs("EncodeJpegVariableQuality", {In(image), In(I32Scalar(5))});
  ASSERT_TRUE(low.status.ok()) << low.status.ToString();
  EXPECT_LT(low.outputs[0].strings()[0].size(), q.outputs[0].strings()[0].size());
  OpRun back = Decode("DecodeJpeg", q.outputs[0].strings()[0]);
  ASSERT_TRUE(back.status.ok()) << back.status.ToString();
  EXPECT_EQ(Dims(back.outputs[0]), (std::vector<int64_t>{24, 40, 3}));
  ExpectInvalid(RunArgs("EncodeJpegVariableQuality", {In(image), In(I32Scalar(101))}).status,
                {"node", "quality must be in [0,100], got 101"});
}

TEST_F(ImageCodecTest, GifIsReportedAsUnsupported) {
  ExpectInvalid(Decode("DecodeImage", "GIF89a\x01\x00\x01\x00").status,
                {"node", "GIF decoding is not supported"}, Code::kUnimplemented);
}

}  // namespace
}  // namespace tgraph::testing
