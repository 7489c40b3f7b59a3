// Unary float ops of positional encodings, reduce_logsumexp and Keras activations: Sin, Cos,
// Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Ceil, Rint, IsNan, IsInf, IsFinite
// (bool out) and Softsign. Eigen's scalar functors (vectorized where Eigen has packet code,
// as TensorFlow's kernels use them); half and bfloat16 compute in float and round once.
#include <type_traits>

#include "cwise_ops_common.h"

namespace tgraph_cpu {
namespace {

template <class A>
using ScalarOf = std::remove_const_t<typename A::Scalar>;

template <typename T>
inline constexpr bool kTwoByteFloat = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// a.unaryExpr(Op<T>), through float for the 2-byte types; Out: the functor's result (T, or
// bool for the classifiers).
template <template <typename> class Op, class A>
auto ViaFloat(const A& a) {
  using T = ScalarOf<A>;
  if constexpr (kTwoByteFloat<T>) {
    using R = decltype(Op<float>()(0.0f));
    if constexpr (std::is_same_v<R, bool>) {
      return a.template cast<float>().unaryExpr(Op<float>());
    } else {
      return a.template cast<float>().unaryExpr(Op<float>()).template cast<T>();
    }
  } else {
    return a.unaryExpr(Op<T>());
  }
}

#define TGRAPH_CPU_EIGEN_UNARY(Name, cost, op)              \
  struct Name {                                             \
    static constexpr double kCost = cost;                   \
    template <class A>                                      \
    static auto Expr(const A& a) {                          \
      return ViaFloat<Eigen::internal::op>(a);              \
    }                                                       \
  };
TGRAPH_CPU_EIGEN_UNARY(SinF, 15, scalar_sin_op)
TGRAPH_CPU_EIGEN_UNARY(CosF, 15, scalar_cos_op)
TGRAPH_CPU_EIGEN_UNARY(TanF, 20, scalar_tan_op)
TGRAPH_CPU_EIGEN_UNARY(AsinF, 20, scalar_asin_op)
TGRAPH_CPU_EIGEN_UNARY(AcosF, 20, scalar_acos_op)
TGRAPH_CPU_EIGEN_UNARY(AtanF, 20, scalar_atan_op)
TGRAPH_CPU_EIGEN_UNARY(SinhF, 20, scalar_sinh_op)
TGRAPH_CPU_EIGEN_UNARY(CoshF, 20, scalar_cosh_op)
TGRAPH_CPU_EIGEN_UNARY(AsinhF, 20, scalar_asinh_op)
TGRAPH_CPU_EIGEN_UNARY(AcoshF, 20, scalar_acosh_op)
TGRAPH_CPU_EIGEN_UNARY(AtanhF, 20, scalar_atanh_op)
TGRAPH_CPU_EIGEN_UNARY(CeilF, 1, scalar_ceil_op)
TGRAPH_CPU_EIGEN_UNARY(RintF, 1, scalar_rint_op)
TGRAPH_CPU_EIGEN_UNARY(IsNanF, 1, scalar_isnan_op)
TGRAPH_CPU_EIGEN_UNARY(IsInfF, 1, scalar_isinf_op)
TGRAPH_CPU_EIGEN_UNARY(IsFiniteF, 1, scalar_isfinite_op)
#undef TGRAPH_CPU_EIGEN_UNARY

// x / (1 + |x|).
struct SoftsignF {
  static constexpr double kCost = 3;
  template <class A>
  static auto Expr(const A& a) {
    return a / (a.abs() + a.constant(ScalarOf<A>(1)));
  }
};

template <typename F>
struct ToBool {
  template <typename T>
  using Kernel = UnaryKernel<T, F, bool>;
};

template <typename F>
void RegFloat(Init& init, const char* op) {
  RegisterTyped<Unary<F>::template Kernel, float, double, half, bfloat16>(init, op, F::kCost);
}
template <typename F>
void RegClassifier(Init& init, const char* op) {
  RegisterTyped<ToBool<F>::template Kernel, float, double, half, bfloat16>(init, op, F::kCost);
}

}  // namespace

void RegisterTrigKernels(Init& init) {
  RegFloat<SinF>(init, "Sin");
  RegFloat<CosF>(init, "Cos");
  RegFloat<TanF>(init, "Tan");
  RegFloat<AsinF>(init, "Asin");
  RegFloat<AcosF>(init, "Acos");
  RegFloat<AtanF>(init, "Atan");
  RegFloat<SinhF>(init, "Sinh");
  RegFloat<CoshF>(init, "Cosh");
  RegFloat<AsinhF>(init, "Asinh");
  RegFloat<AcoshF>(init, "Acosh");
  RegFloat<AtanhF>(init, "Atanh");
  RegFloat<CeilF>(init, "Ceil");
  RegFloat<RintF>(init, "Rint");
  RegClassifier<IsNanF>(init, "IsNan");
  RegClassifier<IsInfF>(init, "IsInf");
  RegClassifier<IsFiniteF>(init, "IsFinite");
  RegFloat<SoftsignF>(init, "Softsign");
}

}  // namespace tgraph_cpu
