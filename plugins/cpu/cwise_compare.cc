// Comparisons (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual) with broadcasting,
// LogicalAnd / LogicalOr / LogicalNot, and Select.
#include <cstring>

#include "cpu_kernels.h"
#include "cwise_ops_common.h"

namespace tgraph_cpu {
namespace {

// Eigen's operators are called as members: for `a == b` C++20 also tries the reversed
// `b == a`, and Eigen's member templates take any operand, so Clang finds the two ambiguous.
#define TGRAPH_CPU_COMPARE(Name, op)             \
  struct Name {                                  \
    static constexpr double kCost = 1;           \
    template <class A, class B>                  \
    static auto Expr(const A& a, const B& b) {   \
      return a.operator op(b);                   \
    }                                            \
  };
TGRAPH_CPU_COMPARE(EqualF, ==)
TGRAPH_CPU_COMPARE(NotEqualF, !=)
TGRAPH_CPU_COMPARE(LessF, <)
TGRAPH_CPU_COMPARE(LessEqualF, <=)
TGRAPH_CPU_COMPARE(GreaterF, >)
TGRAPH_CPU_COMPARE(GreaterEqualF, >=)
TGRAPH_CPU_COMPARE(LogicalAndF, &&)
TGRAPH_CPU_COMPARE(LogicalOrF, ||)
#undef TGRAPH_CPU_COMPARE

struct LogicalNotF {
  static constexpr double kCost = 1;
  template <class A>
  static auto Expr(const A& a) { return a.unaryExpr(Eigen::internal::scalar_boolean_not_op<bool>()); }
};

// Equal / NotEqual: with incompatible_shape_error=false, shapes that do not broadcast give a
// scalar `kMismatch` (false for Equal, true for NotEqual) instead of an error.
template <typename F, bool kMismatch>
struct Equality {
  template <typename T>
  class Kernel {
   public:
    explicit Kernel(Construction& c) {
      if (c.HasAttr("incompatible_shape_error")) {
        c.GetAttr("incompatible_shape_error", &incompatible_shape_error_);
      }
    }
    void Compute(Context& ctx) {
      const TensorView a = ctx.input(0), b = ctx.input(1);
      const std::vector<int64_t> ad = a.dims(), bd = b.dims();
      const Broadcast bc(ad, bd);
      if (!bc.valid) {
        if (incompatible_shape_error_) return ctx.Fail(TG_INVALID_ARGUMENT, bc.Error(ad, bd));
        TensorMut out = ctx.AllocateOutput(0, {});
        if (ctx.ok() && out.valid()) *out.mutable_data<bool>() = kMismatch;
        return;
      }
      TensorMut out = ctx.AllocateOutput(0, bc.out_dims);
      if (!ctx.ok() || !out.valid()) return;
      RunBinary<F>(ctx, bc, a.data<T>(), b.data<T>(), out.mutable_data<bool>());
    }

   private:
    bool incompatible_shape_error_ = true;
  };
};

// ---- Select ----

template <size_t kBytes>
struct StorageOf;
template <>
struct StorageOf<1> {
  using type = uint8_t;
};
template <>
struct StorageOf<2> {
  using type = uint16_t;
};
template <>
struct StorageOf<4> {
  using type = uint32_t;
};
template <>
struct StorageOf<8> {
  using type = uint64_t;
};

// output = condition ? t : e. `condition` is a scalar (the output is t or e itself), has t's
// shape (element-wise), or is a vector over t's first dimension (whole rows). Works on the
// element bytes, so one instantiation serves every dtype of a size.
// Measured ns per element of the element-wise select (vectorized, in cache).
constexpr double kSelectCostNs = 0.15;

template <typename S>
class SelectKernel {
 public:
  explicit SelectKernel(Construction&) {}
  void Compute(Context& ctx) {
    const TensorView cond = ctx.input(0), t = ctx.input(1), e = ctx.input(2);
    const std::vector<int64_t> cd = cond.dims(), td = t.dims(), ed = e.dims();
    if (td != ed) {
      return ctx.Fail(TG_INVALID_ARGUMENT, "'t' and 'e' must have the same shape, but are " +
                                               ShapeString(td) + " and " + ShapeString(ed));
    }
    if (cd.empty()) {
      ctx.SetOutputAlias(0, *cond.data<bool>() ? t : e, td);
      return;
    }
    const bool rows = cd.size() == 1 && td.size() > 1 && cd[0] == td[0];
    if (cd != td && !rows) {
      return ctx.Fail(TG_INVALID_ARGUMENT,
                      "'condition' must be a scalar, have the shape of 't', or be a vector as "
                      "long as the first dimension of 't', but 'condition' has shape " +
                          ShapeString(cd) + " and 't' has shape " + ShapeString(td));
    }
    TensorMut out = ctx.ForwardOrAllocateOutput(1, 0, td);
    if (!ctx.ok() || !out.valid()) return;
    const int64_t n = t.num_elements();
    if (n == 0) return;
    const bool* c = cond.data<bool>();
    const S* tp = t.data<S>();
    const S* ep = e.data<S>();
    S* op = out.mutable_data<S>();
    if (!rows) {
      // Branch-free: a condition that flips at random (a sign test of logits, say) made the
      // branchy loop mispredict about every other element, ~4 ns each; the mask form
      // vectorizes (~0.1 ns per element). The condition's bytes are read as bytes, so any
      // nonzero byte counts as true.
      const uint8_t* cb = reinterpret_cast<const uint8_t*>(c);
      ctx.ParallelFor(n, kSelectCostNs, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const S mask = static_cast<S>(S{0} - static_cast<S>(cb[i] != 0));
          op[i] = static_cast<S>((tp[i] & mask) | (ep[i] & static_cast<S>(~mask)));
        }
      });
      return;
    }
    const int64_t row = n / cd[0];
    ctx.ParallelFor(cd[0], static_cast<double>(row) * 0.5, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const S* src = (c[r] ? tp : ep) + r * row;
        S* dst = op + r * row;
        if (dst != src) std::memmove(dst, src, static_cast<size_t>(row) * sizeof(S));
      }
    });
  }
};
template <typename T>
using SelectFor = SelectKernel<typename StorageOf<sizeof(T)>::type>;

template <typename F, typename... Ts>
void RegCompare(Init& init, const char* op) {
  RegisterTyped<Binary<F>::template BoolKernel, Ts...>(init, op, F::kCost);
}

}  // namespace

void RegisterCompareKernels(Init& init) {
  RegisterTyped<Equality<EqualF, false>::Kernel, float, double, int32_t, int64_t, half, bfloat16,
                bool>(init, "Equal", 1);
  RegisterTyped<Equality<NotEqualF, true>::Kernel, float, double, int32_t, int64_t, half,
                bfloat16, bool>(init, "NotEqual", 1);
  RegCompare<LessF, float, double, int32_t, int64_t, half, bfloat16>(init, "Less");
  RegCompare<LessEqualF, float, double, int32_t, int64_t, half, bfloat16>(init, "LessEqual");
  RegCompare<GreaterF, float, double, int32_t, int64_t, half, bfloat16>(init, "Greater");
  RegCompare<GreaterEqualF, float, double, int32_t, int64_t, half, bfloat16>(init,
                                                                             "GreaterEqual");
  init.Kernel<BinaryKernel<bool, LogicalAndF>>(KernelBuilder("LogicalAnd", "CPU"));
  init.Kernel<BinaryKernel<bool, LogicalOrF>>(KernelBuilder("LogicalOr", "CPU"));
  init.Kernel<UnaryKernel<bool, LogicalNotF>>(KernelBuilder("LogicalNot", "CPU"));
  RegisterTyped<SelectFor, float, double, int32_t, int64_t, half, bfloat16, bool>(init, "Select",
                                                                                 1);
}

}  // namespace tgraph_cpu
