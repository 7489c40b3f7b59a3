// The random-number source behind the CPU plugin's random kernels: Philox4x32-10 (a
// counter-based generator: block i of a stream is a pure function of (key, counter i)), so
// the numbers do not depend on how a kernel splits its work over threads.
//
// Seeding rule (TensorFlow's seed/seed2 attrs):
//  - seed == 0 and seed2 == 0: nondeterministic; the kernel draws its key and stream from
//    std::random_device when it is created.
//  - otherwise the key is derived from `seed` and the stream id from `seed2`, and a freshly
//    created kernel (a new session) produces the same numbers every time, run after run.
// Each kernel keeps a position in its stream (an atomic counter): every compute reserves the
// blocks it needs, so successive runs of one kernel draw fresh numbers.
#pragma once

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

void RegisterCandidateSamplerKernels(tgraph::plugin::Init& init);  // candidate_sampler_op.cc
void RegisterStatelessRandomKernels(tgraph::plugin::Init& init);  // stateless_random_ops.cc

namespace random {

using Block = std::array<uint32_t, 4>;

// Philox4x32 with 10 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
inline Block Philox(Block ctr, std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53} * ctr[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57} * ctr[2];
    const auto hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const auto hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return ctr;
}

inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Source {
 public:
  Source(int64_t seed, int64_t seed2) {
    uint64_t s = static_cast<uint64_t>(seed), s2 = static_cast<uint64_t>(seed2);
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      s = (uint64_t{rd()} << 32) ^ rd();
      s2 = (uint64_t{rd()} << 32) ^ rd();
    }
    const uint64_t k = SplitMix64(s);
    key_ = {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)};
    stream_ = SplitMix64(s2 ^ 0x5DEECE66Dull);
  }

  // Reserves `n` consecutive blocks of the stream; returns the first one's position.
  uint64_t Reserve(uint64_t n) { return position_.fetch_add(n, std::memory_order_relaxed); }

  // Block `position` of the stream; `attempt` selects an independent side stream (for
  // rejection sampling, where one output may need several blocks).
  Block At(uint64_t position, uint32_t attempt = 0) const {
    Block ctr = {static_cast<uint32_t>(position), static_cast<uint32_t>(position >> 32),
                 static_cast<uint32_t>(stream_), static_cast<uint32_t>(stream_ >> 32)};
    std::array<uint32_t, 2> key = key_;
    key[1] ^= attempt * 0x85EBCA6Bu;
    key[0] += attempt;
    return Philox(ctr, key);
  }

 private:
  std::array<uint32_t, 2> key_{};
  uint64_t stream_ = 0;
  std::atomic<uint64_t> position_{0};
};

// [0, 1) from 23 random bits (exact float arithmetic).
inline float Uniform01(uint32_t x) { return static_cast<float>(x >> 9) * (1.0f / 8388608.0f); }
// [0, 1) from 52 random bits.
inline double Uniform01(uint32_t hi, uint32_t lo) {
  const uint64_t bits = ((uint64_t{hi} << 32) | lo) >> 12;
  return static_cast<double>(bits) * (1.0 / 4503599627370496.0);
}

// Box-Muller: two independent standard normals from two uniforms.
template <typename F>
inline void BoxMuller(F u1, F u2, F* z0, F* z1) {
  constexpr F kEpsilon = F(1e-7);
  constexpr F kTwoPi = F(6.283185307179586476925286766559);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const F r = std::sqrt(F(-2) * std::log(u1));
  const F theta = kTwoPi * u2;
  *z0 = r * std::sin(theta);
  *z1 = r * std::cos(theta);
}

}  // namespace random
}  // namespace tgraph_cpu
