// Fill, ZerosLike, OnesLike and Range.
#include <cstring>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

TEST(FillKernelTest, Fill) {
  OpRun r = RunOp("Fill", {I32Vec({2, 3}), F32({}, {1.5f})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>(6, 1.5f));
  r = RunOp("Fill", {I64({0}, {}), I64({}, {9})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), std::vector<int64_t>{9});
  r = RunOp("Fill", {I32Vec({0, 4}), F32({}, {1})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].NumElements(), 0);
  Tensor c = Tensor::Allocate(DT_COMPLEX128, {}).value();
  c.flat<double>()[0] = 1;
  c.flat<double>()[1] = -2;
  r = RunOp("Fill", {I32Vec({2}), c});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ((std::vector<double>(r.outputs[0].flat<double>(), r.outputs[0].flat<double>() + 4)),
            (std::vector<double>{1, -2, 1, -2}));
  KernelFixture big("Fill",
                    {In(I32Vec({1000, 1000})), In(MakeTensor<double>(DT_DOUBLE, {}, {2.0}))}, {},
                    true, TestPool());
  r = big.Run();
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].flat<double>()[999999], 2.0);
  ExpectInvalid(RunOp("Fill", {I32Vec({2, -1}), F32({}, {1})}, {}, false).status, {"non-negative"});
  ExpectInvalid(RunOp("Fill", {I32Vec({2}), F32({1}, {1})}, {}, false).status, {"scalar"});
}

TEST(FillKernelTest, ZerosLikeAndOnesLike) {
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL, DT_HALF, DT_BFLOAT16,
                     DT_INT8, DT_UINT16, DT_COMPLEX64}) {
    Tensor x = Tensor::Allocate(t, {3}).value();
    std::memset(x.data(), 0x5a, x.ByteSize());
    OpRun z = RunOp("ZerosLike", {x});
    ASSERT_TRUE(z.status.ok()) << DataTypeName(t) << ": " << z.status.ToString();
    EXPECT_EQ(z.outputs[0].dims(), x.dims());
    const auto* zb = static_cast<const unsigned char*>(z.outputs[0].data());
    for (size_t i = 0; i < z.outputs[0].ByteSize(); ++i) ASSERT_EQ(zb[i], 0) << DataTypeName(t);
    OpRun o = RunOp("OnesLike", {x});
    ASSERT_TRUE(o.status.ok()) << DataTypeName(t) << ": " << o.status.ToString();
    EXPECT_EQ(o.outputs[0].dims(), x.dims());
  }
  Tensor f = F32({2}, {3, 4});
  EXPECT_EQ(Values<float>(RunOp("OnesLike", {f}).outputs[0]), (std::vector<float>{1, 1}));
  EXPECT_EQ(Values<double>(RunOp("OnesLike", {MakeTensor<double>(DT_DOUBLE, {1}, {7})}).outputs[0]),
            std::vector<double>{1});
  EXPECT_EQ(Values<int64_t>(RunOp("OnesLike", {I64({2}, {5, 6})}).outputs[0]),
            (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(Values<bool>(RunOp("OnesLike", {Tensor::Allocate(DT_BOOL, {1}).value()}).outputs[0]),
            std::vector<bool>{true});
  Tensor h = Tensor::Allocate(DT_HALF, {1}).value();
  EXPECT_EQ(Values<uint16_t>(RunOp("OnesLike", {h}).outputs[0]), std::vector<uint16_t>{0x3C00});
  Tensor bf = Tensor::Allocate(DT_BFLOAT16, {1}).value();
  EXPECT_EQ(Values<uint16_t>(RunOp("OnesLike", {bf}).outputs[0]), std::vector<uint16_t>{0x3F80});
  Tensor c = Tensor::Allocate(DT_COMPLEX64, {1}).value();
  OpRun co = RunOp("OnesLike", {c});
  EXPECT_EQ((std::vector<float>(co.outputs[0].flat<float>(), co.outputs[0].flat<float>() + 2)),
            (std::vector<float>{1, 0}));
  EXPECT_EQ(RunOp("ZerosLike", {F32({}, {3})}).outputs[0].flat<float>()[0], 0.0f);
  EXPECT_EQ(RunOp("ZerosLike", {Tensor::Allocate(DT_FLOAT, {0}).value()}).outputs[0].NumElements(),
            0);
}

TEST(FillKernelTest, Range) {
  OpRun r = RunOp("Range", {I32Scalar(3), I32Scalar(18), I32Scalar(3)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{3, 6, 9, 12, 15}));
  r = RunOp("Range", {I32Scalar(3), I32Scalar(1), I32Scalar(-1)});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{3, 2}));
  r = RunOp("Range", {I64({}, {0}), I64({}, {5}), I64({}, {2})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{0, 2, 4}));
  r = RunOp("Range", {F32({}, {0}), F32({}, {1}), F32({}, {0.25f})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  r = RunOp("Range",
            {MakeTensor<double>(DT_DOUBLE, {}, {1}), MakeTensor<double>(DT_DOUBLE, {}, {0}),
             MakeTensor<double>(DT_DOUBLE, {}, {-0.3})});
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.outputs[0].NumElements(), 4);
  EXPECT_NEAR(r.outputs[0].flat<double>()[3], 0.1, 1e-12);
  r = RunOp("Range", {I32Scalar(4), I32Scalar(4), I32Scalar(1)});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].NumElements(), 0);
  // Extreme int32 bounds: no overflow.
  r = RunOp("Range", {I32Scalar(-2147483647), I32Scalar(2147483647), I32Scalar(2147483647)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{-2147483647, 0}));
  ExpectInvalid(RunOp("Range", {I32Scalar(0), I32Scalar(5), I32Scalar(0)}, {}, false).status,
                {"delta != 0"});
  ExpectInvalid(RunOp("Range", {I32Scalar(5), I32Scalar(0), I32Scalar(1)}, {}, false).status,
                {"start <= limit"});
  ExpectInvalid(RunOp("Range", {I32Scalar(0), I32Scalar(5), I32Scalar(-1)}, {}, false).status,
                {"start >= limit"});
  ExpectInvalid(RunOp("Range", {I32Vec({0}), I32Scalar(5), I32Scalar(1)}, {}, false).status,
                {"start must be a scalar"});
}

}  // namespace
}  // namespace tgraph::testing
