#include "common/crc32c.h"

#include <boost/crc.hpp>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace tgraph::crc32c {
namespace {

// Reflected CRC-32C with the standard init and final XOR; seeded with the complement of a
// previous CRC, it continues that CRC.
using PortableCrc = boost::crc_optimal<32, 0x1EDC6F41u, 0xFFFFFFFFu, 0xFFFFFFFFu, true, true>;


#if defined(__x86_64__)
// Built for SSE4.2 on its own and called only when cpuid says the CPU has it, so the rest of
// the library stays baseline x86-64.
[[gnu::target("sse4.2")]] uint32_t ExtendHardware(uint32_t crc, const unsigned char* p,
                                                  size_t n) {
  uint64_t state = ~crc & 0xFFFFFFFFu;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof word);
    state = _mm_crc32_u64(state, word);
    p += 8;
    n -= 8;
  }
  auto s32 = static_cast<uint32_t>(state);
  while (n > 0) {
    s32 = _mm_crc32_u8(s32, *p++);
    --n;
  }
  return ~s32;
}

bool DetectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2") != 0;
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
  static const bool has = DetectHardware();
  return has;
#else
  return false;
#endif
}

uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  if (UsesHardware()) return ExtendHardware(crc, p, n);
#endif
  return ExtendPortable(crc, p, n);
}

}  // namespace tgraph::crc32c
