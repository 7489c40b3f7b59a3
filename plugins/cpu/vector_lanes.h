// Vectors as wide as the CPU variant being compiled (GCC's vector extension, which clang
// shares), for the few loops GCC's auto-vectoriser leaves scalar: the pooling kernels' work
// per window over a block of channels, whose running max, argmax and routed gradient must
// stay in registers while the window's pixels are read (written as fixed-length loops over
// small arrays, GCC unrolls them completely before it vectorises and emits scalar code).
// Each variant's build (-march=x86-64, -v3, -v4) gets its own width: 16, 32 or 64 bytes.
//
// Vectors never pass by value through a function boundary (LoadLanes / StoreLanes take
// pointers and references): a 32- or 64-byte vector by value changes the calling convention
// on the baseline ISA, which GCC warns about (-Wpsabi).
#pragma once

#include <cstdint>
#include <cstring>

namespace tgraph_cpu {

#if defined(__AVX512F__)
inline constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
inline constexpr int kVectorBytes = 32;
#else
inline constexpr int kVectorBytes = 16;
#endif

// Lanes<T>: V holds kCount lanes of T; M is what comparing two V gives (all ones or zero per
// lane), and what selects (`mask ? a : b`) take. OneLane<T> is the same interface over one
// element (for a block's last channels): V is T, M is a plain integer.
template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float V __attribute__((vector_size(kVectorBytes)));
  typedef int32_t M __attribute__((vector_size(kVectorBytes)));
  static constexpr int64_t kCount = kVectorBytes / sizeof(float);
};
template <>
struct Lanes<double> {
  typedef double V __attribute__((vector_size(kVectorBytes)));
  typedef int64_t M __attribute__((vector_size(kVectorBytes)));
  static constexpr int64_t kCount = kVectorBytes / sizeof(double);
};
template <typename T>
struct OneLane {
  using V = T;
  using M = int64_t;
  static constexpr int64_t kCount = 1;
};

// Unaligned loads and stores of a V (or of one T).
template <typename V, typename T>
inline void LoadLanes(V* v, const T* p) {
  std::memcpy(v, p, sizeof(V));
}
template <typename V, typename T>
inline void StoreLanes(T* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}

}  // namespace tgraph_cpu
