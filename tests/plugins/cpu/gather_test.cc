// Gather and GatherV2 (axis, batch_dims), including out-of-range indices.
#include "array_test_util.h"

namespace tgraph::testing {
namespace {

TEST(GatherKernelTest, GatherRows) {
  Tensor params = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  OpRun r = RunOp("Gather", {params, I32Vec({2, 0, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{5, 6, 1, 2, 5, 6}));
  r = RunOp("Gather", {params, I64({2, 2}, {1, 1, 0, 2})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{3, 4, 3, 4, 1, 2, 5, 6}));
  r = RunOp("Gather", {params, I32({}, {1})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{2});
  r = RunOp("Gather", {params, I32({0}, {})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{0, 2}));
}

TEST(GatherKernelTest, GatherV2AxisAndBatchDims) {
  Tensor params = Iota({2, 3, 2});  // p[i,j,k] = 6i + 2j + k
  OpRun r = RunOp("GatherV2", {params, I32Vec({2, 0}), I32Scalar(1)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{4, 5, 0, 1, 10, 11, 6, 7}));
  r = RunOp("GatherV2", {params, I64({1}, {1}), I64({}, {-1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 3, 5, 7, 9, 11}));
  // batch_dims 1: out[b, k, :] = params[b, indices[b, k], :].
  r = RunOp("GatherV2", {params, I32({2, 1}, {2, 0}), I32Scalar(1)},
            {{"batch_dims", AttrOfInt(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{4, 5, 6, 7}));
  // int16 indices, int64 params.
  Tensor idx16 = MakeTensor<int16_t>(DT_INT16, {2}, {1, 0});
  r = RunOp("GatherV2", {Iota({2, 2}, DT_INT64), idx16, I32Scalar(0)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{2, 3, 0, 1}));
}

TEST(GatherKernelTest, EmbeddingLookupLargeOnPool) {
  Tensor table = Iota({10000, 64});
  std::vector<int32_t> ids;
  for (int i = 0; i < 4096; ++i) ids.push_back((i * 7919) % 10000);
  OpRun r =
      RunArgs("GatherV2", {In(table), In(I32Vec(ids)), In(I32Scalar(0))}, {}, true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const float* y = r.outputs[0].flat<float>();
  for (int i = 0; i < 4096; i += 131) {
    ASSERT_EQ(y[i * 64 + 5], static_cast<float>(ids[static_cast<size_t>(i)] * 64 + 5));
  }
}

TEST(GatherKernelTest, OutOfRangeIndicesNameIndexAndRange) {
  Tensor params = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  OpRun r = RunOp("Gather", {params, I32Vec({0, 3})});
  ExpectInvalid(r.status, {"node", "indices[1] = 3 is not in [0, 3)"});
  r = RunOp("GatherV2", {params, I64({2, 2}, {0, 1, -1, 0}), I32Scalar(0)});
  ExpectInvalid(r.status, {"indices[1,0] = -1 is not in [0, 3)"});
  r = RunOp("GatherV2", {params, I32Vec({2}), I32Scalar(1)});
  ExpectInvalid(r.status, {"indices[0] = 2 is not in [0, 2)"});
  ExpectInvalid(RunOp("GatherV2", {params, I32Vec({0}), I32Scalar(2)}, {}, false).status,
                {"axis 2", "out of range"});
  ExpectInvalid(RunOp("Gather", {F32({}, {1}), I32Vec({0})}, {}, false).status,
                {"at least 1 dimensional"});
  ExpectInvalid(RunOp("GatherV2", {params, I32({2, 1}, {0, 0}), I32Scalar(1)},
                      {{"batch_dims", AttrOfInt(1)}}, false)
                    .status,
                {"params.shape[0]: 3 should be equal to indices.shape[0]: 2"});
}

}  // namespace
}  // namespace tgraph::testing
