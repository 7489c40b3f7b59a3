// ArgMax / ArgMin over one axis (`dimension`, a scalar, may be negative). Ties give the
// smallest index; a NaN counts as the extreme value (the first NaN wins, as in NumPy).
#include <algorithm>
#include <limits>

#include "cpu_kernels.h"
#include "cwise_ops_common.h"

namespace tgraph_cpu {
namespace {

template <typename T>
bool IsNanValue(const T& v) {
  if constexpr (kIsFloatLike<T>) {
    return (Eigen::numext::isnan)(v);
  } else {
    return false;
  }
}

// Does `v` replace the current best `best`?
template <typename T, bool kMax>
bool Better(const T& v, const T& best) {
  if (IsNanValue(best)) return false;
  if (IsNanValue(v)) return true;
  if constexpr (kMax) {
    return v > best;
  } else {
    return v < best;
  }
}

constexpr int64_t kBlockB = 256;

template <bool kMax>
struct Arg {
  template <typename T, typename Out>
  class Kernel {
   public:
    explicit Kernel(Construction&) {}
    void Compute(Context& ctx) {
      const TensorView in = ctx.input(0), dim_t = ctx.input(1);
      const std::vector<int64_t> dims = in.dims();
      const int rank = static_cast<int>(dims.size());
      if (dim_t.rank() != 0) {
        return ctx.Fail(TG_INVALID_ARGUMENT, "dimension must be a scalar, but has shape " +
                                                 ShapeString(dim_t.dims()));
      }
      std::vector<int> axes;
      if (!ReadAxes(ctx, dim_t, rank, "dimension", &axes)) return;
      const int axis = axes[0];
      const int64_t K = dims[static_cast<size_t>(axis)];
      if (K == 0) {
        return ctx.Fail(TG_INVALID_ARGUMENT, "Reduction axis " + std::to_string(axis) +
                                                 " is empty in shape " + ShapeString(dims));
      }
      if (K - 1 > static_cast<int64_t>(std::numeric_limits<Out>::max())) {
        return ctx.Fail(TG_INVALID_ARGUMENT, "axis " + std::to_string(axis) + " of size " +
                                                 std::to_string(K) +
                                                 " does not fit the output type");
      }
      std::vector<int64_t> out_dims;
      int64_t A = 1, B = 1;
      for (int d = 0; d < rank; ++d) {
        if (d == axis) continue;
        out_dims.push_back(dims[static_cast<size_t>(d)]);
        (d < axis ? A : B) *= dims[static_cast<size_t>(d)];
      }
      TensorMut out = ctx.AllocateOutput(0, out_dims);
      if (!ctx.ok() || !out.valid()) return;
      if (A * B == 0) return;
      const T* src = in.data<T>();
      Out* dst = out.mutable_data<Out>();
      if (B == 1) {
        ctx.ParallelFor(A, static_cast<double>(K), [&](int64_t begin, int64_t end) {
          for (int64_t a = begin; a < end; ++a) {
            const T* row = src + a * K;
            int64_t best = 0;
            for (int64_t k = 1; k < K; ++k) {
              if (Better<T, kMax>(row[k], row[best])) best = k;
            }
            dst[a] = static_cast<Out>(best);
          }
        });
        return;
      }
      const int64_t blocks = (B + kBlockB - 1) / kBlockB;
      ctx.ParallelFor(A * blocks, static_cast<double>(K * std::min(B, kBlockB)),
                      [&](int64_t begin, int64_t end) {
                        T best[kBlockB];
                        for (int64_t u = begin; u < end; ++u) {
                          const int64_t a = u / blocks, b0 = (u % blocks) * kBlockB;
                          const int64_t nb = std::min(B - b0, kBlockB);
                          const T* base = src + a * K * B + b0;
                          Out* o = dst + a * B + b0;
                          for (int64_t b = 0; b < nb; ++b) {
                            best[b] = base[b];
                            o[b] = 0;
                          }
                          for (int64_t k = 1; k < K; ++k) {
                            const T* row = base + k * B;
                            for (int64_t b = 0; b < nb; ++b) {
                              if (Better<T, kMax>(row[b], best[b])) {
                                best[b] = row[b];
                                o[b] = static_cast<Out>(k);
                              }
                            }
                          }
                        }
                      });
    }
  };
};

template <bool kMax, typename T>
void RegForType(Init& init, const char* op) {
  init.Kernel<typename Arg<kMax>::template Kernel<T, int64_t>>(
      KernelBuilder(op, "CPU")
          .TypeConstraint("T", DTypeOf<T>::value)
          .TypeConstraint("Tidx", {TG_INT32, TG_INT64})
          .TypeConstraint("output_type", TG_INT64)
          .HostMemory("dimension")
          .CostPerElementNs(1));
  init.Kernel<typename Arg<kMax>::template Kernel<T, int32_t>>(
      KernelBuilder(op, "CPU")
          .TypeConstraint("T", DTypeOf<T>::value)
          .TypeConstraint("Tidx", {TG_INT32, TG_INT64})
          .TypeConstraint("output_type", TG_INT32)
          .HostMemory("dimension")
          .CostPerElementNs(1));
}

template <bool kMax, typename... Ts>
void Reg(Init& init, const char* op) {
  (RegForType<kMax, Ts>(init, op), ...);
}

}  // namespace

void RegisterArgMinMaxKernels(Init& init) {
  Reg<true, float, double, int32_t, int64_t, half, bfloat16, bool>(init, "ArgMax");
  Reg<false, float, double, int32_t, int64_t, half, bfloat16, bool>(init, "ArgMin");
}

}  // namespace tgraph_cpu
