// Helpers shared by the CPU plugin's array, state and random kernels: dtype sizes and names,
// reading index vectors from host tensors, shape strings, dtype-agnostic element copies and
// parallel byte copies. Plugin-side only (tgraph/plugin.hpp and the standard library).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tgraph/plugin.hpp"

// Every plain (fixed-size, memcpy-able) dtype the array movers register for: they copy
// elements by size, so the element type does not matter to them.
#define TG_ARRAY_MOVER_TYPES                                                                   \
  {                                                                                            \
    TG_FLOAT, TG_DOUBLE, TG_INT32, TG_INT64, TG_BOOL, TG_HALF, TG_BFLOAT16, TG_INT8, TG_UINT8, \
        TG_INT16, TG_UINT16, TG_UINT32, TG_UINT64, TG_COMPLEX64, TG_COMPLEX128                 \
  }
#define TG_ARRAY_INDEX_TYPES \
  { TG_INT32, TG_INT64 }

namespace tgraph_cpu::array_util {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// Bytes per element of the plain dtypes (0 for string, resource, variant and unknown).
inline size_t DtypeSize(TG_DataType t) {
  const int base = t > TG_DATA_TYPE_REF_OFFSET ? t - TG_DATA_TYPE_REF_OFFSET : t;
  switch (base) {
    case TG_FLOAT:
    case TG_INT32:
    case TG_QINT32:
    case TG_UINT32:
      return 4;
    case TG_DOUBLE:
    case TG_INT64:
    case TG_UINT64:
    case TG_COMPLEX64:
      return 8;
    case TG_COMPLEX128:
      return 16;
    case TG_INT16:
    case TG_UINT16:
    case TG_BFLOAT16:
    case TG_HALF:
    case TG_QINT16:
    case TG_QUINT16:
      return 2;
    case TG_UINT8:
    case TG_INT8:
    case TG_BOOL:
    case TG_QINT8:
    case TG_QUINT8:
    case TG_FLOAT8_E5M2:
    case TG_FLOAT8_E4M3FN:
    case TG_FLOAT8_E4M3FNUZ:
    case TG_FLOAT8_E4M3B11FNUZ:
    case TG_FLOAT8_E5M2FNUZ:
    case TG_INT4:
    case TG_UINT4:
    case TG_INT2:
    case TG_UINT2:
    case TG_FLOAT4_E2M1FN:
      return 1;
    default:
      return 0;
  }
}

// TensorFlow's spelling of the common dtypes ("float", "int32", ...), for messages.
inline std::string DtypeName(TG_DataType t) {
  const bool ref = t > TG_DATA_TYPE_REF_OFFSET;
  const int base = ref ? t - TG_DATA_TYPE_REF_OFFSET : t;
  static const char* const kNames[] = {
      "invalid",   "float",  "double",     "int32", "uint8",    "int16",   "int8",     "string",
      "complex64", "int64",  "bool",       "qint8", "quint8",   "qint32",  "bfloat16", "qint16",
      "quint16",   "uint16", "complex128", "half",  "resource", "variant", "uint32",   "uint64"};
  std::string name = base >= 0 && base < static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))
                         ? kNames[base]
                         : "dtype_" + std::to_string(base);
  return ref ? name + "_ref" : name;
}

// "[2,3]", "[]" for a scalar; -1 dims print as "?".
inline std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return s + "]";
}

inline int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Product of dims [begin, end).
inline int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) n *= dims[i];
  return n;
}

// The elements of an int32/int64 host tensor as int64.
inline std::vector<int64_t> IndexValues(const TensorView& t) {
  const int64_t n = t.num_elements();
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (t.dtype() == TG_INT32) {
    const int32_t* p = t.data<int32_t>();
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = p[i];
  } else if (t.dtype() == TG_INT64) {
    const int64_t* p = t.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = p[i];
  } else if (t.dtype() == TG_INT16) {
    const int16_t* p = t.data<int16_t>();
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = p[i];
  } else if (t.dtype() == TG_INT8) {
    const int8_t* p = t.data<int8_t>();
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = p[i];
  } else if (t.dtype() == TG_UINT8) {
    const uint8_t* p = t.data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = p[i];
  }
  return out;
}

// Input `i` as a vector of indices (shape, perm, multiples, ...): it must be rank 1 (or rank
// 0 with `allow_scalar`). Fails the node and returns false otherwise.
inline bool ReadIndexVector(Context& ctx, int i, const char* what, std::vector<int64_t>* out,
                            bool allow_scalar = false) {
  TensorView t = ctx.input(i);
  if (!(t.rank() == 1 || (allow_scalar && t.rank() == 0))) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be a vector" +
                                      (allow_scalar ? " or a scalar" : "") + ", but has shape " +
                                      ShapeString(t.dims()));
    return false;
  }
  *out = IndexValues(t);
  return true;
}

// Input `i` as one index: a scalar (or a one-element vector with `allow_vector1`).
inline bool ReadIndexScalar(Context& ctx, int i, const char* what, int64_t* out,
                            bool allow_vector1 = false) {
  TensorView t = ctx.input(i);
  if (!(t.rank() == 0 || (allow_vector1 && t.rank() == 1 && t.dim(0) == 1))) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             std::string(what) + " must be a scalar, but has shape " + ShapeString(t.dims()));
    return false;
  }
  *out = IndexValues(t)[0];
  return true;
}

// Normalizes axis into [0, rank) (or [0, rank] with `inclusive`); fails the node otherwise.
inline bool CanonicalAxis(Context& ctx, int64_t axis, int64_t rank, bool inclusive,
                          const char* what, int64_t* out) {
  const int64_t hi = inclusive ? rank + 1 : rank;
  if (axis < -hi || axis >= hi) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " " + std::to_string(axis) +
                                      " is out of range for a tensor of rank " +
                                      std::to_string(rank) + " (expected [" + std::to_string(-hi) +
                                      ", " + std::to_string(hi) + "))");
    return false;
  }
  *out = axis < 0 ? axis + hi : axis;
  return true;
}

// Copies `bytes` bytes, splitting big copies over the intra-op pool.
inline void ParallelMemcpy(Context& ctx, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  constexpr size_t kChunk = size_t{1} << 18;  // 256 KiB per unit
  if (bytes < 4 * kChunk || ctx.num_threads() <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const int64_t chunks = static_cast<int64_t>((bytes + kChunk - 1) / kChunk);
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  ctx.ParallelFor(chunks, 20000.0, [&](int64_t b, int64_t e) {
    const size_t lo = static_cast<size_t>(b) * kChunk;
    const size_t hi = std::min(bytes, static_cast<size_t>(e) * kChunk);
    std::memcpy(d + lo, s + lo, hi - lo);
  });
}

// An element of `N` bytes, copied as a unit.
template <size_t N>
struct Bytes {
  unsigned char b[N];
};

// Calls f.template operator()<E>() with E an N-byte element type for element size `size`
// (1, 2, 4, 8, 16); returns false for other sizes.
template <typename F>
bool DispatchBySize(size_t size, F&& f) {
  switch (size) {
    case 1:
      f.template operator()<uint8_t>();
      return true;
    case 2:
      f.template operator()<uint16_t>();
      return true;
    case 4:
      f.template operator()<uint32_t>();
      return true;
    case 8:
      f.template operator()<uint64_t>();
      return true;
    case 16:
      f.template operator()<Bytes<16>>();
      return true;
    default:
      return false;
  }
}

// Cost hint for ParallelFor over rows of `bytes` bytes.
inline double CopyCost(int64_t bytes) { return 1.0 + static_cast<double>(bytes) * 0.05; }

// Row-major strides (in elements) of dims.
inline std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Fails the node with INVALID_ARGUMENT if `t`'s dtype is not a plain one; else its size.
inline size_t ElementSizeOrFail(Context& ctx, const TensorView& t) {
  const size_t size = DtypeSize(t.dtype());
  if (size == 0) {
    ctx.Fail(TG_UNIMPLEMENTED, "dtype " + DtypeName(t.dtype()) + " is not supported");
  }
  return size;
}

// The output element count of dims fits in int64 and does not overflow; fails otherwise.
inline bool CheckedNumElements(Context& ctx, const std::vector<int64_t>& dims, int64_t* out) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "dimension sizes must be non-negative, got " + ShapeString(dims));
      return false;
    }
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      ctx.Fail(TG_INVALID_ARGUMENT, "shape " + ShapeString(dims) + " has too many elements");
      return false;
    }
    n *= d;
  }
  *out = n;
  return true;
}

// "indices[1,2] = 7 is not in [0, 5)": element `flat` of an indices tensor of shape `dims`.
inline std::string BadIndexMessage(int64_t flat, const std::vector<int64_t>& dims, int64_t value,
                                   int64_t limit, const char* name = "indices") {
  std::vector<int64_t> coord(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    coord[d] = dims[d] > 0 ? flat % dims[d] : 0;
    flat = dims[d] > 0 ? flat / dims[d] : 0;
  }
  std::string s = name;
  s += '[';
  for (size_t d = 0; d < coord.size(); ++d) {
    if (d) s += ',';
    s += std::to_string(coord[d]);
  }
  s += "] = ";
  s += std::to_string(value);
  s += " is not in [0, ";
  s += std::to_string(limit);
  s += ")";
  return s;
}

}  // namespace tgraph_cpu::array_util
