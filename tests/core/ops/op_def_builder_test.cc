#include <gtest/gtest.h>

#include <algorithm>

#include "core/ops/op_registry.h"

namespace tgraph {
namespace {

tf::OpDef Parse(const OpDefBuilder& b) {
  OpRegistration reg;
  Status s = b.Finalize(&reg);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return reg.op_def;
}

// A bad spec: INVALID_ARGUMENT naming the op and quoting the spec.
void ExpectBadSpec(const OpDefBuilder& b, const std::string& spec, const std::string& why) {
  OpRegistration reg;
  Status s = b.Finalize(&reg);
  ASSERT_FALSE(s.ok()) << "accepted " << spec;
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("Op 'Foo'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'" + spec + "'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
}

TEST(OpDefBuilderTest, MatMulLikeOp) {
  tf::OpDef def = Parse(OpDefBuilder("MatMul")
                            .Input("a: T")
                            .Input("b: T")
                            .Output("product: T")
                            .Attr("transpose_a: bool = false")
                            .Attr("T: {half, bfloat16, float, double, int32, int64}")
                            .Doc("Multiplies."));
  EXPECT_EQ(def.name(), "MatMul");
  ASSERT_EQ(def.input_arg_size(), 2);
  EXPECT_EQ(def.input_arg(0).name(), "a");
  EXPECT_EQ(def.input_arg(0).type_attr(), "T");
  EXPECT_EQ(def.input_arg(0).type(), tf::DT_INVALID);
  EXPECT_FALSE(def.input_arg(0).is_ref());
  ASSERT_EQ(def.output_arg_size(), 1);
  EXPECT_EQ(def.output_arg(0).name(), "product");
  ASSERT_EQ(def.attr_size(), 2);
  EXPECT_EQ(def.attr(0).name(), "transpose_a");
  EXPECT_EQ(def.attr(0).type(), "bool");
  EXPECT_EQ(def.attr(0).default_value().value_case(), tf::AttrValue::kB);
  EXPECT_FALSE(def.attr(0).default_value().b());
  EXPECT_EQ(def.attr(1).type(), "type");
  const auto& allowed = def.attr(1).allowed_values().list().type();
  ASSERT_EQ(allowed.size(), 6);
  EXPECT_EQ(allowed[0], tf::DT_HALF);  // spec order is kept
  EXPECT_EQ(allowed[5], tf::DT_INT64);
  EXPECT_FALSE(def.attr(1).has_default_value());
  EXPECT_EQ(def.summary(), "Multiplies.");
}

TEST(OpDefBuilderTest, ArgForms) {
  tf::OpDef def = Parse(OpDefBuilder("Foo")
                            .Attr("T: type")
                            .Attr("N: int >= 1")
                            .Attr("Tlist: list(type) >= 0")
                            .Input("fixed: float")
                            .Input("values: N * T")
                            .Input("indices: N * int32")
                            .Input("tensors: Tlist")
                            .Input("ref: Ref(T)")
                            .Input("fixed_ref: Ref(int64)")
                            .Output("out: T"));
  const auto& in = def.input_arg();
  EXPECT_EQ(in[0].type(), tf::DT_FLOAT);
  EXPECT_TRUE(in[0].type_attr().empty());
  EXPECT_EQ(in[1].number_attr(), "N");
  EXPECT_EQ(in[1].type_attr(), "T");
  EXPECT_EQ(in[2].number_attr(), "N");
  EXPECT_EQ(in[2].type(), tf::DT_INT32);
  EXPECT_EQ(in[3].type_list_attr(), "Tlist");
  EXPECT_TRUE(in[4].is_ref());
  EXPECT_EQ(in[4].type_attr(), "T");
  EXPECT_TRUE(in[5].is_ref());
  EXPECT_EQ(in[5].type(), tf::DT_INT64);
  EXPECT_TRUE(def.attr(1).has_minimum());
  EXPECT_EQ(def.attr(1).minimum(), 1);
  EXPECT_EQ(def.attr(2).type(), "list(type)");
  EXPECT_EQ(def.attr(2).minimum(), 0);
}

TEST(OpDefBuilderTest, AttrKindsAndDefaults) {
  tf::OpDef def = Parse(OpDefBuilder("Foo")
                            .Attr("padding: {'SAME', 'VALID'} = 'SAME'")
                            .Attr("ksize: list(int) = [1, 2, -3]")
                            .Attr("strides: list(int) >= 4")
                            .Attr("shape: shape = { unknown_rank: true }")
                            .Attr("fixed: shape = [2, ?, -1]")
                            .Attr("scalar_shape: shape = []")
                            .Attr("value: tensor = { dtype: DT_INT32 tensor_shape {} int_val: 3 }")
                            .Attr("rate: float = 0.5")
                            .Attr("neg: float = -1e-3")
                            .Attr("flag: bool = true")
                            .Attr("count: int = -3")
                            .Attr("dtype: {float, int32} = DT_INT32")
                            .Attr("plain: type = float")
                            .Attr("dtypes: list(type) = [DT_FLOAT, int64]")
                            .Attr("names: list(string) = ['a', \"b,c\", 'it\\'s']")
                            .Attr("empty: list(shape) = []")
                            .Attr("some: list({float, int32}) >= 1")
                            .Attr("fn: func")
                            .Attr("name: string = \"\""));
  auto attr = [&](const std::string& name) -> const tf::OpDef::AttrDef& {
    for (const auto& a : def.attr())
      if (a.name() == name) return a;
    ADD_FAILURE() << "no attr " << name;
    return def.attr(0);
  };
  EXPECT_EQ(attr("padding").type(), "string");
  EXPECT_EQ(attr("padding").allowed_values().list().s_size(), 2);
  EXPECT_EQ(attr("padding").default_value().s(), "SAME");
  EXPECT_EQ(attr("ksize").type(), "list(int)");
  ASSERT_EQ(attr("ksize").default_value().list().i_size(), 3);
  EXPECT_EQ(attr("ksize").default_value().list().i(2), -3);
  EXPECT_EQ(attr("strides").minimum(), 4);
  EXPECT_FALSE(attr("strides").has_default_value());
  EXPECT_TRUE(attr("shape").default_value().shape().unknown_rank());
  ASSERT_EQ(attr("fixed").default_value().shape().dim_size(), 3);
  EXPECT_EQ(attr("fixed").default_value().shape().dim(1).size(), -1);
  EXPECT_EQ(attr("scalar_shape").default_value().value_case(), tf::AttrValue::kShape);
  EXPECT_EQ(attr("scalar_shape").default_value().shape().dim_size(), 0);
  EXPECT_EQ(attr("value").default_value().tensor().int_val(0), 3);
  EXPECT_FLOAT_EQ(attr("rate").default_value().f(), 0.5f);
  EXPECT_FLOAT_EQ(attr("neg").default_value().f(), -1e-3f);
  EXPECT_TRUE(attr("flag").default_value().b());
  EXPECT_EQ(attr("count").default_value().i(), -3);
  EXPECT_EQ(attr("dtype").default_value().type(), tf::DT_INT32);
  EXPECT_EQ(attr("plain").default_value().type(), tf::DT_FLOAT);
  ASSERT_EQ(attr("dtypes").default_value().list().type_size(), 2);
  EXPECT_EQ(attr("dtypes").default_value().list().type(1), tf::DT_INT64);
  ASSERT_EQ(attr("names").default_value().list().s_size(), 3);
  EXPECT_EQ(attr("names").default_value().list().s(1), "b,c");
  EXPECT_EQ(attr("names").default_value().list().s(2), "it's");
  EXPECT_EQ(attr("empty").default_value().value_case(), tf::AttrValue::kList);
  EXPECT_EQ(attr("some").type(), "list(type)");
  EXPECT_EQ(attr("some").allowed_values().list().type_size(), 2);
  EXPECT_EQ(attr("fn").type(), "func");
  EXPECT_EQ(attr("name").default_value().value_case(), tf::AttrValue::kS);
}

TEST(OpDefBuilderTest, TypeSetShorthands) {
  tf::OpDef def = Parse(OpDefBuilder("Foo")
                            .Attr("A: numbertype")
                            .Attr("B: realnumbertype")
                            .Attr("C: quantizedtype"));
  auto has = [](const tf::OpDef::AttrDef& a, tf::DataType t) {
    const auto& l = a.allowed_values().list().type();
    return std::find(l.begin(), l.end(), t) != l.end();
  };
  EXPECT_EQ(def.attr(0).type(), "type");
  EXPECT_TRUE(has(def.attr(0), tf::DT_COMPLEX64));
  EXPECT_TRUE(has(def.attr(0), tf::DT_QINT8));
  EXPECT_FALSE(has(def.attr(0), tf::DT_STRING));
  EXPECT_FALSE(has(def.attr(0), tf::DT_BOOL));
  EXPECT_TRUE(has(def.attr(1), tf::DT_HALF));
  EXPECT_FALSE(has(def.attr(1), tf::DT_COMPLEX64));
  EXPECT_TRUE(has(def.attr(2), tf::DT_QUINT8));
  EXPECT_FALSE(has(def.attr(2), tf::DT_FLOAT));
}

TEST(OpDefBuilderTest, FlagsAndShapeFn) {
  bool called = false;
  OpRegistration reg;
  ASSERT_TRUE(OpDefBuilder("Foo")
                  .SetIsStateful()
                  .SetIsCommutative()
                  .SetIsAggregate()
                  .SetAllowsUninitializedInput()
                  .SetShapeFn([&](InferenceContext&) {
                    called = true;
                    return Status::OK();
                  })
                  .Finalize(&reg)
                  .ok());
  EXPECT_TRUE(reg.op_def.is_stateful());
  EXPECT_TRUE(reg.op_def.is_commutative());
  EXPECT_TRUE(reg.op_def.is_aggregate());
  EXPECT_TRUE(reg.op_def.allows_uninitialized_input());
  ASSERT_TRUE(static_cast<bool>(reg.shape_fn));
  AttrMap attrs;
  InferenceContext c("n", "Foo", attrs, {}, {}, {}, 0);
  EXPECT_TRUE(reg.shape_fn(c).ok());
  EXPECT_TRUE(called);

  OpRegistration plain;
  ASSERT_TRUE(OpDefBuilder("Bar").Finalize(&plain).ok());
  EXPECT_FALSE(plain.op_def.is_stateful());
  EXPECT_FALSE(static_cast<bool>(plain.shape_fn));
}

TEST(OpDefBuilderTest, BadAttrSpecs) {
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T type"), "T type", "expected ':'");
  ExpectBadSpec(OpDefBuilder("Foo").Attr(": int"), ": int", "expected a name");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T: sometype"), "T: sometype", "unknown attr type");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T:"), "T:", "missing attr type");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("n: int = x"), "n: int = x", "expected an integer");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("f: float = 1.5x"), "f: float = 1.5x",
                "expected a number");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("b: bool = yes"), "b: bool = yes", "true or false");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("s: string = SAME"), "s: string = SAME",
                "quoted string");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T: type = DT_NOPE"), "T: type = DT_NOPE", "dtype");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T: {float, nope}"), "T: {float, nope}",
                "unknown type 'nope'");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T: {float, int32"), "T: {float, int32",
                "allowed values");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("p: {'A', float}"), "p: {'A', float}", "mixed");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("l: list(int = [1]"), "l: list(int = [1]", "')'");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("l: list(int) = 1"), "l: list(int) = 1",
                "expected a list");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("l: list(int) = [1,]"), "l: list(int) = [1,]",
                "expected a list");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("s: string >= 1"), "s: string >= 1",
                "only to int and list");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("n: int >= x"), "n: int >= x", "integer after '>='");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("n: int extra"), "n: int extra", "unexpected 'extra'");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("s: shape = { bogus: 1 }"), "s: shape = { bogus: 1 }",
                "text proto");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T: type").Attr("T: int"), "T: int", "duplicate");
}

TEST(OpDefBuilderTest, BadArgSpecs) {
  ExpectBadSpec(OpDefBuilder("Foo").Input("x T"), "x T", "expected ':'");
  ExpectBadSpec(OpDefBuilder("Foo").Input("x: T"), "x: T", "neither an attr nor a dtype");
  ExpectBadSpec(OpDefBuilder("Foo").Output("y: float32"), "y: float32", "neither");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T: type").Input("x: N * T"), "x: N * T",
                "'N' must be an attr of type int");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("T: type").Input("x: Ref(T"), "x: Ref(T",
                "expected ')'");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("s: string").Input("x: s"), "x: s",
                "expected type or list(type)");
  ExpectBadSpec(OpDefBuilder("Foo").Attr("N: int >= 0").Attr("L: list(type)").Input("x: N * L"),
                "x: N * L", "cannot be repeated");
  ExpectBadSpec(OpDefBuilder("Foo").Input("x: float extra"), "x: float extra", "unexpected");
  ExpectBadSpec(OpDefBuilder("Foo").Input("x: float_ref"), "x: float_ref", "neither");
}

TEST(OpDefBuilderTest, AttrWinsOverDtypeName) {
  // An attr named like a dtype is the attr (as in TF).
  tf::OpDef def = Parse(OpDefBuilder("Foo").Attr("half: type").Input("x: half"));
  EXPECT_EQ(def.input_arg(0).type_attr(), "half");
  EXPECT_EQ(def.input_arg(0).type(), tf::DT_INVALID);
}

}  // namespace
}  // namespace tgraph
