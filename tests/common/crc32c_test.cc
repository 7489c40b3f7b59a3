#include "common/crc32c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace tgraph::crc32c {
namespace {

uint32_t Of(const std::string& s) { return Value(s.data(), s.size()); }

TEST(Crc32c, PublishedVectors) {
  EXPECT_EQ(Of("123456789"), 0xe3069283u);
  EXPECT_EQ(Value(std::string(32, '\0').data(), 32), 0x8a9136aau);  // RFC 3720 B.4
  EXPECT_EQ(Value(nullptr, 0), 0u);
  const unsigned char one[] = {0x00, 0x00, 0x80, 0x3f};  // float 1.0f
  EXPECT_EQ(Value(one, sizeof one), 0xdd54c4abu);
  EXPECT_EQ(Mask(Value(one, sizeof one)), 0x2bdaa581u);
  // TensorBoard's masked-CRC vector: a serialized Event's bytes.
  EXPECT_EQ(Mask(Of(std::string("\x1a\x11") + "CRC test, one two")), 0x5794d08au);
}

TEST(Crc32c, MaskRoundTrips) {
  EXPECT_EQ(Mask(0), kMaskDelta);
  for (uint32_t v : {0u, 1u, 0xdeadbeefu, 0xffffffffu, 0x80000000u}) EXPECT_EQ(Unmask(Mask(v)), v);
}

TEST(Crc32c, ExtendContinuesAcrossPieces) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 37));
  const uint32_t whole = Of(data);
  for (size_t cut : {0u, 1u, 7u, 8u, 9u, 500u, 999u, 1000u}) {
    uint32_t c = Value(data.data(), cut);
    c = Extend(c, data.data() + cut, data.size() - cut);
    EXPECT_EQ(c, whole) << "cut at " << cut;
  }
}

TEST(Crc32c, HardwareAndPortablePathsAgree) {
  std::vector<unsigned char> data(4099);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 131 + 7);
  for (size_t len : {0u, 1u, 3u, 8u, 15u, 64u, 4099u}) {
    for (size_t offset : {0u, 1u, 3u}) {  // unaligned starts
      if (offset + len > data.size()) continue;
      EXPECT_EQ(Extend(0x12345678u, data.data() + offset, len),
                ExtendPortable(0x12345678u, data.data() + offset, len))
          << "len " << len << " offset " << offset;
    }
  }
  RecordProperty("hardware_crc", UsesHardware() ? "yes" : "no");
}

}  // namespace
}  // namespace tgraph::crc32c
