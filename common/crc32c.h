// CRC-32C (Castagnoli), the checksum of TensorFlow's checkpoints, tables and event files,
// and its "masked" form (rotate by 15, add a constant), which those formats store so that
// a CRC of data that itself holds CRCs stays well distributed.
//
// Shared by the core and by plugins: this library uses no core type.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tgraph::crc32c {

// The CRC of `crc`'s data followed by data[0, n): Extend(Value(A), B) == Value(A ‖ B).
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// The CRC of A ‖ B from crc_a = Value(A), crc_b = Value(B) and B's length, without B's bytes:
// CRCs of pieces computed apart (on several threads) make the CRC of the whole.
uint32_t Combine(uint32_t crc_a, uint32_t crc_b, uint64_t length_b);

inline constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline constexpr uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

inline constexpr uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

// Extend on the portable path (Boost.CRC), whatever the CPU: tests compare the two paths.
uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n);

// True when Extend runs on the CPU's CRC32 instruction (SSE4.2), false on the portable path.
bool UsesHardware();
// True when Extend's hardware path runs three CRC32 chains at once over adjacent lanes and
// joins them with carry-less multiplies (PCLMULQDQ as well); false when it runs one chain.
bool UsesLanes();

// Extend with one CRC32 chain (what Extend ran before the lanes; portable without SSE4.2):
// for bench/crc32c_bench.cc's before/after and the tests' comparisons.
uint32_t ExtendOneChainForBenchmark(uint32_t crc, const void* data, size_t n);

}  // namespace tgraph::crc32c
