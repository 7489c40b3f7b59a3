// Reshape, Squeeze, ExpandDims: a view of the input (same buffer) with a new shape.
#include "array_test_util.h"

namespace tgraph::testing {
namespace {

TEST(ReshapeKernelTest, ReshapeAliasesWithInferredDim) {
  Tensor x = Iota({2, 3, 4});
  OpRun r = RunOp("Reshape", {x, I32Vec({4, -1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(r.outputs[0].data(), x.data());
  EXPECT_EQ(Values<float>(r.outputs[0]), Values<float>(x));
  r = RunOp("Reshape", {x, I64({1}, {24})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{24});
  // To a scalar and back; empty tensors.
  r = RunOp("Reshape", {F32({1, 1}, {3}), I32({0}, {})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].rank(), 0);
  r = RunOp("Reshape", {Tensor::Allocate(DT_INT64, {0, 4}).value(), I32Vec({2, 0, 3})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 0, 3}));
  // Every plain dtype is moved, e.g. bool and bfloat16.
  for (DataType t : {DT_BOOL, DT_BFLOAT16, DT_UINT8, DT_COMPLEX64}) {
    r = RunOp("Reshape", {Tensor::Allocate(t, {2, 2}).value(), I32Vec({-1})});
    ASSERT_TRUE(r.status.ok()) << DataTypeName(t) << ": " << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{4});
  }
}

TEST(ReshapeKernelTest, ReshapeRejectsBadShapes) {
  Tensor x = Iota({2, 3});
  ExpectInvalid(RunOp("Reshape", {x, I32Vec({4, -1})}, {}, false).status,
                {"node", "6 values", "multiple of 4"});
  ExpectInvalid(RunOp("Reshape", {x, I32Vec({5})}, {}, false).status, {"6 values", "has 5"});
  ExpectInvalid(RunOp("Reshape", {x, I32Vec({-1, -1})}, {}, false).status, {"only one"});
  ExpectInvalid(RunOp("Reshape", {x, I32Vec({-2, -3})}, {}, false).status, {"non-negative"});
  ExpectInvalid(
      RunOp("Reshape", {Tensor::Allocate(DT_FLOAT, {0}).value(), I32Vec({0, -1})}, {}, false)
          .status,
      {"empty tensor"});
  ExpectInvalid(RunOp("Reshape", {x, I32({2, 1}, {6, 1})}, {}, false).status, {"vector"});
}

TEST(ReshapeKernelTest, Squeeze) {
  Tensor x = Iota({1, 3, 1, 2});
  OpRun r = RunOp("Squeeze", {x});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.outputs[0].data(), x.data());
  r = RunOp("Squeeze", {x}, {{"squeeze_dims", AttrOfIntList({-2})}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{1, 3, 2}));
  r = RunOp("Squeeze", {F32({1, 1}, {2})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].rank(), 0);
  ExpectInvalid(RunOp("Squeeze", {x}, {{"squeeze_dims", AttrOfIntList({1})}}, false).status,
                {"Can not squeeze dim[1]", "got 3"});
  ExpectInvalid(RunOp("Squeeze", {x}, {{"squeeze_dims", AttrOfIntList({4})}}, false).status,
                {"out of range"});
}

TEST(ReshapeKernelTest, ExpandDims) {
  Tensor x = Iota({2, 3});
  for (auto [dim, want] : std::vector<std::pair<int, std::vector<int64_t>>>{
           {0, {1, 2, 3}}, {1, {2, 1, 3}}, {2, {2, 3, 1}}, {-1, {2, 3, 1}}, {-3, {1, 2, 3}}}) {
    OpRun r = RunOp("ExpandDims", {x, I32Scalar(dim)});
    ASSERT_TRUE(r.status.ok()) << dim << ": " << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), want) << dim;
    EXPECT_EQ(r.outputs[0].data(), x.data());
  }
  OpRun r = RunOp("ExpandDims", {F32({}, {1}), I64({1}, {0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{1});
  ExpectInvalid(RunOp("ExpandDims", {x, I32Scalar(3)}, {}, false).status,
                {"dim 3", "out of range"});
  ExpectInvalid(RunOp("ExpandDims", {x, I32Scalar(-4)}, {}, false).status, {"out of range"});
  ExpectInvalid(RunOp("ExpandDims", {x, I32Vec({0, 1})}, {}, false).status, {"scalar"});
}

}  // namespace
}  // namespace tgraph::testing
