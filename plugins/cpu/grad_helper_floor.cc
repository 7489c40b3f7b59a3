// FloorDiv and FloorMod with NumPy broadcasting (the shared BinaryKernel of
// cwise_ops_common.h). Python's rounding: the quotient rounds toward -inf, the remainder has
// the divisor's sign, so floordiv(x, y) * y + floormod(x, y) == x. Gradient code runs these
// on small int32 shape vectors, which BinaryKernel evaluates inline without the pool.
#include <cmath>
#include <type_traits>

#include "cwise_ops_common.h"
#include "grad_helper_kernels.h"

namespace tgraph_cpu {
namespace {

template <typename T>
struct FloorDivOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      // y == 0 was rejected before evaluation. x / -1 traps for the most negative x, so
      // negate with two's-complement wrap-around instead (that x stays itself).
      if (y == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(x));
      const T q = x / y, r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? static_cast<T>(q - 1) : q;
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::floor(x / y);
    } else {  // half, bfloat16: in float, rounded once
      return T(std::floor(static_cast<float>(x) / static_cast<float>(y)));
    }
  }
};

// The remainder of a division rounded toward zero, moved into y's sign when they differ.
template <typename T>
struct FloorModOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == T(-1)) return T(0);  // x % -1 traps for the most negative x
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? static_cast<T>(r + y) : r;
    } else if constexpr (std::is_floating_point_v<T>) {
      const T r = std::fmod(x, y);
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    } else {
      return T(FloorModOp<float>()(static_cast<float>(x), static_cast<float>(y)));
    }
  }
};

// Integer division by zero is an error before anything runs (floats give inf / nan).
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
struct FloorF {
  static constexpr double kCost = 8;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) {
    return a.binaryExpr(b, Op<std::remove_const_t<typename A::Scalar>>());
  }
  static bool Check(Context& ctx, const TensorInfo& y) {
    switch (y.dtype()) {
      case TG_INT32: return NoZeroDivisor<int32_t>(ctx, y);
      case TG_INT64: return NoZeroDivisor<int64_t>(ctx, y);
      default: return true;
    }
  }
};

}  // namespace

void RegisterFloorDivModKernels(Init& init) {
  using Div = FloorF<FloorDivOp>;
  using Mod = FloorF<FloorModOp>;
  RegisterTyped<Binary<Div>::Kernel, int32_t, int64_t, float, double, half, bfloat16>(
      init, "FloorDiv", Div::kCost);
  RegisterTyped<Binary<Mod>::Kernel, int32_t, int64_t, float, double, half, bfloat16>(
      init, "FloorMod", Mod::kCost);
}

}  // namespace tgraph_cpu
