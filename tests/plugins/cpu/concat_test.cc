// ConcatV2, Pack and Unpack.
#include "array_test_util.h"

namespace tgraph::testing {
namespace {

TEST(ConcatKernelTest, ConcatV2Axes) {
  Tensor a = F32({2, 2}, {1, 2, 3, 4}), b = F32({2, 1}, {5, 6});
  OpRun r = RunArgs("ConcatV2", {List({a, b}), In(I32Scalar(1))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2, 5, 3, 4, 6}));
  Tensor c = F32({1, 2}, {7, 8});
  r = RunArgs("ConcatV2", {List({a, c, a}), In(I64({}, {-2}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2, 3, 4, 7, 8, 1, 2, 3, 4}));
  // Empty pieces.
  r = RunArgs("ConcatV2", {List({Tensor::Allocate(DT_INT32, {0, 2}).value(), I32({1, 2}, {1, 2})}),
                           In(I32Scalar(0))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{1, 2}));
  // bool, middle axis of rank 3.
  Tensor p = Tensor::Allocate(DT_BOOL, {2, 1, 2}).value(),
         q = Tensor::Allocate(DT_BOOL, {2, 2, 2}).value();
  for (int i = 0; i < 8; ++i) q.flat<bool>()[i] = true;
  r = RunArgs("ConcatV2", {List({p, q}), In(I32Scalar(1))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<bool>(r.outputs[0]), (std::vector<bool>{false, false, true, true, true, true,
                                                           false, false, true, true, true, true}));
}

TEST(ConcatKernelTest, ConcatV2LargeOnPool) {
  Tensor a = Iota({2000, 100}), b = Iota({2000, 50});
  OpRun r = RunArgs("ConcatV2", {List({a, b}), In(I32Scalar(1))}, {}, true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const float* y = r.outputs[0].flat<float>();
  for (int i = 0; i < 2000; i += 97) {
    EXPECT_EQ(y[i * 150 + 3], static_cast<float>(i * 100 + 3));
    EXPECT_EQ(y[i * 150 + 120], static_cast<float>(i * 50 + 20));
  }
  Tensor big = Iota({1 << 20});
  r = RunArgs("ConcatV2", {List({big, big}), In(I32Scalar(0))}, {}, true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].flat<float>()[(1 << 20) + 5], 5.0f);
}

TEST(ConcatKernelTest, ConcatV2RejectsMismatches) {
  Tensor a = F32({2, 2}, {1, 2, 3, 4});
  ExpectInvalid(
      RunArgs("ConcatV2", {List({a, F32({3, 1}, {1, 2, 3})}), In(I32Scalar(1))}, {}, false).status,
      {"node", "Dimensions of inputs should match", "[2,2]", "[3,1]"});
  ExpectInvalid(RunArgs("ConcatV2", {List({a, a}), In(I32Scalar(2))}, {}, false).status,
                {"axis 2", "out of range"});
  ExpectInvalid(
      RunArgs("ConcatV2", {List({F32({}, {1}), F32({}, {2})}), In(I32Scalar(0))}, {}, false).status,
      {"scalars"});
  ExpectInvalid(
      RunArgs("ConcatV2", {List({a, F32({4}, {1, 2, 3, 4})}), In(I32Scalar(0))}, {}, false).status,
      {"should match"});
}

TEST(ConcatKernelTest, PackAndUnpack) {
  Tensor a = F32({2}, {1, 2}), b = F32({2}, {3, 4}), c = F32({2}, {5, 6});
  OpRun r = RunArgs("Pack", {List({a, b, c})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  r = RunArgs("Pack", {List({a, b, c})}, {{"axis", AttrOfInt(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  r = RunArgs("Pack", {List({I64({}, {7}), I64({}, {8})})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{7, 8}));
  ExpectInvalid(RunArgs("Pack", {List({a, F32({3}, {1, 2, 3})})}, {}, false).status,
                {"Shapes of all inputs must match"});
  ExpectInvalid(RunArgs("Pack", {List({a, b})}, {{"axis", AttrOfInt(2)}}, false).status,
                {"out of range"});

  // Unpack a [2,3] along axis 1 into three [2] tensors.
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  r = RunOp("Unpack", {x}, {{"num", AttrOfInt(3)}, {"axis", AttrOfInt(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 3u);
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 4}));
  EXPECT_EQ(Values<float>(r.outputs[2]), (std::vector<float>{3, 6}));
  r = RunOp("Unpack", {x}, {{"num", AttrOfInt(2)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{4, 5, 6}));
  r = RunOp("Unpack", {Tensor::Allocate(DT_FLOAT, {0, 2}).value()}, {{"num", AttrOfInt(0)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(r.outputs.empty());
  ExpectInvalid(RunOp("Unpack", {x}, {{"num", AttrOfInt(4)}}, false).status, {"num = 4"});
  ExpectInvalid(RunOp("Unpack", {F32({}, {1})}, {{"num", AttrOfInt(1)}}, false).status, {"rank 1"});
}

}  // namespace
}  // namespace tgraph::testing
