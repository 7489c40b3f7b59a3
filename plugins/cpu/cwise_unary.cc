// Unary element-wise ops: Neg, Abs, Square, Sign, Sqrt, Rsqrt, Exp, Log, Log1p, Expm1, Tanh,
// Sigmoid, Floor,
// Relu, Relu6, Elu, Softplus. One Eigen expression each, evaluated on the intra-op pool.
#include <cmath>

#include "cpu_kernels.h"
#include "cwise_ops_common.h"
#include "wrapping_math.h"

namespace tgraph_cpu {
namespace {

template <class A>
using ScalarOf = std::remove_const_t<typename A::Scalar>;

#define TGRAPH_CPU_UNARY(Name, cost, expr)   \
  struct Name {                              \
    static constexpr double kCost = cost;    \
    template <class A>                       \
    static auto Expr(const A& a) {           \
      using T = ScalarOf<A>;                 \
      static_cast<void>(sizeof(T));          \
      return expr;                           \
    }                                        \
  };

TGRAPH_CPU_UNARY(NegPlainF, 1, -a)
TGRAPH_CPU_UNARY(AbsPlainF, 1, a.abs())
TGRAPH_CPU_UNARY(SquarePlainF, 1, a.square())
// Integers wrap on overflow (wrapping_math.h): -INT_MIN and |INT_MIN| are INT_MIN.
template <class Wrapping, class Plain>
struct IntegerWrapsF {
  static constexpr double kCost = Plain::kCost;
  template <class A>
  static auto Expr(const A& a) {
    if constexpr (IntegerOperand<A>) {
      return ApplyWrapping<Wrapping>(a);
    } else {
      return Plain::Expr(a);
    }
  }
};
using NegF = IntegerWrapsF<WrappingNeg, NegPlainF>;
using AbsF = IntegerWrapsF<WrappingAbs, AbsPlainF>;
using SquareF = IntegerWrapsF<WrappingSquare, SquarePlainF>;
TGRAPH_CPU_UNARY(SignF, 1, a.sign())
TGRAPH_CPU_UNARY(SqrtF, 4, a.sqrt())
TGRAPH_CPU_UNARY(RsqrtF, 5, a.rsqrt())
TGRAPH_CPU_UNARY(ExpF, 10, a.exp())
TGRAPH_CPU_UNARY(LogF, 10, a.log())
TGRAPH_CPU_UNARY(Log1pF, 15, a.log1p())
TGRAPH_CPU_UNARY(Expm1F, 15, a.expm1())
TGRAPH_CPU_UNARY(TanhF, 15, a.tanh())
TGRAPH_CPU_UNARY(SigmoidF, 15, a.sigmoid())
TGRAPH_CPU_UNARY(FloorF, 1, a.floor())
// max(x, 0) and min(max(x, 0), 6); NaN stays NaN.
TGRAPH_CPU_UNARY(ReluF, 1, a.template cwiseMax<Eigen::PropagateNaN>(a.constant(T(0))))
TGRAPH_CPU_UNARY(Relu6F, 1,
                 a.template cwiseMax<Eigen::PropagateNaN>(a.constant(T(0)))
                     .template cwiseMin<Eigen::PropagateNaN>(a.constant(T(6))))
// x < 0 ? exp(x) - 1 : x
TGRAPH_CPU_UNARY(EluF, 10, (a < a.constant(T(0))).select(a.expm1(), a))
#undef TGRAPH_CPU_UNARY

// log(1 + exp(x)), without overflow for large x and without losing small values: x itself
// above -threshold, exp(x) below threshold (threshold = log(epsilon) + 2, as TensorFlow).
struct SoftplusF {
  static constexpr double kCost = 20;
  template <class A>
  static auto Expr(const A& a) {
    using T = ScalarOf<A>;
    const T threshold = T(std::log(static_cast<float>(Eigen::NumTraits<T>::epsilon())) + 2.0f);
    return (a > a.constant(-threshold))
        .select(a, (a < a.constant(threshold)).select(a.exp(), a.exp().log1p()));
  }
};

template <typename F, typename... Ts>
void Reg(Init& init, const char* op) {
  RegisterTyped<Unary<F>::template Kernel, Ts...>(init, op, F::kCost);
}

template <typename F>
void RegFloat(Init& init, const char* op) {
  Reg<F, float, double, half, bfloat16>(init, op);
}
template <typename F>
void RegSigned(Init& init, const char* op) {
  Reg<F, float, double, int32_t, int64_t, half, bfloat16>(init, op);
}

}  // namespace

void RegisterUnaryKernels(Init& init) {
  RegSigned<NegF>(init, "Neg");
  RegSigned<AbsF>(init, "Abs");
  RegSigned<SquareF>(init, "Square");
  RegSigned<SignF>(init, "Sign");
  RegFloat<SqrtF>(init, "Sqrt");
  RegFloat<RsqrtF>(init, "Rsqrt");
  RegFloat<ExpF>(init, "Exp");
  RegFloat<LogF>(init, "Log");
  RegFloat<Log1pF>(init, "Log1p");
  RegFloat<Expm1F>(init, "Expm1");
  RegFloat<TanhF>(init, "Tanh");
  RegFloat<SigmoidF>(init, "Sigmoid");
  RegFloat<FloorF>(init, "Floor");
  RegSigned<ReluF>(init, "Relu");
  RegSigned<Relu6F>(init, "Relu6");
  RegFloat<EluF>(init, "Elu");
  RegFloat<SoftplusF>(init, "Softplus");
}

}  // namespace tgraph_cpu
