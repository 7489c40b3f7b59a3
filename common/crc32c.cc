#include "common/crc32c.h"

#include <array>
#include <boost/crc.hpp>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#include <wmmintrin.h>
#endif

namespace tgraph::crc32c {
namespace {

// Polynomials mod P in the reflected form CRC-32C works in: bit i of a 32-bit value is the
// coefficient of x^(31-i), so x^0 is 0x80000000 and multiplying by x shifts right.
constexpr uint32_t kReflectedPoly = 0x82F63B78u;  // P = 0x1EDC6F41, bit-reversed
constexpr uint32_t kOne = 0x80000000u;           // x^0

// a · b mod P, one bit of a at a time (b multiplied by x as the bits go down).
uint32_t MultiplyModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t bit = kOne; bit != 0; bit >>= 1) {
    if ((a & bit) != 0) product ^= b;
    b = (b >> 1) ^ ((b & 1u) != 0 ? kReflectedPoly : 0u);
  }
  return product;
}

// x^k mod P by squaring: x^(2^i) mod P for every bit i of k, computed once.
uint32_t XPowMod(uint64_t k) {
  static const auto powers = [] {
    std::array<uint32_t, 64> p{};
    p[0] = kOne >> 1;  // x^1
    for (size_t i = 1; i < p.size(); ++i) p[i] = MultiplyModP(p[i - 1], p[i - 1]);
    return p;
  }();
  uint32_t v = kOne;
  for (size_t i = 0; k != 0; ++i, k >>= 1) {
    if ((k & 1u) != 0) v = MultiplyModP(v, powers[i]);
  }
  return v;
}

// Reflected CRC-32C with the standard init and final XOR; seeded with the complement of a
// previous CRC, it continues that CRC.
using PortableCrc = boost::crc_optimal<32, 0x1EDC6F41u, 0xFFFFFFFFu, 0xFFFFFFFFu, true, true>;

#if defined(__x86_64__)
// The CRC32 instruction has a latency of 3 cycles and a throughput of one a cycle: one chain
// of it runs at a third of what the core can do. So the hardware path runs three chains over
// three adjacent lanes of a block and joins them with the CRC's linearity: for a register
// state s (the complemented CRC) and data A then B,
//   crc(s, A ‖ B) = shift(crc(s, A), |B|) ^ crc(0, B),
// where shift(s, n) = s · x^(8n) mod P, the state after n zero bytes. One carry-less multiply
// (PCLMULQDQ) by a constant x^(8n-33) mod P, and one CRC32 of the 64-bit product (which
// reduces it mod P and multiplies by x^33), make that shift.
//
// In the reflected form the instruction works in, bit i of a 32-bit state is the coefficient
// of x^(31-i); the carry-less product of two such values, read as a 64-bit reflected value
// (bit k <-> x^(63-k)), is their product times x; CRC32 of a 64-bit value v from state 0 is
// v · x^32 mod P. Hence crc32_u64(0, clmul(s, K)) = s · K · x^33 mod P.


// The lane sizes, largest first: a long buffer goes through blocks of 3 × 8 KiB (the joins,
// ~15 cycles each, cost under 1% there), what is left through blocks of 3 × 256 bytes, and the
// last < 768 bytes through one chain.
constexpr size_t kLaneBytes[] = {8192, 256};
constexpr int kLaneSizes = sizeof(kLaneBytes) / sizeof(kLaneBytes[0]);

struct ShiftConstants {
  uint64_t by_one[kLaneSizes];  // x^(8L - 33) mod P: shifts a state past one lane
  uint64_t by_two[kLaneSizes];  // x^(16L - 33) mod P: past two
};

const ShiftConstants& Constants() {
  static const ShiftConstants constants = [] {
    ShiftConstants c{};
    for (int i = 0; i < kLaneSizes; ++i) {
      c.by_one[i] = XPowMod(8 * kLaneBytes[i] - 33);
      c.by_two[i] = XPowMod(16 * kLaneBytes[i] - 33);
    }
    return c;
  }();
  return constants;
}

inline uint64_t Load64(const unsigned char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// Built for SSE4.2 (and PCLMUL) on their own and called only when cpuid says the CPU has them,
// so the rest of the library stays baseline x86-64.
[[gnu::target("sse4.2")]] uint32_t ExtendOneChain(uint32_t state, const unsigned char* p,
                                                  size_t n) {
  uint64_t s = state;
  for (; n >= 8; p += 8, n -= 8) s = _mm_crc32_u64(s, Load64(p));
  auto s32 = static_cast<uint32_t>(s);
  for (; n > 0; ++p, --n) s32 = _mm_crc32_u8(s32, *p);
  return s32;
}

// s · K · x^33 mod P (see above).
[[gnu::target("sse4.2,pclmul")]] inline uint64_t Shift(uint64_t s, uint64_t k) {
  const __m128i product =
      _mm_clmulepi64_si128(_mm_cvtsi64_si128(static_cast<long long>(s)),
                           _mm_cvtsi64_si128(static_cast<long long>(k)), 0x00);
  return _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(product)));
}

[[gnu::target("sse4.2,pclmul")]] uint32_t ExtendLanes(uint32_t state, const unsigned char* p,
                                                      size_t n) {
  const ShiftConstants& k = Constants();
  uint64_t s = state;
  for (int size = 0; size < kLaneSizes; ++size) {
    const size_t lane = kLaneBytes[size];
    for (; n >= 3 * lane; p += 3 * lane, n -= 3 * lane) {
      uint64_t a = s, b = 0, c = 0;
      for (size_t i = 0; i < lane; i += 8) {
        a = _mm_crc32_u64(a, Load64(p + i));
        b = _mm_crc32_u64(b, Load64(p + lane + i));
        c = _mm_crc32_u64(c, Load64(p + 2 * lane + i));
      }
      s = Shift(a, k.by_two[size]) ^ Shift(b, k.by_one[size]) ^ c;
    }
  }
  return ExtendOneChain(static_cast<uint32_t>(s), p, n);
}

enum class Path { kPortable, kOneChain, kLanes };

Path DetectPath() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2") == 0) return Path::kPortable;
  return __builtin_cpu_supports("pclmul") != 0 ? Path::kLanes : Path::kOneChain;
}

Path HardwarePath() {
  static const Path path = DetectPath();
  return path;
}
#endif

// Boost takes the initial remainder unreflected, while a finished reflected CRC is the
// reflected remainder: continuing one means reflecting it back.
uint32_t Reflect32(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i, v >>= 1) r = (r << 1) | (v & 1u);
  return r;
}

}  // namespace

uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n) {
  PortableCrc c(Reflect32(~crc));
  c.process_bytes(data, n);
  return c.checksum();
}

bool UsesHardware() {
#if defined(__x86_64__)
  return HardwarePath() != Path::kPortable;
#else
  return false;
#endif
}

bool UsesLanes() {
#if defined(__x86_64__)
  return HardwarePath() == Path::kLanes;
#else
  return false;
#endif
}

uint32_t ExtendOneChainForBenchmark(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  if (HardwarePath() != Path::kPortable) return ~ExtendOneChain(~crc, p, n);
#endif
  return ExtendPortable(crc, p, n);
}

// Extend(c, B) = shift(c, |B|) ^ Value(B): the CRC's init and final complements cancel (see
// the lanes above for the shift), so the combination needs only x^(8|B|) mod P.
uint32_t Combine(uint32_t crc_a, uint32_t crc_b, uint64_t length_b) {
  if (length_b == 0) return crc_a;
  // 8 · length_b fits in 64 bits for any length below 2^61 bytes.
  return MultiplyModP(crc_a, XPowMod(8 * length_b)) ^ crc_b;
}

uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  switch (HardwarePath()) {
    case Path::kLanes:
      return ~ExtendLanes(~crc, p, n);
    case Path::kOneChain:
      return ~ExtendOneChain(~crc, p, n);
    case Path::kPortable:
      break;
  }
#endif
  return ExtendPortable(crc, p, n);
}

}  // namespace tgraph::crc32c
