// Element-wise ops frozen Keras models use beyond the basic set: Erf and Erfc (GELU), Round, Selu,
// LeakyRelu and SquaredDifference (LayerNormalization's variance). The same Eigen kernel
// templates as cwise_unary.cc / cwise_binary.cc, in a file of their own so the older ones
// do not recompile.
#include "cwise_ops_common.h"
#include "wrapping_math.h"
#include "model_op_kernels.h"

namespace tgraph_cpu {
namespace {

template <class A>
using ScalarOf = std::remove_const_t<typename A::Scalar>;

struct ErfF {
  static constexpr double kCost = 20;
  template <class A>
  static auto Expr(const A& a) { return a.erf(); }
};

struct ErfcF {
  static constexpr double kCost = 20;
  template <class A>
  static auto Expr(const A& a) { return a.erfc(); }
};

// Halves round to even, as TensorFlow (and NumPy) do; integers are already round.
struct RoundF {
  static constexpr double kCost = 1;
  template <class A>
  static auto Expr(const A& a) {
    if constexpr (kIsFloatLike<ScalarOf<A>>) {
      return a.rint();
    } else {
      return a;
    }
  }
};

// scale * x where x > 0, else scale * alpha * (exp(x) - 1), with TensorFlow's constants.
struct SeluF {
  static constexpr double kCost = 12;
  template <class A>
  static auto Expr(const A& a) {
    using T = ScalarOf<A>;
    const T scale = T(1.0507009873554804934193349852946);
    const T scale_alpha = T(1.7580993408473768599402175208123);
    return (a > a.constant(T(0))).select(a * a.constant(scale), a.expm1() * a.constant(scale_alpha));
  }
};

struct SquaredDifferenceF {
  static constexpr double kCost = 2;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) {
    if constexpr (IntegerOperand<A>) {
      return ApplyWrapping<WrappingSquaredDifference>(a, b);
    } else {
      return (a - b).square();
    }
  }
};

// x where x > 0, else alpha * x; alpha is the node's attr.
template <typename T>
class LeakyReluKernel {
 public:
  explicit LeakyReluKernel(Construction& c) {
    float alpha = 0.2f;
    c.GetAttr("alpha", &alpha);
    alpha_ = T(alpha);
  }
  void Compute(Context& ctx) {
    const TensorInfo in = ctx.input_info(0);
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, in.dims(), in.rank());
    if (!out.valid()) return;
    const int64_t n = in.num_elements();
    if (n == 0) return;
    Vec<T> o(out.mutable_data<T>(), n);
    const ConstVec<T> x(in.data<T>(), n);
    const auto expr = (x > x.constant(T(0))).select(x, x * x.constant(alpha_));
    if (TooSmallForPool(n, 2)) {
      o = expr;
      return;
    }
    EigenCpu eigen(ctx);
    o.device(eigen.device()) = expr;
  }

 private:
  T alpha_;
};

template <typename F, typename... Ts>
void RegUnary(Init& init, const char* op) {
  RegisterTyped<Unary<F>::template Kernel, Ts...>(init, op, F::kCost);
}

}  // namespace

void RegisterMoreElementwiseKernels(Init& init) {
  RegUnary<ErfF, float, double, half, bfloat16>(init, "Erf");
  RegUnary<ErfcF, float, double, half, bfloat16>(init, "Erfc");
  RegUnary<RoundF, float, double, half, bfloat16, int32_t, int64_t>(init, "Round");
  RegUnary<SeluF, float, double, half, bfloat16>(init, "Selu");
  RegisterTyped<LeakyReluKernel, float, double, half, bfloat16>(init, "LeakyRelu", 2);
  RegisterTyped<Binary<SquaredDifferenceF>::template Kernel, float, double, half, bfloat16,
                int32_t, int64_t>(init, "SquaredDifference", SquaredDifferenceF::kCost);
}

}  // namespace tgraph_cpu
