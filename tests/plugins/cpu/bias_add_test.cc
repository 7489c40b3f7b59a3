// BiasAdd on the CPU plugin: NHWC (last dim) and NCHW (dim 1), ranks 2..5, empty tensors,
// float and double, bad inputs.
#include "nn_test_util.h"

namespace tgraph::testing {
namespace {


void CheckOn(ThreadPool* pool, DataType dtype, const Dims& dims, bool nchw, uint32_t seed) {
  SCOPED_TRACE(std::string(DataTypeName(dtype)) + " " + PartialShape(dims).ToString() +
               (nchw ? " NCHW" : " NHWC"));
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const size_t channel_dim = nchw ? 1 : dims.size() - 1;
  const int64_t channels = dims[channel_dim];
  int64_t inner = 1;
  for (size_t i = channel_dim + 1; i < dims.size(); ++i) inner *= dims[i];
  const auto value = RandomValues(dtype, n, seed, -10, 10);
  const auto bias = RandomValues(dtype, channels, seed + 1, -10, 10);
  AttrMap attrs;
  if (nchw) attrs["data_format"] = AttrOfString("NCHW");
  auto r = RunOpOnPool(pool, "BiasAdd",
                       {MakeTyped(dtype, dims, value), MakeTyped(dtype, {channels}, bias)}, attrs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dims(), dims);
  std::vector<double> want(value.size());
  for (int64_t i = 0; i < n; ++i) {
    want[static_cast<size_t>(i)] = RoundTo(
        dtype, value[static_cast<size_t>(i)] + bias[static_cast<size_t>((i / inner) % channels)]);
  }
  ExpectClose(ToDoubles(r.outputs[0]), want, {}, "BiasAdd");  // exact: one rounding
}

void Check(DataType dtype, const Dims& dims, bool nchw, uint32_t seed) {
  for (ThreadPool* pool : Pools()) CheckOn(pool, dtype, dims, nchw, seed);
}

TEST(BiasAddKernelTest, NhwcAndNchw) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    Check(dtype, {3, 5}, false, seed++);
    Check(dtype, {2, 3, 4, 7}, false, seed++);
    Check(dtype, {2, 2, 3, 3, 9}, false, seed++);
    Check(dtype, {1, 1}, false, seed++);
    Check(dtype, {64, 1000}, false, seed++);
    Check(dtype, {2, 3, 4}, true, seed++);
    Check(dtype, {2, 5, 4, 3}, true, seed++);
    Check(dtype, {2, 3, 2, 2, 2}, true, seed++);
    Check(dtype, {8, 16, 33, 33}, true, seed++);
  }
}

TEST(BiasAddKernelTest, EmptyTensors) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    Check(dtype, {0, 4}, false, 1);
    Check(dtype, {2, 0}, false, 2);
    Check(dtype, {0, 3, 4, 5}, false, 3);
    Check(dtype, {2, 3, 0, 5}, true, 4);
  }
}

TEST(BiasAddKernelTest, HandComputed) {
  auto r = RunOp("BiasAdd", {MakeTensor<float>(DT_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6}),
                             MakeTensor<float>(DT_FLOAT, {3}, {10, 20, 30})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(BiasAddKernelTest, BadInputs) {
  const Tensor v = MakeTyped(DT_FLOAT, {2, 3}, std::vector<double>(6, 1));
  const Tensor b4 = MakeTyped(DT_FLOAT, {4}, std::vector<double>(4, 1));
  ExpectStatus(RunOp("BiasAdd", {v, b4}).status, Code::kInvalidArgument, {"'node'"});
  ExpectStatus(RunOp("BiasAdd", {v, b4}, {}, false).status, Code::kInvalidArgument,
               {"node", "bias size 4", "[2,3]"});
  const Tensor b2d = MakeTyped(DT_FLOAT, {1, 3}, std::vector<double>(3, 1));
  ExpectStatus(RunOp("BiasAdd", {v, b2d}, {}, false).status, Code::kInvalidArgument,
               {"node", "1-D", "[1,3]"});
  const Tensor v1 = MakeTyped(DT_FLOAT, {3}, std::vector<double>(3, 1));
  const Tensor b3 = MakeTyped(DT_FLOAT, {3}, std::vector<double>(3, 1));
  ExpectStatus(RunOp("BiasAdd", {v1, b3}, {}, false).status, Code::kInvalidArgument,
               {"node", "rank at least 2", "[3]"});
  ExpectStatus(RunOp("BiasAdd", {v, b3}, {{"data_format", AttrOfString("NCHW")}}, false).status,
               Code::kInvalidArgument, {"node", "rank at least 3", "NCHW"});
  ExpectStatus(
      RunOp("BiasAdd", {MakeTyped(DT_INT32, {1, 1}, {1}), MakeTyped(DT_INT32, {1}, {1})}).status,
      Code::kNotFound, {"BiasAdd"});
}

}  // namespace
}  // namespace tgraph::testing
