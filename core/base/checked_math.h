// Overflow-checked int64 arithmetic for sizes computed from untrusted values (dims and attrs
// of GraphDefs, values of constant inputs): each returns false, leaving *out unspecified,
// when the exact result does not fit, so that a shape function can fail with a status where
// plain arithmetic would be undefined behaviour.
#pragma once

#include <cstdint>

namespace tgraph {

inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool CheckedSub(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_sub_overflow(a, b, out);
}
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

}  // namespace tgraph
