// The special functions: Lgamma, Digamma, Erfinv, Ndtri (unary) and Polygamma (binary, with
// broadcasting). Eigen's implementations, which TensorFlow's kernels use too; half and
// bfloat16 compute in float and round once.
#include <cmath>
#include <limits>
#include <type_traits>

#include "cwise_ops_common.h"

namespace tgraph_cpu {
namespace {

template <class A>
using ScalarOf = std::remove_const_t<typename A::Scalar>;

template <typename T>
inline constexpr bool kTwoByteFloat = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

template <template <typename> class Op, class A>
auto ViaFloat(const A& a) {
  using T = ScalarOf<A>;
  if constexpr (kTwoByteFloat<T>) {
    return a.template cast<float>().unaryExpr(Op<float>()).template cast<T>();
  } else {
    return a.unaryExpr(Op<T>());
  }
}

// ndtri(p), NaN for p outside [0, 1] as TensorFlow gives (this Eigen's ndtri gives -inf or
// +inf there).
template <typename T>
struct NdtriOp {
  T operator()(const T& p) const {
    if (!(p >= T(0) && p <= T(1))) return std::numeric_limits<T>::quiet_NaN();
    return Eigen::numext::ndtri(p);
  }
};

// erfinv(x) = ndtri((x + 1) / 2) / sqrt(2): the inverse normal CDF rescaled, as TensorFlow
// computes it (so the results agree to the ulp); NaN outside [-1, 1].
template <typename T>
struct ErfinvOp {
  T operator()(const T& x) const {
    return NdtriOp<T>()(T(0.5) * x + T(0.5)) * T(0.70710678118654752440);
  }
};

#define TGRAPH_CPU_SPECIAL(Name, cost, op)          \
  struct Name {                                     \
    static constexpr double kCost = cost;           \
    template <class A>                              \
    static auto Expr(const A& a) {                  \
      return ViaFloat<op>(a);                       \
    }                                               \
  };
TGRAPH_CPU_SPECIAL(LgammaF, 40, Eigen::internal::scalar_lgamma_op)
TGRAPH_CPU_SPECIAL(DigammaF, 40, Eigen::internal::scalar_digamma_op)
TGRAPH_CPU_SPECIAL(NdtriF, 40, NdtriOp)
TGRAPH_CPU_SPECIAL(ErfinvF, 40, ErfinvOp)
#undef TGRAPH_CPU_SPECIAL

// polygamma(a, x): a a non-negative integer (NaN otherwise, as in TensorFlow).
struct PolygammaF {
  static constexpr double kCost = 100;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) {
    return a.binaryExpr(b, Eigen::internal::scalar_polygamma_op<ScalarOf<A>>());
  }
};

template <typename F>
void RegFloat(Init& init, const char* op) {
  RegisterTyped<Unary<F>::template Kernel, float, double, half, bfloat16>(init, op, F::kCost);
}

}  // namespace

void RegisterSpecialFunctionKernels(Init& init) {
  RegFloat<LgammaF>(init, "Lgamma");
  RegFloat<DigammaF>(init, "Digamma");
  RegFloat<ErfinvF>(init, "Erfinv");
  RegFloat<NdtriF>(init, "Ndtri");
  RegisterTyped<Binary<PolygammaF>::Kernel, float, double>(init, "Polygamma", PolygammaF::kCost);
}

}  // namespace tgraph_cpu
