// Integer arithmetic that wraps around on overflow, as TensorFlow's integer kernels do.
//
// In C++ a signed overflow is undefined behaviour: UBSan reports it, and the optimizer may
// assume it never happens. The fuzzers found it in AddN (INT_MAX + INT_MAX); every kernel
// that adds, subtracts, negates or multiplies integers takes the operation here instead, in
// the unsigned type of at least int's width (so small types are not promoted back to int),
// and converts back, which C++20 defines as modular.
#pragma once

#include <type_traits>

namespace tgraph_cpu {

template <typename T>
using WrapUnsigned = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                        std::make_unsigned_t<T>>;

template <typename T>
constexpr T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) + static_cast<WrapUnsigned<T>>(b));
  } else {
    return a + b;
  }
}
template <typename T>
constexpr T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) - static_cast<WrapUnsigned<T>>(b));
  } else {
    return a - b;
  }
}
template <typename T>
constexpr T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) * static_cast<WrapUnsigned<T>>(b));
  } else {
    return a * b;
  }
}
template <typename T>
constexpr T WrapNeg(T a) {
  return WrapSub(T(0), a);
}
// |most negative| is itself, as in two's complement.
template <typename T>
constexpr T WrapAbs(T a) {
  return a < T(0) ? WrapNeg(a) : a;
}

// The same as functors for Eigen's binaryExpr / unaryExpr.
struct WrappingAdd {
  template <typename T>
  T operator()(const T& a, const T& b) const { return WrapAdd(a, b); }
};
struct WrappingSub {
  template <typename T>
  T operator()(const T& a, const T& b) const { return WrapSub(a, b); }
};
struct WrappingMul {
  template <typename T>
  T operator()(const T& a, const T& b) const { return WrapMul(a, b); }
};
struct WrappingSquaredDifference {
  template <typename T>
  T operator()(const T& a, const T& b) const {
    const T d = WrapSub(a, b);
    return WrapMul(d, d);
  }
};
struct WrappingNeg {
  template <typename T>
  T operator()(const T& a) const { return WrapNeg(a); }
};
struct WrappingAbs {
  template <typename T>
  T operator()(const T& a) const { return WrapAbs(a); }
};
struct WrappingSquare {
  template <typename T>
  T operator()(const T& a) const { return WrapMul(a, a); }
};

// The scalar type of an operand: itself for a plain value, A::Scalar for an Eigen expression.
template <class A>
struct OperandScalar {
  using type = A;
};
template <class A>
  requires requires { typename A::Scalar; }
struct OperandScalar<A> {
  using type = std::remove_const_t<typename A::Scalar>;
};
template <class A>
concept IntegerOperand = std::is_integral_v<typename OperandScalar<A>::type>;

// Op on two operands, plain values or Eigen expressions alike.
template <class Op, class A, class B>
auto ApplyWrapping(const A& a, const B& b) {
  if constexpr (std::is_arithmetic_v<A>) {
    return Op()(a, b);
  } else {
    return a.binaryExpr(b, Op());
  }
}
template <class Op, class A>
auto ApplyWrapping(const A& a) {
  if constexpr (std::is_arithmetic_v<A>) {
    return Op()(a);
  } else {
    return a.unaryExpr(Op());
  }
}

}  // namespace tgraph_cpu
