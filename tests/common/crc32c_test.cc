#include "common/crc32c.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
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

// Random bytes, the same on every run.
std::vector<unsigned char> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<unsigned char> data(n);
  for (auto& b : data) b = static_cast<unsigned char>(gen());
  return data;
}

// Lengths around every place where the hardware path changes how it works: the lanes of
// 256 bytes (blocks of 768) and of 8 KiB (blocks of 24 KiB), their multiples, and the
// one-chain tail (under 768 bytes; under 8 bytes: byte by byte).
TEST(Crc32c, LaneBoundariesAgreeWithPortable) {
  const auto data = RandomBytes(3 * 24576 + 3 * 768 + 64, 1);
  std::vector<size_t> lengths;
  for (size_t base : {size_t{0}, size_t{768}, size_t{1536}, size_t{24576}, size_t{49152},
                      size_t{24576 + 768}, size_t{3 * 24576 + 2 * 768}}) {
    for (size_t delta : {0, 1, 7, 8, 9, 255, 256, 257, 511, 512, 767}) {
      if (base + delta + 3 <= data.size()) lengths.push_back(base + delta);
      if (base >= delta) lengths.push_back(base - delta);
    }
  }
  for (size_t len : lengths) {
    for (size_t offset : {0u, 1u, 3u}) {
      ASSERT_EQ(Extend(0x9a3b7c11u, data.data() + offset, len),
                ExtendPortable(0x9a3b7c11u, data.data() + offset, len))
          << "len " << len << " offset " << offset;
    }
  }
  RecordProperty("hardware_lanes", UsesLanes() ? "yes" : "no");
}

// Random lengths up to several MiB, random unaligned starts and starting CRCs: Extend, the
// one-chain path and the portable path give the same CRC.
TEST(Crc32c, RandomLengthsAndStartsAgreeWithPortable) {
  constexpr size_t kMax = size_t{5} << 20;
  const auto data = RandomBytes(kMax + 64, 2);
  std::mt19937 gen(3);
  for (int i = 0; i < 40; ++i) {
    // Half short (the tails), half long (the blocks).
    const size_t len = i % 2 == 0 ? gen() % 4096 : gen() % kMax;
    const size_t offset = gen() % 64;
    const uint32_t start = static_cast<uint32_t>(gen());
    const uint32_t want = ExtendPortable(start, data.data() + offset, len);
    ASSERT_EQ(Extend(start, data.data() + offset, len), want) << "len " << len << " offset " << offset;
    ASSERT_EQ(ExtendOneChainForBenchmark(start, data.data() + offset, len), want)
        << "len " << len << " offset " << offset;
  }
}

// Extend over pieces cut at random places (across lanes and blocks) continues the CRC of the
// whole: each piece starts from the previous one's CRC, not from zero.
TEST(Crc32c, ExtendChainsAcrossRandomPieces) {
  const auto data = RandomBytes(size_t{3} << 20, 4);
  const uint32_t whole = ExtendPortable(0, data.data(), data.size());
  ASSERT_EQ(Value(data.data(), data.size()), whole);
  std::mt19937 gen(5);
  for (int round = 0; round < 5; ++round) {
    uint32_t crc = 0;
    size_t at = 0;
    while (at < data.size()) {
      const size_t piece = std::min<size_t>(data.size() - at, gen() % (size_t{600} << 10));
      crc = Extend(crc, data.data() + at, piece);
      at += piece;
    }
    EXPECT_EQ(crc, whole) << "round " << round;
  }
}

// Combine(Value(A), Value(B), |B|) is Value(A ‖ B), for pieces of any length (empty ones too)
// and across the lanes' sizes; it never reads B.
TEST(Crc32c, CombineJoinsPiecesComputedApart) {
  const auto data = RandomBytes(size_t{1} << 20, 6);
  const uint32_t whole = ExtendPortable(0, data.data(), data.size());
  for (size_t cut : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{767}, size_t{24576},
                     size_t{500000}, data.size() - 1, data.size()}) {
    const uint32_t a = Value(data.data(), cut);
    const uint32_t b = Value(data.data() + cut, data.size() - cut);
    EXPECT_EQ(Combine(a, b, data.size() - cut), whole) << "cut at " << cut;
  }
  // Many pieces, joined left to right (as a reader joins its blocks' CRCs).
  std::mt19937 gen(7);
  uint32_t crc = 0;
  for (size_t at = 0; at < data.size();) {
    const size_t piece = std::min<size_t>(data.size() - at, gen() % 100000);
    crc = Combine(crc, Value(data.data() + at, piece), piece);
    at += piece;
  }
  EXPECT_EQ(crc, whole);
}

}  // namespace
}  // namespace tgraph::crc32c
