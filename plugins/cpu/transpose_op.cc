// Transpose: y.shape[i] = x.shape[perm[i]]. A permutation that keeps the element order (the
// identity, or one that only moves size-1 dims) aliases the input; otherwise elements are
// copied by size (dtype-agnostic), output rows split over the intra-op pool.
#include <algorithm>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

template <typename E>
void TransposeRows(Context& ctx, const E* in, E* out, const std::vector<int64_t>& out_dims,
                   const std::vector<int64_t>& in_strides_permuted) {
  // in_strides_permuted[i]: how far the input moves when output coordinate i moves by one.
  const size_t r = out_dims.size();
  const int64_t inner = out_dims[r - 1];
  const int64_t inner_stride = in_strides_permuted[r - 1];
  const int64_t rows = Product(out_dims, 0, r - 1);
  ctx.ParallelFor(rows, CopyCost(inner * static_cast<int64_t>(sizeof(E))),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t row = begin; row < end; ++row) {
                      int64_t rest = row, offset = 0;
                      for (size_t d = r - 1; d-- > 0;) {
                        const int64_t c = rest % out_dims[d];
                        rest /= out_dims[d];
                        offset += c * in_strides_permuted[d];
                      }
                      E* dst = out + row * inner;
                      const E* src = in + offset;
                      if (inner_stride == 1) {
                        for (int64_t k = 0; k < inner; ++k) dst[k] = src[k];
                      } else {
                        for (int64_t k = 0; k < inner; ++k) dst[k] = src[k * inner_stride];
                      }
                    }
                  });
}

// When the input's contiguous dim lands on output dim `a` (not the last), reading output
// rows strides through the input. Instead, treat each (dim a, last dim) plane of the output
// as a 2-D transpose and copy it in square tiles that stay in cache.
template <typename E>
void TransposeTiled(Context& ctx, const E* in, E* out, const std::vector<int64_t>& out_dims,
                    const std::vector<int64_t>& in_strides_permuted, size_t a) {
  const size_t r = out_dims.size(), b = r - 1;
  const int64_t A = out_dims[a], B = out_dims[b];
  const int64_t sB = in_strides_permuted[b];  // input stride along the output's last dim
  const std::vector<int64_t> out_strides = Strides(out_dims);
  const int64_t oA = out_strides[a];
  std::vector<size_t> others;
  for (size_t d = 0; d < b; ++d) {
    if (d != a) others.push_back(d);
  }
  constexpr int64_t kTile = 32;
  const int64_t panels = NumElements(out_dims) / (A * B);
  const int64_t a_tiles = (A + kTile - 1) / kTile;
  ctx.ParallelFor(panels * a_tiles, CopyCost(kTile * B * static_cast<int64_t>(sizeof(E))),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t u = begin; u < end; ++u) {
                      int64_t panel = u / a_tiles;
                      const int64_t a0 = (u % a_tiles) * kTile, a1 = std::min(A, a0 + kTile);
                      int64_t in_off = 0, out_off = 0;
                      for (size_t k = others.size(); k-- > 0;) {
                        const size_t d = others[k];
                        const int64_t c = panel % out_dims[d];
                        panel /= out_dims[d];
                        in_off += c * in_strides_permuted[d];
                        out_off += c * out_strides[d];
                      }
                      for (int64_t b0 = 0; b0 < B; b0 += kTile) {
                        const int64_t b1 = std::min(B, b0 + kTile);
                        for (int64_t ia = a0; ia < a1; ++ia) {
                          E* dst = out + out_off + ia * oA;
                          const E* src = in + in_off + ia;  // input stride along dim a is 1
                          for (int64_t ib = b0; ib < b1; ++ib) dst[ib] = src[ib * sB];
                        }
                      }
                    }
                  });
}

class TransposeOp {
 public:
  explicit TransposeOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> perm;
    if (!ReadIndexVector(ctx, 1, "perm", &perm)) return;
    const std::vector<int64_t> dims = in.dims();
    const size_t r = dims.size();
    if (perm.size() != r) {
      ctx.Fail(TG_INVALID_ARGUMENT, "transpose expects a vector of size " + std::to_string(r) +
                                        ". But input(1) is a vector of size " +
                                        std::to_string(perm.size()));
      return;
    }
    std::vector<bool> seen(r, false);
    std::vector<int64_t> out_dims(r);
    bool identity = true;
    for (size_t i = 0; i < r; ++i) {
      const int64_t p = perm[i];
      if (p < 0 || p >= static_cast<int64_t>(r)) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::to_string(p) + " is out of range [0 .. " +
                                          std::to_string(r) + ") in perm " + ShapeString(perm));
        return;
      }
      if (seen[static_cast<size_t>(p)]) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 std::to_string(p) + " is duplicated in perm " + ShapeString(perm));
        return;
      }
      seen[static_cast<size_t>(p)] = true;
      out_dims[i] = dims[static_cast<size_t>(p)];
      identity = identity && p == static_cast<int64_t>(i);
    }
    // Moving only size-1 dims keeps the element order: a view suffices.
    bool order_kept = true;
    {
      int64_t last = -1;
      for (size_t i = 0; i < r; ++i) {
        const int64_t p = perm[i];
        if (dims[static_cast<size_t>(p)] == 1) continue;
        if (p < last) order_kept = false;
        last = p;
      }
    }
    if (identity || order_kept || in.num_elements() <= 1) {
      ctx.SetOutputAlias(0, in, out_dims);
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || in.num_elements() == 0) return;
    const std::vector<int64_t> in_strides = Strides(dims);
    std::vector<int64_t> permuted(r);
    for (size_t i = 0; i < r; ++i) permuted[i] = in_strides[static_cast<size_t>(perm[i])];
    // The output dim that reads the input's contiguous dim.
    size_t a = r - 1;
    for (size_t i = 0; i < r; ++i) {
      if (perm[i] == static_cast<int64_t>(r) - 1) a = i;
    }
    const bool tiled = a != r - 1 && out_dims[a] >= 8 && out_dims[r - 1] >= 8;
    DispatchBySize(size, [&]<typename E>() {
      if (tiled) {
        TransposeTiled<E>(ctx, in.data<E>(), out.mutable_data<E>(), out_dims, permuted, a);
      } else {
        TransposeRows<E>(ctx, in.data<E>(), out.mutable_data<E>(), out_dims, permuted);
      }
    });
  }
};

}  // namespace

void RegisterTransposeKernels(tgraph::plugin::Init& init) {
  init.Kernel<TransposeOp>(tgraph::plugin::KernelBuilder("Transpose", "CPU")
                               .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                               .TypeConstraint("Tperm", TG_ARRAY_INDEX_TYPES)
                               .HostMemory("perm"));
}

}  // namespace tgraph_cpu
