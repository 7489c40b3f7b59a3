// Matrix-structure kernels: MatrixBandPart, MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3},
// MatrixSetDiag{,V2,V3}, Diag and DiagPart. They only move elements, so each runs on
// elements of the dtype's size (every plain dtype). The diagonal ops share one description
// of a band of diagonals k = [lo, hi] of an M x N matrix: diagonal d (column - row) has
// len(d) = min(M + min(d, 0), N - max(d, 0)) elements, the packed form holds row hi - d with
// max_len columns, and a diagonal shorter than max_len starts at max_len - len(d) when its
// side is right-aligned (`align`: superdiagonals' side first; V1/V2 ops are LEFT_LEFT).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "array_kernel_util.h"
#include "cpu_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using tgraph::plugin::KernelBuilder;

// ---- MatrixBandPart ----

class MatrixBandPartOp {
 public:
  explicit MatrixBandPartOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    if (dims.size() < 2) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "input must be at least 2-dim, received shape: " + ShapeString(dims));
      return;
    }
    int64_t lower = 0, upper = 0;
    if (!ReadIndexScalar(ctx, 1, "num_lower", &lower) ||
        !ReadIndexScalar(ctx, 2, "num_upper", &upper)) {
      return;
    }
    const int64_t m = dims[dims.size() - 2], n = dims.back();
    if (lower > m) {
      ctx.Fail(TG_INVALID_ARGUMENT, "num_lower must be negative or less or equal to number of rows (" +
                                        std::to_string(m) + ") got: " + std::to_string(lower));
      return;
    }
    if (upper > n) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "num_upper must be negative or less or equal to number of columns (" +
                   std::to_string(n) + ") got: " + std::to_string(upper));
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    const int64_t rows = in.num_elements() / std::max<int64_t>(n, 1);
    if (!ctx.ok() || in.num_elements() == 0) return;
    DispatchBySize(size, [&]<typename E>() {
      const E* src = in.data<E>();
      E* dst = out.mutable_data<E>();
      ctx.ParallelFor(rows, CopyCost(n * static_cast<int64_t>(size)), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const int64_t i = r % m;
          // Columns [i - lower, i + upper] are kept (all with a negative bound).
          const int64_t lo = lower < 0 ? 0 : std::clamp<int64_t>(i - lower, 0, n);
          const int64_t hi = upper < 0 ? n : std::clamp<int64_t>(i + upper + 1, 0, n);
          E* o = dst + r * n;
          const E* s = src + r * n;
          std::fill(o, o + n, E{});
          if (hi > lo) std::memcpy(o + lo, s + lo, static_cast<size_t>(hi - lo) * sizeof(E));
        }
      });
    });
  }
};

// ---- the band of diagonals ----

struct Band {
  int64_t lo = 0, hi = 0;                 // k
  int64_t m = 0, n = 0;                   // matrix rows, columns
  int64_t max_len = 0;                    // the longest diagonal in [lo, hi]
  bool right_super = false, right_sub = false;
  int64_t num_diags() const { return hi - lo + 1; }
  int64_t Len(int64_t d) const { return std::min(m + std::min<int64_t>(d, 0), n - std::max<int64_t>(d, 0)); }
  // Where diagonal d's first element sits in its packed row.
  int64_t Offset(int64_t d) const {
    const bool right = d >= 0 ? right_super : right_sub;
    return right ? max_len - Len(d) : 0;
  }
};

// `align` into the two sides; the V1/V2 ops have no attr and are LEFT_LEFT.
bool ReadAlign(Construction& c, bool* right_super, bool* right_sub) {
  std::string align = "LEFT_LEFT";
  if (c.HasAttr("align") && !c.GetAttr("align", &align)) return false;
  *right_super = align.rfind("RIGHT", 0) == 0;
  *right_sub = align.size() >= 5 && align.compare(align.size() - 5, 5, "RIGHT") == 0;
  return true;
}

// k (input `i`): a scalar or a vector of one or two elements.
bool ReadK(Context& ctx, int i, int64_t* lo, int64_t* hi) {
  TensorView k = ctx.input(i);
  const std::vector<int64_t> v = IndexValues(k);
  if (k.rank() > 1 || v.empty() || v.size() > 2) {
    ctx.Fail(TG_INVALID_ARGUMENT, "diag_index must be a scalar or vector with 1 or 2 elements, got "
                                      "shape " + ShapeString(k.dims()));
    return false;
  }
  *lo = v.front();
  *hi = v.back();
  if (*lo > *hi) {
    ctx.Fail(TG_INVALID_ARGUMENT, "lower_diag_index must not be larger than upper_diag_index: " +
                                      std::to_string(*lo) + " > " + std::to_string(*hi));
    return false;
  }
  return true;
}

// The diagonals must lie in the matrix (TensorFlow's bounds; 0 is always allowed).
bool CheckBandBounds(Context& ctx, const Band& b) {
  const std::string range =
      "It must be between " + std::to_string(-b.m) + " and " + std::to_string(b.n);
  if (!(b.lo > -b.m || b.lo == 0)) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "lower_diag_index is out of bound: " + std::to_string(b.lo) + ". " + range);
    return false;
  }
  if (!(b.hi < b.n || b.hi == 0)) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "upper_diag_index is out of bound: " + std::to_string(b.hi) + " " + range);
    return false;
  }
  return true;
}

// The padding value (input `i`, a scalar) as raw bytes of the element size.
bool ReadPadding(Context& ctx, int i, size_t size, std::vector<unsigned char>* out) {
  TensorView p = ctx.input(i);
  if (p.num_elements() != 1) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "padding_value must be a scalar, got shape " + ShapeString(p.dims()));
    return false;
  }
  out->assign(size, 0);
  std::memcpy(out->data(), p.data<unsigned char>(), size);
  return true;
}

// Copies the band between the matrices (`batch` of them, m x n) and the packed diagonals
// (`batch` x num_diags x max_len). kToPacked: MatrixDiagPart reads the matrices; otherwise the
// diagonals are written into the matrices (which the caller filled first).
template <bool kToPacked, typename E>
void CopyBand(Context& ctx, const Band& b, int64_t batch,
              std::conditional_t<kToPacked, const E*, E*> matrices,
              std::conditional_t<kToPacked, E*, const E*> packed) {
  const int64_t nd = b.num_diags();
  ctx.ParallelFor(batch * nd, CopyCost(b.max_len * static_cast<int64_t>(sizeof(E))),
                  [&](int64_t first, int64_t last) {
                    for (int64_t u = first; u < last; ++u) {
                      const int64_t batch_i = u / nd, row = u % nd;
                      const int64_t d = b.hi - row;
                      const int64_t len = b.Len(d), off = b.Offset(d);
                      if (len <= 0) continue;
                      const int64_t i0 = std::max<int64_t>(-d, 0);
                      auto* mat = matrices + batch_i * b.m * b.n + i0 * b.n + i0 + d;
                      auto* pk = packed + u * b.max_len + off;
                      for (int64_t j = 0; j < len; ++j) {
                        if constexpr (kToPacked) {
                          pk[j] = mat[j * (b.n + 1)];
                        } else {
                          mat[j * (b.n + 1)] = pk[j];
                        }
                      }
                    }
                  });
}

template <typename E>
void FillWith(E* p, int64_t n, const std::vector<unsigned char>& value) {
  E v;
  std::memcpy(&v, value.data(), sizeof(E));
  std::fill(p, p + n, v);
}

// MatrixDiagPart (V1: k = 0, no padding input), V2 and V3.
class MatrixDiagPartOp {
 public:
  explicit MatrixDiagPartOp(Construction& c) {
    v1_ = c.num_inputs() == 1;
    ReadAlign(c, &right_super_, &right_sub_);
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    if (dims.size() < 2) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "input must be at least 2-dim, received shape: " + ShapeString(dims));
      return;
    }
    Band b;
    b.right_super = right_super_;
    b.right_sub = right_sub_;
    if (!v1_ && !ReadK(ctx, 1, &b.lo, &b.hi)) return;
    b.m = dims[dims.size() - 2];
    b.n = dims.back();
    if (!CheckBandBounds(ctx, b)) return;
    b.max_len = std::max<int64_t>(0, std::min(b.m + std::min<int64_t>(b.hi, 0),
                                              b.n - std::max<int64_t>(b.lo, 0)));
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    std::vector<unsigned char> pad(size, 0);
    if (!v1_ && !ReadPadding(ctx, 2, size, &pad)) return;
    std::vector<int64_t> out_dims(dims.begin(), dims.end() - 2);
    const int64_t batch = NumElements(out_dims);
    if (b.lo != b.hi) out_dims.push_back(b.num_diags());
    out_dims.push_back(b.max_len);
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || NumElements(out_dims) == 0) return;
    DispatchBySize(size, [&]<typename E>() {
      E* o = out.mutable_data<E>();
      FillWith(o, NumElements(out_dims), pad);
      CopyBand<true, E>(ctx, b, batch, in.data<E>(), o);
    });
  }

 private:
  bool v1_ = false, right_super_ = false, right_sub_ = false;
};

// MatrixDiag (V1: the main diagonal of square matrices), V2 and V3.
class MatrixDiagOp {
 public:
  explicit MatrixDiagOp(Construction& c) {
    v1_ = c.num_inputs() == 1;
    ReadAlign(c, &right_super_, &right_sub_);
  }
  void Compute(Context& ctx) {
    TensorView diag = ctx.input(0);
    const std::vector<int64_t> dims = diag.dims();
    if (dims.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "diagonal must be at least 1-dim, received shape: " + ShapeString(dims));
      return;
    }
    Band b;
    b.right_super = right_super_;
    b.right_sub = right_sub_;
    int64_t num_rows = -1, num_cols = -1;
    if (!v1_) {
      if (!ReadK(ctx, 1, &b.lo, &b.hi) || !ReadIndexScalar(ctx, 2, "num_rows", &num_rows) ||
          !ReadIndexScalar(ctx, 3, "num_cols", &num_cols)) {
        return;
      }
    }
    const int64_t len = dims.back();
    size_t batch_rank = dims.size() - 1;
    if (b.lo != b.hi) {
      if (dims.size() < 2 || dims[dims.size() - 2] != b.num_diags()) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "The number of diagonals provided in the input does not match the "
                 "lower_diag_index and upper_diag_index range.");
        return;
      }
      batch_rank = dims.size() - 2;
    }
    const int64_t min_rows = len - std::min<int64_t>(b.hi, 0);
    const int64_t min_cols = len + std::max<int64_t>(b.lo, 0);
    if (num_rows == -1 && num_cols == -1) {
      num_rows = num_cols = std::max(min_rows, min_cols);
    } else if (num_rows == -1) {
      num_rows = min_rows;
    } else if (num_cols == -1) {
      num_cols = min_cols;
    }
    if (num_rows < min_rows || num_cols < min_cols ||
        (num_rows != min_rows && num_cols != min_cols)) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "The number of rows or columns is not consistent with the specified d_lower, "
               "d_upper, and diagonal.");
      return;
    }
    b.m = num_rows;
    b.n = num_cols;
    b.max_len = len;
    const size_t size = ElementSizeOrFail(ctx, diag);
    if (size == 0) return;
    std::vector<unsigned char> pad(size, 0);
    if (!v1_ && !ReadPadding(ctx, 4, size, &pad)) return;
    std::vector<int64_t> out_dims(dims.begin(), dims.begin() + static_cast<ptrdiff_t>(batch_rank));
    const int64_t batch = NumElements(out_dims);
    out_dims.push_back(num_rows);
    out_dims.push_back(num_cols);
    int64_t total = 0;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    DispatchBySize(size, [&]<typename E>() {
      E* o = out.mutable_data<E>();
      FillWith(o, total, pad);
      if (len > 0) CopyBand<false, E>(ctx, b, batch, o, diag.data<E>());
    });
  }

 private:
  bool v1_ = false, right_super_ = false, right_sub_ = false;
};

// MatrixSetDiag (V1: the main diagonal), V2 and V3.
class MatrixSetDiagOp {
 public:
  explicit MatrixSetDiagOp(Construction& c) {
    v1_ = c.num_inputs() == 2;
    ReadAlign(c, &right_super_, &right_sub_);
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorView diag = ctx.input(1);
    const std::vector<int64_t> dims = in.dims();
    const std::vector<int64_t> ddims = diag.dims();
    if (dims.size() < 2) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "input must be at least 2-dim, received shape: " + ShapeString(dims));
      return;
    }
    Band b;
    b.right_super = right_super_;
    b.right_sub = right_sub_;
    if (!v1_ && !ReadK(ctx, 2, &b.lo, &b.hi)) return;
    b.m = dims[dims.size() - 2];
    b.n = dims.back();
    if (!CheckBandBounds(ctx, b)) return;
    b.max_len = std::max<int64_t>(0, std::min(b.m + std::min<int64_t>(b.hi, 0),
                                              b.n - std::max<int64_t>(b.lo, 0)));
    // diagonal = input.shape[:-2] + [num_diags when a range] + [max_len].
    std::vector<int64_t> want(dims.begin(), dims.end() - 2);
    if (b.lo != b.hi) {
      if (ddims.size() < 2 || ddims[ddims.size() - 2] != b.num_diags()) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "The number of diagonals provided in `diag` is not consistent with "
                 "`lower_diag_index` and `upper_diag_index`");
        return;
      }
      want.push_back(b.num_diags());
    }
    want.push_back(b.max_len);
    if (ddims != want) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "Either first dimensions of diagonal don't match input.shape[:-2], or "
               "diagonal.shape[:-1] is not equal to the longests diagonal in range "
               "[lower_diag_index:upper_diag_index].\nInput shape: " + ShapeString(dims) +
                   "\nDiagonal shape: " + ShapeString(ddims) + "\nExpected diagonal shape: " +
                   ShapeString(want));
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok() || in.num_elements() == 0) return;
    if (out.mutable_data<unsigned char>() != in.data<unsigned char>()) {
      ParallelMemcpy(ctx, out.mutable_data<unsigned char>(), in.data<unsigned char>(),
                     in.byte_size());
    }
    const int64_t batch = NumElements(std::vector<int64_t>(dims.begin(), dims.end() - 2));
    DispatchBySize(size, [&]<typename E>() {
      CopyBand<false, E>(ctx, b, batch, out.mutable_data<E>(), diag.data<E>());
    });
  }

 private:
  bool v1_ = false, right_super_ = false, right_sub_ = false;
};

// ---- Diag and DiagPart: rank-doubling diagonals, as an n x n matrix of n = size(diagonal) ----

class DiagOp {
 public:
  explicit DiagOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView diag = ctx.input(0);
    const std::vector<int64_t> dims = diag.dims();
    if (dims.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Input must be at least rank 1, got 0");
      return;
    }
    std::vector<int64_t> out_dims = dims;
    out_dims.insert(out_dims.end(), dims.begin(), dims.end());
    int64_t total = 0;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    const size_t size = ElementSizeOrFail(ctx, diag);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    const int64_t n = diag.num_elements();
    DispatchBySize(size, [&]<typename E>() {
      const E* s = diag.data<E>();
      E* o = out.mutable_data<E>();
      ctx.ParallelFor(n, CopyCost(n * static_cast<int64_t>(size)), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          std::fill(o + i * n, o + (i + 1) * n, E{});
          o[i * n + i] = s[i];
        }
      });
    });
  }
};

class DiagPartOp {
 public:
  explicit DiagPartOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    const size_t r = dims.size();
    if (r == 0 || r % 2 != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "The rank of the tensor should be even and positive, got shape " +
                   ShapeString(dims));
      return;
    }
    for (size_t i = 0; i < r / 2; ++i) {
      if (dims[i] != dims[i + r / 2]) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Invalid shape " + ShapeString(dims) + ": dimensions " +
                                          std::to_string(i) + " and " +
                                          std::to_string(i + r / 2) + " do not match.");
        return;
      }
    }
    const std::vector<int64_t> out_dims(dims.begin(), dims.begin() + static_cast<ptrdiff_t>(r / 2));
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    const int64_t n = NumElements(out_dims);
    if (!ctx.ok() || n == 0) return;
    DispatchBySize(size, [&]<typename E>() {
      const E* s = in.data<E>();
      E* o = out.mutable_data<E>();
      for (int64_t i = 0; i < n; ++i) o[i] = s[i * n + i];
    });
  }
};

}  // namespace

void RegisterMatrixDiagKernels(tgraph::plugin::Init& init) {
  init.Kernel<MatrixBandPartOp>(KernelBuilder("MatrixBandPart", "CPU")
                                    .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                    .TypeConstraint("Tindex", TG_ARRAY_INDEX_TYPES)
                                    .HostMemory("num_lower")
                                    .HostMemory("num_upper"));
  init.Kernel<MatrixDiagOp>(
      KernelBuilder("MatrixDiag", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  init.Kernel<MatrixDiagPartOp>(
      KernelBuilder("MatrixDiagPart", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  init.Kernel<MatrixSetDiagOp>(
      KernelBuilder("MatrixSetDiag", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  for (const char* op : {"MatrixDiagV2", "MatrixDiagV3"}) {
    init.Kernel<MatrixDiagOp>(KernelBuilder(op, "CPU")
                                  .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                  .HostMemory("k")
                                  .HostMemory("num_rows")
                                  .HostMemory("num_cols")
                                  .HostMemory("padding_value"));
  }
  for (const char* op : {"MatrixDiagPartV2", "MatrixDiagPartV3"}) {
    init.Kernel<MatrixDiagPartOp>(KernelBuilder(op, "CPU")
                                      .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                      .HostMemory("k")
                                      .HostMemory("padding_value"));
  }
  for (const char* op : {"MatrixSetDiagV2", "MatrixSetDiagV3"}) {
    init.Kernel<MatrixSetDiagOp>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES).HostMemory("k"));
  }
  init.Kernel<DiagOp>(KernelBuilder("Diag", "CPU")
                          .TypeConstraint("T", {TG_FLOAT, TG_DOUBLE, TG_INT32, TG_INT64, TG_HALF,
                                                TG_BFLOAT16, TG_COMPLEX64, TG_COMPLEX128}));
  init.Kernel<DiagPartOp>(KernelBuilder("DiagPart", "CPU")
                              .TypeConstraint("T", {TG_FLOAT, TG_DOUBLE, TG_INT32, TG_INT64,
                                                    TG_HALF, TG_BFLOAT16, TG_COMPLEX64,
                                                    TG_COMPLEX128}));
}

}  // namespace tgraph_cpu
