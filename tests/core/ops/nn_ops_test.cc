// Neural-network op definitions (core/ops/nn_ops.cc): TF signatures and shape functions,
// exercised the way graph building uses them.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "op_test_util.h"

namespace tgraph {
namespace {

using namespace op_testing;  // NOLINT: test helpers

AttrMap ConvAttrs(std::vector<int64_t> strides, const std::string& padding,
                  std::vector<int64_t> dilations = {1, 1, 1, 1}) {
  return {{"strides", AttrOfIntList(strides)},
          {"padding", AttrOfString(padding)},
          {"dilations", AttrOfIntList(dilations)}};
}

AttrMap PoolAttrs(std::vector<int64_t> ksize, std::vector<int64_t> strides,
                  const std::string& padding) {
  return {{"ksize", AttrOfIntList(ksize)},
          {"strides", AttrOfIntList(strides)},
          {"padding", AttrOfString(padding)}};
}

TEST(NnOpsTest, SignaturesMatchTensorFlow) {
  using V = std::vector<DataType>;
  using S = std::vector<std::string>;
  const auto& bmm = Def("BatchMatMulV2");
  EXPECT_EQ(ArgNames(bmm.input_arg()), (S{"x", "y"}));
  EXPECT_EQ(ArgNames(bmm.output_arg()), (S{"output"}));
  EXPECT_FALSE(FindAttr(bmm, "adj_x")->default_value().b());
  EXPECT_FALSE(FindAttr(bmm, "adj_y")->default_value().b());
  EXPECT_FALSE(FindAttr(bmm, "grad_x")->default_value().b());
  EXPECT_EQ(AllowedTypes(bmm, "T"),
            (V{DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT16, DT_INT32, DT_INT64, DT_UINT8,
               DT_UINT16, DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128}));

  const auto& bias = Def("BiasAdd");
  EXPECT_EQ(ArgNames(bias.input_arg()), (S{"value", "bias"}));
  EXPECT_EQ(FindAttr(bias, "data_format")->default_value().s(), "NHWC");
  EXPECT_EQ(AllowedStrings(bias, "data_format"), (S{"NHWC", "NCHW"}));
  EXPECT_EQ(AllowedTypes(bias, "T").size(), 19u);  // numbertype

  const auto& conv = Def("Conv2D");
  EXPECT_EQ(ArgNames(conv.input_arg()), (S{"input", "filter"}));
  EXPECT_EQ(AllowedTypes(conv, "T"), (V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32}));
  EXPECT_FALSE(FindAttr(conv, "strides")->has_default_value());
  EXPECT_TRUE(FindAttr(conv, "use_cudnn_on_gpu")->default_value().b());
  EXPECT_EQ(AllowedStrings(conv, "padding"), (S{"SAME", "VALID", "EXPLICIT"}));
  EXPECT_EQ(FindAttr(conv, "explicit_paddings")->default_value().list().i_size(), 0);
  const auto& dil = FindAttr(conv, "dilations")->default_value().list().i();
  EXPECT_EQ(std::vector<int64_t>(dil.begin(), dil.end()), (std::vector<int64_t>{1, 1, 1, 1}));

  const auto& maxpool = Def("MaxPool");
  EXPECT_EQ(FindAttr(maxpool, "T")->default_value().type(), tf::DT_FLOAT);
  EXPECT_EQ(AllowedTypes(maxpool, "T"),
            (V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_UINT8, DT_INT16,
               DT_INT8, DT_UINT16, DT_QINT8}));
  EXPECT_EQ(FindAttr(maxpool, "ksize")->minimum(), 4);
  EXPECT_TRUE(FindAttr(maxpool, "ksize")->has_minimum());
  EXPECT_EQ(AllowedStrings(maxpool, "data_format"), (S{"NHWC", "NCHW", "NCHW_VECT_C"}));
  EXPECT_EQ(AllowedStrings(maxpool, "padding"), (S{"SAME", "VALID", "EXPLICIT"}));
  const auto& avgpool = Def("AvgPool");
  EXPECT_EQ(ArgNames(avgpool.input_arg()), (S{"value"}));
  EXPECT_EQ(AllowedStrings(avgpool, "padding"), (S{"SAME", "VALID"}));
  EXPECT_EQ(AllowedTypes(avgpool, "T"), (V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}));

  EXPECT_EQ(ArgNames(Def("Softmax").input_arg()), (S{"logits"}));
  EXPECT_EQ(ArgNames(Def("Softmax").output_arg()), (S{"softmax"}));
  EXPECT_EQ(ArgNames(Def("LogSoftmax").output_arg()), (S{"logsoftmax"}));
  const auto& xent = Def("SoftmaxCrossEntropyWithLogits");
  EXPECT_EQ(ArgNames(xent.input_arg()), (S{"features", "labels"}));
  EXPECT_EQ(ArgNames(xent.output_arg()), (S{"loss", "backprop"}));
  const auto& sparse = Def("SparseSoftmaxCrossEntropyWithLogits");
  EXPECT_EQ(sparse.input_arg(1).type_attr(), "Tlabels");
  EXPECT_EQ(FindAttr(sparse, "Tlabels")->default_value().type(), tf::DT_INT64);
  EXPECT_EQ(AllowedTypes(sparse, "Tlabels"), (V{DT_INT32, DT_INT64}));
  EXPECT_EQ(ArgNames(Def("L2Loss").input_arg()), (S{"t"}));
  EXPECT_EQ(AllowedTypes(Def("L2Loss"), "T"), (V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}));

  // Attrs TF added after 1.x stay out of exported GraphDefs at their defaults.
  const auto& newer = OpRegistry::Global()->Find("BatchMatMulV2")->attrs_newer_than_tf1;
  EXPECT_NE(std::find(newer.begin(), newer.end(), "grad_x"), newer.end());
}

TEST(NnOpsTest, TensorFlowNodeAttrsImport) {
  // A Conv2D as TF 1.x writes it: no explicit_paddings, dilations present.
  AttrMap attrs{{"T", AttrOfType(DT_FLOAT)},
                {"strides", AttrOfIntList({1, 2, 2, 1})},
                {"padding", AttrOfString("SAME")},
                {"data_format", AttrOfString("NHWC")},
                {"use_cudnn_on_gpu", AttrOfBool(true)},
                {"dilations", AttrOfIntList({1, 1, 1, 1})}};
  ResolvedSignature sig;
  ASSERT_TRUE(ResolveSignature(Def("Conv2D"), "conv", &attrs, &sig).ok());
  EXPECT_EQ(attrs.at("explicit_paddings").list().i_size(), 0);
  // BatchMatMulV2 without grad_x / grad_y.
  AttrMap bmm{
      {"T", AttrOfType(DT_FLOAT)}, {"adj_x", AttrOfBool(false)}, {"adj_y", AttrOfBool(true)}};
  ASSERT_TRUE(ResolveSignature(Def("BatchMatMulV2"), "bmm", &bmm, &sig).ok());
}

TEST(NnOpsTest, BatchMatMulV2) {
  EXPECT_EQ(OutShapes("BatchMatMulV2", {}, {{DT_FLOAT, PS{2, 3, 4}}, {DT_FLOAT, PS{2, 4, 5}}})[0],
            (PS{2, 3, 5}));
  // Batch broadcasting, rank mismatch, adjoints.
  EXPECT_EQ(OutShapes("BatchMatMulV2", {{"adj_x", AttrOfBool(true)}, {"adj_y", AttrOfBool(true)}},
                      {{DT_DOUBLE, PS{7, 1, 4, 3}}, {DT_DOUBLE, PS{6, 5, 4}}})[0],
            (PS{7, 6, 3, 5}));
  EXPECT_EQ(OutShapes("BatchMatMulV2", {}, {{DT_FLOAT, PS{3, 4}}, {DT_FLOAT, PS{-1, 4, 2}}})[0],
            (PS{-1, 3, 2}));
  EXPECT_FALSE(
      OutShapes("BatchMatMulV2", {}, {{DT_FLOAT, PS()}, {DT_FLOAT, PS{4, 2}}})[0].known_rank());
  EXPECT_EQ(OutShapes("BatchMatMulV2", {}, {{DT_HALF, PS{0, 3, 4}}, {DT_HALF, PS{1, 4, 0}}})[0],
            (PS{0, 3, 0}));
  ExpectBuildError("BatchMatMulV2", {}, {{DT_FLOAT, PS{2, 3, 4}}, {DT_FLOAT, PS{2, 3, 5}}},
                   {"BatchMatMulV2 'n'", "4 and 3", "[2,3,4]"});
  ExpectBuildError("BatchMatMulV2", {}, {{DT_FLOAT, PS{2, 3, 4}}, {DT_FLOAT, PS{3, 4, 5}}},
                   {"batch dimensions", "[2]", "[3]"});
  ExpectBuildError("BatchMatMulV2", {}, {{DT_FLOAT, PS{4}}, {DT_FLOAT, PS{4, 5}}},
                   {"rank at least 2", "[4]"});
  ExpectBuildError("BatchMatMulV2", {}, {{DT_BOOL, PS{4, 4}}, {DT_BOOL, PS{4, 5}}}, {"bool"});
}

TEST(NnOpsTest, BiasAdd) {
  EXPECT_EQ(OutShapes("BiasAdd", {}, {{DT_FLOAT, PS{2, -1, 5}}, {DT_FLOAT, PS{-1}}})[0],
            (PS{2, -1, 5}));
  EXPECT_EQ(OutShapes("BiasAdd", {}, {{DT_FLOAT, PS{2, 3, -1}}, {DT_FLOAT, PS{5}}})[0],
            (PS{2, 3, 5}));
  EXPECT_EQ(OutShapes("BiasAdd", {{"data_format", AttrOfString("NCHW")}},
                      {{DT_FLOAT, PS{2, -1, 4, 4}}, {DT_FLOAT, PS{3}}})[0],
            (PS{2, 3, 4, 4}));
  EXPECT_FALSE(OutShapes("BiasAdd", {}, {{DT_FLOAT, PS()}, {DT_FLOAT, PS{3}}})[0].known_rank());
  ExpectBuildError("BiasAdd", {}, {{DT_FLOAT, PS{2, 4}}, {DT_FLOAT, PS{3}}},
                   {"BiasAdd 'n'", "4", "3"});
  ExpectBuildError("BiasAdd", {}, {{DT_FLOAT, PS{4}}, {DT_FLOAT, PS{4}}}, {"rank at least 2"});
  ExpectBuildError("BiasAdd", {{"data_format", AttrOfString("NCHW")}},
                   {{DT_FLOAT, PS{2, 4}}, {DT_FLOAT, PS{4}}}, {"rank at least 3"});
  ExpectBuildError("BiasAdd", {}, {{DT_FLOAT, PS{2, 4}}, {DT_FLOAT, PS{1, 4}}}, {"rank 1"});
  ExpectBuildError("BiasAdd", {{"data_format", AttrOfString("HWCN")}},
                   {{DT_FLOAT, PS{2, 4}}, {DT_FLOAT, PS{4}}}, {"data_format"});
}

// Found by the op_run fuzzer (UBSan: `in + stride - 1` overflowed for a stride of
// INT64_MAX): window sizes are exact for any stride, and a dilated window past int64 is an
// error.
TEST(NnOpsTest, WindowSizesAtTheEdgesOfInt64) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(OutShapes("MaxPool", PoolAttrs({1, 2, 2, 1}, {1, kMax, 1, 1}, "SAME"),
                      {{DT_FLOAT, PS{1, 3, 5, 1}}})[0],
            (PS{1, 1, 5, 1}));
  EXPECT_EQ(OutShapes("MaxPool", PoolAttrs({1, 2, 2, 1}, {1, kMax, 1, 1}, "VALID"),
                      {{DT_FLOAT, PS{1, 3, 5, 1}}})[0],
            (PS{1, 1, 4, 1}));
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID", {1, kMax, 1, 1}),
                   {{DT_FLOAT, PS{1, 5, 5, 2}}, {DT_FLOAT, PS{3, 3, 2, 4}}},
                   {"does not fit in int64"});
}

TEST(NnOpsTest, Conv2D) {
  // VALID / SAME with strides; odd sizes.
  EXPECT_EQ(OutShapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
                      {{DT_FLOAT, PS{2, 7, 9, 3}}, {DT_FLOAT, PS{3, 2, 3, 8}}})[0],
            (PS{2, 5, 8, 8}));
  EXPECT_EQ(OutShapes("Conv2D", ConvAttrs({1, 2, 3, 1}, "SAME"),
                      {{DT_FLOAT, PS{2, 7, 9, 3}}, {DT_FLOAT, PS{3, 3, 3, 8}}})[0],
            (PS{2, 4, 3, 8}));
  EXPECT_EQ(OutShapes("Conv2D", ConvAttrs({1, 2, 2, 1}, "VALID"),
                      {{DT_FLOAT, PS{1, 7, 8, 3}}, {DT_FLOAT, PS{3, 3, 3, 1}}})[0],
            (PS{1, 3, 3, 1}));
  // Dilation: effective window (k - 1) * d + 1.
  EXPECT_EQ(OutShapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID", {1, 2, 3, 1}),
                      {{DT_DOUBLE, PS{1, 10, 10, 2}}, {DT_DOUBLE, PS{3, 3, 2, 4}}})[0],
            (PS{1, 6, 4, 4}));
  // Explicit padding.
  AttrMap exp = ConvAttrs({1, 1, 1, 1}, "EXPLICIT");
  exp["explicit_paddings"] = AttrOfIntList({0, 0, 1, 2, 3, 0, 0, 0});
  EXPECT_EQ(OutShapes("Conv2D", exp, {{DT_FLOAT, PS{1, 5, 5, 2}}, {DT_FLOAT, PS{3, 3, 2, 4}}})[0],
            (PS{1, 6, 6, 4}));
  // NCHW.
  AttrMap nchw = ConvAttrs({1, 1, 2, 2}, "SAME");
  nchw["data_format"] = AttrOfString("NCHW");
  EXPECT_EQ(OutShapes("Conv2D", nchw, {{DT_FLOAT, PS{4, 3, 9, 9}}, {DT_FLOAT, PS{3, 3, 3, 16}}})[0],
            (PS{4, 16, 5, 5}));
  // Unknown dims propagate.
  EXPECT_EQ(OutShapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "SAME"),
                      {{DT_FLOAT, PS{-1, -1, 9, 3}}, {DT_FLOAT, PS{3, 3, 3, -1}}})[0],
            (PS{-1, -1, 9, -1}));
  EXPECT_EQ(OutShapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "SAME"),
                      {{DT_FLOAT, PS()}, {DT_FLOAT, PS{3, 3, 3, 2}}})[0],
            (PS{-1, -1, -1, 2}));
  // Empty batch.
  EXPECT_EQ(OutShapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "SAME"),
                      {{DT_FLOAT, PS{0, 4, 4, 3}}, {DT_FLOAT, PS{3, 3, 3, 2}}})[0],
            (PS{0, 4, 4, 2}));

  const std::vector<OpIn> ok_in = {{DT_FLOAT, PS{1, 5, 5, 3}}, {DT_FLOAT, PS{3, 3, 3, 2}}};
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1}, "SAME"), ok_in,
                   {"Conv2D 'n'", "strides", "4 values"});
  ExpectBuildError("Conv2D", ConvAttrs({1, 0, 1, 1}, "SAME"), ok_in, {"strides", "> 0"});
  ExpectBuildError("Conv2D", ConvAttrs({2, 1, 1, 1}, "SAME"), ok_in, {"batch and depth"});
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1, 1}, "SAME", {1, 1, 0, 1}), ok_in, {"dilations"});
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1, 1}, "EXPLICIT"), ok_in,
                   {"explicit_paddings", "8"});
  AttrMap bad_exp = ConvAttrs({1, 1, 1, 1}, "VALID");
  bad_exp["explicit_paddings"] = AttrOfIntList({0, 0, 1, 1, 1, 1, 0, 0});
  ExpectBuildError("Conv2D", bad_exp, ok_in, {"explicit_paddings", "EXPLICIT"});
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1, 1}, "FULL"), ok_in, {"padding"});
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
                   {{DT_FLOAT, PS{1, 1, 5, 3}}, {DT_FLOAT, PS{3, 3, 3, 2}}},
                   {"height", "negative"});
  // Like TF, a window just past the input gives an empty output, not an error.
  EXPECT_EQ(OutShapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
                      {{DT_FLOAT, PS{1, 2, 5, 3}}, {DT_FLOAT, PS{3, 3, 3, 2}}})[0],
            (PS{1, 0, 3, 2}));
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
                   {{DT_FLOAT, PS{1, 5, 5, 4}}, {DT_FLOAT, PS{3, 3, 3, 2}}},
                   {"depth", "[1,5,5,4]"});
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
                   {{DT_FLOAT, PS{5, 5, 4}}, {DT_FLOAT, PS{3, 3, 3, 2}}}, {"rank 4"});
  ExpectBuildError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
                   {{DT_FLOAT, PS{1, 5, 5, 3}}, {DT_FLOAT, PS{0, 3, 3, 2}}}, {"window", "> 0"});
}

TEST(NnOpsTest, Pooling) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(OutShapes(op, PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"),
                        {{DT_FLOAT, PS{2, 7, 9, 3}}})[0],
              (PS{2, 3, 4, 3}));
    EXPECT_EQ(OutShapes(op, PoolAttrs({1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"),
                        {{DT_FLOAT, PS{2, 7, 9, 3}}})[0],
              (PS{2, 4, 5, 3}));
    EXPECT_EQ(OutShapes(op, PoolAttrs({1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"),
                        {{DT_DOUBLE, PS{-1, 7, -1, 3}}})[0],
              (PS{-1, 7, -1, 3}));
    AttrMap nchw = PoolAttrs({1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
    nchw["data_format"] = AttrOfString("NCHW");
    EXPECT_EQ(OutShapes(op, nchw, {{DT_FLOAT, PS{2, 3, 8, 6}}})[0], (PS{2, 3, 4, 3}));
    ExpectBuildError(op, PoolAttrs({1, 2, 2}, {1, 1, 1, 1}, "VALID"), {{DT_FLOAT, PS{1, 4, 4, 1}}},
                     {"ksize"});
    ExpectBuildError(op, PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"),
                     {{DT_FLOAT, PS{1, 4, 4, 1}}}, {"strides", "4 values"});
    ExpectBuildError(op, PoolAttrs({1, 0, 2, 1}, {1, 1, 1, 1}, "VALID"),
                     {{DT_FLOAT, PS{1, 4, 4, 1}}}, {"ksize", "> 0"});
    ExpectBuildError(op, PoolAttrs({1, 2, 2, 1}, {1, 1, 0, 1}, "VALID"),
                     {{DT_FLOAT, PS{1, 4, 4, 1}}}, {"strides", "> 0"});
    ExpectBuildError(op, PoolAttrs({1, 6, 2, 1}, {1, 1, 1, 1}, "VALID"),
                     {{DT_FLOAT, PS{1, 4, 4, 1}}}, {"height", "negative"});
    ExpectBuildError(op, PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"), {{DT_FLOAT, PS{4, 4, 1}}},
                     {"rank 4"});
  }
  AttrMap exp = PoolAttrs({1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT");
  exp["explicit_paddings"] = AttrOfIntList({0, 0, 1, 1, 2, 0, 0, 0});
  EXPECT_EQ(OutShapes("MaxPool", exp, {{DT_FLOAT, PS{1, 4, 4, 2}}})[0], (PS{1, 4, 4, 2}));
  // AvgPool's padding attr has no EXPLICIT.
  auto avg = BuildNode("AvgPool", PoolAttrs({1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT"),
                       {{DT_FLOAT, PS{1, 4, 4, 2}}});
  EXPECT_FALSE(avg.ok());
  // MaxPool accepts integer types (TF's list); AvgPool does not.
  EXPECT_TRUE(BuildNode("MaxPool", PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"),
                        {{DT_INT32, PS{1, 4, 4, 1}}})
                  .ok());
  EXPECT_FALSE(BuildNode("AvgPool", PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"),
                         {{DT_INT32, PS{1, 4, 4, 1}}})
                   .ok());
}

TEST(NnOpsTest, Softmax) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    EXPECT_EQ(OutShapes(op, {}, {{DT_FLOAT, PS{2, -1, 5}}})[0], (PS{2, -1, 5}));
    EXPECT_EQ(OutShapes(op, {}, {{DT_DOUBLE, PS{5}}})[0], (PS{5}));
    EXPECT_FALSE(OutShapes(op, {}, {{DT_FLOAT, PS()}})[0].known_rank());
    ExpectBuildError(op, {}, {{DT_FLOAT, PS::Scalar()}}, {"rank at least 1"});
    ExpectBuildError(op, {}, {{DT_INT32, PS{3}}}, {"int32"});
  }
}

TEST(NnOpsTest, SoftmaxCrossEntropy) {
  const std::string op = "SoftmaxCrossEntropyWithLogits";
  auto same = OutShapes(op, {}, {{DT_FLOAT, PS{4, 10}}, {DT_FLOAT, PS{4, 10}}});
  EXPECT_EQ(same[0], PS{4});
  EXPECT_EQ(same[1], (PS{4, 10}));
  auto merged = OutShapes(op, {}, {{DT_FLOAT, PS{-1, 10}}, {DT_FLOAT, PS{4, -1}}});
  EXPECT_EQ(merged[0], PS{4});
  EXPECT_EQ(merged[1], (PS{4, 10}));
  auto broadcast = OutShapes(op, {}, {{DT_FLOAT, PS{4, 10}}, {DT_FLOAT, PS{10}}});
  EXPECT_EQ(broadcast[0], PS{4});
  EXPECT_EQ(broadcast[1], (PS{4, 10}));
  auto broadcast_rows = OutShapes(op, {}, {{DT_FLOAT, PS{1, 10}}, {DT_FLOAT, PS{3, 10}}});
  EXPECT_EQ(broadcast_rows[1], (PS{3, 10}));
  auto unknown = OutShapes(op, {}, {{DT_FLOAT, PS()}, {DT_FLOAT, PS()}});
  EXPECT_EQ(unknown[0], PS{-1});
  EXPECT_EQ(unknown[1], (PS{-1, -1}));
  ExpectBuildError(op, {}, {{DT_FLOAT, PS{4, 10}}, {DT_FLOAT, PS{4, 9}}}, {"broadcast"});
  ExpectBuildError(op, {}, {{DT_FLOAT, PS{2, 4, 10}}, {DT_FLOAT, PS{2, 4, 10}}}, {"rank 2"});
  ExpectBuildError(op, {}, {{DT_FLOAT, PS{10}}, {DT_FLOAT, PS{10}}}, {"rank 2"});
}

TEST(NnOpsTest, SparseSoftmaxCrossEntropy) {
  const std::string op = "SparseSoftmaxCrossEntropyWithLogits";
  auto s = BuildNode(op, {}, {{DT_FLOAT, PS{-1, 10}}, {DT_INT32, PS{8}}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->attrs.at("Tlabels").type(), tf::DT_INT32);
  EXPECT_EQ(s->output_types, (std::vector<DataType>{DT_FLOAT, DT_FLOAT}));
  EXPECT_EQ(s->output_shapes[0], PS{8});
  EXPECT_EQ(s->output_shapes[1], (PS{8, 10}));
  EXPECT_EQ(OutShapes(op, {}, {{DT_DOUBLE, PS()}, {DT_INT64, PS()}})[1], (PS{-1, -1}));
  ExpectBuildError(op, {}, {{DT_FLOAT, PS{8, 10}}, {DT_INT32, PS{7}}}, {"batch", "8", "7"});
  ExpectBuildError(op, {}, {{DT_FLOAT, PS{8, 10}}, {DT_INT32, PS{8, 1}}}, {"rank 1"});
  ExpectBuildError(op, {}, {{DT_FLOAT, PS{8}}, {DT_INT32, PS{8}}}, {"rank 2"});
  ExpectBuildError(op, {}, {{DT_FLOAT, PS{8, 10}}, {DT_FLOAT, PS{8}}}, {"Tlabels"});
}

TEST(NnOpsTest, L2Loss) {
  auto s = BuildNode("L2Loss", {}, {{DT_FLOAT, PS{3, 4}}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->output_shapes[0], PS::Scalar());
  EXPECT_EQ(OutShapes("L2Loss", {}, {{DT_DOUBLE, PS()}})[0], PS::Scalar());
  ExpectBuildError("L2Loss", {}, {{DT_INT32, PS{3}}}, {"int32"});
}

}  // namespace
}  // namespace tgraph
