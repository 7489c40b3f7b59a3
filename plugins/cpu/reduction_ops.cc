// Reductions over axes: Sum, Mean, Prod, Max, Min (reduction_indices a scalar or vector,
// negative axes, keep_dims). Also the family's entry point, RegisterReductionKernels.
//
// The input's shape is collapsed into alternating groups of kept and reduced dims (size-1
// dims dropped). Each pass removes one reduced group by reducing an [A, K, B] view over K,
// so every pass is one of two contiguous patterns:
//   B == 1: A rows of K contiguous values (Eigen's vectorised full reductions);
//   B  > 1: out[a, :] folds K rows of B contiguous values (a vectorisable loop over b).
// Work is split across the intra-op pool over A (and blocks of B); when that leaves too few
// pieces, K itself is split into chunks whose partial results are then combined (this also
// keeps long float sums accurate). Mean is Sum divided by the reduced element count.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu_kernels.h"
#include "cwise_ops_common.h"
#include "wrapping_math.h"

namespace tgraph_cpu {
namespace {

template <typename T, typename Expr>
T Eval0(const Expr& e) {
  Eigen::Tensor<T, 0, Eigen::RowMajor, Eigen::Index> r = e;
  return r();
}

template <typename T>
constexpr bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

// Integer sums and products wrap on overflow (wrapping_math.h), so they fold in a plain loop
// (which the compiler vectorises) rather than through Eigen's signed arithmetic.
template <typename T, T (*Fold)(T, T)>
T FoldRow(T init, const T* p, Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i) init = Fold(init, p[i]);
  return init;
}
template <typename T>
struct SumR {
  static T Identity() { return T(0); }
  static T Combine(T a, T b) { return WrapAdd(a, b); }
  static T Row(const T* p, Eigen::Index n) {
    if constexpr (std::is_integral_v<T>) {
      return FoldRow<T, WrapAdd<T>>(T(0), p, n);
    } else {
      return Eval0<T>(ConstVec<T>(p, n).sum());
    }
  }
};
template <typename T>
struct ProdR {
  static T Identity() { return T(1); }
  static T Combine(T a, T b) { return WrapMul(a, b); }
  static T Row(const T* p, Eigen::Index n) {
    if constexpr (std::is_integral_v<T>) {
      return FoldRow<T, WrapMul<T>>(T(1), p, n);
    } else {
      return Eval0<T>(ConstVec<T>(p, n).prod());
    }
  }
};
// NaN anywhere gives NaN.
template <typename T>
struct MaxR {
  static T Identity() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  static T Combine(T a, T b) { return IsNan(a) ? a : (b > a || IsNan(b)) ? b : a; }
  static T Row(const T* p, Eigen::Index n) {
    return Eval0<T>(ConstVec<T>(p, n).template maximum<Eigen::PropagateNaN>());
  }
};
template <typename T>
struct MinR {
  static T Identity() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }
  static T Combine(T a, T b) { return IsNan(a) ? a : (b < a || IsNan(b)) ? b : a; }
  static T Row(const T* p, Eigen::Index n) {
    return Eval0<T>(ConstVec<T>(p, n).template minimum<Eigen::PropagateNaN>());
  }
};

constexpr int64_t kBlockB = 512;         // columns per work unit when B > 1
constexpr int64_t kMinChunkK = 4096;     // at least this many elements per K-chunk

// dst[a, b] = fold over k of src[a, k, b], for a in [0, A), k in [0, K), b in [0, B); K >= 1.
template <typename T, typename R>
void ReduceAKB(Context& ctx, const T* src, T* dst, int64_t A, int64_t K, int64_t B) {
  const int threads = PoolThreads(ctx);
  if (B == 1) {
    const bool split_k = threads > 1 && A < 2 * threads && K >= 2 * kMinChunkK;
    if (!split_k) {
      ctx.ParallelFor(A, static_cast<double>(K), [&](int64_t begin, int64_t end) {
        for (int64_t a = begin; a < end; ++a) dst[a] = R::Row(src + a * K, K);
      });
      return;
    }
    const int64_t chunks = std::min<int64_t>(4 * threads, K / kMinChunkK);
    std::vector<T> partial(static_cast<size_t>(A * chunks));
    ctx.ParallelFor(A * chunks, static_cast<double>(K / chunks), [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t a = u / chunks, c = u % chunks;
        const int64_t k0 = K * c / chunks, k1 = K * (c + 1) / chunks;
        partial[static_cast<size_t>(u)] = R::Row(src + a * K + k0, k1 - k0);
      }
    });
    for (int64_t a = 0; a < A; ++a) {
      T acc = partial[static_cast<size_t>(a * chunks)];
      for (int64_t c = 1; c < chunks; ++c) acc = R::Combine(acc, partial[static_cast<size_t>(a * chunks + c)]);
      dst[a] = acc;
    }
    return;
  }

  // B > 1: fold rows of B. out[a, b0:b1] starts as row k = 0, then combines rows 1..K-1.
  auto fold = [&](const T* base, int64_t k0, int64_t k1, int64_t b0, int64_t b1, T* out) {
    const T* row = base + k0 * B;
    for (int64_t b = b0; b < b1; ++b) out[b] = row[b];
    for (int64_t k = k0 + 1; k < k1; ++k) {
      row = base + k * B;
      for (int64_t b = b0; b < b1; ++b) out[b] = R::Combine(out[b], row[b]);
    }
  };
  const int64_t blocks = (B + kBlockB - 1) / kBlockB;
  const int64_t units = A * blocks;
  const bool split_k = threads > 1 && units < 2 * threads && K * B >= 2 * kMinChunkK && K >= 8;
  if (!split_k) {
    const double cost = static_cast<double>(K * std::min(B, kBlockB));
    ctx.ParallelFor(units, cost, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t a = u / blocks, blk = u % blocks;
        const int64_t b0 = blk * kBlockB, b1 = std::min(B, b0 + kBlockB);
        fold(src + a * K * B, 0, K, b0, b1, dst + a * B);
      }
    });
    return;
  }
  // Few (a, block) units: split K instead; each chunk folds its rows into a partial [A, B].
  const int64_t chunks =
      std::max<int64_t>(2, std::min<int64_t>({4 * threads, K, K * B / kMinChunkK}));
  std::vector<T> partial(static_cast<size_t>(chunks * A * B));
  ctx.ParallelFor(chunks, static_cast<double>(A * K * B / chunks), [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t k0 = K * c / chunks, k1 = K * (c + 1) / chunks;
      for (int64_t a = 0; a < A; ++a) {
        fold(src + a * K * B, k0, k1, 0, B, partial.data() + (c * A + a) * B);
      }
    }
  });
  ctx.ParallelFor(A * B, static_cast<double>(chunks), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T acc = partial[static_cast<size_t>(i)];
      for (int64_t c = 1; c < chunks; ++c) acc = R::Combine(acc, partial[static_cast<size_t>(c * A * B + i)]);
      dst[i] = acc;
    }
  });
}

enum class Finish { kNone, kMean };

template <typename T, template <typename> class Reducer, Finish kFinish>
class ReductionKernel {
  using R = Reducer<T>;

 public:
  explicit ReductionKernel(Construction& c) {
    if (c.HasAttr("keep_dims")) c.GetAttr("keep_dims", &keep_dims_);
  }

  void Compute(Context& ctx) {
    const TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    const int rank = static_cast<int>(dims.size());
    std::vector<int> axes;
    if (!ReadAxes(ctx, ctx.input(1), rank, "reduction axis", &axes)) return;
    std::vector<char> reduced(dims.size(), 0);
    for (int a : axes) reduced[static_cast<size_t>(a)] = 1;

    std::vector<int64_t> out_dims;
    int64_t count = 1;  // elements folded into each output
    for (size_t d = 0; d < dims.size(); ++d) {
      if (reduced[d]) {
        count *= dims[d];
        if (keep_dims_) out_dims.push_back(1);
      } else {
        out_dims.push_back(dims[d]);
      }
    }

    // Collapsed groups of dims > 1: sizes and whether they are reduced.
    std::vector<int64_t> sizes;
    std::vector<char> red;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] == 1) continue;
      if (!sizes.empty() && red.back() == reduced[d]) {
        sizes.back() *= dims[d];
      } else {
        sizes.push_back(dims[d]);
        red.push_back(reduced[d]);
      }
    }
    const bool any_reduced = std::find(red.begin(), red.end(), 1) != red.end();
    if (!any_reduced) {
      ctx.SetOutputAlias(0, in, out_dims);  // nothing to fold (only size-1 axes)
      return;
    }

    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || !out.valid()) return;
    const int64_t n_out = NumElements(out_dims);
    if (n_out == 0) return;
    T* dst_final = out.mutable_data<T>();
    if (in.num_elements() == 0) {  // an empty axis: the identity (Mean: 0/0)
      T fill = R::Identity();
      if constexpr (kFinish == Finish::kMean) {
        fill = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
      }
      std::fill(dst_final, dst_final + n_out, fill);
      return;
    }

    const T* src = in.data<T>();
    std::vector<TensorMut> temps;
    while (true) {
      // Remove the largest reduced group.
      size_t j = sizes.size();
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (red[i] && (j == sizes.size() || sizes[i] > sizes[j])) j = i;
      }
      int64_t A = 1, B = 1;
      for (size_t i = 0; i < j; ++i) A *= sizes[i];
      for (size_t i = j + 1; i < sizes.size(); ++i) B *= sizes[i];
      const int64_t K = sizes[j];
      sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(j));
      red.erase(red.begin() + static_cast<std::ptrdiff_t>(j));
      if (j > 0 && j < sizes.size() && red[j - 1] == red[j]) {
        sizes[j - 1] *= sizes[j];
        sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(j));
        red.erase(red.begin() + static_cast<std::ptrdiff_t>(j));
      }
      const bool last = std::find(red.begin(), red.end(), 1) == red.end();
      T* dst = dst_final;
      if (!last) {
        temps.push_back(ctx.AllocateTemp(DTypeOf<T>::value, {A * B}));
        if (!ctx.ok() || !temps.back().valid()) return;
        dst = temps.back().template mutable_data<T>();
      }
      ReduceAKB<T, R>(ctx, src, dst, A, K, B);
      if (!ctx.ok() || last) break;
      src = dst;
    }

    if constexpr (kFinish == Finish::kMean) {
      const T divisor = static_cast<T>(count);
      ctx.ParallelFor(n_out, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) dst_final[i] = dst_final[i] / divisor;
      });
    }
  }

 private:
  bool keep_dims_ = false;
};

template <template <typename> class Reducer, Finish kFinish, typename... Ts>
void Reg(Init& init, const char* op) {
  (init.Kernel<ReductionKernel<Ts, Reducer, kFinish>>(
       KernelBuilder(op, "CPU")
           .TypeConstraint("T", DTypeOf<Ts>::value)
           .TypeConstraint("Tidx", {TG_INT32, TG_INT64})
           .HostMemory("reduction_indices")
           .CostPerElementNs(1)),
   ...);
}

}  // namespace

void RegisterReductionKernels(Init& init) {
  Reg<SumR, Finish::kNone, float, double, int32_t, int64_t>(init, "Sum");
  Reg<SumR, Finish::kMean, float, double, int32_t, int64_t>(init, "Mean");
  Reg<ProdR, Finish::kNone, float, double, int32_t, int64_t>(init, "Prod");
  Reg<MaxR, Finish::kNone, float, double, int32_t, int64_t>(init, "Max");
  Reg<MinR, Finish::kNone, float, double, int32_t, int64_t>(init, "Min");
  RegisterArgMinMaxKernels(init);
}

}  // namespace tgraph_cpu
