// CPU kernels of the layout, index, image and logging ops frozen TF models use (issue 19,
// second group): PadV2, MirrorPad, ReverseV2, SpaceToDepth, DepthToSpace, SpaceToBatchND,
// BatchToSpaceND, GatherNd, ScatterNd, TensorScatterUpdate, SparseToDense, TopKV2,
// ResizeBilinear, ResizeNearestNeighbor, Assert and Print: values written out by hand (as
// TensorFlow gives them) and the argument checks. tests/interop/test_model_ops.py compares
// them with TensorFlow on more shapes.
#include <map>
#include <string>
#include <vector>

#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

namespace tgraph::testing {
namespace {


Tensor U8(Dims dims, const std::vector<uint8_t>& v) { return MakeTensor<uint8_t>(DT_UINT8, std::move(dims), v); }
Tensor F64(Dims dims, const std::vector<double>& v) { return MakeTensor<double>(DT_DOUBLE, std::move(dims), v); }

TEST(ModelOpsLayoutKernelTest, PadV2FillsWithTheConstant) {
  OpRun r = RunOp("PadV2", {F32({2, 2}, {1, 2, 3, 4}), I32({2, 2}, {1, 0, 0, 2}), F32({}, {9})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{3, 4}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9}));
  r = RunOp("PadV2", {I64({0}, {}), I64({1, 2}, {1, 1}), I64({}, {-5})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{-5, -5}));
  ExpectInvalid(RunOp("PadV2", {F32({2}, {1, 2}), I32({1, 2}, {-1, 0}), F32({}, {0})}, {}, false).status,
                {"node", "paddings"});
}

TEST(ModelOpsLayoutKernelTest, MirrorPadReflectAndSymmetric) {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor pads = I32({2, 2}, {1, 1, 2, 2});
  OpRun r = RunOp("MirrorPad", {x, pads}, {{"mode", AttrOfString("REFLECT")}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{4, 7}));
  EXPECT_EQ(Values<float>(r.outputs[0]),
            (std::vector<float>{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4,
                                3, 2, 1, 2, 3, 2, 1}));
  r = RunOp("MirrorPad", {x, I64({2, 2}, {1, 0, 2, 1})}, {{"mode", AttrOfString("SYMMETRIC")}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]),
            (std::vector<float>{2, 1, 1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 5, 4, 4, 5, 6, 6}));
  ExpectInvalid(RunOp("MirrorPad", {x, I32({2, 2}, {2, 0, 0, 0})}, {{"mode", AttrOfString("REFLECT")}},
                      false).status,
                {"node", "paddings"});
}

TEST(ModelOpsLayoutKernelTest, ReverseV2) {
  OpRun r = RunOp("ReverseV2", {Iota({2, 3}), I32Vec({1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  r = RunOp("ReverseV2", {Iota({2, 3}, DT_INT32), I64({2}, {0, -1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{5, 4, 3, 2, 1, 0}));
  r = RunOp("ReverseV2", {Iota({2, 3}), I32Vec({0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{3, 4, 5, 0, 1, 2}));
  ExpectInvalid(RunOp("ReverseV2", {Iota({2}), I32Vec({1})}, {}, false).status, {"node", "axis 1"});
  ExpectInvalid(RunOp("ReverseV2", {Iota({2}), I32Vec({0, -1})}, {}, false).status,
                {"node", "more than once"});
}

TEST(ModelOpsLayoutKernelTest, ReverseSequence) {
  // [batch 2, time 4]: the first 3 and the first 1 steps reversed.
  const AttrMap time_major_no = {{"seq_dim", AttrOfInt(1)},
                                 {"batch_dim", AttrOfInt(0)}};
  OpRun r = RunOp("ReverseSequence", {Iota({2, 4}), I64({2}, {3, 1})}, time_major_no);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{2, 1, 0, 3, 4, 5, 6, 7}));
  // Time-major [time 3, batch 2, 2] with int32 lengths {2, 3}, on int32 values.
  r = RunOp("ReverseSequence", {Iota({3, 2, 2}, DT_INT32), I32Vec({2, 3})},
            {{"seq_dim", AttrOfInt(0)}, {"batch_dim", AttrOfInt(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]),
            (std::vector<int32_t>{4, 5, 10, 11, 0, 1, 6, 7, 8, 9, 2, 3}));
  // Lengths 0 and the full length.
  r = RunOp("ReverseSequence", {Iota({2, 3}), I64({2}, {0, 3})}, time_major_no);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 1, 2, 5, 4, 3}));
  ExpectInvalid(RunOp("ReverseSequence", {Iota({2, 3}), I64({2}, {4, 1})}, time_major_no, false)
                    .status,
                {"node", "seq_lengths[0] = 4"});
  ExpectInvalid(RunOp("ReverseSequence", {Iota({2, 3}), I64({2}, {1, -1})}, time_major_no, false)
                    .status,
                {"node", "seq_lengths[1] = -1"});
  ExpectInvalid(RunOp("ReverseSequence", {Iota({2, 3}), I64({3}, {1, 1, 1})}, time_major_no,
                      false).status,
                {"node", "batch"});
  ExpectInvalid(RunOp("ReverseSequence", {Iota({2, 3}), I64({2}, {1, 1})},
                      {{"seq_dim", AttrOfInt(1)}, {"batch_dim", AttrOfInt(1)}}, false).status,
                {"node", "seq_dim"});
}

TEST(ModelOpsLayoutKernelTest, SpaceToDepthAndBack) {
  // [1, 2, 4, 1] -> [1, 1, 2, 4]: each 2x2 block becomes one pixel's channels.
  const Tensor x = Iota({1, 2, 4, 1});
  OpRun r = RunOp("SpaceToDepth", {x}, {{"block_size", AttrOfInt(2)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{1, 1, 2, 4}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 1, 4, 5, 2, 3, 6, 7}));
  r = RunOp("DepthToSpace", {r.outputs[0]}, {{"block_size", AttrOfInt(2)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), Values<float>(x));
  ExpectInvalid(RunOp("SpaceToDepth", {Iota({1, 3, 4, 1})}, {{"block_size", AttrOfInt(2)}}, false).status,
                {"node", "divisible"});
}

TEST(ModelOpsLayoutKernelTest, SpaceToBatchNDAndBack) {
  // [1, 2, 3, 1] padded to width 4, blocks [2, 2] -> [4, 1, 2, 1].
  const Tensor x = Iota({1, 2, 3, 1});
  OpRun r = RunOp("SpaceToBatchND", {x, I32Vec({2, 2}), I32({2, 2}, {0, 0, 1, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{4, 1, 2, 1}));
  // Padded rows: [P 0 1 2], [P 3 4 5] (P = 0 padding).
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 1, 0, 2, 0, 4, 3, 5}));
  r = RunOp("BatchToSpaceND", {r.outputs[0], I64({2}, {2, 2}), I64({2, 2}, {0, 0, 1, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{1, 2, 3, 1}));
  EXPECT_EQ(Values<float>(r.outputs[0]), Values<float>(x));
  ExpectInvalid(RunOp("SpaceToBatchND", {x, I32Vec({2, 2}), I32({2, 2}, {0, 0, 0, 0})}, {}, false).status,
                {"node", "not divisible"});
  ExpectInvalid(RunOp("BatchToSpaceND", {x, I32Vec({2}), I32({1, 2}, {0, 0})}, {}, false).status,
                {"node", "not divisible"});
}

TEST(ModelOpsLayoutKernelTest, GatherNd) {
  const Tensor params = Iota({2, 3});
  OpRun r = RunOp("GatherNd", {params, I32({2, 2}, {1, 2, 0, 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{5, 1}));
  r = RunOp("GatherNd", {params, I64({1, 1}, {1})});  // a whole row
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{1, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{3, 4, 5}));
  ExpectInvalid(RunOp("GatherNd", {params, I32({1, 2}, {2, 0})}, {}, false).status,
                {"node", "[2,0]", "does not index"});
}

TEST(ModelOpsLayoutKernelTest, ScatterNdSumsDuplicatesOnEveryType) {
  OpRun r = RunOp("ScatterNd", {I32({3, 1}, {1, 3, 1}), F32({3}, {1, 2, 3}), I32Vec({4})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 4, 0, 2}));
  r = RunOp("ScatterNd", {I64({1, 1}, {0}), F64({1, 2}, {1.5, 2.5}), I64({2}, {2, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]), (std::vector<double>{1.5, 2.5, 0, 0}));
  r = RunOp("ScatterNd", {I32({2, 1}, {0, 0}), I32({2}, {5, 6}), I32Vec({2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{11, 0}));
  r = RunOp("ScatterNd", {I32({1, 1}, {1}), I64({1}, {7}), I32Vec({2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{0, 7}));
  ExpectInvalid(RunOp("ScatterNd", {I32({1, 1}, {4}), F32({1}, {1}), I32Vec({4})}, {}, false).status,
                {"node", "does not index"});
  ExpectInvalid(RunOp("ScatterNd", {I32({1, 1}, {0}), F32({2}, {1, 2}), I32Vec({4})}, {}, false).status,
                {"node", "updates must have shape"});
}

TEST(ModelOpsLayoutKernelTest, TensorScatterUpdateReplacesSlices) {
  OpRun r = RunOp("TensorScatterUpdate", {Iota({3, 2}), I32({2, 1}, {2, 0}), F32({2, 2}, {-1, -2, -3, -4})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{-3, -4, 2, 3, -1, -2}));
  ExpectInvalid(RunOp("TensorScatterUpdate", {Iota({3}), I32({1, 1}, {3}), F32({1}, {0})}, {}, false).status,
                {"node", "does not index"});
  // Empty slices of an empty tensor: nothing to copy, and no buffer to copy into (the
  // kernel passed memcpy a null pointer; op_run under UBSan).
  r = RunOp("TensorScatterUpdate",
            {F32({3, 0}, {}), I32({2, 1}, {1, 2}), F32({2, 0}, {})}, {}, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 0}));
}

TEST(ModelOpsLayoutKernelTest, SparseToDense) {
  OpRun r = RunOp("SparseToDense", {I32({2, 2}, {0, 1, 1, 2}), I32Vec({2, 3}), F32({2}, {5, 6}), F32({}, {-1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{-1, 5, -1, -1, -1, 6}));
  r = RunOp("SparseToDense", {I64({2}, {3, 0}), I64({1}, {4}), I32({}, {7}), I32({}, {0})},
            {{"validate_indices", AttrOfBool(false)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{7, 0, 0, 7}));
  ExpectInvalid(RunOp("SparseToDense", {I64({2}, {3, 0}), I64({1}, {4}), I32({}, {7}), I32({}, {0})},
                      {}, false).status,
                {"node", "out of order"});
  ExpectInvalid(RunOp("SparseToDense", {I32({1}, {4}), I32Vec({4}), F32({}, {1}), F32({}, {0})}, {}, false)
                    .status,
                {"node", "out of bounds"});
}

TEST(ModelOpsLayoutKernelTest, TopKV2OnEveryType) {
  OpRun r = RunOp("TopKV2", {F32({2, 4}, {1, 5, 3, 5, -1, -2, -3, 0}), I32Scalar(2)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{5, 5, 0, -1}));
  EXPECT_EQ(Values<int32_t>(r.outputs[1]), (std::vector<int32_t>{1, 3, 3, 0}));  // ties: lower first
  r = RunOp("TopKV2", {F64({3}, {0.5, 2.5, 1.5}), I64({}, {3})}, {{"index_type", AttrOfType(DT_INT64)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]), (std::vector<double>{2.5, 1.5, 0.5}));
  EXPECT_EQ(Values<int64_t>(r.outputs[1]), (std::vector<int64_t>{1, 2, 0}));
  r = RunOp("TopKV2", {I32({3}, {4, 9, 2}), I32Scalar(1)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{9}));
  r = RunOp("TopKV2", {I64({3}, {4, 9, 2}), I32Scalar(0)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{0}));
  ExpectInvalid(RunOp("TopKV2", {F32({3}, {1, 2, 3}), I32Scalar(4)}, {}, false).status, {"node", "k (4)"});
}

TEST(ModelOpsLayoutKernelTest, ResizeBilinearEveryTypeAndMode) {
  // A 2x2 image to 4x4: half-pixel centres give TF's 0.25 steps.
  const Tensor img = F32({1, 2, 2, 1}, {0, 1, 2, 3});
  OpRun r = RunOp("ResizeBilinear", {img, I32Vec({4, 4})}, {{"half_pixel_centers", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]),
            (std::vector<float>{0, 0.25f, 0.75f, 1, 0.5f, 0.75f, 1.25f, 1.5f, 1.5f, 1.75f, 2.25f,
                                2.5f, 2, 2.25f, 2.75f, 3}));
  r = RunOp("ResizeBilinear", {img, I32Vec({3, 3})}, {{"align_corners", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3}));
  // The legacy mode (neither): in = out * in / out.
  r = RunOp("ResizeBilinear", {F64({1, 1, 2, 1}, {0, 2}), I32Vec({1, 4})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dtype(), DT_FLOAT);
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 1, 2, 2}));
  r = RunOp("ResizeBilinear", {U8({1, 1, 2, 1}, {0, 200}), I32Vec({1, 4})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 100, 200, 200}));
  r = RunOp("ResizeBilinear", {I32({1, 1, 2, 1}, {0, 4}), I32Vec({1, 4})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 2, 4, 4}));
  ExpectInvalid(RunOp("ResizeBilinear", {img, I32Vec({0, 4})}, {}, false).status, {"node", "positive"});
  ExpectInvalid(RunOp("ResizeBilinear", {img, I32Vec({4, 4})},
                      {{"align_corners", AttrOfBool(true)}, {"half_pixel_centers", AttrOfBool(true)}},
                      false).status,
                {"node", "half_pixel_centers"});
}

TEST(ModelOpsLayoutKernelTest, ResizeNearestNeighbor) {
  const Tensor img = F32({1, 2, 2, 1}, {0, 1, 2, 3});
  OpRun r = RunOp("ResizeNearestNeighbor", {img, I32Vec({4, 4})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]),
            (std::vector<float>{0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3}));
  r = RunOp("ResizeNearestNeighbor", {U8({1, 1, 3, 1}, {10, 20, 30}), I32Vec({1, 2})},
            {{"half_pixel_centers", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<uint8_t>(r.outputs[0]), (std::vector<uint8_t>{10, 30}));
}

TEST(ModelOpsLayoutKernelTest, GradientsOfMirrorPadAndResize) {
  // MirrorPadGrad folds the padding back: REFLECT [1,5] -> [1,3] reads 1 0 1 2 1.
  OpRun r = RunOp("MirrorPadGrad", {F32({1, 5}, {1, 2, 3, 4, 5}), I32({2, 2}, {0, 0, 1, 1})},
                  {{"mode", AttrOfString("REFLECT")}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{1, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{2, 9, 4}));
  r = RunOp("MirrorPadGrad", {F64({1, 5}, {1, 2, 3, 4, 5}), I64({2, 2}, {0, 0, 1, 1})},
            {{"mode", AttrOfString("SYMMETRIC")}});  // reads 0 0 1 2 2
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]), (std::vector<double>{3, 3, 9}));
  ExpectInvalid(RunOp("MirrorPadGrad", {F32({1, 2}, {1, 2}), I32({2, 2}, {0, 0, 1, 1})},
                      {{"mode", AttrOfString("REFLECT")}}, false).status,
                {"node", "paddings"});
  // ResizeBilinearGrad, legacy coordinates 2 -> 4: output x reads 0, (0,1) half each, 1, 1.
  const Tensor grads = F32({1, 1, 4, 1}, {1, 2, 3, 4});
  r = RunOp("ResizeBilinearGrad", {grads, F32({1, 1, 2, 1}, {0, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{2, 8}));
  r = RunOp("ResizeBilinearGrad", {grads, F64({1, 1, 2, 1}, {0, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]), (std::vector<double>{2, 8}));
  // ResizeNearestNeighborGrad 2 -> 4: each input pixel took 2 outputs.
  r = RunOp("ResizeNearestNeighborGrad", {grads, I32Vec({1, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{3, 7}));
  r = RunOp("ResizeNearestNeighborGrad", {F64({1, 1, 4, 1}, {1, 2, 3, 4}), I32Vec({1, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]), (std::vector<double>{3, 7}));
}

TEST(ModelOpsLayoutKernelTest, WhereOfNumbersPicksTheNonZeros) {
  const std::vector<int64_t> want = {0, 1, 1, 0};  // [[0, 1], [1, 0]]
  for (const Tensor& t : {F32({2, 2}, {0, -0.5f, 2, -0.0f}), F64({2, 2}, {0, 1, 3, 0}),
                          I32({2, 2}, {0, 7, -1, 0}), I64({2, 2}, {0, 1, 1, 0})}) {
    OpRun r = RunOp("Where", {t});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 2})) << DataTypeName(t.dtype());
    EXPECT_EQ(Values<int64_t>(r.outputs[0]), want) << DataTypeName(t.dtype());
  }
}

TEST(ModelOpsLayoutKernelTest, AssertFailsWithItsDataAndPrintPassesThrough) {
  Tensor no = Tensor::Allocate(DT_BOOL, {}).value();
  no.flat<bool>()[0] = false;
  Tensor yes = Tensor::Allocate(DT_BOOL, {}).value();
  yes.flat<bool>()[0] = true;
  Tensor msg = Tensor::Allocate(DT_STRING, {}).value();
  msg.strings() = {"x must be positive"};
  OpRun r = RunArgs("Assert", {In(no), List({msg, I32Vec({-1, 2, 3, 4})})});
  ExpectInvalid(r.status, {"node", "assertion failed", "x must be positive", "[-1 2 3...]"});
  r = RunArgs("Assert", {In(yes), List({msg})});
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  r = RunArgs("Print", {In(F32({2}, {1, 2})), List({I32Vec({7})})},
              {{"message", AttrOfString("value: ")}, {"first_n", AttrOfInt(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace tgraph::testing
