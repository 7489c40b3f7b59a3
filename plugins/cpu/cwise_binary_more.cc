// Binary element-wise ops of Keras' losses and metrics and of integer arithmetic, with NumPy
// broadcasting (BinaryKernel): Atan2, Mod / TruncateMod (remainder with x's sign),
// TruncateDiv, DivNoNan, MulNoNan, Xlogy, Xdivy, Xlog1py; and ApproximateEqual (one shape,
// bool out). half and bfloat16 compute in float and round once.
#include <cmath>
#include <string>
#include <type_traits>

#include "cwise_ops_common.h"

namespace tgraph_cpu {
namespace {

template <class A>
using ScalarOf = std::remove_const_t<typename A::Scalar>;

// The type the arithmetic of T runs in: float for the 2-byte floats, T otherwise.
template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>, float, T>;

// F's scalar functor Op<T> over a pair of Eigen operands.
template <template <typename> class Op, int kCostUnits>
struct ScalarBinary {
  static constexpr double kCost = kCostUnits;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) {
    return a.binaryExpr(b, Op<ScalarOf<A>>());
  }
};

template <typename T>
struct Atan2Op {
  T operator()(const T& y, const T& x) const {
    return T(std::atan2(static_cast<Wide<T>>(y), static_cast<Wide<T>>(x)));
  }
};

// The remainder of the division rounded toward zero (C's %, fmod): it has x's sign.
template <typename T>
struct TruncateModOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      // y == 0 was rejected before evaluation; x % -1 traps for the most negative x.
      if constexpr (std::is_signed_v<T>) {
        if (y == T(-1)) return T(0);
      }
      return static_cast<T>(x % y);
    } else {
      return T(std::fmod(static_cast<Wide<T>>(x), static_cast<Wide<T>>(y)));
    }
  }
};

// x / y rounded toward zero. Floats: trunc(x / y).
template <typename T>
struct TruncateDivOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      // The most negative x / -1 overflows (and traps): negate with wrap-around instead.
      if constexpr (std::is_signed_v<T>) {
        if (y == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(x));
      }
      return static_cast<T>(x / y);
    } else {
      return T(std::trunc(static_cast<Wide<T>>(x) / static_cast<Wide<T>>(y)));
    }
  }
};

template <typename T>
struct DivNoNanOp {
  T operator()(const T& x, const T& y) const {
    if (static_cast<Wide<T>>(y) == 0) return T(0);
    return T(static_cast<Wide<T>>(x) / static_cast<Wide<T>>(y));
  }
};

// 0 where y is 0, whatever x is (inf * 0 and NaN * 0 included).
template <typename T>
struct MulNoNanOp {
  T operator()(const T& x, const T& y) const {
    if (static_cast<Wide<T>>(y) == 0) return T(0);
    return T(static_cast<Wide<T>>(x) * static_cast<Wide<T>>(y));
  }
};

// x * log(y), 0 where x is 0 (whatever y is, as TensorFlow's kernel).
template <typename T>
struct XlogyOp {
  T operator()(const T& x, const T& y) const {
    const Wide<T> wx = static_cast<Wide<T>>(x);
    if (wx == 0) return T(0);
    return T(wx * std::log(static_cast<Wide<T>>(y)));
  }
};

template <typename T>
struct XdivyOp {
  T operator()(const T& x, const T& y) const {
    const Wide<T> wx = static_cast<Wide<T>>(x);
    if (wx == 0) return T(0);
    return T(wx / static_cast<Wide<T>>(y));
  }
};

template <typename T>
struct Xlog1pyOp {
  T operator()(const T& x, const T& y) const {
    const Wide<T> wx = static_cast<Wide<T>>(x);
    if (wx == 0) return T(0);
    return T(wx * std::log1p(static_cast<Wide<T>>(y)));
  }
};

// Integer division (and remainder) by zero is an error before anything runs, as in
// TensorFlow; floats give inf / NaN.
template <typename T>
bool NoZeroDivisor(Context& ctx, const TensorInfo& y) {
  const T* p = y.data<T>();
  for (int64_t i = 0, n = y.num_elements(); i < n; ++i) {
    if (p[i] == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Integer division by zero");
      return false;
    }
  }
  return true;
}

template <template <typename> class Op>
struct IntegerDivision : ScalarBinary<Op, 8> {
  static bool Check(Context& ctx, const TensorInfo& y) {
    bool ok = true;
    DispatchDType(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) ok = NoZeroDivisor<T>(ctx, y);
    });
    return ok;
  }
};

// |x - y| < tolerance over two inputs of one shape (TensorFlow does not broadcast here). The
// difference is taken in T, as TensorFlow's kernel does.
template <typename T>
class ApproximateEqualKernel {
 public:
  explicit ApproximateEqualKernel(Construction& c) {
    float tolerance = 1e-5f;
    c.GetAttr("tolerance", &tolerance);
    tolerance_ = T(tolerance);
  }
  void Compute(Context& ctx) {
    const TensorInfo x = ctx.input_info(0), y = ctx.input_info(1);
    if (!x.SameShape(y)) {
      return ctx.Fail(TG_INVALID_ARGUMENT,
                      "x and y must be of the same shape. x shape: " +
                          ShapeString(x.dims_vector()) + ". y shape: " +
                          ShapeString(y.dims_vector()));
    }
    TensorMut out = ctx.AllocateOutput(0, x.dims(), x.rank());
    if (!out.valid()) return;
    const int64_t n = x.num_elements();
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    bool* po = out.mutable_data<bool>();
    const T tolerance = tolerance_;
    auto eval = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const T d = px[i] - py[i];
        po[i] = (d < T(0) ? T(-d) : d) < tolerance;
      }
    };
    if (TooSmallForPool(n, CostNs(2))) return eval(0, n);
    ctx.ParallelFor(n, CostNs(2), [&](int64_t begin, int64_t end) { eval(begin, end); });
  }

 private:
  T tolerance_;
};

template <typename F, typename... Ts>
void Reg(Init& init, const char* op) {
  RegisterTyped<Binary<F>::template Kernel, Ts...>(init, op, F::kCost);
}

}  // namespace

void RegisterBinaryMoreKernels(Init& init) {
  Reg<ScalarBinary<Atan2Op, 20>, float, double, half, bfloat16>(init, "Atan2");
  using Mod = IntegerDivision<TruncateModOp>;
  Reg<Mod, int32_t, int64_t, float, double, half, bfloat16>(init, "Mod");
  Reg<Mod, int32_t, int64_t, float, double, half, bfloat16>(init, "TruncateMod");
  Reg<IntegerDivision<TruncateDivOp>, int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t,
      uint32_t, uint64_t>(init, "TruncateDiv");
  Reg<ScalarBinary<DivNoNanOp, 3>, float, double, half, bfloat16>(init, "DivNoNan");
  Reg<ScalarBinary<MulNoNanOp, 2>, float, double, half, bfloat16>(init, "MulNoNan");
  Reg<ScalarBinary<XlogyOp, 12>, float, double, half, bfloat16>(init, "Xlogy");
  Reg<ScalarBinary<XdivyOp, 3>, float, double, half, bfloat16>(init, "Xdivy");
  Reg<ScalarBinary<Xlog1pyOp, 15>, float, double, half, bfloat16>(init, "Xlog1py");
  RegisterTyped<ApproximateEqualKernel, float, double, half, bfloat16>(init, "ApproximateEqual",
                                                                       2);
}

}  // namespace tgraph_cpu
