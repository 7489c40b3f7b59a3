// CPU kernels of the miscellaneous array ops: ClipByValue, EnsureShape, CheckNumerics{,V2},
// Roll, Concat (v1), LinSpace, Bucketize, LowerBound / UpperBound, Cross, TopK (v1),
// InTopKV2, Empty, and BatchMatMul (v1) / BatchMatMulV3 (BatchMatMulV2's kernel), on every
// registered dtype, against values TensorFlow computes, with TensorFlow's error messages.
#include <Eigen/Core>

#include <cmath>
#include <limits>
#include <type_traits>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

template <typename T>
constexpr DataType DT() {
  if constexpr (std::is_same_v<T, float>) return DT_FLOAT;
  if constexpr (std::is_same_v<T, double>) return DT_DOUBLE;
  if constexpr (std::is_same_v<T, int32_t>) return DT_INT32;
  if constexpr (std::is_same_v<T, int64_t>) return DT_INT64;
  if constexpr (std::is_same_v<T, Eigen::half>) return DT_HALF;
  if constexpr (std::is_same_v<T, Eigen::bfloat16>) return DT_BFLOAT16;
  return DT_INVALID;
}

template <typename T>
std::vector<T> V(std::initializer_list<double> v) {
  std::vector<T> out;
  for (double x : v) out.push_back(static_cast<T>(x));
  return out;
}

template <typename T>
Tensor Make(std::vector<int64_t> dims, std::initializer_list<double> v) {
  return MakeTensor<T>(DT<T>(), std::move(dims), V<T>(v));
}

template <typename T>
class MiscTypedTest : public ::testing::Test {};
using NumberTypes = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(MiscTypedTest, NumberTypes);

TYPED_TEST(MiscTypedTest, ClipByValue) {
  using T = TypeParam;
  Tensor t = Make<T>({2, 3}, {-5, 1, 7, 3, 10, -2});
  OpRun r = RunOp("ClipByValue", {t, Make<T>({}, {0}), Make<T>({}, {5})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({0, 1, 5, 3, 5, 0}));
  // Bounds of t's shape; min > max gives min (max(min(t, hi), lo), TensorFlow's order).
  r = RunOp("ClipByValue", {t, Make<T>({2, 3}, {0, 2, 0, 4, 0, 0}), Make<T>({}, {3})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({0, 2, 3, 4, 3, 0}));
  ExpectInvalid(RunOp("ClipByValue", {t, Make<T>({2}, {0, 1}), Make<T>({}, {3})}).status,
                {"node", "clip_value_min and clip_value_max must be either of the same shape as "
                         "input, or a scalar."});
}

TYPED_TEST(MiscTypedTest, BucketizeSearchSortedCross) {
  using T = TypeParam;
  OpRun r = RunOp("Bucketize", {Make<T>({2, 3}, {-5, 0, 1, 9, 10, 11})},
                  {{"boundaries", AttrOfFloatList({0, 1, 10})}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{0, 1, 2, 2, 3, 3}));
  Tensor sorted = Make<T>({2, 4}, {1, 3, 3, 7, 0, 2, 4, 6});
  Tensor values = Make<T>({2, 3}, {3, 0, 8, 4, 5, -1});
  r = RunOp("LowerBound", {sorted, values});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{1, 0, 4, 2, 3, 0}));
  r = RunOp("UpperBound", {sorted, values}, {{"out_type", AttrOfType(DT_INT64)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{3, 0, 4, 3, 3, 0}));
  ExpectInvalid(RunOp("LowerBound", {sorted, Make<T>({1, 1}, {0})}).status,
                {"node", "Leading dim_size of both tensors must match."});
  r = RunOp("Cross", {Make<T>({2, 3}, {1, 0, 0, 1, 2, 3}), Make<T>({2, 3}, {0, 1, 0, 4, 5, 6})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({0, 0, 1, -3, 6, -3}));
  ExpectInvalid(RunOp("Cross", {Make<T>({2}, {1, 2}), Make<T>({2}, {1, 2})}, {}, false).status,
                {"node", "Trailing dimension must be of size 3"});
  // TopK (v1): k an attr.
  r = RunOp("TopK", {Make<T>({2, 3}, {1, 9, 4, 7, 2, 8})}, {{"k", AttrOfInt(2)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({9, 4, 8, 7}));
  EXPECT_EQ(Values<int32_t>(r.outputs[1]), (std::vector<int32_t>{1, 2, 2, 0}));
}

TEST(ArrayMiscKernelTest, EnsureShape) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  OpRun r = RunOp("EnsureShape", {x}, {{"shape", AttrOfShape(PartialShape({-1, 3}))}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), Values<float>(x));
  ExpectInvalid(RunOp("EnsureShape", {x}, {{"shape", AttrOfShape(PartialShape({2, 2}))}}, false)
                    .status,
                {"node", "[2,3] is not compatible with expected shape [2,2]."});
}

template <typename T>
void CheckNumericsFor() {
  SCOPED_TRACE(static_cast<int>(DT<T>()));
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  AttrMap msg{{"message", AttrOfString("msg")}};
  OpRun r = RunOp("CheckNumerics", {Make<T>({3}, {1, 2, 3})}, msg);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({1, 2, 3}));
  ExpectInvalid(RunOp("CheckNumerics", {Make<T>({3}, {1, nan, 3})}, msg).status,
                {"node", "msg : Tensor had NaN values"});
  ExpectInvalid(RunOp("CheckNumerics", {Make<T>({3}, {1, inf, nan})}, msg).status,
                {"node", "msg : Tensor had Inf and NaN values"});
  r = RunOp("CheckNumericsV2", {Make<T>({2}, {1, 2})}, msg);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ExpectInvalid(RunOp("CheckNumericsV2", {Make<T>({4}, {1, -inf, inf, nan})}, msg).status,
                {"node", "msg : Tensor had -Inf, +Inf, and NaN values"});
  ExpectInvalid(RunOp("CheckNumericsV2", {Make<T>({2}, {-inf, 0})}, msg).status,
                {"node", "msg : Tensor had -Inf values"});
}

TEST(ArrayMiscKernelTest, CheckNumerics) {
  CheckNumericsFor<float>();
  CheckNumericsFor<double>();
  CheckNumericsFor<Eigen::half>();
  CheckNumericsFor<Eigen::bfloat16>();
}

TEST(ArrayMiscKernelTest, Roll) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  OpRun r = RunOp("Roll", {x, I32Vec({1, -4, 1}), I32Vec({0, 1, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{2, 3, 1, 5, 6, 4}));
  r = RunOp("Roll", {x, I64({}, {1}), I64({}, {-1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{3, 1, 2, 6, 4, 5}));
  ExpectInvalid(RunOp("Roll", {x, I32Vec({1, 2}), I32Vec({0})}).status,
                {"node", "shift and axis must have the same size"});
  ExpectInvalid(RunOp("Roll", {x, I32Vec({1}), I32Vec({2})}).status,
                {"node", "axis 2 is out of range"});
}

TEST(ArrayMiscKernelTest, ConcatV1) {
  OpRun r = RunArgs("Concat", {In(I32Scalar(1)), List({F32({2, 1}, {1, 2}),
                                                        F32({2, 2}, {3, 4, 5, 6})})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  r = RunArgs("Concat", {In(I32Scalar(-2)), List({F32({1, 2}, {1, 2}), F32({0, 2}, {})})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{1, 2}));
  ExpectInvalid(RunArgs("Concat", {In(I32Scalar(0)), List({F32({1, 2}, {1, 2}),
                                                           F32({1, 3}, {1, 2, 3})})},
                        {}, false).status,
                {"node", "Dimension mismatch"});
}

TEST(ArrayMiscKernelTest, LinSpaceInTopKEmpty) {
  OpRun r = RunOp("LinSpace", {F32({}, {1}), F32({}, {2}), I32Scalar(5)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 1.25f, 1.5f, 1.75f, 2}));
  r = RunOp("LinSpace", {MakeTensor<double>(DT_DOUBLE, {}, {3}),
                         MakeTensor<double>(DT_DOUBLE, {}, {-1}), I64({}, {1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]), (std::vector<double>{3}));
  ExpectInvalid(RunOp("LinSpace", {F32({}, {1}), F32({}, {2}), I32Scalar(0)}, {}, false).status,
                {"node", "Requires num > 0: 0"});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  r = RunOp("InTopKV2", {F32({3, 3}, {0.1f, 0.5f, 0.4f, 0.3f, 0.3f, 0.3f, nan, 1, 0}),
                         I32Vec({2, 1, 0}), I32Scalar(1)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<bool>(r.outputs[0]), (std::vector<bool>{false, true, false}));
  r = RunOp("InTopKV2", {F32({1, 3}, {0.1f, 0.5f, 0.4f}), I64({1}, {5}), I64({}, {3})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<bool>(r.outputs[0]), (std::vector<bool>{false}));
  r = RunOp("Empty", {I32Vec({2, 3})}, {{"dtype", AttrOfType(DT_INT64)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), std::vector<int64_t>(6, 0));
}

template <typename T>
void BatchMatMulFor() {
  SCOPED_TRACE(static_cast<int>(DT<T>()));
  // [2, 1, 2] x [2, 2, 1] with adj_y on [2, 1, 2].
  Tensor x = Make<T>({2, 1, 2}, {1, 2, 3, 4});
  Tensor y = Make<T>({2, 1, 2}, {5, 6, 7, 8});
  OpRun r = RunOp("BatchMatMul", {x, y}, {{"adj_y", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 1, 1}));
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({17, 53}));
  r = RunOp("BatchMatMulV3", {x, y}, {{"adj_x", AttrOfBool(true)},
                                      {"Tout", AttrOfType(DT<T>())}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 2, 2}));
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({5, 6, 10, 12, 21, 24, 28, 32}));
}

TEST(ArrayMiscKernelTest, BatchMatMulV1AndV3) {
  BatchMatMulFor<float>();
  BatchMatMulFor<double>();
  BatchMatMulFor<Eigen::half>();
  BatchMatMulFor<Eigen::bfloat16>();
  ExpectInvalid(RunOp("BatchMatMul", {F32({2, 1, 2}, {1, 2, 3, 4}), F32({1, 2, 1}, {1, 2})}).status,
                {"must be the same"});
}

}  // namespace
}  // namespace tgraph::testing
