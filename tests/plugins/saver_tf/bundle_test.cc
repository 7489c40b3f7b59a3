// BundleWriter and BundleReader: every fixed-size dtype, strings, scalars, empty and large
// tensors round trip with their checksums; damaged files fail with the stated codes and
// messages that name the file and the tensor.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "bundle_test_util.h"
#include "common/crc32c.h"

namespace tgraph::saver_tf {
namespace {

using testing::BytesOf;
using testing::RawTensor;
using testing::ReadFile;
using testing::ReadRawTensor;
using testing::SaveRaw;
using testing::ScratchDir;
using testing::WriteFile;

void ExpectError(const BundleStatus& s, TG_Code code, std::vector<std::string> mentions) {
  EXPECT_EQ(s.code, code) << s.message;
  for (const std::string& m : mentions) {
    EXPECT_NE(s.message.find(m), std::string::npos) << "'" << m << "' not in: " << s.message;
  }
}

// Every fixed-size dtype tgraph has, by element size (the plugin asks the core for sizes).
const std::vector<std::pair<TG_DataType, size_t>>& FixedSizeDtypes() {
  static const std::vector<std::pair<TG_DataType, size_t>> dtypes = {
      {TG_FLOAT, 4},  {TG_DOUBLE, 8},     {TG_INT32, 4},     {TG_UINT8, 1},   {TG_INT16, 2},
      {TG_INT8, 1},   {TG_COMPLEX64, 8},  {TG_INT64, 8},     {TG_BOOL, 1},    {TG_QINT8, 1},
      {TG_QUINT8, 1}, {TG_QINT32, 4},     {TG_BFLOAT16, 2},  {TG_QINT16, 2},  {TG_QUINT16, 2},
      {TG_UINT16, 2}, {TG_COMPLEX128, 16}, {TG_HALF, 2},     {TG_UINT32, 4},  {TG_UINT64, 8},
      {TG_FLOAT8_E5M2, 1}, {TG_FLOAT8_E4M3FN, 1}, {TG_INT4, 1}, {TG_UINT4, 1}};
  return dtypes;
}

TEST(Bundle, EveryFixedSizeDtypeRoundTrips) {
  ScratchDir dir;
  std::vector<RawTensor> tensors;
  for (const auto& [dtype, size] : FixedSizeDtypes()) {
    std::string bytes(2 * 3 * size, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + dtype);
    tensors.push_back({Str("t", static_cast<int>(dtype)), dtype, {2, 3}, bytes});
  }
  BundleStatus s = SaveRaw(dir / "ckpt", tensors);
  ASSERT_TRUE(s.ok()) << s.message;

  std::unique_ptr<BundleReader> reader;
  ASSERT_TRUE(BundleReader::Open(dir / "ckpt", &reader).ok());
  EXPECT_EQ(reader->entries().size(), tensors.size());
  EXPECT_EQ(reader->header().num_shards(), 1);
  for (const RawTensor& t : tensors) {
    const tf::BundleEntryProto* entry = nullptr;
    ASSERT_TRUE(reader->Lookup(t.name, &entry).ok());
    EXPECT_EQ(static_cast<TG_DataType>(entry->dtype()), t.dtype);
    std::vector<int64_t> dims;
    int64_t count = 0;
    ASSERT_TRUE(BundleReader::Dims(t.name, *entry, &dims, &count).ok());
    EXPECT_EQ(dims, t.dims);
    EXPECT_EQ(count, 6);
    EXPECT_EQ(entry->crc32c(), crc32c::Mask(crc32c::Value(t.bytes.data(), t.bytes.size())));
    std::string read(t.bytes.size(), '\0');
    s = reader->ReadRaw(t.name, *entry, read.data(), read.size());
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(read, t.bytes) << t.name;
  }
}

TEST(Bundle, ScalarsAndEmptyTensors) {
  ScratchDir dir;
  ASSERT_TRUE(SaveRaw(dir / "c", {{"scalar", TG_INT64, {}, BytesOf(std::vector<int64_t>{-5})},
                                  {"empty", TG_FLOAT, {0, 4}, ""},
                                  {"empty_string", TG_DOUBLE, {0}, ""}})
                  .ok());
  std::unique_ptr<BundleReader> reader;
  ASSERT_TRUE(BundleReader::Open(dir / "c", &reader).ok());
  const tf::BundleEntryProto* entry = nullptr;
  ASSERT_TRUE(reader->Lookup("empty", &entry).ok());
  EXPECT_EQ(entry->size(), 0);
  EXPECT_EQ(entry->crc32c(), 0xa282ead8u);  // Mask(CRC of nothing), as TF's reader needs
  ASSERT_EQ(entry->shape().dim_size(), 2);
  EXPECT_EQ(entry->shape().dim(0).size(), 0);
  EXPECT_TRUE(reader->ReadRaw("empty", *entry, nullptr, 0).ok());
  std::string bytes;
  ASSERT_TRUE(ReadRawTensor(dir / "c", "scalar", &bytes).ok());
  EXPECT_EQ(bytes, BytesOf(std::vector<int64_t>{-5}));
  ASSERT_TRUE(reader->Lookup("scalar", &entry).ok());
  EXPECT_TRUE(entry->has_shape());  // written as "12 00", as TF does
  EXPECT_EQ(entry->shape().dim_size(), 0);
}

TEST(Bundle, StringTensorsUseTensorFlowsLayout) {
  ScratchDir dir;
  BundleWriter writer(dir / "s");
  ASSERT_TRUE(writer.Begin().ok());
  const std::vector<std::string> one = {"ab"};
  ASSERT_TRUE(writer.AddStrings("one", {1}, 1, [&](int64_t i) {
    return std::string_view(one[static_cast<size_t>(i)]);
  }).ok());
  std::vector<std::string> many = {"", "x", std::string(300, 'y'), std::string("\0z\xff", 3)};
  ASSERT_TRUE(writer.AddStrings("many", {2, 2}, 4, [&](int64_t i) {
    return std::string_view(many[static_cast<size_t>(i)]);
  }).ok());
  ASSERT_TRUE(writer.AddStrings("scalar", {}, 1, [](int64_t) {
    return std::string_view("hello");
  }).ok());
  ASSERT_TRUE(writer.AddStrings("none", {0}, 0, [](int64_t) { return std::string_view(); }).ok());
  ASSERT_TRUE(writer.Finish().ok());

  // FORMATS.md §3.4's example: ["ab"] is 02 | d8 d8 10 73 | "ab", crc32c 0x35a61926.
  const std::string data = ReadFile(dir / "s.data-00000-of-00001");
  EXPECT_EQ(data.substr(0, 7), std::string("\x02\xd8\xd8\x10\x73" "ab", 7));
  std::unique_ptr<BundleReader> reader;
  ASSERT_TRUE(BundleReader::Open(dir / "s", &reader).ok());
  const tf::BundleEntryProto* entry = nullptr;
  ASSERT_TRUE(reader->Lookup("one", &entry).ok());
  EXPECT_EQ(entry->size(), 7);
  EXPECT_EQ(entry->crc32c(), 0x35a61926u);

  std::vector<std::string> read;
  ASSERT_TRUE(reader->ReadStrings("one", *entry, 1, &read).ok());
  EXPECT_EQ(read, one);
  ASSERT_TRUE(reader->Lookup("many", &entry).ok());
  BundleStatus s = reader->ReadStrings("many", *entry, 4, &read);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(read, many);
  ASSERT_TRUE(reader->Lookup("scalar", &entry).ok());
  ASSERT_TRUE(reader->ReadStrings("scalar", *entry, 1, &read).ok());
  EXPECT_EQ(read, std::vector<std::string>{"hello"});
  ASSERT_TRUE(reader->Lookup("none", &entry).ok());
  ASSERT_TRUE(reader->ReadStrings("none", *entry, 0, &read).ok());
  EXPECT_TRUE(read.empty());
}

TEST(Bundle, LargeTensorRoundTrips) {
  ScratchDir dir;
  std::vector<float> values(24 << 20 >> 2);  // 24 MiB: several write and read chunks
  std::iota(values.begin(), values.end(), 0.5f);
  ASSERT_TRUE(SaveRaw(dir / "big", {{"w", TG_FLOAT, {static_cast<int64_t>(values.size())},
                                     BytesOf(values)}})
                  .ok());
  std::string bytes;
  BundleStatus s = ReadRawTensor(dir / "big", "w", &bytes);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_TRUE(bytes == BytesOf(values));
}

TEST(Bundle, DuplicateOrEmptyNamesAreInvalid) {
  ScratchDir dir;
  BundleWriter writer(dir / "d");
  ASSERT_TRUE(writer.Begin().ok());
  const int32_t x = 1;
  ASSERT_TRUE(writer.AddRaw("a", TG_INT32, {}, &x, 4).ok());
  ExpectError(writer.AddRaw("a", TG_INT32, {}, &x, 4), TG_INVALID_ARGUMENT, {"'a'"});
  ExpectError(writer.AddRaw("", TG_INT32, {}, &x, 4), TG_INVALID_ARGUMENT, {"empty"});
}

// ---- damaged checkpoints ----

class DamagedBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(SaveRaw(prefix_, {{"a", TG_FLOAT, {2}, BytesOf(std::vector<float>{1, 2})},
                                  {"b", TG_INT32, {3}, BytesOf(std::vector<int32_t>{7, 8, 9})}})
                    .ok());
  }
  std::string DataFile() const { return prefix_ + ".data-00000-of-00001"; }
  std::string IndexFile() const { return prefix_ + ".index"; }

  ScratchDir dir_;
  std::string prefix_ = dir_ / "model.ckpt";
};

TEST_F(DamagedBundle, FlippedDataByteIsDataLossNamingFileAndTensor) {
  std::string data = ReadFile(DataFile());
  data[9] = static_cast<char>(data[9] ^ 1);  // inside "b" (a is bytes 0..7)
  WriteFile(DataFile(), data);
  std::string bytes;
  ASSERT_TRUE(ReadRawTensor(prefix_, "a", &bytes).ok());
  ExpectError(ReadRawTensor(prefix_, "b", &bytes), TG_DATA_LOSS,
              {"checksum", "model.ckpt.data-00000-of-00001", "'b'"});
}

TEST_F(DamagedBundle, TruncatedIndexIsDataLossNamingIt) {
  const std::string index = ReadFile(IndexFile());
  WriteFile(IndexFile(), index.substr(0, index.size() / 2));
  std::unique_ptr<BundleReader> reader;
  ExpectError(BundleReader::Open(prefix_, &reader), TG_DATA_LOSS, {"model.ckpt.index"});
  WriteFile(IndexFile(), "");
  ExpectError(BundleReader::Open(prefix_, &reader), TG_DATA_LOSS, {"model.ckpt.index"});
}

TEST_F(DamagedBundle, TruncatedDataFileIsDataLoss) {
  WriteFile(DataFile(), ReadFile(DataFile()).substr(0, 10));
  std::string bytes;
  ExpectError(ReadRawTensor(prefix_, "b", &bytes), TG_DATA_LOSS,
              {"truncated", "model.ckpt.data-00000-of-00001", "'b'"});
}

TEST_F(DamagedBundle, MissingFilesAreNotFoundNamingThem) {
  std::filesystem::remove(DataFile());
  std::string bytes;
  ExpectError(ReadRawTensor(prefix_, "a", &bytes), TG_NOT_FOUND,
              {"model.ckpt.data-00000-of-00001"});
  std::filesystem::remove(IndexFile());
  ExpectError(ReadRawTensor(prefix_, "a", &bytes), TG_NOT_FOUND, {"model.ckpt.index"});
}

TEST_F(DamagedBundle, UnknownTensorIsNotFoundNamingIt) {
  std::string bytes;
  ExpectError(ReadRawTensor(prefix_, "nope", &bytes), TG_NOT_FOUND, {"'nope'", "model.ckpt"});
}

TEST_F(DamagedBundle, SizeNotMatchingDtypeAndShapeIsDataLoss) {
  std::unique_ptr<BundleReader> reader;
  ASSERT_TRUE(BundleReader::Open(prefix_, &reader).ok());
  const tf::BundleEntryProto* entry = nullptr;
  ASSERT_TRUE(reader->Lookup("b", &entry).ok());
  ExpectError(reader->CheckRawSize("b", *entry, 16), TG_DATA_LOSS, {"'b'", "12", "16"});
  std::string buffer(16, '\0');
  ExpectError(reader->ReadRaw("b", *entry, buffer.data(), 16), TG_DATA_LOSS, {"'b'"});
}

TEST(Bundle, SwapBytesReversesEachElement) {
  std::string bytes("\x01\x02\x03\x04\x05\x06\x07\x08", 8);
  SwapBytes(bytes.data(), bytes.size(), 4);
  EXPECT_EQ(bytes, std::string("\x04\x03\x02\x01\x08\x07\x06\x05", 8));
  SwapBytes(bytes.data(), bytes.size(), 1);
  EXPECT_EQ(bytes, std::string("\x04\x03\x02\x01\x08\x07\x06\x05", 8));
}

}  // namespace
}  // namespace tgraph::saver_tf
