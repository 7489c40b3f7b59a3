// Tensors of a C++ element type from and to float64 values, for the typed kernel tests
// (one test body per dtype): half and bfloat16 round through float, bool is "non-zero".
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernel_test_util.h"

namespace tgraph::testing {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

template <typename T>
constexpr DataType DT() {
  if constexpr (std::is_same_v<T, float>) return DT_FLOAT;
  if constexpr (std::is_same_v<T, double>) return DT_DOUBLE;
  if constexpr (std::is_same_v<T, int32_t>) return DT_INT32;
  if constexpr (std::is_same_v<T, int64_t>) return DT_INT64;
  if constexpr (std::is_same_v<T, half>) return DT_HALF;
  if constexpr (std::is_same_v<T, bfloat16>) return DT_BFLOAT16;
  if constexpr (std::is_same_v<T, bool>) return DT_BOOL;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                    std::is_same_v<T, half> || std::is_same_v<T, bfloat16> ||
                    std::is_same_v<T, bool>,
                "no DataType for this element type");
  return DT_INVALID;
}

template <typename T>
constexpr bool kLowPrecision = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

template <typename T>
T FromDouble(double v) {
  if constexpr (kLowPrecision<T>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
double ToDouble(T v) {
  if constexpr (kLowPrecision<T>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
Tensor Make(Dims dims, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(DT<T>(), std::move(dims)).value();
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), v.size());
  for (size_t i = 0; i < v.size() && i < static_cast<size_t>(t.NumElements()); ++i) {
    t.flat<T>()[i] = FromDouble<T>(v[i]);
  }
  return t;
}

template <typename T>
std::vector<double> Get(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(ToDouble(t.flat<T>()[i]));
  return out;
}

}  // namespace tgraph::testing
