// Tile and Pad (zeros), dtype-agnostic by element size; output rows split over the
// intra-op pool.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

class TileOp {
 public:
  explicit TileOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> mult;
    if (!ReadIndexVector(ctx, 1, "multiples", &mult)) return;
    const std::vector<int64_t> dims = in.dims();
    const size_t r = dims.size();
    if (mult.size() != r) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected multiples argument to be a vector of length " +
                                        std::to_string(r) + " but got length " +
                                        std::to_string(mult.size()));
      return;
    }
    std::vector<int64_t> out_dims(r);
    bool identity = true;
    for (size_t i = 0; i < r; ++i) {
      if (mult[i] < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Expected multiples[" + std::to_string(i) +
                                          "] >= 0, but got " + std::to_string(mult[i]));
        return;
      }
      if (dims[i] != 0 && mult[i] > std::numeric_limits<int64_t>::max() / dims[i]) {
        ctx.Fail(TG_INVALID_ARGUMENT, "tiling " + ShapeString(dims) + " by " + ShapeString(mult) +
                                          " gives too many elements");
        return;
      }
      out_dims[i] = dims[i] * mult[i];
      identity = identity && mult[i] == 1;
    }
    int64_t total;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    if (identity) {
      ctx.SetOutputAlias(0, in, dims);
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    const auto* src = in.data<unsigned char>();
    auto* dst = out.mutable_data<unsigned char>();
    if (r == 0) {
      std::memcpy(dst, src, size);
      return;
    }
    const std::vector<int64_t> in_strides = Strides(dims);
    const size_t in_row = static_cast<size_t>(dims[r - 1]) * size;
    const size_t out_row = in_row * static_cast<size_t>(mult[r - 1]);
    const int64_t rows = Product(out_dims, 0, r - 1);
    ctx.ParallelFor(rows, CopyCost(static_cast<int64_t>(out_row)), [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        int64_t rest = row, offset = 0;
        for (size_t d = r - 1; d-- > 0;) {
          const int64_t c = rest % out_dims[d];
          rest /= out_dims[d];
          offset += (c % dims[d]) * in_strides[d];
        }
        unsigned char* o = dst + static_cast<size_t>(row) * out_row;
        const unsigned char* s = src + static_cast<size_t>(offset) * size;
        for (int64_t m = 0; m < mult[r - 1]; ++m)
          std::memcpy(o + static_cast<size_t>(m) * in_row, s, in_row);
      }
    });
  }
};

class PadOp {
 public:
  explicit PadOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorView paddings = ctx.input(1);
    const std::vector<int64_t> dims = in.dims();
    const size_t r = dims.size();
    if (paddings.rank() != 2 || paddings.dim(0) != static_cast<int64_t>(r) ||
        paddings.dim(1) != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "paddings must be a matrix of shape [" + std::to_string(r) +
                                        ",2] for an input of rank " + std::to_string(r) +
                                        ", but has shape " + ShapeString(paddings.dims()));
      return;
    }
    const std::vector<int64_t> pads = IndexValues(paddings);
    std::vector<int64_t> out_dims(r);
    bool identity = true;
    for (size_t i = 0; i < r; ++i) {
      const int64_t before = pads[2 * i], after = pads[2 * i + 1];
      if (before < 0 || after < 0 || before > (int64_t{1} << 60) || after > (int64_t{1} << 60)) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Paddings must be non-negative: " + std::to_string(before) +
                                          " " + std::to_string(after));
        return;
      }
      out_dims[i] = dims[i] + before + after;
      identity = identity && before == 0 && after == 0;
    }
    int64_t total;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    if (identity) {
      ctx.SetOutputAlias(0, in, dims);
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    auto* dst = out.mutable_data<unsigned char>();
    // Each output row (along the last dim) written once: zeros where it lies in the padding,
    // else the zeros before, the input row, the zeros after (an image's padded border is a
    // small part of it: no pass zeroing everything first).
    const auto* src = in.num_elements() == 0 ? nullptr : in.data<unsigned char>();
    const std::vector<int64_t> in_strides = Strides(dims);
    const size_t in_row = static_cast<size_t>(dims[r - 1]) * size;
    const size_t out_row = static_cast<size_t>(out_dims[r - 1]) * size;
    const size_t before = static_cast<size_t>(pads[2 * (r - 1)]) * size;
    const int64_t rows = Product(out_dims, 0, r - 1);
    ctx.ParallelFor(rows, CopyCost(static_cast<int64_t>(out_row)), [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        unsigned char* o = dst + static_cast<size_t>(row) * out_row;
        int64_t rest = row, offset = 0;
        bool inside = src != nullptr;
        for (size_t d = r - 1; d-- > 0;) {
          const int64_t c = rest % out_dims[d] - pads[2 * d];
          rest /= out_dims[d];
          inside = inside && c >= 0 && c < dims[d];
          offset += c * in_strides[d];
        }
        if (!inside || in_row == 0) {
          std::memset(o, 0, out_row);
          continue;
        }
        std::memset(o, 0, before);
        std::memcpy(o + before, src + static_cast<size_t>(offset) * size, in_row);
        std::memset(o + before + in_row, 0, out_row - before - in_row);
      }
    });
  }
};

}  // namespace

void RegisterTilePadKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<TileOp>(KernelBuilder("Tile", "CPU")
                          .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                          .TypeConstraint("Tmultiples", TG_ARRAY_INDEX_TYPES)
                          .HostMemory("multiples"));
  init.Kernel<PadOp>(KernelBuilder("Pad", "CPU")
                         .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                         .TypeConstraint("Tpaddings", TG_ARRAY_INDEX_TYPES)
                         .HostMemory("paddings"));
}

}  // namespace tgraph_cpu
