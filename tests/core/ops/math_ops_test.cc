// Op definitions of the element-wise, comparison, Cast and reduction ops (core/ops/math_ops.cc):
// TensorFlow's signatures, and their shape functions with and without constant inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "core/graph/attr_value_util.h"
#include "core/ops/op_registry.h"
#include "core/ops/op_signature.h"

namespace tgraph {
namespace {

using PS = PartialShape;

struct In {
  DataType dtype;
  PS shape;
  std::optional<Tensor> value = std::nullopt;  // a constant input
};

struct Node {
  AttrMap attrs;
  std::vector<DataType> output_types;
  std::vector<PS> output_shapes;
};

// What Graph::AddOperation does for one node, minus the graph: attrs inferred from inputs,
// signature resolved, input types checked, shapes inferred. N-ary inputs are one group.
StatusOr<Node> Build(const std::string& op, AttrMap attrs, const std::vector<In>& inputs,
                     bool one_group = false) {
  const std::string name = "n";
  TG_ASSIGN_OR_RETURN(const OpRegistration* reg, OpRegistry::Global()->Lookup(op, name));
  std::vector<std::vector<DataType>> groups;
  std::vector<DataType> dtypes;
  std::vector<PS> shapes;
  std::vector<const Tensor*> values;
  for (const In& in : inputs) {
    if (one_group && !groups.empty()) {
      groups.back().push_back(in.dtype);
    } else {
      groups.push_back({in.dtype});
    }
    dtypes.push_back(in.dtype);
    shapes.push_back(in.shape);
    values.push_back(in.value ? &*in.value : nullptr);
  }
  TG_RETURN_IF_ERROR(InferAttrsFromInputs(reg->op_def, name, groups,
                                          std::vector<bool>(groups.size(), one_group), &attrs));
  ResolvedSignature sig;
  TG_RETURN_IF_ERROR(ResolveSignature(reg->op_def, name, &attrs, &sig));
  TG_RETURN_IF_ERROR(CheckInputTypes(reg->op_def, name, sig, dtypes));
  Node node;
  node.attrs = attrs;
  node.output_types = sig.output_types;
  InferenceContext c(name, op, node.attrs, dtypes, shapes, values,
                     static_cast<int>(sig.output_types.size()));
  if (reg->shape_fn) TG_RETURN_IF_ERROR(reg->shape_fn(c));
  node.output_shapes = c.output_shapes();
  return node;
}

// The one output's shape, failing the test on an error.
PS Shape(const std::string& op, AttrMap attrs, const std::vector<In>& inputs) {
  auto n = Build(op, std::move(attrs), inputs);
  EXPECT_TRUE(n.ok()) << op << ": " << n.status().ToString();
  return n.ok() ? n->output_shapes.at(0) : PS{-42};
}

void ExpectError(const Status& s, std::initializer_list<std::string> fragments) {
  ASSERT_FALSE(s.ok());
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
  static const tf::OpDef::AttrDef missing;
  ADD_FAILURE() << def.name() << " has no attr " << name;
  return &missing;
}

bool Allows(const std::string& op, const std::string& attr, DataType t) {
  const auto& l = Attr(Def(op), attr)->allowed_values().list().type();
  return std::find(l.begin(), l.end(), static_cast<int>(t)) != l.end();
}

template <typename T>
Tensor Ints(DataType dtype, std::vector<int64_t> dims, std::vector<T> values) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  for (size_t i = 0; i < values.size(); ++i) t.flat<T>()[i] = values[i];
  return t;
}
Tensor Axes(std::vector<int32_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Ints<int32_t>(DT_INT32, {n}, std::move(v));
}
Tensor Axis(int32_t v) { return Ints<int32_t>(DT_INT32, {}, {v}); }

TEST(MathOpsTest, SignaturesMatchTensorFlow) {
  // Unary: x -> y; activations: features -> activations.
  for (const char* op : {"Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Tanh",
                         "Sigmoid", "Sign", "Floor"}) {
    const auto& d = Def(op);
    ASSERT_EQ(d.input_arg_size(), 1) << op;
    EXPECT_EQ(d.input_arg(0).name(), "x") << op;
    EXPECT_EQ(d.output_arg(0).name(), "y") << op;
    EXPECT_TRUE(Allows(op, "T", DT_FLOAT) && Allows(op, "T", DT_HALF) &&
                Allows(op, "T", DT_BFLOAT16) && Allows(op, "T", DT_DOUBLE))
        << op;
    EXPECT_FALSE(Allows(op, "T", DT_STRING)) << op;
  }
  for (const char* op : {"Neg", "Square", "Sign"}) {
    EXPECT_TRUE(Allows(op, "T", DT_INT32) && Allows(op, "T", DT_COMPLEX64)) << op;
  }
  EXPECT_TRUE(Allows("Abs", "T", DT_INT64));
  EXPECT_FALSE(Allows("Abs", "T", DT_COMPLEX64));
  for (const char* op : {"Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Sigmoid"}) {
    EXPECT_FALSE(Allows(op, "T", DT_INT32)) << op;
    EXPECT_TRUE(Allows(op, "T", DT_COMPLEX128)) << op;
  }
  EXPECT_FALSE(Allows("Floor", "T", DT_COMPLEX64));
  for (const char* op : {"Relu", "Relu6", "Elu", "Softplus"}) {
    EXPECT_EQ(Def(op).input_arg(0).name(), "features") << op;
    EXPECT_EQ(Def(op).output_arg(0).name(), "activations") << op;
  }
  EXPECT_TRUE(Allows("Relu", "T", DT_QINT8));
  EXPECT_TRUE(Allows("Relu6", "T", DT_UINT8));
  EXPECT_FALSE(Allows("Elu", "T", DT_INT32));

  // Binary.
  for (const char* op : {"Sub", "RealDiv", "Maximum", "Minimum", "Pow"}) {
    const auto& d = Def(op);
    EXPECT_EQ(d.input_arg(0).name(), "x") << op;
    EXPECT_EQ(d.input_arg(1).name(), "y") << op;
    EXPECT_EQ(d.output_arg(0).name(), "z") << op;
    EXPECT_TRUE(Allows(op, "T", DT_INT64) && Allows(op, "T", DT_BFLOAT16)) << op;
  }
  EXPECT_FALSE(Allows("Maximum", "T", DT_COMPLEX64));
  EXPECT_TRUE(Allows("Sub", "T", DT_UINT32));
  const auto& addn = Def("AddN");
  EXPECT_EQ(addn.input_arg(0).name(), "inputs");
  EXPECT_EQ(addn.input_arg(0).number_attr(), "N");
  EXPECT_EQ(addn.output_arg(0).name(), "sum");
  EXPECT_TRUE(addn.is_aggregate() && addn.is_commutative());
  EXPECT_EQ(Attr(addn, "N")->minimum(), 1);
  EXPECT_TRUE(Allows("AddN", "T", DT_VARIANT));
  EXPECT_TRUE(Allows("AddN", "T", DT_QINT32));

  // Comparisons and logic.
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
    EXPECT_EQ(Def(op).output_arg(0).type(), tf::DT_BOOL) << op;
    EXPECT_TRUE(Allows(op, "T", DT_HALF)) << op;
    EXPECT_FALSE(Allows(op, "T", DT_BOOL)) << op;
  }
  for (const char* op : {"Equal", "NotEqual"}) {
    EXPECT_TRUE(Def(op).is_commutative()) << op;
    EXPECT_FALSE(Attr(Def(op), "T")->has_allowed_values()) << op;  // T: type
    EXPECT_TRUE(Attr(Def(op), "incompatible_shape_error")->default_value().b()) << op;
    const auto& newer = OpRegistry::Global()->Find(op)->attrs_newer_than_tf1;
    EXPECT_EQ(newer, std::vector<std::string>{"incompatible_shape_error"}) << op;
  }
  EXPECT_EQ(Def("LogicalAnd").input_arg(1).type(), tf::DT_BOOL);
  EXPECT_TRUE(Def("LogicalOr").is_commutative());
  EXPECT_EQ(Def("LogicalNot").output_arg(0).type(), tf::DT_BOOL);
  const auto& select = Def("Select");
  EXPECT_EQ(select.input_arg(0).name(), "condition");
  EXPECT_EQ(select.input_arg(1).name(), "t");
  EXPECT_EQ(select.input_arg(2).name(), "e");
  EXPECT_EQ(select.output_arg(0).name(), "output");

  // Cast.
  const auto& cast = Def("Cast");
  EXPECT_EQ(cast.input_arg(0).type_attr(), "SrcT");
  EXPECT_EQ(cast.output_arg(0).type_attr(), "DstT");
  EXPECT_FALSE(Attr(cast, "Truncate")->default_value().b());

  // Reductions.
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    const auto& d = Def(op);
    EXPECT_EQ(d.input_arg(1).name(), "reduction_indices") << op;
    EXPECT_EQ(d.input_arg(1).type_attr(), "Tidx") << op;
    EXPECT_FALSE(Attr(d, "keep_dims")->default_value().b()) << op;
    EXPECT_EQ(Attr(d, "Tidx")->default_value().type(), tf::DT_INT32) << op;
    EXPECT_TRUE(Allows(op, "Tidx", DT_INT64)) << op;
    EXPECT_TRUE(Allows(op, "T", DT_QINT8)) << op;
  }
  EXPECT_TRUE(Allows("Sum", "T", DT_COMPLEX64));
  EXPECT_FALSE(Allows("Max", "T", DT_COMPLEX64));
  for (const char* op : {"ArgMax", "ArgMin"}) {
    const auto& d = Def(op);
    EXPECT_EQ(d.input_arg(1).name(), "dimension") << op;
    EXPECT_EQ(d.output_arg(0).type_attr(), "output_type") << op;
    EXPECT_EQ(Attr(d, "output_type")->default_value().type(), tf::DT_INT64) << op;
    EXPECT_EQ(Attr(d, "Tidx")->default_value().type(), tf::DT_INT32) << op;
    EXPECT_TRUE(Allows(op, "T", DT_BOOL) && Allows(op, "T", DT_HALF)) << op;
    EXPECT_TRUE(Allows(op, "output_type", DT_INT32)) << op;
  }
}

TEST(MathOpsTest, ElementwiseShapes) {
  EXPECT_EQ(Shape("Sub", {}, {{DT_FLOAT, PS{2, 3}}, {DT_FLOAT, PS{3}}}), (PS{2, 3}));
  EXPECT_EQ(Shape("Pow", {}, {{DT_INT32, PS{2, 1}}, {DT_INT32, PS{1, 3}}}), (PS{2, 3}));
  EXPECT_EQ(Shape("Maximum", {}, {{DT_FLOAT, PS::Scalar()}, {DT_FLOAT, PS{4, -1}}}), (PS{4, -1}));
  EXPECT_EQ(Shape("Less", {}, {{DT_FLOAT, PS{5}}, {DT_FLOAT, PS::Unknown()}}), PS::Unknown());
  ExpectError(Build("RealDiv", {}, {{DT_FLOAT, PS{2, 3}}, {DT_FLOAT, PS{4}}}).status(),
              {"RealDiv 'n'", "[2,3]", "[4]"});
  ExpectError(Build("Greater", {}, {{DT_INT32, PS{2}}, {DT_INT32, PS{3}}}).status(),
              {"Greater 'n'"});

  auto less = Build("Less", {}, {{DT_HALF, PS{2}}, {DT_HALF, PS{2}}});
  ASSERT_TRUE(less.ok());
  EXPECT_EQ(less->output_types, std::vector<DataType>{DT_BOOL});
  ExpectError(Build("LogicalAnd", {}, {{DT_FLOAT, PS{2}}, {DT_BOOL, PS{2}}}).status(), {});

  EXPECT_EQ(Shape("Sigmoid", {}, {{DT_FLOAT, PS{-1, 7}}}), (PS{-1, 7}));
  EXPECT_EQ(Shape("Relu6", {}, {{DT_INT32, PS::Scalar()}}), PS::Scalar());
  EXPECT_EQ(Shape("LogicalNot", {}, {{DT_BOOL, PS{3}}}), PS{3});

  // Equal: incompatible shapes fail unless incompatible_shape_error=false.
  ExpectError(Build("Equal", {}, {{DT_FLOAT, PS{2}}, {DT_FLOAT, PS{3}}}).status(), {"Equal 'n'"});
  EXPECT_EQ(Shape("NotEqual", {{"incompatible_shape_error", AttrOfBool(false)}},
                  {{DT_FLOAT, PS{2}}, {DT_FLOAT, PS{3}}}),
            PS::Unknown());
  EXPECT_EQ(Shape("Equal", {{"incompatible_shape_error", AttrOfBool(false)}},
                  {{DT_STRING, PS{2, 1}}, {DT_STRING, PS{3}}}),
            (PS{2, 3}));

  // AddN: every input the same shape; N inferred.
  auto addn = Build("AddN", {}, {{DT_FLOAT, PS{-1, 3}}, {DT_FLOAT, PS{2, -1}}, {DT_FLOAT, PS::Unknown()}},
                    /*one_group=*/true);
  ASSERT_TRUE(addn.ok()) << addn.status().ToString();
  EXPECT_EQ(addn->attrs.at("N").i(), 3);
  EXPECT_EQ(addn->output_shapes[0], (PS{2, 3}));
  ExpectError(Build("AddN", {}, {{DT_FLOAT, PS{2}}, {DT_FLOAT, PS{3}}}, true).status(),
              {"AddN 'n'", "[3]"});

  // Cast.
  auto cast = Build("Cast", {{"DstT", AttrOfType(DT_HALF)}}, {{DT_INT64, PS{4, 1}}});
  ASSERT_TRUE(cast.ok()) << cast.status().ToString();
  EXPECT_EQ(cast->output_types, std::vector<DataType>{DT_HALF});
  EXPECT_EQ(cast->attrs.at("SrcT").type(), tf::DT_INT64);
  EXPECT_FALSE(cast->attrs.at("Truncate").b());
  EXPECT_EQ(cast->output_shapes[0], (PS{4, 1}));
}

TEST(MathOpsTest, SelectShape) {
  EXPECT_EQ(Shape("Select", {}, {{DT_BOOL, PS{2, 3}}, {DT_FLOAT, PS{2, -1}}, {DT_FLOAT, PS{-1, 3}}}),
            (PS{2, 3}));
  EXPECT_EQ(Shape("Select", {}, {{DT_BOOL, PS::Scalar()}, {DT_INT32, PS{4}}, {DT_INT32, PS{4}}}), PS{4});
  EXPECT_EQ(Shape("Select", {}, {{DT_BOOL, PS{5}}, {DT_FLOAT, PS{-1, 2}}, {DT_FLOAT, PS{-1, 2}}}),
            (PS{5, 2}));
  EXPECT_EQ(Shape("Select", {}, {{DT_BOOL, PS::Unknown()}, {DT_FLOAT, PS{3}}, {DT_FLOAT, PS{3}}}),
            PS{3});
  ExpectError(Build("Select", {}, {{DT_BOOL, PS{2}}, {DT_FLOAT, PS{2}}, {DT_FLOAT, PS{3}}}).status(),
              {"Select 'n'", "[2]", "[3]"});
  ExpectError(Build("Select", {}, {{DT_BOOL, PS{4}}, {DT_FLOAT, PS{3, 2}}, {DT_FLOAT, PS{3, 2}}})
                  .status(),
              {"'condition'", "[4]", "[3,2]"});
  ExpectError(Build("Select", {}, {{DT_BOOL, PS{3, 1}}, {DT_FLOAT, PS{3, 2}}, {DT_FLOAT, PS{3, 2}}})
                  .status(),
              {"'condition'"});
  ExpectError(Build("Select", {}, {{DT_INT32, PS{3}}, {DT_FLOAT, PS{3}}, {DT_FLOAT, PS{3}}}).status(),
              {});
}

TEST(MathOpsTest, ReductionShapes) {
  const In x{DT_FLOAT, PS{2, 3, 5}};
  EXPECT_EQ(Shape("Sum", {}, {x, {DT_INT32, PS{1}, Axes({1})}}), (PS{2, 5}));
  EXPECT_EQ(Shape("Mean", {{"keep_dims", AttrOfBool(true)}}, {x, {DT_INT32, PS{2}, Axes({0, -1})}}),
            (PS{1, 3, 1}));
  EXPECT_EQ(Shape("Max", {}, {x, {DT_INT32, PS::Scalar(), Axis(-2)}}), (PS{2, 5}));
  EXPECT_EQ(Shape("Min", {}, {x, {DT_INT32, PS{0}, Axes({})}}), (PS{2, 3, 5}));
  EXPECT_EQ(Shape("Prod", {}, {x, {DT_INT32, PS{3}, Axes({2, 0, 1})}}), PS::Scalar());
  EXPECT_EQ(Shape("Sum", {}, {x, {DT_INT32, PS{2}, Axes({1, 1})}}), (PS{2, 5}));  // duplicates
  Tensor axes64 = Ints<int64_t>(DT_INT64, {1}, {0});
  auto sum64 = Build("Sum", {}, {x, {DT_INT64, PS{1}, axes64}});
  ASSERT_TRUE(sum64.ok()) << sum64.status().ToString();
  EXPECT_EQ(sum64->attrs.at("Tidx").type(), tf::DT_INT64);
  EXPECT_EQ(sum64->output_shapes[0], (PS{3, 5}));
  // Unknown dims stay unknown.
  EXPECT_EQ(Shape("Sum", {}, {{DT_FLOAT, PS{-1, 4}}, {DT_INT32, PS::Scalar(), Axis(1)}}), PS{-1});

  // Axes not known: the rank with keep_dims, else nothing.
  EXPECT_EQ(Shape("Sum", {{"keep_dims", AttrOfBool(true)}}, {x, {DT_INT32, PS{1}}}),
            PS::UnknownOfRank(3));
  EXPECT_EQ(Shape("Sum", {}, {x, {DT_INT32, PS{1}}}), PS::Unknown());
  EXPECT_EQ(Shape("Sum", {}, {{DT_FLOAT, PS::Unknown()}, {DT_INT32, PS{1}, Axes({0})}}),
            PS::Unknown());

  ExpectError(Build("Sum", {}, {x, {DT_INT32, PS{1}, Axes({3})}}).status(),
              {"Sum 'n'", "Invalid reduction dimension 3", "3 dimension(s)"});
  ExpectError(Build("Mean", {}, {x, {DT_INT32, PS{1}, Axes({-4})}}).status(), {"-4"});
  ExpectError(Build("Sum", {}, {x, {DT_INT32, PS{1, 1}}}).status(), {"scalar or a vector"});
  ExpectError(Build("Sum", {}, {{DT_FLOAT, PS::Scalar()}, {DT_INT32, PS::Scalar(), Axis(0)}}).status(),
              {"0 dimension(s)"});
  ExpectError(Build("Sum", {}, {x, {DT_FLOAT, PS{1}}}).status(), {});  // Tidx: int only
  ExpectError(Build("Max", {}, {{DT_STRING, PS{2}}, {DT_INT32, PS::Scalar()}}).status(), {});
}

TEST(MathOpsTest, ArgOpShapes) {
  const In x{DT_FLOAT, PS{2, 3, 5}};
  auto am = Build("ArgMax", {}, {x, {DT_INT32, PS::Scalar(), Axis(1)}});
  ASSERT_TRUE(am.ok()) << am.status().ToString();
  EXPECT_EQ(am->output_types, std::vector<DataType>{DT_INT64});
  EXPECT_EQ(am->output_shapes[0], (PS{2, 5}));
  auto am32 = Build("ArgMin", {{"output_type", AttrOfType(DT_INT32)}}, {x, {DT_INT32, PS::Scalar(), Axis(-1)}});
  ASSERT_TRUE(am32.ok());
  EXPECT_EQ(am32->output_types, std::vector<DataType>{DT_INT32});
  EXPECT_EQ(am32->output_shapes[0], (PS{2, 3}));
  EXPECT_EQ(Shape("ArgMax", {}, {x, {DT_INT32, PS::Scalar()}}), PS::UnknownOfRank(2));
  EXPECT_EQ(Shape("ArgMax", {}, {{DT_FLOAT, PS{7}}, {DT_INT32, PS::Scalar()}}), PS::Scalar());
  EXPECT_EQ(Shape("ArgMin", {}, {{DT_FLOAT, PS::Unknown()}, {DT_INT32, PS::Scalar(), Axis(0)}}),
            PS::Unknown());
  ExpectError(Build("ArgMax", {}, {x, {DT_INT32, PS::Scalar(), Axis(3)}}).status(),
              {"ArgMax 'n'", "dimension 3", "[-3, 3)"});
  ExpectError(Build("ArgMax", {}, {x, {DT_INT32, PS{1}, Axes({0})}}).status(), {"scalar"});
}

}  // namespace
}  // namespace tgraph
