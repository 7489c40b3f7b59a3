// The `.index` table written through libleveldb is byte for byte TensorFlow's
// (FORMATS.md §3.7's one-scalar checkpoint), and a damaged table is DATA_LOSS.
#include "index_table.h"

#include <gtest/gtest.h>

#include <cstring>

#include "bundle_test_util.h"

namespace tgraph::saver_tf {
namespace {

using testing::ReadFile;
using testing::ScratchDir;
using testing::WriteFile;

std::string Hex(const std::string& bytes) {
  static const char* const kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
    out += ' ';
  }
  return out;
}

// FORMATS.md §3.7: one float32 scalar v = 1.0, single shard.
const unsigned char kScalarIndex[117] = {
    0x00, 0x00, 0x06, 0x08, 0x01, 0x1a, 0x02, 0x08, 0x01, 0x00, 0x01, 0x0b, 0x76, 0x08, 0x01,
    0x12, 0x00, 0x28, 0x04, 0x35, 0x81, 0xa5, 0xda, 0x2b, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
    0x00, 0x00, 0x00, 0x95, 0xce, 0xd3, 0xf3, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0xc0, 0xf2, 0xa1, 0xb0, 0x00, 0x01, 0x02, 0x77, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x3e, 0x1e, 0xa4, 0x62, 0x25, 0x08, 0x32, 0x0e, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};

TEST(IndexTable, ScalarCheckpointIsByteIdenticalToTensorFlows) {
  ScratchDir dir;
  const float one = 1.0f;
  BundleWriter writer(dir / "X");
  ASSERT_TRUE(writer.Begin().ok());
  ASSERT_TRUE(writer.AddRaw("v", TG_FLOAT, {}, &one, sizeof one).ok());
  BundleStatus s = writer.Finish();
  ASSERT_TRUE(s.ok()) << s.message;

  const std::string expected(reinterpret_cast<const char*>(kScalarIndex), sizeof kScalarIndex);
  const std::string index = ReadFile(dir / "X.index");
  EXPECT_EQ(index.size(), 117u);
  EXPECT_EQ(Hex(index), Hex(expected));
  EXPECT_EQ(Hex(ReadFile(dir / "X.data-00000-of-00001")), "00 00 80 3f ");
  EXPECT_EQ(dir.Files(), (std::vector<std::string>{"X.data-00000-of-00001", "X.index"}));
}

TEST(IndexTable, RoundTripsManyKeysAcrossBlocks) {
  ScratchDir dir;
  std::map<std::string, std::string> entries;
  // ~3 MiB of values: several 256 KiB data blocks and an index block of many entries.
  for (int i = 0; i < 3000; ++i) {
    entries[Str("key/", i)] = std::string(1000 + i % 7, static_cast<char>(i));
  }
  ASSERT_TRUE(WriteIndexTable(dir / "t.index", entries).ok());
  std::map<std::string, std::string> read;
  BundleStatus s = ReadIndexTable(dir / "t.index", &read);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(read, entries);
}

TEST(IndexTable, MissingFileIsNotFoundNamingIt) {
  ScratchDir dir;
  std::map<std::string, std::string> read;
  BundleStatus s = ReadIndexTable(dir / "none.index", &read);
  EXPECT_EQ(s.code, TG_NOT_FOUND);
  EXPECT_NE(s.message.find("none.index"), std::string::npos) << s.message;
}

TEST(IndexTable, TruncatedOrCorruptFileIsDataLossNamingIt) {
  ScratchDir dir;
  std::map<std::string, std::string> entries = {{"", "header"}, {"a", "1"}, {"b", "2"}};
  ASSERT_TRUE(WriteIndexTable(dir / "good.index", entries).ok());
  const std::string good = ReadFile(dir / "good.index");
  std::map<std::string, std::string> read;

  for (size_t keep : {size_t{0}, size_t{10}, good.size() - 1, good.size() - 48}) {
    WriteFile(dir / "cut.index", good.substr(0, keep));
    BundleStatus s = ReadIndexTable(dir / "cut.index", &read);
    EXPECT_EQ(s.code, TG_DATA_LOSS) << "kept " << keep << ": " << s.message;
    EXPECT_NE(s.message.find("cut.index"), std::string::npos) << s.message;
  }
  // A flipped byte in the data block fails its checksum.
  std::string flipped = good;
  flipped[3] = static_cast<char>(flipped[3] ^ 0x40);
  WriteFile(dir / "flipped.index", flipped);
  BundleStatus s = ReadIndexTable(dir / "flipped.index", &read);
  EXPECT_EQ(s.code, TG_DATA_LOSS) << s.message;
  EXPECT_NE(s.message.find("flipped.index"), std::string::npos) << s.message;
}

// Found by fuzz/checkpoint_read: LevelDB allocates a block's size as the footer gives it
// before reading, so a footer claiming a 2^60-byte index block made it allocate that.
TEST(IndexTable, FooterBlockBeyondTheFileIsDataLossBeforeAllocating) {
  ScratchDir dir;
  ASSERT_TRUE(WriteIndexTable(dir / "good.index", {{"", "header"}, {"a", "1"}}).ok());
  const std::string good = ReadFile(dir / "good.index");
  ASSERT_GE(good.size(), 48u);
  // metaindex (0, 0), index (0, 2^60): varints, zero padding to 40 bytes, the magic kept.
  std::string footer = {0, 0, 0};
  uint64_t size = uint64_t{1} << 60;
  while (size >= 0x80) {
    footer.push_back(static_cast<char>((size & 0x7f) | 0x80));
    size >>= 7;
  }
  footer.push_back(static_cast<char>(size));
  footer.resize(40, '\0');
  WriteFile(dir / "huge.index", good.substr(0, good.size() - 48) + footer + good.substr(good.size() - 8));
  std::map<std::string, std::string> read;
  BundleStatus s = ReadIndexTable(dir / "huge.index", &read);
  EXPECT_EQ(s.code, TG_DATA_LOSS) << s.message;
  EXPECT_NE(s.message.find("huge.index"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("footer"), std::string::npos) << s.message;
}

}  // namespace
}  // namespace tgraph::saver_tf
