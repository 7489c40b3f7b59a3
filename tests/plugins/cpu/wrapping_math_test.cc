// Every CPU kernel that adds, subtracts, negates or multiplies integers wraps around on
// overflow, as TensorFlow's do (plugins/cpu/wrapping_math.h). Signed overflow is undefined in
// C++, so besides the values checked here the sanitizer stage (UBSan) fails these tests if a
// kernel still overflows in the signed type: the fuzzers found that in AddN, and the same
// pattern was in Add, Sub, Mul, Neg, Abs, Square, SquaredDifference, Sum, Prod, Mean, Pow and
// the int32 MatMul.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernel_test_util.h"

namespace tgraph::testing {
namespace {

template <typename T>
class WrappingMathTest : public ::testing::Test {};
using IntegerTypes = ::testing::Types<int32_t, int64_t>;
TYPED_TEST_SUITE(WrappingMathTest, IntegerTypes);

template <typename T>
constexpr DataType IntDType() {
  return sizeof(T) == 4 ? DT_INT32 : DT_INT64;
}

// The test's own modular reference: the unsigned type of the same width.
template <typename T>
T Wrapped(std::make_unsigned_t<T> v) {
  return static_cast<T>(v);
}
template <typename T>
std::make_unsigned_t<T> U(T v) {
  return static_cast<std::make_unsigned_t<T>>(v);
}

// 67 elements: more than a vector register's worth, and an odd tail, so both the
// vectorised body and the scalar remainder of a kernel's loop see an overflowing pair.
constexpr int64_t kLength = 67;

template <typename T>
Tensor Filled(T value, int64_t n = kLength) {
  return MakeTensor<T>(IntDType<T>(), {n}, std::vector<T>(static_cast<size_t>(n), value));
}

template <typename T>
void ExpectAll(const OpRun& r, T want, const std::string& what) {
  ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
  const Tensor& out = r.outputs[0];
  const T* v = out.template flat<T>();
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    ASSERT_EQ(v[i], want) << what << " at " << i;
  }
}

TYPED_TEST(WrappingMathTest, BinaryArithmetic) {
  using T = TypeParam;
  const T max = std::numeric_limits<T>::max(), min = std::numeric_limits<T>::min();
  for (const char* add : {"Add", "AddV2"}) {
    ExpectAll<T>(RunOp(add, {Filled<T>(max), Filled<T>(T(1))}), min, add);
    // A scalar operand, and a broadcast row.
    ExpectAll<T>(RunOp(add, {Filled<T>(max), MakeTensor<T>(IntDType<T>(), {}, {T(2)})}),
                 Wrapped<T>(U(max) + 2), std::string(add) + " scalar");
    ExpectAll<T>(RunOp(add, {MakeTensor<T>(IntDType<T>(), {3, kLength},
                                           std::vector<T>(3 * kLength, max)),
                             Filled<T>(max)}),
                 T(-2), std::string(add) + " broadcast");
  }
  ExpectAll<T>(RunOp("Sub", {Filled<T>(min), Filled<T>(T(1))}), max, "Sub");
  ExpectAll<T>(RunOp("Mul", {Filled<T>(max), Filled<T>(T(2))}), T(-2), "Mul");
  ExpectAll<T>(RunOp("Mul", {Filled<T>(min), Filled<T>(T(-1))}), min, "Mul min * -1");
  // (min - 1)^2 = max^2, which is 1 modulo 2^bits.
  ExpectAll<T>(RunOp("SquaredDifference", {Filled<T>(min), Filled<T>(T(1))}), T(1),
               "SquaredDifference");
  ExpectAll<T>(RunOp("Pow", {Filled<T>(max), Filled<T>(T(2))}), T(1), "Pow");
  // One element: the kernels' plain-value path.
  ExpectAll<T>(RunOp("Add", {Filled<T>(max, 1), Filled<T>(T(1), 1)}), min, "Add one element");
}

TYPED_TEST(WrappingMathTest, UnaryArithmetic) {
  using T = TypeParam;
  const T max = std::numeric_limits<T>::max(), min = std::numeric_limits<T>::min();
  ExpectAll<T>(RunOp("Neg", {Filled<T>(min)}), min, "Neg");
  ExpectAll<T>(RunOp("Abs", {Filled<T>(min)}), min, "Abs");
  ExpectAll<T>(RunOp("Abs", {Filled<T>(T(-5))}), T(5), "Abs -5");
  ExpectAll<T>(RunOp("Square", {Filled<T>(max)}), T(1), "Square");
}

TYPED_TEST(WrappingMathTest, Reductions) {
  using T = TypeParam;
  const T max = std::numeric_limits<T>::max(), min = std::numeric_limits<T>::min();
  const Tensor axis0 = MakeTensor<int32_t>(DT_INT32, {1}, {0});
  // kLength copies of max: the sum is max * kLength, modulo 2^bits.
  const T sum = Wrapped<T>(U(max) * static_cast<std::make_unsigned_t<T>>(kLength));
  ExpectAll<T>(RunOp("Sum", {Filled<T>(max), axis0}), sum, "Sum");
  ExpectAll<T>(RunOp("Mean", {Filled<T>(max, 2), axis0}), T(-1), "Mean (sum wraps to -2)");
  T prod = 1;
  for (int64_t i = 0; i < kLength; ++i) prod = Wrapped<T>(U(prod) * 3);
  ExpectAll<T>(RunOp("Prod", {Filled<T>(T(3)), axis0}), prod, "Prod");
  // Rows of a matrix: the strided (column) fold.
  ExpectAll<T>(RunOp("Sum", {MakeTensor<T>(IntDType<T>(), {2, kLength},
                                           std::vector<T>(2 * kLength, max)),
                             axis0}),
               T(-2), "Sum over rows");
  auto r = RunOp("Cumsum", {MakeTensor<T>(IntDType<T>(), {2}, {max, T(1)}),
                            MakeTensor<int32_t>(DT_INT32, {}, {0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].template flat<T>()[1], min);
}

TEST(WrappingMathTest, Int32MatMul) {
  const int32_t max = std::numeric_limits<int32_t>::max();
  // [max, 1] . [1, 1]^T = max + 1, which wraps to min.
  auto r = RunOp("MatMul", {MakeTensor<int32_t>(DT_INT32, {1, 2}, {max, 1}),
                            MakeTensor<int32_t>(DT_INT32, {2, 1}, {1, 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].flat<int32_t>()[0], std::numeric_limits<int32_t>::min());
  // A product that overflows: max * 3.
  r = RunOp("MatMul", {MakeTensor<int32_t>(DT_INT32, {1, 1}, {max}),
                       MakeTensor<int32_t>(DT_INT32, {1, 1}, {3})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].flat<int32_t>()[0], static_cast<int32_t>(3u * static_cast<uint32_t>(max)));
}

}  // namespace
}  // namespace tgraph::testing
