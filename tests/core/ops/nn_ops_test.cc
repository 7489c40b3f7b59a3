// Neural-network op definitions (core/ops/nn_ops.cc): TF signatures and shape functions,
// exercised the way graph building uses them.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/graph/attr_value_util.h"
#include "core/ops/op_registry.h"
#include "core/ops/op_signature.h"

namespace tgraph {
namespace {

using PS = PartialShape;

struct In {
  DataType dtype;
  PS shape;
};

struct Node {
  AttrMap attrs;
  std::vector<DataType> output_types;
  std::vector<PS> output_shapes;
};

StatusOr<Node> Build(const std::string& op, AttrMap attrs, const std::vector<In>& inputs) {
  const std::string name = "n";
  TG_ASSIGN_OR_RETURN(const OpRegistration* reg, OpRegistry::Global()->Lookup(op, name));
  std::vector<std::vector<DataType>> groups;
  std::vector<DataType> dtypes;
  std::vector<PS> shapes;
  for (const In& in : inputs) {
    groups.push_back({in.dtype});
    dtypes.push_back(in.dtype);
    shapes.push_back(in.shape);
  }
  TG_RETURN_IF_ERROR(InferAttrsFromInputs(reg->op_def, name, groups,
                                          std::vector<bool>(groups.size(), false), &attrs));
  ResolvedSignature sig;
  TG_RETURN_IF_ERROR(ResolveSignature(reg->op_def, name, &attrs, &sig));
  TG_RETURN_IF_ERROR(CheckInputTypes(reg->op_def, name, sig, dtypes));
  Node node;
  node.attrs = attrs;
  node.output_types = sig.output_types;
  InferenceContext c(name, op, node.attrs, dtypes, shapes, {},
                     static_cast<int>(sig.output_types.size()));
  if (reg->shape_fn) TG_RETURN_IF_ERROR(reg->shape_fn(c));
  node.output_shapes = c.output_shapes();
  return node;
}

// The output shapes, or a failure naming the status.
std::vector<PS> Shapes(const std::string& op, AttrMap attrs, const std::vector<In>& inputs) {
  auto n = Build(op, std::move(attrs), inputs);
  EXPECT_TRUE(n.ok()) << op << ": " << n.status().ToString();
  return n.ok() ? n->output_shapes : std::vector<PS>{};
}

void ExpectError(const std::string& op, AttrMap attrs, const std::vector<In>& inputs,
                 std::initializer_list<std::string> fragments) {
  auto n = Build(op, std::move(attrs), inputs);
  ASSERT_FALSE(n.ok()) << op << " unexpectedly built";
  const Status& s = n.status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  for (const auto& f : fragments) {
    EXPECT_NE(s.message().find(f), std::string::npos) << "'" << f << "' not in: " << s.message();
  }
}

const tf::OpDef& Def(const std::string& op) {
  const OpRegistration* reg = OpRegistry::Global()->Find(op);
  if (reg == nullptr) {
    ADD_FAILURE() << op << " is not registered";
    static const tf::OpDef empty;
    return empty;
  }
  return reg->op_def;
}

const tf::OpDef::AttrDef* Attr(const tf::OpDef& def, const std::string& name) {
  for (const auto& a : def.attr())
    if (a.name() == name) return &a;
  ADD_FAILURE() << def.name() << " has no attr " << name;
  static const tf::OpDef::AttrDef none;
  return &none;
}

std::vector<DataType> Allowed(const tf::OpDef& def, const std::string& attr) {
  std::vector<DataType> out;
  for (int t : Attr(def, attr)->allowed_values().list().type())
    out.push_back(static_cast<DataType>(t));
  return out;
}

std::vector<std::string> AllowedStrings(const tf::OpDef& def, const std::string& attr) {
  const auto& l = Attr(def, attr)->allowed_values().list().s();
  return std::vector<std::string>(l.begin(), l.end());
}

std::vector<std::string> ArgNames(const google::protobuf::RepeatedPtrField<tf::OpDef::ArgDef>& a) {
  std::vector<std::string> names;
  for (const auto& arg : a) names.push_back(arg.name());
  return names;
}

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
  EXPECT_FALSE(Attr(bmm, "adj_x")->default_value().b());
  EXPECT_FALSE(Attr(bmm, "adj_y")->default_value().b());
  EXPECT_FALSE(Attr(bmm, "grad_x")->default_value().b());
  EXPECT_EQ(Allowed(bmm, "T"),
            (V{DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT16, DT_INT32, DT_INT64, DT_UINT8,
               DT_UINT16, DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128}));

  const auto& bias = Def("BiasAdd");
  EXPECT_EQ(ArgNames(bias.input_arg()), (S{"value", "bias"}));
  EXPECT_EQ(Attr(bias, "data_format")->default_value().s(), "NHWC");
  EXPECT_EQ(AllowedStrings(bias, "data_format"), (S{"NHWC", "NCHW"}));
  EXPECT_EQ(Allowed(bias, "T").size(), 19u);  // numbertype

  const auto& conv = Def("Conv2D");
  EXPECT_EQ(ArgNames(conv.input_arg()), (S{"input", "filter"}));
  EXPECT_EQ(Allowed(conv, "T"), (V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32}));
  EXPECT_FALSE(Attr(conv, "strides")->has_default_value());
  EXPECT_TRUE(Attr(conv, "use_cudnn_on_gpu")->default_value().b());
  EXPECT_EQ(AllowedStrings(conv, "padding"), (S{"SAME", "VALID", "EXPLICIT"}));
  EXPECT_EQ(Attr(conv, "explicit_paddings")->default_value().list().i_size(), 0);
  const auto& dil = Attr(conv, "dilations")->default_value().list().i();
  EXPECT_EQ(std::vector<int64_t>(dil.begin(), dil.end()), (std::vector<int64_t>{1, 1, 1, 1}));

  const auto& maxpool = Def("MaxPool");
  EXPECT_EQ(Attr(maxpool, "T")->default_value().type(), tf::DT_FLOAT);
  EXPECT_EQ(Allowed(maxpool, "T"), (V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64,
                                      DT_UINT8, DT_INT16, DT_INT8, DT_UINT16, DT_QINT8}));
  EXPECT_EQ(Attr(maxpool, "ksize")->minimum(), 4);
  EXPECT_TRUE(Attr(maxpool, "ksize")->has_minimum());
  EXPECT_EQ(AllowedStrings(maxpool, "data_format"), (S{"NHWC", "NCHW", "NCHW_VECT_C"}));
  EXPECT_EQ(AllowedStrings(maxpool, "padding"), (S{"SAME", "VALID", "EXPLICIT"}));
  const auto& avgpool = Def("AvgPool");
  EXPECT_EQ(ArgNames(avgpool.input_arg()), (S{"value"}));
  EXPECT_EQ(AllowedStrings(avgpool, "padding"), (S{"SAME", "VALID"}));
  EXPECT_EQ(Allowed(avgpool, "T"), (V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}));

  EXPECT_EQ(ArgNames(Def("Softmax").input_arg()), (S{"logits"}));
  EXPECT_EQ(ArgNames(Def("Softmax").output_arg()), (S{"softmax"}));
  EXPECT_EQ(ArgNames(Def("LogSoftmax").output_arg()), (S{"logsoftmax"}));
  const auto& xent = Def("SoftmaxCrossEntropyWithLogits");
  EXPECT_EQ(ArgNames(xent.input_arg()), (S{"features", "labels"}));
  EXPECT_EQ(ArgNames(xent.output_arg()), (S{"loss", "backprop"}));
  const auto& sparse = Def("SparseSoftmaxCrossEntropyWithLogits");
  EXPECT_EQ(sparse.input_arg(1).type_attr(), "Tlabels");
  EXPECT_EQ(Attr(sparse, "Tlabels")->default_value().type(), tf::DT_INT64);
  EXPECT_EQ(Allowed(sparse, "Tlabels"), (V{DT_INT32, DT_INT64}));
  EXPECT_EQ(ArgNames(Def("L2Loss").input_arg()), (S{"t"}));
  EXPECT_EQ(Allowed(Def("L2Loss"), "T"), (V{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}));

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
  EXPECT_EQ(Shapes("BatchMatMulV2", {}, {{DT_FLOAT, PS{2, 3, 4}}, {DT_FLOAT, PS{2, 4, 5}}})[0],
            (PS{2, 3, 5}));
  // Batch broadcasting, rank mismatch, adjoints.
  EXPECT_EQ(Shapes("BatchMatMulV2", {{"adj_x", AttrOfBool(true)}, {"adj_y", AttrOfBool(true)}},
                   {{DT_DOUBLE, PS{7, 1, 4, 3}}, {DT_DOUBLE, PS{6, 5, 4}}})[0],
            (PS{7, 6, 3, 5}));
  EXPECT_EQ(Shapes("BatchMatMulV2", {}, {{DT_FLOAT, PS{3, 4}}, {DT_FLOAT, PS{-1, 4, 2}}})[0],
            (PS{-1, 3, 2}));
  EXPECT_FALSE(
      Shapes("BatchMatMulV2", {}, {{DT_FLOAT, PS()}, {DT_FLOAT, PS{4, 2}}})[0].known_rank());
  EXPECT_EQ(Shapes("BatchMatMulV2", {}, {{DT_HALF, PS{0, 3, 4}}, {DT_HALF, PS{1, 4, 0}}})[0],
            (PS{0, 3, 0}));
  ExpectError("BatchMatMulV2", {}, {{DT_FLOAT, PS{2, 3, 4}}, {DT_FLOAT, PS{2, 3, 5}}},
              {"BatchMatMulV2 'n'", "4 and 3", "[2,3,4]"});
  ExpectError("BatchMatMulV2", {}, {{DT_FLOAT, PS{2, 3, 4}}, {DT_FLOAT, PS{3, 4, 5}}},
              {"batch dimensions", "[2]", "[3]"});
  ExpectError("BatchMatMulV2", {}, {{DT_FLOAT, PS{4}}, {DT_FLOAT, PS{4, 5}}},
              {"rank at least 2", "[4]"});
  ExpectError("BatchMatMulV2", {}, {{DT_BOOL, PS{4, 4}}, {DT_BOOL, PS{4, 5}}}, {"bool"});
}

TEST(NnOpsTest, BiasAdd) {
  EXPECT_EQ(Shapes("BiasAdd", {}, {{DT_FLOAT, PS{2, -1, 5}}, {DT_FLOAT, PS{-1}}})[0],
            (PS{2, -1, 5}));
  EXPECT_EQ(Shapes("BiasAdd", {}, {{DT_FLOAT, PS{2, 3, -1}}, {DT_FLOAT, PS{5}}})[0], (PS{2, 3, 5}));
  EXPECT_EQ(Shapes("BiasAdd", {{"data_format", AttrOfString("NCHW")}},
                   {{DT_FLOAT, PS{2, -1, 4, 4}}, {DT_FLOAT, PS{3}}})[0],
            (PS{2, 3, 4, 4}));
  EXPECT_FALSE(Shapes("BiasAdd", {}, {{DT_FLOAT, PS()}, {DT_FLOAT, PS{3}}})[0].known_rank());
  ExpectError("BiasAdd", {}, {{DT_FLOAT, PS{2, 4}}, {DT_FLOAT, PS{3}}}, {"BiasAdd 'n'", "4", "3"});
  ExpectError("BiasAdd", {}, {{DT_FLOAT, PS{4}}, {DT_FLOAT, PS{4}}}, {"rank at least 2"});
  ExpectError("BiasAdd", {{"data_format", AttrOfString("NCHW")}},
              {{DT_FLOAT, PS{2, 4}}, {DT_FLOAT, PS{4}}}, {"rank at least 3"});
  ExpectError("BiasAdd", {}, {{DT_FLOAT, PS{2, 4}}, {DT_FLOAT, PS{1, 4}}}, {"rank 1"});
  ExpectError("BiasAdd", {{"data_format", AttrOfString("HWCN")}},
              {{DT_FLOAT, PS{2, 4}}, {DT_FLOAT, PS{4}}}, {"data_format"});
}

TEST(NnOpsTest, Conv2D) {
  // VALID / SAME with strides; odd sizes.
  EXPECT_EQ(Shapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
                   {{DT_FLOAT, PS{2, 7, 9, 3}}, {DT_FLOAT, PS{3, 2, 3, 8}}})[0],
            (PS{2, 5, 8, 8}));
  EXPECT_EQ(Shapes("Conv2D", ConvAttrs({1, 2, 3, 1}, "SAME"),
                   {{DT_FLOAT, PS{2, 7, 9, 3}}, {DT_FLOAT, PS{3, 3, 3, 8}}})[0],
            (PS{2, 4, 3, 8}));
  EXPECT_EQ(Shapes("Conv2D", ConvAttrs({1, 2, 2, 1}, "VALID"),
                   {{DT_FLOAT, PS{1, 7, 8, 3}}, {DT_FLOAT, PS{3, 3, 3, 1}}})[0],
            (PS{1, 3, 3, 1}));
  // Dilation: effective window (k - 1) * d + 1.
  EXPECT_EQ(Shapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID", {1, 2, 3, 1}),
                   {{DT_DOUBLE, PS{1, 10, 10, 2}}, {DT_DOUBLE, PS{3, 3, 2, 4}}})[0],
            (PS{1, 6, 4, 4}));
  // Explicit padding.
  AttrMap exp = ConvAttrs({1, 1, 1, 1}, "EXPLICIT");
  exp["explicit_paddings"] = AttrOfIntList({0, 0, 1, 2, 3, 0, 0, 0});
  EXPECT_EQ(Shapes("Conv2D", exp, {{DT_FLOAT, PS{1, 5, 5, 2}}, {DT_FLOAT, PS{3, 3, 2, 4}}})[0],
            (PS{1, 6, 6, 4}));
  // NCHW.
  AttrMap nchw = ConvAttrs({1, 1, 2, 2}, "SAME");
  nchw["data_format"] = AttrOfString("NCHW");
  EXPECT_EQ(Shapes("Conv2D", nchw, {{DT_FLOAT, PS{4, 3, 9, 9}}, {DT_FLOAT, PS{3, 3, 3, 16}}})[0],
            (PS{4, 16, 5, 5}));
  // Unknown dims propagate.
  EXPECT_EQ(Shapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "SAME"),
                   {{DT_FLOAT, PS{-1, -1, 9, 3}}, {DT_FLOAT, PS{3, 3, 3, -1}}})[0],
            (PS{-1, -1, 9, -1}));
  EXPECT_EQ(Shapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "SAME"),
                   {{DT_FLOAT, PS()}, {DT_FLOAT, PS{3, 3, 3, 2}}})[0],
            (PS{-1, -1, -1, 2}));
  // Empty batch.
  EXPECT_EQ(Shapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "SAME"),
                   {{DT_FLOAT, PS{0, 4, 4, 3}}, {DT_FLOAT, PS{3, 3, 3, 2}}})[0],
            (PS{0, 4, 4, 2}));

  const std::vector<In> ok_in = {{DT_FLOAT, PS{1, 5, 5, 3}}, {DT_FLOAT, PS{3, 3, 3, 2}}};
  ExpectError("Conv2D", ConvAttrs({1, 1, 1}, "SAME"), ok_in, {"Conv2D 'n'", "strides", "4 values"});
  ExpectError("Conv2D", ConvAttrs({1, 0, 1, 1}, "SAME"), ok_in, {"strides", "> 0"});
  ExpectError("Conv2D", ConvAttrs({2, 1, 1, 1}, "SAME"), ok_in, {"batch and depth"});
  ExpectError("Conv2D", ConvAttrs({1, 1, 1, 1}, "SAME", {1, 1, 0, 1}), ok_in, {"dilations"});
  ExpectError("Conv2D", ConvAttrs({1, 1, 1, 1}, "EXPLICIT"), ok_in, {"explicit_paddings", "8"});
  AttrMap bad_exp = ConvAttrs({1, 1, 1, 1}, "VALID");
  bad_exp["explicit_paddings"] = AttrOfIntList({0, 0, 1, 1, 1, 1, 0, 0});
  ExpectError("Conv2D", bad_exp, ok_in, {"explicit_paddings", "EXPLICIT"});
  ExpectError("Conv2D", ConvAttrs({1, 1, 1, 1}, "FULL"), ok_in, {"padding"});
  ExpectError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
              {{DT_FLOAT, PS{1, 1, 5, 3}}, {DT_FLOAT, PS{3, 3, 3, 2}}}, {"height", "negative"});
  // Like TF, a window just past the input gives an empty output, not an error.
  EXPECT_EQ(Shapes("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
                   {{DT_FLOAT, PS{1, 2, 5, 3}}, {DT_FLOAT, PS{3, 3, 3, 2}}})[0],
            (PS{1, 0, 3, 2}));
  ExpectError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
              {{DT_FLOAT, PS{1, 5, 5, 4}}, {DT_FLOAT, PS{3, 3, 3, 2}}}, {"depth", "[1,5,5,4]"});
  ExpectError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
              {{DT_FLOAT, PS{5, 5, 4}}, {DT_FLOAT, PS{3, 3, 3, 2}}}, {"rank 4"});
  ExpectError("Conv2D", ConvAttrs({1, 1, 1, 1}, "VALID"),
              {{DT_FLOAT, PS{1, 5, 5, 3}}, {DT_FLOAT, PS{0, 3, 3, 2}}}, {"window", "> 0"});
}

TEST(NnOpsTest, Pooling) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(
        Shapes(op, PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {{DT_FLOAT, PS{2, 7, 9, 3}}})[0],
        (PS{2, 3, 4, 3}));
    EXPECT_EQ(
        Shapes(op, PoolAttrs({1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"), {{DT_FLOAT, PS{2, 7, 9, 3}}})[0],
        (PS{2, 4, 5, 3}));
    EXPECT_EQ(Shapes(op, PoolAttrs({1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"),
                     {{DT_DOUBLE, PS{-1, 7, -1, 3}}})[0],
              (PS{-1, 7, -1, 3}));
    AttrMap nchw = PoolAttrs({1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
    nchw["data_format"] = AttrOfString("NCHW");
    EXPECT_EQ(Shapes(op, nchw, {{DT_FLOAT, PS{2, 3, 8, 6}}})[0], (PS{2, 3, 4, 3}));
    ExpectError(op, PoolAttrs({1, 2, 2}, {1, 1, 1, 1}, "VALID"), {{DT_FLOAT, PS{1, 4, 4, 1}}},
                {"ksize"});
    ExpectError(op, PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"), {{DT_FLOAT, PS{1, 4, 4, 1}}},
                {"strides", "4 values"});
    ExpectError(op, PoolAttrs({1, 0, 2, 1}, {1, 1, 1, 1}, "VALID"), {{DT_FLOAT, PS{1, 4, 4, 1}}},
                {"ksize", "> 0"});
    ExpectError(op, PoolAttrs({1, 2, 2, 1}, {1, 1, 0, 1}, "VALID"), {{DT_FLOAT, PS{1, 4, 4, 1}}},
                {"strides", "> 0"});
    ExpectError(op, PoolAttrs({1, 6, 2, 1}, {1, 1, 1, 1}, "VALID"), {{DT_FLOAT, PS{1, 4, 4, 1}}},
                {"height", "negative"});
    ExpectError(op, PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"), {{DT_FLOAT, PS{4, 4, 1}}},
                {"rank 4"});
  }
  AttrMap exp = PoolAttrs({1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT");
  exp["explicit_paddings"] = AttrOfIntList({0, 0, 1, 1, 2, 0, 0, 0});
  EXPECT_EQ(Shapes("MaxPool", exp, {{DT_FLOAT, PS{1, 4, 4, 2}}})[0], (PS{1, 4, 4, 2}));
  // AvgPool's padding attr has no EXPLICIT.
  auto avg = Build("AvgPool", PoolAttrs({1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT"),
                   {{DT_FLOAT, PS{1, 4, 4, 2}}});
  EXPECT_FALSE(avg.ok());
  // MaxPool accepts integer types (TF's list); AvgPool does not.
  EXPECT_TRUE(
      Build("MaxPool", PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {{DT_INT32, PS{1, 4, 4, 1}}})
          .ok());
  EXPECT_FALSE(
      Build("AvgPool", PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {{DT_INT32, PS{1, 4, 4, 1}}})
          .ok());
}

TEST(NnOpsTest, Softmax) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    EXPECT_EQ(Shapes(op, {}, {{DT_FLOAT, PS{2, -1, 5}}})[0], (PS{2, -1, 5}));
    EXPECT_EQ(Shapes(op, {}, {{DT_DOUBLE, PS{5}}})[0], (PS{5}));
    EXPECT_FALSE(Shapes(op, {}, {{DT_FLOAT, PS()}})[0].known_rank());
    ExpectError(op, {}, {{DT_FLOAT, PS::Scalar()}}, {"rank at least 1"});
    ExpectError(op, {}, {{DT_INT32, PS{3}}}, {"int32"});
  }
}

TEST(NnOpsTest, SoftmaxCrossEntropy) {
  const std::string op = "SoftmaxCrossEntropyWithLogits";
  auto same = Shapes(op, {}, {{DT_FLOAT, PS{4, 10}}, {DT_FLOAT, PS{4, 10}}});
  EXPECT_EQ(same[0], PS{4});
  EXPECT_EQ(same[1], (PS{4, 10}));
  auto merged = Shapes(op, {}, {{DT_FLOAT, PS{-1, 10}}, {DT_FLOAT, PS{4, -1}}});
  EXPECT_EQ(merged[0], PS{4});
  EXPECT_EQ(merged[1], (PS{4, 10}));
  auto broadcast = Shapes(op, {}, {{DT_FLOAT, PS{4, 10}}, {DT_FLOAT, PS{10}}});
  EXPECT_EQ(broadcast[0], PS{4});
  EXPECT_EQ(broadcast[1], (PS{4, 10}));
  auto broadcast_rows = Shapes(op, {}, {{DT_FLOAT, PS{1, 10}}, {DT_FLOAT, PS{3, 10}}});
  EXPECT_EQ(broadcast_rows[1], (PS{3, 10}));
  auto unknown = Shapes(op, {}, {{DT_FLOAT, PS()}, {DT_FLOAT, PS()}});
  EXPECT_EQ(unknown[0], PS{-1});
  EXPECT_EQ(unknown[1], (PS{-1, -1}));
  ExpectError(op, {}, {{DT_FLOAT, PS{4, 10}}, {DT_FLOAT, PS{4, 9}}}, {"broadcast"});
  ExpectError(op, {}, {{DT_FLOAT, PS{2, 4, 10}}, {DT_FLOAT, PS{2, 4, 10}}}, {"rank 2"});
  ExpectError(op, {}, {{DT_FLOAT, PS{10}}, {DT_FLOAT, PS{10}}}, {"rank 2"});
}

TEST(NnOpsTest, SparseSoftmaxCrossEntropy) {
  const std::string op = "SparseSoftmaxCrossEntropyWithLogits";
  auto s = Build(op, {}, {{DT_FLOAT, PS{-1, 10}}, {DT_INT32, PS{8}}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->attrs.at("Tlabels").type(), tf::DT_INT32);
  EXPECT_EQ(s->output_types, (std::vector<DataType>{DT_FLOAT, DT_FLOAT}));
  EXPECT_EQ(s->output_shapes[0], PS{8});
  EXPECT_EQ(s->output_shapes[1], (PS{8, 10}));
  EXPECT_EQ(Shapes(op, {}, {{DT_DOUBLE, PS()}, {DT_INT64, PS()}})[1], (PS{-1, -1}));
  ExpectError(op, {}, {{DT_FLOAT, PS{8, 10}}, {DT_INT32, PS{7}}}, {"batch", "8", "7"});
  ExpectError(op, {}, {{DT_FLOAT, PS{8, 10}}, {DT_INT32, PS{8, 1}}}, {"rank 1"});
  ExpectError(op, {}, {{DT_FLOAT, PS{8}}, {DT_INT32, PS{8}}}, {"rank 2"});
  ExpectError(op, {}, {{DT_FLOAT, PS{8, 10}}, {DT_FLOAT, PS{8}}}, {"Tlabels"});
}

TEST(NnOpsTest, L2Loss) {
  auto s = Build("L2Loss", {}, {{DT_FLOAT, PS{3, 4}}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->output_shapes[0], PS::Scalar());
  EXPECT_EQ(Shapes("L2Loss", {}, {{DT_DOUBLE, PS()}})[0], PS::Scalar());
  ExpectError("L2Loss", {}, {{DT_INT32, PS{3}}}, {"int32"});
}

}  // namespace
}  // namespace tgraph
