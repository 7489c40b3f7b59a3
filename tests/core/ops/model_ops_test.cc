// Op definitions of the ops frozen TF models use (issue 19): TensorFlow's signatures and
// attrs, and the shape functions with static, constant and unknown inputs.
#include <gtest/gtest.h>

#include <limits>

#include "op_test_util.h"

namespace tgraph {
namespace {

using namespace op_testing;  // NOLINT: test helpers

OpIn B(PS shape) { return OpIn{DT_BOOL, std::move(shape)}; }

// A constant int32 [n, 2] matrix (paddings, crops).
OpIn Pairs(const std::vector<int64_t>& v) {
  const int64_t rows = static_cast<int64_t>(v.size()) / 2;
  Tensor t = Tensor::Allocate(DT_INT32, {rows, 2}).value();
  for (size_t i = 0; i < v.size(); ++i) t.flat<int32_t>()[i] = static_cast<int32_t>(v[i]);
  return OpIn{DT_INT32, PS{rows, 2}, t};
}

TEST(ModelOpsTest, SignaturesMatchTensorFlow) {
  using S = std::vector<std::string>;
  EXPECT_EQ(ArgNames(Def("FusedBatchNormV3").input_arg()),
            (S{"x", "scale", "offset", "mean", "variance"}));
  EXPECT_EQ(ArgNames(Def("FusedBatchNormV3").output_arg()),
            (S{"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2",
               "reserve_space_3"}));
  EXPECT_EQ(ArgNames(Def("FusedBatchNorm").output_arg()).size(), 5u);
  EXPECT_EQ(AllowedTypes(Def("FusedBatchNormV2"), "U"), (std::vector<DataType>{DT_FLOAT}));
  EXPECT_EQ(AllowedStrings(Def("FusedBatchNormV3"), "data_format"),
            (S{"NHWC", "NCHW", "NDHWC", "NCDHW"}));
  EXPECT_EQ(FindAttr(Def("FusedBatchNormV3"), "epsilon")->default_value().f(), 0.0001f);
  EXPECT_EQ(ArgNames(Def("Split").input_arg()), (S{"split_dim", "value"}));
  EXPECT_EQ(ArgNames(Def("SplitV").input_arg()), (S{"value", "size_splits", "split_dim"}));
  EXPECT_EQ(FindAttr(Def("SplitV"), "Tlen")->default_value().type(), DT_INT64);
  EXPECT_EQ(ArgNames(Def("SelectV2").input_arg()), (S{"condition", "t", "e"}));
  EXPECT_EQ(ArgNames(Def("DepthwiseConv2dNative").input_arg()), (S{"input", "filter"}));
  EXPECT_EQ(FindAttr(Def("LeakyRelu"), "alpha")->default_value().f(), 0.2f);
  EXPECT_EQ(ArgNames(Def("Einsum").input_arg()), (S{"inputs"}));
  EXPECT_EQ(ArgNames(Def("BroadcastTo").input_arg()), (S{"input", "shape"}));
  for (const char* op : {"All", "Any"}) {
    EXPECT_EQ(ArgNames(Def(op).input_arg()), (S{"input", "reduction_indices"})) << op;
  }
  for (const char* op : {"Erf", "Round", "Selu", "SquaredDifference", "StopGradient"}) {
    EXPECT_NE(OpRegistry::Global()->Find(op), nullptr) << op;
  }
}

TEST(ModelOpsTest, ElementwiseShapes) {
  EXPECT_EQ(OutShape("SquaredDifference", {}, {F({2, 1}), F({3})}), (PS{2, 3}));
  EXPECT_EQ(OutShape("Erf", {}, {F({4, -1})}), (PS{4, -1}));
  EXPECT_EQ(OutShape("LeakyRelu", {}, {F({2})}), (PS{2}));
  ExpectBuildError("SquaredDifference", {}, {F({2}), F({3})}, {"SquaredDifference"});
}

TEST(ModelOpsTest, SelectV2BroadcastsAllThree) {
  EXPECT_EQ(OutShape("SelectV2", {}, {B({2, 1}), F({1, 3}), F(PS::Scalar())}), (PS{2, 3}));
  EXPECT_EQ(OutShape("SelectV2", {}, {B(PS::Scalar()), F({4}), F({4})}), (PS{4}));
  EXPECT_EQ(OutShape("SelectV2", {}, {B({2}), F({2}), F(PS::Unknown())}), PS::Unknown());
  ExpectBuildError("SelectV2", {}, {B({2}), F({3}), F(PS::Scalar())}, {"broadcast", "[2]"});
}

TEST(ModelOpsTest, AllAnyReduce) {
  EXPECT_EQ(OutShape("All", {}, {B({2, 3, 4}), Ints({1})}), (PS{2, 4}));
  EXPECT_EQ(OutShape("Any", {{"keep_dims", AttrOfBool(true)}}, {B({2, 3}), Ints({-1})}),
            (PS{2, 1}));
  ExpectBuildError("All", {}, {B({2, 3}), Ints({2})}, {"Invalid reduction dimension 2"});
}

TEST(ModelOpsTest, SplitShapes) {
  const AttrMap three = {{"num_split", AttrOfInt(3)}};
  auto shapes = OutShapes("Split", three, {Scalar(1), F({2, 6})});
  ASSERT_EQ(shapes.size(), 3u);
  for (const PS& s : shapes) EXPECT_EQ(s, (PS{2, 2}));
  EXPECT_EQ(OutShapes("Split", three, {I(PS::Scalar()), F({2, 6})})[0], PS::UnknownOfRank(2));
  ExpectBuildError("Split", three, {Scalar(1), F({2, 5})}, {"not divisible by num_split 3"});
  ExpectBuildError("Split", three, {Scalar(-3), F({2, 6})}, {"split_dim -3"});
  shapes = OutShapes("SplitV", three, {F({2, 7}), Ints({1, -1, 2}), Scalar(-1)});
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[1], (PS{2, 4}));
  EXPECT_EQ(shapes[2], (PS{2, 2}));
  ExpectBuildError("SplitV", three, {F({2, 7}), Ints({1, 1, 1}), Scalar(1)}, {"must sum to"});
  ExpectBuildError("SplitV", three, {F({2, 7}), Ints({-1, -1, 1}), Scalar(1)}, {"only one -1"});
  ExpectBuildError("SplitV", three, {F({2, 7}), Ints({1, 6}), Scalar(1)}, {"num_split"});
}

TEST(ModelOpsTest, BroadcastToShape) {
  EXPECT_EQ(OutShape("BroadcastTo", {}, {F({3, 1}), Ints({2, 3, 4})}), (PS{2, 3, 4}));
  EXPECT_EQ(OutShape("BroadcastTo", {}, {F({3, 1}), I({3})}), PS::UnknownOfRank(3));
  ExpectBuildError("BroadcastTo", {}, {F({3}), Ints({2, 4})}, {"does not broadcast"});
}

TEST(ModelOpsTest, FusedBatchNormShapes) {
  const OpIn c4 = F({4});
  auto shapes = OutShapes("FusedBatchNormV3", {{"is_training", AttrOfBool(false)}},
                          {F({2, 5, 5, 4}), c4, c4, c4, c4});
  ASSERT_EQ(shapes.size(), 6u);
  EXPECT_EQ(shapes[0], (PS{2, 5, 5, 4}));
  EXPECT_EQ(shapes[1], (PS{4}));
  EXPECT_EQ(shapes[5], (PS{0}));
  shapes = OutShapes("FusedBatchNorm", {{"data_format", AttrOfString("NCHW")}},
                     {F({2, 4, 5, -1}), c4, c4, F({0}), F({0})});  // training: no statistics
  EXPECT_EQ(shapes[0], (PS{2, 4, 5, -1}));
  ExpectBuildError("FusedBatchNormV3", {{"is_training", AttrOfBool(false)}},
                   {F({2, 5, 5, 4}), c4, c4, F({3}), c4}, {"mean", "4"});
  ExpectBuildError("FusedBatchNormV3", {}, {F({2, 5, 4}), c4, c4, c4, c4}, {"rank 4"});
}

TEST(ModelOpsTest, DepthwiseConv2dNativeShape) {
  const AttrMap attrs = {{"strides", AttrOfIntList({1, 2, 2, 1})},
                         {"padding", AttrOfString("SAME")}};
  EXPECT_EQ(OutShape("DepthwiseConv2dNative", attrs, {F({1, 7, 8, 3}), F({3, 3, 3, 2})}),
            (PS{1, 4, 4, 6}));
  EXPECT_EQ(OutShape("DepthwiseConv2dNative", attrs, {F({1, 7, 8, -1}), F({3, 3, 3, 2})}),
            (PS{1, 4, 4, 6}));
  ExpectBuildError("DepthwiseConv2dNative", attrs, {F({1, 7, 8, 3}), F({3, 3, 4, 1})},
                   {"input depth 3"});
}

TEST(ModelOpsTest, EinsumShapes) {
  auto einsum = [](const std::string& eq) -> AttrMap { return {{"equation", AttrOfString(eq)}}; };
  const ListSpans two = {{0, 2}}, one = {{0, 1}};
  EXPECT_EQ(OutShapes("Einsum", einsum("bqhd,bkhd->bhqk"), {F({2, 3, 4, 5}), F({2, 6, 4, 5})},
                      two)[0],
            (PS{2, 4, 3, 6}));
  EXPECT_EQ(OutShapes("Einsum", einsum("...ij,...jk->...ik"), {F({2, 1, 3, 4}), F({5, 4, 2})},
                      two)[0],
            (PS{2, 5, 3, 2}));
  EXPECT_EQ(OutShapes("Einsum", einsum("ij->ji"), {F({-1, 4})}, one)[0], (PS{4, -1}));
  EXPECT_EQ(OutShapes("Einsum", einsum("ij,jk"), {F({2, 3}), F({3, 5})}, two)[0], (PS{2, 5}));
  EXPECT_EQ(OutShapes("Einsum", einsum("ij,jk->ik"), {F({2, 3}), OpIn{DT_FLOAT, PS::Unknown()}},
                      two)[0],
            PS::Unknown());
  ExpectBuildError("Einsum", einsum("ij,jk->ik"), {F({2, 3}), F({4, 5})}, {"label 'j'"}, two);
  ExpectBuildError("Einsum", einsum("ij,jk->iz"), {F({2, 3}), F({3, 5})}, {"'z'"}, two);
  ExpectBuildError("Einsum", einsum("ij->ii"), {F({2, 2})}, {"more than once"}, one);
  ExpectBuildError("Einsum", einsum("ij,jk,kl->il"), {F({2, 3}), F({3, 5})}, {"term"}, two);
}

TEST(ModelOpsTest, LayoutShapes) {
  EXPECT_EQ(OutShape("PadV2", {}, {F({2, 3}), Pairs({1, 0, 2, 2}), F(PS::Scalar())}), (PS{3, 7}));
  EXPECT_EQ(OutShape("PadV2", {}, {F({2, 3}), OpIn{DT_INT32, PS{2, 2}}, F(PS::Scalar())}),
            PS::UnknownOfRank(2));
  ExpectBuildError("PadV2", {}, {F({2, 3}), Pairs({1, 0, 2, 2}), F({1})}, {"constant_values"});
  ExpectBuildError("PadV2", {}, {F({2, 3}), Ints({1, 0, 2, 2}), F(PS::Scalar())}, {"[rank, 2]"});
  const AttrMap reflect = {{"mode", AttrOfString("REFLECT")}};
  EXPECT_EQ(OutShape("MirrorPad", reflect, {F({3, 3}), Pairs({2, 0, 0, 1})}), (PS{5, 4}));
  ExpectBuildError("MirrorPad", reflect, {F({3, 3}), Pairs({3, 0, 0, 1})}, {"no greater than 2"});
  EXPECT_EQ(OutShape("ReverseV2", {}, {F({2, 3}), Ints({-1})}), (PS{2, 3}));
  ExpectBuildError("ReverseV2", {}, {F({2, 3}), Ints({2})}, {"axis 2"});
  const AttrMap block = {{"block_size", AttrOfInt(2)}};
  EXPECT_EQ(OutShape("SpaceToDepth", block, {F({1, 4, 6, 3})}), (PS{1, 2, 3, 12}));
  EXPECT_EQ(OutShape("DepthToSpace", block, {F({1, 2, 3, 12})}), (PS{1, 4, 6, 3}));
  ExpectBuildError("SpaceToDepth", block, {F({1, 3, 6, 3})}, {"height 3"});
  EXPECT_EQ(OutShape("SpaceToBatchND", {}, {F({2, 4, 3, 5}), Ints({2, 3}), Pairs({0, 0, 1, 2})}),
            (PS{12, 2, 2, 5}));
  EXPECT_EQ(OutShape("BatchToSpaceND", {}, {F({12, 2, 2, 5}), Ints({2, 3}), Pairs({0, 0, 1, 2})}),
            (PS{2, 4, 3, 5}));
  ExpectBuildError("SpaceToBatchND", {}, {F({2, 4, 3, 5}), Ints({2, 2}), Pairs({0, 0, 0, 0})},
                   {"not divisible"});
}

// Found by fuzz/op_run (DepthToSpace's block_size squared) and by review of the same
// arithmetic: a layout shape whose dims do not fit in int64 is an error, not signed overflow.
TEST(ModelOpsTest, LayoutShapesOutsideInt64AreErrors) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  ExpectBuildError("DepthToSpace", {{"block_size", AttrOfInt(int64_t{1} << 32)}},
                   {F({1, 2, 3, 12})}, {"block_size 4294967296 is out of range"});
  ExpectBuildError("SpaceToDepth", {{"block_size", AttrOfInt(2)}}, {F({1, 4, 6, kMax})},
                   {"does not fit in int64"});
  ExpectBuildError("PadV2", {}, {F({kMax - 1, 3}), Pairs({1, 5, 0, 0}), F(PS::Scalar())},
                   {"does not fit in int64"});
  ExpectBuildError("SpaceToBatchND", {}, {F({kMax, 4, 5}), Ints({2}), Pairs({0, 0})},
                   {"does not fit in int64"});
  ExpectBuildError("BatchToSpaceND", {}, {F({4, kMax / 2 + 1, 5}), Ints({4}), Pairs({0, 0})},
                   {"does not fit in int64"});
}

TEST(ModelOpsTest, IndexShapes) {
  EXPECT_EQ(OutShape("GatherNd", {}, {F({4, 3, 2}), OpIn{DT_INT32, PS{5, 2}}}), (PS{5, 2}));
  EXPECT_EQ(OutShape("GatherNd", {}, {F({4, 3, 2}), OpIn{DT_INT64, PS{2, 3, 1}}}), (PS{2, 3, 3, 2}));
  ExpectBuildError("GatherNd", {}, {F({4, 3}), OpIn{DT_INT32, PS{2, 3}}}, {"must be <= the rank"});
  EXPECT_EQ(OutShape("ScatterNd", {}, {OpIn{DT_INT32, PS{5, 1}}, F({5, 3}), Ints({4, 3})}),
            (PS{4, 3}));
  ExpectBuildError("ScatterNd", {}, {OpIn{DT_INT32, PS{5, 1}}, F({5, 2}), Ints({4, 3})},
                   {"updates must have shape [5,3]"});
  EXPECT_EQ(OutShape("TensorScatterUpdate", {}, {F({4, 3}), OpIn{DT_INT32, PS{2, 1}}, F({2, 3})}),
            (PS{4, 3}));
  EXPECT_EQ(OutShape("SparseToDense", {}, {OpIn{DT_INT32, PS{2, 2}}, Ints({3, 4}), F({2}), F(PS::Scalar())}),
            (PS{3, 4}));
  auto topk = OutShapes("TopKV2", {}, {F({2, 7}), Scalar(3)});
  ASSERT_EQ(topk.size(), 2u);
  EXPECT_EQ(topk[0], (PS{2, 3}));
  EXPECT_EQ(topk[1], (PS{2, 3}));
  ExpectBuildError("TopKV2", {}, {F({2, 7}), Scalar(8)}, {"at least k = 8"});
}

TEST(ModelOpsTest, ImageAndLoggingShapes) {
  EXPECT_EQ(OutShape("ResizeBilinear", {}, {F({2, 5, 7, 3}), Ints({9, 4})}), (PS{2, 9, 4, 3}));
  EXPECT_EQ(OutShape("ResizeNearestNeighbor", {}, {F({2, 5, 7, 3}), OpIn{DT_INT32, PS{2}}}),
            (PS{2, -1, -1, 3}));
  ExpectBuildError("ResizeBilinear", {}, {F({2, 5, 7, 3}), Ints({0, 4})}, {"positive"});
  EXPECT_EQ(OutShape("ResizeBicubic", {}, {F({2, 5, 7, 3}), Ints({9, 4})}), (PS{2, 9, 4, 3}));
  EXPECT_EQ(OutShape("ResizeArea", {}, {F({2, 5, 7, 3}), OpIn{DT_INT32, PS{2}}}),
            (PS{2, -1, -1, 3}));
  ExpectBuildError("ResizeArea", {}, {F({2, 5, 7}), Ints({9, 4})}, {"rank"});
  ExpectBuildError("ResizeBicubic", {}, {F({2, 5, 7, 3}), Ints({3, -1})}, {"positive"});
  EXPECT_EQ(OutShape("ResizeBicubicGrad", {}, {F({2, 9, 4, 3}), F({2, 5, 7, 3})}), (PS{2, 5, 7, 3}));
  EXPECT_EQ(Def("Assert").is_stateful(), true);
  EXPECT_EQ(OutShapes("Print", {}, {F({2, 3}), I(PS::Scalar())}, {{1, 1}})[0], (PS{2, 3}));
}

}  // namespace
}  // namespace tgraph
