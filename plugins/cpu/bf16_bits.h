// A bfloat16 value as its 16-bit pattern (the upper half of a float's bits), widened with a
// shift and rounded to nearest even with integer arithmetic: plain inline code the compiler
// vectorises in loops, shared by the bf16 kernels (bf16_kernels.cc) and the kernels
// templated on a storage type that also take bfloat16 (nn_backprop_pool.cc).
#pragma once

#include <cstdint>
#include <cstring>

namespace tgraph_cpu {

struct BF16 {
  uint16_t bits;
};

inline float F(BF16 x) {
  const uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Rounded to nearest even; NaN becomes the quiet NaN of its sign (0x7fc0 / 0xffc0), as with
// Eigen's conversion.
inline BF16 ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  return BF16{static_cast<uint16_t>(nan ? ((u >> 16) & 0x8000u) | 0x7fc0u : rounded)};
}

}  // namespace tgraph_cpu
