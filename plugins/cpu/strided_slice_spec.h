// TensorFlow's strided-slice canonicalization, shared by StridedSlice (slice_ops.cc) and
// StridedSliceGrad (array_helper_strided_slice_grad.cc) so the gradient scatters exactly where
// the forward op gathered: the sparse spec (begin/end/strides with masks, at most one
// ellipsis, new axes, shrunk axes) becomes one (begin, stride, count) per input dimension plus
// the output's dims; Transfer then moves the elements one way or the other (Slice uses it
// too). core/ops/array_ops.cc carries the same algorithm over partial shapes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"

namespace tgraph_cpu::strided_slice {

using array_util::Construction;
using array_util::Context;

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
};

// Reads the five mask attrs; fails construction on more than one ellipsis.
inline void ReadMasks(Construction& c, Masks* m) {
  c.GetAttr("begin_mask", &m->begin);
  c.GetAttr("end_mask", &m->end);
  c.GetAttr("ellipsis_mask", &m->ellipsis);
  c.GetAttr("new_axis_mask", &m->new_axis);
  c.GetAttr("shrink_axis_mask", &m->shrink_axis);
  // In unsigned arithmetic: a mask of INT64_MIN (bit 63 alone) is one ellipsis, and
  // INT64_MIN - 1 would overflow (UBSan; found by the op_run fuzz corpus).
  const auto e = static_cast<uint64_t>(m->ellipsis);
  if (c.ok() && (e & (e - 1)) != 0) {
    c.Fail(TG_INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
  }
}

// Per input dim: the first index read, the step and how many are read; `out_dims` is the
// output's shape (new axes as 1, shrunk axes dropped).
struct Spec {
  std::vector<int64_t> begin, stride, count;
  std::vector<int64_t> out_dims;
};

// Canonicalizes the slice of a tensor of shape `dims` given by inputs `first`, first + 1 and
// first + 2 (begin, end, strides). Fails the node and returns false on a bad spec.
inline bool Canonicalize(Context& ctx, const std::vector<int64_t>& dims, int first,
                         const Masks& m, Spec* out) {
  std::vector<int64_t> begin, end, strides;
  if (!array_util::ReadIndexVector(ctx, first, "begin", &begin) ||
      !array_util::ReadIndexVector(ctx, first + 1, "end", &end) ||
      !array_util::ReadIndexVector(ctx, first + 2, "strides", &strides)) {
    return false;
  }
  if (begin.size() != end.size() || begin.size() != strides.size()) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "Expected begin, end, and strides to be 1D equal size tensors, "
             "but got shapes [" +
                 std::to_string(begin.size()) + "], [" + std::to_string(end.size()) + "], and [" +
                 std::to_string(strides.size()) + "] instead.");
    return false;
  }
  if (begin.size() > 62) {
    ctx.Fail(TG_INVALID_ARGUMENT, "slice spec has more than 62 entries");
    return false;
  }
  const int sparse = static_cast<int>(begin.size());
  const int dense = static_cast<int>(dims.size());
  auto bit = [](int64_t mask, int i) { return ((mask >> i) & 1) != 0; };
  // Without an explicit ellipsis, an implied one after the last entry covers the other dims.
  int64_t ellipsis = m.ellipsis;
  int sparse_dims = sparse;
  bool seen = false;
  for (int i = 0; i < sparse; ++i) seen = seen || bit(ellipsis, i);
  if (!seen) {
    ellipsis |= int64_t{1} << sparse;
    ++sparse_dims;
  }
  int new_after = 0;
  for (int i = 0, after = 0; i < sparse_dims; ++i) {
    if (bit(ellipsis, i))
      after = 1;
    else if (after && bit(m.new_axis, i))
      ++new_after;
  }
  struct Dense {
    int64_t begin = 0, end = 0, stride = 1;
    bool begin_masked = true, end_masked = true, shrink = false;
  };
  std::vector<Dense> spec(static_cast<size_t>(dense));
  constexpr int kNewAxis = -1, kShrink = -2;
  std::vector<int> gather;  // per output dim source: a dense index, kNewAxis or kShrink
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (bit(ellipsis, i)) {
      const int next = std::min(dense - (sparse_dims - i) + 1 + new_after, dense);
      for (; full < next; ++full) gather.push_back(full);
    } else if (bit(m.new_axis, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full >= dense) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Index out of range using input dim " +
                                          std::to_string(full) + "; input has only " +
                                          std::to_string(dense) + " dims");
        return false;
      }
      Dense& d = spec[static_cast<size_t>(full)];
      const auto ui = static_cast<size_t>(i);
      d = Dense{begin[ui], end[ui], strides[ui], bit(m.begin, i), bit(m.end, i),
                bit(m.shrink_axis, i)};
      gather.push_back(d.shrink ? kShrink : full);
      ++full;
    }
  }
  out->begin.assign(static_cast<size_t>(dense), 0);
  out->stride.assign(static_cast<size_t>(dense), 1);
  out->count.assign(static_cast<size_t>(dense), 0);
  for (int i = 0; i < dense; ++i) {
    const auto ui = static_cast<size_t>(i);
    const Dense& d = spec[ui];
    const int64_t dim = dims[ui];
    if (d.stride == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "strides[" + std::to_string(i) + "] must be non-zero");
      return false;
    }
    if (d.shrink && d.stride <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "only stride 1 allowed on non-range indexing.");
      return false;
    }
    int64_t lo_i, hi_i;
    if (d.shrink) {
      lo_i = d.begin < 0 ? dim + d.begin : d.begin;
      hi_i = lo_i + 1;
      if (lo_i < 0 || lo_i >= dim) {
        ctx.Fail(TG_INVALID_ARGUMENT, "slice index " + std::to_string(d.begin) +
                                          " of dimension " + std::to_string(i) +
                                          " out of bounds.");
        return false;
      }
    } else {
      // Out-of-range ends clamp; a negative stride walks from hi down to (excluding) lo.
      const int64_t lo = d.stride > 0 ? 0 : -1;
      const int64_t hi = d.stride > 0 ? dim : dim - 1;
      auto canonical = [&](int64_t x, bool masked, bool is_end) {
        if (masked) return (d.stride > 0) != is_end ? lo : hi;
        const int64_t fwd = x < 0 ? dim + x : x;
        return std::clamp(fwd, lo, hi);
      };
      lo_i = canonical(d.begin, d.begin_masked, false);
      hi_i = canonical(d.end, d.end_masked, true);
    }
    const int64_t len = hi_i - lo_i;
    int64_t n = 0;
    if (len != 0 && (len < 0) == (d.stride < 0)) {
      n = len / d.stride + (len % d.stride != 0 ? 1 : 0);
    }
    out->begin[ui] = n > 0 ? lo_i : 0;
    out->stride[ui] = d.stride;
    out->count[ui] = n;
  }
  out->out_dims.clear();
  for (int g : gather) {
    if (g == kNewAxis)
      out->out_dims.push_back(1);
    else if (g >= 0)
      out->out_dims.push_back(out->count[static_cast<size_t>(g)]);
  }
  return true;
}

// Which way Transfer moves elements between the strided view and the dense tensor.
enum class Direction {
  kGather,   // strided `in` -> dense `out` (Slice, StridedSlice)
  kScatter,  // dense `in` -> strided `out` (StridedSliceGrad)
};

// Moves the elements of a strided view, position begin_i + k_i * stride_i of a tensor with
// dims `strided_dims`, to or from a dense tensor with dims `count` (k indexes it). Both
// directions walk the same rows, so the gradient writes exactly where the forward op read.
// Distinct k give distinct positions (no stride is 0), so rows run in parallel. Elements
// move by `size` bytes (dtype-agnostic); rows that are contiguous on both sides use memcpy.
template <Direction kDir>
void Transfer(Context& ctx, const unsigned char* in, unsigned char* out, size_t size,
              const std::vector<int64_t>& strided_dims, const std::vector<int64_t>& begin,
              const std::vector<int64_t>& stride, const std::vector<int64_t>& count) {
  const size_t r = strided_dims.size();
  if (r == 0) {
    std::memcpy(out, in, size);
    return;
  }
  const std::vector<int64_t> strided_strides = array_util::Strides(strided_dims);
  const int64_t inner = count[r - 1];
  const int64_t rows = array_util::Product(count, 0, r - 1);
  if (inner == 0 || rows == 0) return;
  const int64_t inner_step = stride[r - 1];
  const size_t row_bytes = static_cast<size_t>(inner) * size;
  constexpr bool kScatter = kDir == Direction::kScatter;
  ctx.ParallelFor(
      rows, array_util::CopyCost(static_cast<int64_t>(row_bytes)), [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          int64_t rest = row, offset = 0;
          for (size_t d = r - 1; d-- > 0;) {
            const int64_t c = rest % count[d];
            rest /= count[d];
            offset += (begin[d] + c * stride[d]) * strided_strides[d];
          }
          offset += begin[r - 1];
          const size_t dense = static_cast<size_t>(row) * row_bytes;
          const size_t strided = static_cast<size_t>(offset) * size;
          if (inner_step == 1) {
            if constexpr (kScatter)
              std::memcpy(out + strided, in + dense, row_bytes);
            else
              std::memcpy(out + dense, in + strided, row_bytes);
            continue;
          }
          array_util::DispatchBySize(size, [&]<typename E>() {
            if constexpr (kScatter) {
              const E* s = reinterpret_cast<const E*>(in + dense);
              E* d = reinterpret_cast<E*>(out) + offset;
              for (int64_t k = 0; k < inner; ++k) d[k * inner_step] = s[k];
            } else {
              const E* s = reinterpret_cast<const E*>(in) + offset;
              E* d = reinterpret_cast<E*>(out + dense);
              for (int64_t k = 0; k < inner; ++k) d[k] = s[k * inner_step];
            }
          });
        }
      });
}

}  // namespace tgraph_cpu::strided_slice
