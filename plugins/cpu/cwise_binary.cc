// Binary arithmetic with NumPy broadcasting: Add, AddV2, Sub, Mul, RealDiv, Maximum, Minimum,
// Pow. Also the element-wise family's entry point, RegisterElementwiseKernels.
#include <cmath>
#include <limits>

#include "cpu_kernels.h"
#include "cwise_ops_common.h"
#include "wrapping_math.h"

namespace tgraph_cpu {
namespace {

template <class A>
using ScalarOf = std::remove_const_t<typename A::Scalar>;

struct AddF {
  static constexpr double kCost = 1;
  static constexpr bool kScalarExpr = true;  // also valid on plain values
  template <class A, class B>
  static auto Expr(const A& a, const B& b) {
    if constexpr (IntegerOperand<A>) {
      return ApplyWrapping<WrappingAdd>(a, b);
    } else {
      return a + b;
    }
  }
};
struct SubF {
  static constexpr double kCost = 1;
  static constexpr bool kScalarExpr = true;  // also valid on plain values
  template <class A, class B>
  static auto Expr(const A& a, const B& b) {
    if constexpr (IntegerOperand<A>) {
      return ApplyWrapping<WrappingSub>(a, b);
    } else {
      return a - b;
    }
  }
};
struct MulF {
  static constexpr double kCost = 1;
  static constexpr bool kScalarExpr = true;  // also valid on plain values
  template <class A, class B>
  static auto Expr(const A& a, const B& b) {
    if constexpr (IntegerOperand<A>) {
      return ApplyWrapping<WrappingMul>(a, b);
    } else {
      return a * b;
    }
  }
};
struct RealDivF {
  static constexpr double kCost = 2;
  static constexpr bool kScalarExpr = true;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) { return a / b; }
};
// NaN in either operand gives NaN (TensorFlow's maximum/minimum).
struct MaximumF {
  static constexpr double kCost = 1;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) { return a.template cwiseMax<Eigen::PropagateNaN>(b); }
};
struct MinimumF {
  static constexpr double kCost = 1;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) { return a.template cwiseMin<Eigen::PropagateNaN>(b); }
};

// x ** y. Integers use exact repeated squaring (wrapping on overflow, like TensorFlow);
// negative integer exponents are rejected before anything runs.
template <typename T>
struct PowOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      T base = x, result = 1;
      for (T e = y; e > 0; e >>= 1) {
        if (e & 1) result = WrapMul(result, base);
        base = WrapMul(base, base);
      }
      return result;
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::pow(x, y);
    } else {
      return T(std::pow(static_cast<float>(x), static_cast<float>(y)));
    }
  }
};
struct PowF {
  static constexpr double kCost = 20;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) { return a.binaryExpr(b, PowOp<ScalarOf<A>>()); }
  static bool Check(Context& ctx, const TensorInfo& y) {
    switch (y.dtype()) {
      case TG_INT32: return NoNegative<int32_t>(ctx, y);
      case TG_INT64: return NoNegative<int64_t>(ctx, y);
      default: return true;
    }
  }
  template <typename T>
  static bool NoNegative(Context& ctx, const TensorInfo& y) {
    const T* p = y.data<T>();
    for (int64_t i = 0, n = y.num_elements(); i < n; ++i) {
      if (p[i] < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Integers to negative integer powers are not allowed");
        return false;
      }
    }
    return true;
  }
};

template <typename F>
void RegisterAllTypes(Init& init, const char* op) {
  RegisterTyped<Binary<F>::template Kernel, float, double, int32_t, int64_t, half, bfloat16>(
      init, op, F::kCost);
}

}  // namespace

void RegisterBinaryKernels(Init& init) {
  RegisterAllTypes<AddF>(init, "Add");
  RegisterAllTypes<AddF>(init, "AddV2");
  RegisterAllTypes<SubF>(init, "Sub");
  RegisterAllTypes<MulF>(init, "Mul");
  RegisterTyped<Binary<RealDivF>::Kernel, float, double, half, bfloat16>(init, "RealDiv",
                                                                          RealDivF::kCost);
  RegisterAllTypes<MaximumF>(init, "Maximum");
  RegisterAllTypes<MinimumF>(init, "Minimum");
  RegisterAllTypes<PowF>(init, "Pow");
}

void RegisterElementwiseKernels(Init& init) {
  RegisterBinaryKernels(init);
  RegisterUnaryKernels(init);
  RegisterCompareKernels(init);
  RegisterCastKernel(init);
  RegisterAddNKernel(init);
}

}  // namespace tgraph_cpu
