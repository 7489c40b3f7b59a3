// The bitwise ops on every integer type: BitwiseAnd, BitwiseOr, BitwiseXor, LeftShift,
// RightShift (with broadcasting), Invert and PopulationCount (uint8 out). Shift counts outside
// [0, bits - 1] are clamped into it, as TensorFlow's kernels do (C++ leaves such shifts
// undefined): x << 100 on int32 is x << 31, x >> -1 is x itself.
#include <bit>
#include <climits>
#include <type_traits>

#include "cwise_ops_common.h"

namespace tgraph_cpu {
namespace {

template <class A>
using ScalarOf = std::remove_const_t<typename A::Scalar>;

template <typename T>
using Bits = std::make_unsigned_t<T>;

template <typename T>
struct AndOp {
  T operator()(const T& x, const T& y) const { return static_cast<T>(x & y); }
};
template <typename T>
struct OrOp {
  T operator()(const T& x, const T& y) const { return static_cast<T>(x | y); }
};
template <typename T>
struct XorOp {
  T operator()(const T& x, const T& y) const { return static_cast<T>(x ^ y); }
};

template <typename T>
constexpr unsigned ClampedShift(T y) {
  constexpr T kMax = static_cast<T>(sizeof(T) * CHAR_BIT - 1);
  if constexpr (std::is_signed_v<T>) {
    if (y < 0) return 0;
  }
  return static_cast<unsigned>(y > kMax ? kMax : y);
}

// In the unsigned type: shifting bits into (or out of) the sign bit is then defined, and the
// conversion back is modular (C++20).
template <typename T>
struct LeftShiftOp {
  T operator()(const T& x, const T& y) const {
    return static_cast<T>(static_cast<Bits<T>>(static_cast<Bits<T>>(x) << ClampedShift(y)));
  }
};
// Signed x shifts arithmetically (C++20 defines >> on negative values so).
template <typename T>
struct RightShiftOp {
  T operator()(const T& x, const T& y) const { return static_cast<T>(x >> ClampedShift(y)); }
};

template <typename T>
struct InvertOp {
  T operator()(const T& x) const { return static_cast<T>(~x); }
};
template <typename T>
struct PopCountOp {
  uint8_t operator()(const T& x) const {
    return static_cast<uint8_t>(std::popcount(static_cast<Bits<T>>(x)));
  }
};

template <template <typename> class Op>
struct BinaryOf {
  static constexpr double kCost = 1;
  template <class A, class B>
  static auto Expr(const A& a, const B& b) {
    return a.binaryExpr(b, Op<ScalarOf<A>>());
  }
};
template <template <typename> class Op>
struct UnaryOf {
  static constexpr double kCost = 1;
  template <class A>
  static auto Expr(const A& a) {
    return a.unaryExpr(Op<ScalarOf<A>>());
  }
};

template <template <typename> class K>
void RegInts(Init& init, const char* op, double cost = 1) {
  RegisterTyped<K, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>(
      init, op, cost);
}

template <typename T>
using PopulationCountKernel = UnaryKernel<T, UnaryOf<PopCountOp>, uint8_t>;

}  // namespace

void RegisterBitwiseKernels(Init& init) {
  RegInts<Binary<BinaryOf<AndOp>>::Kernel>(init, "BitwiseAnd");
  RegInts<Binary<BinaryOf<OrOp>>::Kernel>(init, "BitwiseOr");
  RegInts<Binary<BinaryOf<XorOp>>::Kernel>(init, "BitwiseXor");
  RegInts<Binary<BinaryOf<LeftShiftOp>>::Kernel>(init, "LeftShift");
  RegInts<Binary<BinaryOf<RightShiftOp>>::Kernel>(init, "RightShift");
  RegInts<Unary<UnaryOf<InvertOp>>::Kernel>(init, "Invert");
  RegInts<PopulationCountKernel>(init, "PopulationCount");
}

}  // namespace tgraph_cpu
