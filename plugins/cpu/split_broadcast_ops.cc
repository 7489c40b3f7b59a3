// Split, SplitV, BroadcastTo and SelectV2: dtype-agnostic by element size (no Eigen), work
// split over the intra-op pool by rows.
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

// ---- Split / SplitV ----

// Copies the pieces of `in` along `axis` (of the given sizes, in order) into outputs 0, 1,
// ...; a single piece aliases the input.
void WriteSplitOutputs(Context& ctx, const TensorView& in, int64_t axis,
                       const std::vector<int64_t>& sizes) {
  const std::vector<int64_t> dims = in.dims();
  if (sizes.size() == 1) {
    ctx.SetOutputAlias(0, in, dims);
    return;
  }
  const size_t size = ElementSizeOrFail(ctx, in);
  if (size == 0) return;
  const size_t a = static_cast<size_t>(axis);
  const int64_t outer = Product(dims, 0, a);
  const size_t inner_bytes = static_cast<size_t>(Product(dims, a + 1, dims.size())) * size;
  const size_t in_row = static_cast<size_t>(dims[a]) * inner_bytes;
  const auto* src = in.data<unsigned char>();
  int64_t offset = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    std::vector<int64_t> out_dims = dims;
    out_dims[a] = sizes[k];
    TensorMut out = ctx.AllocateOutput(static_cast<int>(k), out_dims);
    if (!ctx.ok()) return;
    const size_t piece = static_cast<size_t>(sizes[k]) * inner_bytes;
    if (piece != 0 && outer != 0) {
      auto* dst = out.mutable_data<unsigned char>();
      const unsigned char* from = src + static_cast<size_t>(offset) * inner_bytes;
      ctx.ParallelFor(outer, CopyCost(static_cast<int64_t>(piece)), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          std::memcpy(dst + static_cast<size_t>(o) * piece,
                      from + static_cast<size_t>(o) * in_row, piece);
        }
      });
    }
    offset += sizes[k];
  }
}

// Split(split_dim, value): num_split equal pieces.
class SplitOp {
 public:
  explicit SplitOp(Construction&) {}
  void Compute(Context& ctx) {
    int64_t axis = 0;
    if (!ReadIndexScalar(ctx, 0, "split_dim", &axis)) return;
    TensorView in = ctx.input(1);
    const int64_t rank = in.rank();
    if (!CanonicalAxis(ctx, axis, rank, false, "split_dim", &axis)) return;
    const int64_t n = ctx.num_outputs();
    const int64_t d = in.dim(static_cast<int>(axis));
    if (d % n != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Number of ways to split should evenly divide the split "
                                    "dimension, but got split_dim " + std::to_string(axis) +
                                        " (size = " + std::to_string(d) + ") and num_split " +
                                        std::to_string(n) + " (value shape " +
                                        ShapeString(in.dims()) + ")");
      return;
    }
    WriteSplitOutputs(ctx, in, axis, std::vector<int64_t>(static_cast<size_t>(n), d / n));
  }
};

// SplitV(value, size_splits, split_dim): pieces of the given sizes, one of which may be -1.
class SplitVOp {
 public:
  explicit SplitVOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> sizes;
    if (!ReadIndexVector(ctx, 1, "size_splits", &sizes)) return;
    int64_t axis = 0;
    if (!ReadIndexScalar(ctx, 2, "split_dim", &axis)) return;
    if (!CanonicalAxis(ctx, axis, in.rank(), false, "split_dim", &axis)) return;
    if (static_cast<int64_t>(sizes.size()) != ctx.num_outputs()) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string("size_splits has ") + std::to_string(sizes.size()) +
                                        " values but num_split is " +
                                        std::to_string(ctx.num_outputs()));
      return;
    }
    const int64_t d = in.dim(static_cast<int>(axis));
    int64_t total = 0;
    int inferred = -1;
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k] == -1 && inferred < 0) {
        inferred = static_cast<int>(k);
      } else if (sizes[k] < 0 || sizes[k] > d) {
        ctx.Fail(TG_INVALID_ARGUMENT, "size_splits " + ShapeString(sizes) +
                                          " must hold sizes in [0, " + std::to_string(d) +
                                          "] and at most one -1");
        return;
      } else {
        total += sizes[k];
      }
    }
    if (inferred >= 0 ? total > d : total != d) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Determined shape must either match input shape along "
                                    "split_dim exactly if fully specified, or be less than the "
                                    "size of the input along split_dim if not fully specified. "
                                    "Got size_splits " + ShapeString(sizes) +
                                        " for split_dim " + std::to_string(axis) + " of size " +
                                        std::to_string(d));
      return;
    }
    if (inferred >= 0) sizes[static_cast<size_t>(inferred)] = d - total;
    WriteSplitOutputs(ctx, in, axis, sizes);
  }
};

// ---- broadcasting ----

// NumPy broadcasting of several shapes: the result's dims and, per input, its strides in
// elements along them (0 where it broadcasts). False when they do not broadcast.
bool BroadcastStrides(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out,
                      std::vector<std::vector<int64_t>>* strides) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  out->assign(rank, 1);
  for (const auto& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = (*out)[rank - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) return false;
      o = s[i];
    }
  }
  strides->clear();
  for (const auto& s : shapes) {
    std::vector<int64_t> st(rank, 0);
    int64_t stride = 1;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] != 1) st[rank - s.size() + i] = stride;
      stride *= s[i];
    }
    strides->push_back(std::move(st));
  }
  return true;
}

// The offsets into each input of output row `row` (rows over every dim but the last).
void RowOffsets(int64_t row, const std::vector<int64_t>& out_dims,
                const std::vector<std::vector<int64_t>>& strides, int64_t* offsets) {
  const size_t r = out_dims.size();
  for (size_t k = 0; k < strides.size(); ++k) offsets[k] = 0;
  for (size_t d = r - 1; d-- > 0;) {
    const int64_t c = row % out_dims[d];
    row /= out_dims[d];
    for (size_t k = 0; k < strides.size(); ++k) offsets[k] += c * strides[k][d];
  }
}

// BroadcastTo(input, shape).
class BroadcastToOp {
 public:
  explicit BroadcastToOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> target;
    if (!ReadIndexVector(ctx, 1, "shape", &target)) return;
    for (int64_t d : target) {
      if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "shape must hold non-negative sizes, got " +
                                          ShapeString(target));
        return;
      }
    }
    const std::vector<int64_t> dims = in.dims();
    std::vector<int64_t> out_dims;
    std::vector<std::vector<int64_t>> strides;
    if (dims.size() > target.size() || !BroadcastStrides({dims, target}, &out_dims, &strides) ||
        out_dims != target) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Unable to broadcast tensor of shape " + ShapeString(dims) +
                                        " to tensor of shape " + ShapeString(target));
      return;
    }
    int64_t total;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    if (dims == out_dims) {
      ctx.SetOutputAlias(0, in, dims);
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    const size_t r = out_dims.size();
    const int64_t inner = out_dims[r - 1];
    const int64_t inner_stride = strides[0][r - 1];
    const int64_t rows = total / inner;
    const std::vector<std::vector<int64_t>> in_strides = {strides[0]};
    DispatchBySize(size, [&]<typename E>() {
      const E* src = in.data<E>();
      E* dst = out.mutable_data<E>();
      ctx.ParallelFor(rows, CopyCost(inner * static_cast<int64_t>(size)),
                      [&](int64_t b, int64_t e) {
                        for (int64_t row = b; row < e; ++row) {
                          int64_t off = 0;
                          RowOffsets(row, out_dims, in_strides, &off);
                          E* o = dst + row * inner;
                          const E* s = src + off;
                          if (inner_stride == 0) {
                            std::fill(o, o + inner, *s);
                          } else {
                            std::copy(s, s + inner, o);
                          }
                        }
                      });
    });
  }
};

// SelectV2(condition, t, e): t where condition, else e; all three broadcast together.
class SelectV2Op {
 public:
  explicit SelectV2Op(Construction&) {}
  void Compute(Context& ctx) {
    TensorView cond = ctx.input(0), t = ctx.input(1), e = ctx.input(2);
    const std::vector<int64_t> cd = cond.dims(), td = t.dims(), ed = e.dims();
    std::vector<int64_t> out_dims;
    std::vector<std::vector<int64_t>> strides;
    if (!BroadcastStrides({cd, td, ed}, &out_dims, &strides)) {
      ctx.Fail(TG_INVALID_ARGUMENT, "condition " + ShapeString(cd) + ", then " +
                                        ShapeString(td) + " and else " + ShapeString(ed) +
                                        " must be broadcastable");
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, t);
    if (size == 0) return;
    int64_t total;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    const bool* c = cond.data<bool>();
    const size_t r = out_dims.size();
    const int64_t inner = r == 0 ? 1 : out_dims[r - 1];
    const int64_t rows = total / inner;
    const int64_t cs = r == 0 ? 0 : strides[0][r - 1], ts = r == 0 ? 0 : strides[1][r - 1],
                  es = r == 0 ? 0 : strides[2][r - 1];
    DispatchBySize(size, [&]<typename E>() {
      const E* tv = t.data<E>();
      const E* ev = e.data<E>();
      E* dst = out.mutable_data<E>();
      ctx.ParallelFor(rows, 1.0 + static_cast<double>(inner), [&](int64_t b, int64_t end) {
        int64_t off[3] = {0, 0, 0};
        for (int64_t row = b; row < end; ++row) {
          if (r > 0) RowOffsets(row, out_dims, strides, off);
          E* o = dst + row * inner;
          for (int64_t i = 0; i < inner; ++i) {
            o[i] = c[off[0] + i * cs] ? tv[off[1] + i * ts] : ev[off[2] + i * es];
          }
        }
      });
    });
  }
};

}  // namespace

void RegisterSplitBroadcastKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<SplitOp>(KernelBuilder("Split", "CPU")
                           .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                           .HostMemory("split_dim"));
  init.Kernel<SplitVOp>(KernelBuilder("SplitV", "CPU")
                            .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                            .TypeConstraint("Tlen", TG_ARRAY_INDEX_TYPES)
                            .HostMemory("size_splits")
                            .HostMemory("split_dim"));
  init.Kernel<BroadcastToOp>(KernelBuilder("BroadcastTo", "CPU")
                                 .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                 .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                                 .HostMemory("shape"));
  init.Kernel<SelectV2Op>(KernelBuilder("SelectV2", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
}

}  // namespace tgraph_cpu
