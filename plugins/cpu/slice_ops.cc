// Slice and StridedSlice. Both reduce to "per input dim: begin, stride, count" and one
// strided copy (dtype-agnostic, by element size; contiguous rows use memcpy). A slice that
// takes the whole input unchanged aliases it. StridedSlice follows TensorFlow's semantics
// (begin/end masks, one ellipsis, new axes, shrunk axes; negative indices and strides;
// out-of-range begin/end clamp, shrunk indices must be in range); core/ops/array_ops.cc
// carries the same algorithm over partial shapes for the static shape.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

// out[k_0, ..., k_{r-1}] = in[begin_i + k_i * stride_i], out contiguous with dims `count`.
void StridedCopy(Context& ctx, const unsigned char* in, unsigned char* out, size_t size,
                 const std::vector<int64_t>& in_dims, const std::vector<int64_t>& begin,
                 const std::vector<int64_t>& stride, const std::vector<int64_t>& count) {
  const size_t r = in_dims.size();
  if (r == 0) {
    std::memcpy(out, in, size);
    return;
  }
  const std::vector<int64_t> in_strides = Strides(in_dims);
  const int64_t inner = count[r - 1];
  const int64_t rows = Product(count, 0, r - 1);
  if (inner == 0 || rows == 0) return;
  const int64_t inner_step = stride[r - 1];
  const size_t row_bytes = static_cast<size_t>(inner) * size;
  ctx.ParallelFor(rows, CopyCost(static_cast<int64_t>(row_bytes)), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t rest = row, offset = 0;
      for (size_t d = r - 1; d-- > 0;) {
        const int64_t c = rest % count[d];
        rest /= count[d];
        offset += (begin[d] + c * stride[d]) * in_strides[d];
      }
      offset += begin[r - 1];
      unsigned char* dst = out + static_cast<size_t>(row) * row_bytes;
      if (inner_step == 1) {
        std::memcpy(dst, in + static_cast<size_t>(offset) * size, row_bytes);
      } else {
        DispatchBySize(size, [&]<typename E>() {
          const E* src = reinterpret_cast<const E*>(in) + offset;
          E* d = reinterpret_cast<E*>(dst);
          for (int64_t k = 0; k < inner; ++k) d[k] = src[k * inner_step];
        });
      }
    }
  });
}

// Shared tail: alias when the slice is the whole input, else allocate and copy.
void EmitSlice(Context& ctx, const TensorView& in, const std::vector<int64_t>& begin,
               const std::vector<int64_t>& stride, const std::vector<int64_t>& count,
               const std::vector<int64_t>& out_dims) {
  const std::vector<int64_t> dims = in.dims();
  bool whole = true;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (count[i] != dims[i] || (dims[i] > 1 && (begin[i] != 0 || stride[i] != 1))) whole = false;
  }
  if (whole) {
    ctx.SetOutputAlias(0, in, out_dims);
    return;
  }
  const size_t size = ElementSizeOrFail(ctx, in);
  if (size == 0) return;
  TensorMut out = ctx.AllocateOutput(0, out_dims);
  if (!ctx.ok() || NumElements(count) == 0) return;
  StridedCopy(ctx, in.data<unsigned char>(), out.mutable_data<unsigned char>(), size, dims, begin,
              stride, count);
}

class SliceOp {
 public:
  explicit SliceOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> begin, size;
    if (!ReadIndexVector(ctx, 1, "begin", &begin) || !ReadIndexVector(ctx, 2, "size", &size))
      return;
    const std::vector<int64_t> dims = in.dims();
    if (begin.size() != dims.size() || size.size() != dims.size()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected begin and size arguments to be 1-D tensors of size " +
                                        std::to_string(dims.size()) + ", but got shapes [" +
                                        std::to_string(begin.size()) + "] and [" +
                                        std::to_string(size.size()) + "] instead");
      return;
    }
    std::vector<int64_t> count(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      const int64_t b = begin[i];
      int64_t s = size[i];
      if (s == -1) s = dims[i] - b;
      if (b < 0 || s < 0 || b > dims[i] || s > dims[i] - b) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "Expected begin[" + std::to_string(i) + "] = " + std::to_string(b) + " in [0, " +
                     std::to_string(dims[i]) + "] and size[" + std::to_string(i) +
                     "] = " + std::to_string(size[i]) + " in [0, " +
                     std::to_string(std::max<int64_t>(dims[i] - b, 0)) +
                     "] (or -1) for input of shape " + ShapeString(dims));
        return;
      }
      count[i] = s;
    }
    EmitSlice(ctx, in, begin, std::vector<int64_t>(dims.size(), 1), count, count);
  }
};

class StridedSliceOp {
 public:
  explicit StridedSliceOp(Construction& c) {
    c.GetAttr("begin_mask", &begin_mask_);
    c.GetAttr("end_mask", &end_mask_);
    c.GetAttr("ellipsis_mask", &ellipsis_mask_);
    c.GetAttr("new_axis_mask", &new_axis_mask_);
    c.GetAttr("shrink_axis_mask", &shrink_axis_mask_);
    if (c.ok() && (ellipsis_mask_ & (ellipsis_mask_ - 1)) != 0) {
      c.Fail(TG_INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
    }
  }

  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> begin, end, strides;
    if (!ReadIndexVector(ctx, 1, "begin", &begin) || !ReadIndexVector(ctx, 2, "end", &end) ||
        !ReadIndexVector(ctx, 3, "strides", &strides)) {
      return;
    }
    if (begin.size() != end.size() || begin.size() != strides.size()) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "Expected begin, end, and strides to be 1D equal size tensors, "
               "but got shapes [" +
                   std::to_string(begin.size()) + "], [" + std::to_string(end.size()) + "], and [" +
                   std::to_string(strides.size()) + "] instead.");
      return;
    }
    if (begin.size() > 62) {
      ctx.Fail(TG_INVALID_ARGUMENT, "slice spec has more than 62 entries");
      return;
    }
    const std::vector<int64_t> dims = in.dims();
    const int sparse = static_cast<int>(begin.size());
    const int dense = static_cast<int>(dims.size());
    auto bit = [](int64_t mask, int i) { return ((mask >> i) & 1) != 0; };
    int64_t ellipsis = ellipsis_mask_;
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
      else if (after && bit(new_axis_mask_, i))
        ++new_after;
    }
    struct Dense {
      int64_t begin = 0, end = 0, stride = 1;
      bool begin_masked = true, end_masked = true, shrink = false;
    };
    std::vector<Dense> spec(static_cast<size_t>(dense));
    constexpr int kNewAxis = -1, kShrink = -2;
    std::vector<int> gather;
    int full = 0;
    for (int i = 0; i < sparse_dims; ++i) {
      if (bit(ellipsis, i)) {
        const int next = std::min(dense - (sparse_dims - i) + 1 + new_after, dense);
        for (; full < next; ++full) gather.push_back(full);
      } else if (bit(new_axis_mask_, i)) {
        gather.push_back(kNewAxis);
      } else {
        if (full >= dense) {
          ctx.Fail(TG_INVALID_ARGUMENT, "Index out of range using input dim " +
                                            std::to_string(full) + "; input has only " +
                                            std::to_string(dense) + " dims");
          return;
        }
        Dense& d = spec[static_cast<size_t>(full)];
        const auto ui = static_cast<size_t>(i);
        d = Dense{begin[ui],           end[ui],           strides[ui],
                  bit(begin_mask_, i), bit(end_mask_, i), bit(shrink_axis_mask_, i)};
        gather.push_back(d.shrink ? kShrink : full);
        ++full;
      }
    }
    std::vector<int64_t> b(static_cast<size_t>(dense)), s(static_cast<size_t>(dense)),
        count(static_cast<size_t>(dense));
    for (int i = 0; i < dense; ++i) {
      const auto ui = static_cast<size_t>(i);
      const Dense& d = spec[ui];
      const int64_t dim = dims[ui];
      if (d.stride == 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "strides[" + std::to_string(i) + "] must be non-zero");
        return;
      }
      if (d.shrink && d.stride <= 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "only stride 1 allowed on non-range indexing.");
        return;
      }
      int64_t lo_i, hi_i;
      if (d.shrink) {
        lo_i = d.begin < 0 ? dim + d.begin : d.begin;
        hi_i = lo_i + 1;
        if (lo_i < 0 || lo_i >= dim) {
          ctx.Fail(TG_INVALID_ARGUMENT, "slice index " + std::to_string(d.begin) +
                                            " of dimension " + std::to_string(i) +
                                            " out of bounds.");
          return;
        }
      } else {
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
      b[ui] = n > 0 ? lo_i : 0;
      s[ui] = d.stride;
      count[ui] = n;
    }
    std::vector<int64_t> out_dims;
    for (int g : gather) {
      if (g == kNewAxis)
        out_dims.push_back(1);
      else if (g >= 0)
        out_dims.push_back(count[static_cast<size_t>(g)]);
    }
    EmitSlice(ctx, in, b, s, count, out_dims);
  }

 private:
  int64_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_axis_mask_ = 0,
          shrink_axis_mask_ = 0;
};

}  // namespace

void RegisterSliceKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<SliceOp>(KernelBuilder("Slice", "CPU")
                           .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                           .TypeConstraint("Index", TG_ARRAY_INDEX_TYPES)
                           .HostMemory("begin")
                           .HostMemory("size"));
  init.Kernel<StridedSliceOp>(KernelBuilder("StridedSlice", "CPU")
                                  .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                  .TypeConstraint("Index", TG_ARRAY_INDEX_TYPES)
                                  .HostMemory("begin")
                                  .HostMemory("end")
                                  .HostMemory("strides"));
}

}  // namespace tgraph_cpu
