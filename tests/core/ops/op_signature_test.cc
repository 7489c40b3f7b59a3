#include "core/ops/op_signature.h"

#include <gtest/gtest.h>

#include "core/graph/attr_value_util.h"
#include "core/ops/op_registry.h"

namespace tgraph {
namespace {

tf::OpDef Def(const OpDefBuilder& b) {
  OpRegistration reg;
  Status s = b.Finalize(&reg);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return reg.op_def;
}

const tf::OpDef& AddDef() {
  static const tf::OpDef def =
      Def(OpDefBuilder("Add").Input("x: T").Input("y: T").Output("z: T").Attr(
          "T: {float, double, int32, string}"));
  return def;
}

// AddN-like: a list of N tensors of one type.
const tf::OpDef& AddNDef() {
  static const tf::OpDef def = Def(OpDefBuilder("AddN")
                                       .Input("inputs: N * T")
                                       .Output("sum: T")
                                       .Attr("N: int >= 1")
                                       .Attr("T: numbertype"));
  return def;
}

// A bit of everything: lists of mixed types, a fixed type, refs and defaults.
const tf::OpDef& MixedDef() {
  static const tf::OpDef def = Def(OpDefBuilder("Mixed")
                                       .Input("ref: Ref(T)")
                                       .Input("values: N * int64")
                                       .Input("tensors: Tin")
                                       .Output("out_ref: Ref(T)")
                                       .Output("outs: Tout")
                                       .Attr("T: type")
                                       .Attr("N: int >= 0")
                                       .Attr("Tin: list(type) >= 0")
                                       .Attr("Tout: list(type) = [DT_FLOAT, DT_STRING]")
                                       .Attr("mode: {'fast', 'slow'} = 'fast'")
                                       .Attr("rank: int >= 1 = 2"));
  return def;
}

void ExpectError(const Status& s, std::initializer_list<std::string> fragments) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  for (const auto& f : fragments) {
    EXPECT_NE(s.message().find(f), std::string::npos) << "'" << f << "' not in: " << s.message();
  }
}

TEST(InferAttrsTest, SingleTypeAttr) {
  AttrMap attrs;
  ASSERT_TRUE(InferAttrsFromInputs(AddDef(), "add", {{DT_FLOAT}, {DT_FLOAT}}, {false, false},
                                   &attrs)
                  .ok());
  EXPECT_EQ(attrs.at("T").type(), tf::DT_FLOAT);
}

TEST(InferAttrsTest, RefInputsGiveBaseType) {
  AttrMap attrs;
  ASSERT_TRUE(InferAttrsFromInputs(AddDef(), "add", {{DT_FLOAT_REF}, {DT_FLOAT}}, {false, false},
                                   &attrs)
                  .ok());
  EXPECT_EQ(attrs.at("T").type(), tf::DT_FLOAT);
}

TEST(InferAttrsTest, ConflictBetweenArgumentsNamesBoth) {
  AttrMap attrs;
  ExpectError(InferAttrsFromInputs(AddDef(), "add", {{DT_FLOAT}, {DT_INT32}}, {false, false},
                                   &attrs),
              {"Input 'y'", "node 'add'", "'Add'", "int32", "argument 'x'", "float"});
}

TEST(InferAttrsTest, ConflictWithGivenAttr) {
  AttrMap attrs{{"T", AttrOfType(DT_DOUBLE)}};
  ExpectError(InferAttrsFromInputs(AddDef(), "add", {{DT_FLOAT}, {DT_FLOAT}}, {false, false},
                                   &attrs),
              {"Input 'x'", "node 'add'", "float", "attr 'T'", "double"});
  AttrMap agree{{"T", AttrOfType(DT_FLOAT)}};
  EXPECT_TRUE(InferAttrsFromInputs(AddDef(), "add", {{DT_FLOAT}, {DT_FLOAT}}, {false, false},
                                   &agree)
                  .ok());
}

TEST(InferAttrsTest, WrongGroupCountsAndListness) {
  AttrMap attrs;
  ExpectError(InferAttrsFromInputs(AddDef(), "add", {{DT_FLOAT}}, {false}, &attrs),
              {"node 'add'", "2 input argument", "got 1"});
  ExpectError(InferAttrsFromInputs(AddDef(), "add", {{DT_FLOAT}, {DT_FLOAT}}, {false}, &attrs),
              {"list flags"});
  ExpectError(InferAttrsFromInputs(AddDef(), "add", {{DT_FLOAT, DT_FLOAT}, {DT_FLOAT}},
                                   {true, false}, &attrs),
              {"Input 'x'", "single tensor"});
  ExpectError(InferAttrsFromInputs(AddNDef(), "sum", {{DT_FLOAT}}, {false}, &attrs),
              {"Input 'inputs'", "node 'sum'", "list of tensors"});
  ExpectError(InferAttrsFromInputs(AddDef(), "add", {{DT_INVALID}, {DT_FLOAT}}, {false, false},
                                   &attrs),
              {"invalid dtype"});
}

TEST(InferAttrsTest, NumberAndTypeFromList) {
  AttrMap attrs;
  ASSERT_TRUE(InferAttrsFromInputs(AddNDef(), "sum", {{DT_INT32, DT_INT32, DT_INT32}}, {true},
                                   &attrs)
                  .ok());
  EXPECT_EQ(attrs.at("N").i(), 3);
  EXPECT_EQ(attrs.at("T").type(), tf::DT_INT32);

  AttrMap mixed;
  ExpectError(InferAttrsFromInputs(AddNDef(), "sum", {{DT_INT32, DT_FLOAT}}, {true}, &mixed),
              {"Input 'inputs'", "one dtype", "element 1"});

  AttrMap given_n{{"N", AttrOfInt(2)}};
  ExpectError(InferAttrsFromInputs(AddNDef(), "sum", {{DT_INT32, DT_INT32, DT_INT32}}, {true},
                                   &given_n),
              {"3 tensors", "attr 'N'", "2"});
}

TEST(InferAttrsTest, EmptyListLeavesTypeUnset) {
  AttrMap attrs;
  ASSERT_TRUE(InferAttrsFromInputs(AddNDef(), "sum", {{}}, {true}, &attrs).ok());
  EXPECT_EQ(attrs.at("N").i(), 0);
  EXPECT_EQ(attrs.count("T"), 0u);
  ResolvedSignature sig;
  // ... and then both the missing T and N < 1 are errors at resolution.
  ExpectError(ResolveSignature(AddNDef(), "sum", &attrs, &sig), {"node 'sum'"});
}

TEST(InferAttrsTest, TypeListAndFixedTypes) {
  AttrMap attrs;
  ASSERT_TRUE(InferAttrsFromInputs(MixedDef(), "m",
                                   {{DT_FLOAT_REF}, {DT_INT64, DT_INT64}, {DT_STRING, DT_BOOL}},
                                   {false, true, true}, &attrs)
                  .ok());
  EXPECT_EQ(attrs.at("T").type(), tf::DT_FLOAT);
  EXPECT_EQ(attrs.at("N").i(), 2);
  ASSERT_EQ(attrs.at("Tin").list().type_size(), 2);
  EXPECT_EQ(attrs.at("Tin").list().type(1), tf::DT_BOOL);
  EXPECT_EQ(attrs.count("Tout"), 0u);  // outputs are not inferred

  AttrMap other{{"Tin", AttrOfTypeList({DT_STRING})}};
  ExpectError(InferAttrsFromInputs(MixedDef(), "m",
                                   {{DT_FLOAT_REF}, {}, {DT_STRING, DT_BOOL}},
                                   {false, true, true}, &other),
              {"Input 'tensors'", "[string, bool]", "attr 'Tin'", "[string]"});
}

TEST(ResolveSignatureTest, FillsDefaultsAndFlattens) {
  AttrMap attrs{{"T", AttrOfType(DT_DOUBLE)},
                {"N", AttrOfInt(3)},
                {"Tin", AttrOfTypeList({DT_BOOL})},
                {"_class", AttrOfStringList({"loc:@v"})}};
  ResolvedSignature sig;
  Status s = ResolveSignature(MixedDef(), "m", &attrs, &sig);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(attrs.at("mode").s(), "fast");
  EXPECT_EQ(attrs.at("rank").i(), 2);
  EXPECT_EQ(attrs.at("Tout").list().type_size(), 2);
  EXPECT_EQ(sig.input_types, (std::vector<DataType>{DT_DOUBLE_REF, DT_INT64, DT_INT64, DT_INT64,
                                                    DT_BOOL}));
  EXPECT_EQ(sig.output_types, (std::vector<DataType>{DT_DOUBLE_REF, DT_FLOAT, DT_STRING}));
  ASSERT_EQ(sig.input_args.size(), 3u);
  EXPECT_EQ(sig.input_args[1].start, 1);
  EXPECT_EQ(sig.input_args[1].count, 3);
  EXPECT_EQ(sig.input_args[2].start, 4);
  EXPECT_EQ(sig.input_args[2].count, 1);
  ASSERT_EQ(sig.output_args.size(), 2u);
  EXPECT_EQ(sig.output_args[1].start, 1);
  EXPECT_EQ(sig.output_args[1].count, 2);
}

TEST(ResolveSignatureTest, EmptyListsAreValid) {
  AttrMap attrs{{"T", AttrOfType(DT_FLOAT)},
                {"N", AttrOfInt(0)},
                {"Tin", AttrOfTypeList({})},
                {"Tout", AttrOfTypeList({})}};
  ResolvedSignature sig;
  ASSERT_TRUE(ResolveSignature(MixedDef(), "m", &attrs, &sig).ok());
  EXPECT_EQ(sig.input_types, std::vector<DataType>{DT_FLOAT_REF});
  EXPECT_EQ(sig.input_args[1].count, 0);
  EXPECT_EQ(sig.output_types, std::vector<DataType>{DT_FLOAT_REF});
}

TEST(ResolveSignatureTest, RejectsUnknownMissingAndMistypedAttrs) {
  ResolvedSignature sig;
  {
    AttrMap attrs{{"T", AttrOfType(DT_FLOAT)}, {"bogus", AttrOfInt(1)}};
    ExpectError(ResolveSignature(AddDef(), "add", &attrs, &sig),
                {"node 'add'", "attr 'bogus'", "'Add'"});
  }
  {
    AttrMap attrs;
    ExpectError(ResolveSignature(AddDef(), "add", &attrs, &sig),
                {"node 'add'", "missing attr 'T'"});
  }
  {
    AttrMap attrs{{"T", AttrOfInt(1)}};
    ExpectError(ResolveSignature(AddDef(), "add", &attrs, &sig),
                {"node 'add'", "attr 'T'", "'int'", "expected 'type'"});
  }
  {
    AttrMap attrs{{"T", AttrOfType(DT_BOOL)}};
    ExpectError(ResolveSignature(AddDef(), "add", &attrs, &sig),
                {"node 'add'", "attr 'T'", "bool", "allowed"});
  }
  {
    AttrMap attrs{{"T", AttrOfType(DT_FLOAT)}, {"N", AttrOfInt(0)}, {"Tin", AttrOfTypeList({})},
                  {"mode", AttrOfString("medium")}};
    ExpectError(ResolveSignature(MixedDef(), "m", &attrs, &sig),
                {"attr 'mode'", "'medium'", "allowed"});
  }
  {
    AttrMap attrs{{"T", AttrOfType(DT_FLOAT)}, {"N", AttrOfInt(-1)}, {"Tin", AttrOfTypeList({})}};
    ExpectError(ResolveSignature(MixedDef(), "m", &attrs, &sig), {"attr 'N'", "-1", ">= 0"});
  }
  {
    AttrMap attrs{{"T", AttrOfType(DT_FLOAT)}, {"N", AttrOfInt(0)}, {"Tin", AttrOfTypeList({})},
                  {"rank", AttrOfInt(0)}};
    ExpectError(ResolveSignature(MixedDef(), "m", &attrs, &sig), {"attr 'rank'", ">= 1"});
  }
}

TEST(ResolveSignatureTest, HostileLengthIsRejected) {
  AttrMap attrs{{"T", AttrOfType(DT_FLOAT)},
                {"N", AttrOfInt(int64_t{1} << 40)},
                {"Tin", AttrOfTypeList({})}};
  ResolvedSignature sig;
  ExpectError(ResolveSignature(MixedDef(), "m", &attrs, &sig), {"node 'm'", "'values'"});
}

TEST(ResolveSignatureTest, InvalidDtypeInTypeAttr) {
  AttrMap attrs{{"T", AttrOfType(DT_INVALID)}};
  ResolvedSignature sig;
  ExpectError(ResolveSignature(AddDef(), "add", &attrs, &sig), {"attr 'T'", "invalid dtype"});
  AttrMap ref{{"T", AttrOfType(DT_FLOAT_REF)}};
  ExpectError(ResolveSignature(AddDef(), "add", &ref, &sig), {"attr 'T'", "invalid dtype"});
}

TEST(CheckInputTypesTest, RefsAndValues) {
  AttrMap attrs{{"T", AttrOfType(DT_FLOAT)}, {"N", AttrOfInt(1)}, {"Tin", AttrOfTypeList({})}};
  ResolvedSignature sig;
  ASSERT_TRUE(ResolveSignature(MixedDef(), "m", &attrs, &sig).ok());
  EXPECT_TRUE(CheckInputTypes(MixedDef(), "m", sig, {DT_FLOAT_REF, DT_INT64}).ok());
  // A non-ref input accepts a ref tensor (it reads the value).
  EXPECT_TRUE(CheckInputTypes(MixedDef(), "m", sig, {DT_FLOAT_REF, DT_INT64_REF}).ok());
  ExpectError(CheckInputTypes(MixedDef(), "m", sig, {DT_FLOAT, DT_INT64}),
              {"Input 0", "'ref'", "node 'm'", "reference", "float_ref", "got float"});
  ExpectError(CheckInputTypes(MixedDef(), "m", sig, {DT_FLOAT_REF, DT_INT32}),
              {"Input 1", "'values'", "expects int64", "got int32"});
  ExpectError(CheckInputTypes(MixedDef(), "m", sig, {DT_FLOAT_REF}),
              {"node 'm'", "expects 2 inputs", "got 1"});
  ExpectError(CheckInputTypes(MixedDef(), "m", sig, {DT_DOUBLE_REF, DT_INT64}),
              {"Input 0", "float_ref", "double_ref"});
}

tf::OpDef::AttrDef AttrDef(const std::string& spec) {
  tf::OpDef def = Def(OpDefBuilder("X").Attr(spec));
  return def.attr(0);
}

TEST(ValidateAttrValueTest, ScalarKinds) {
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: string"), AttrOfString("x")).ok());
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: int"), AttrOfInt(-4)).ok());
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: float"), AttrOfFloat(1)).ok());
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: bool"), AttrOfBool(false)).ok());
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: type"), AttrOfType(DT_HALF)).ok());
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: shape"), AttrOfShape(PartialShape())).ok());
  tf::AttrValue tensor;
  tensor.mutable_tensor()->set_dtype(tf::DT_FLOAT);
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: tensor"), tensor).ok());
  tf::AttrValue func;
  func.mutable_func()->set_name("f");
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: func"), func).ok());

  ExpectError(ValidateAttrValue("n", AttrDef("a: int"), AttrOfFloat(1)),
              {"node 'n'", "attr 'a'", "'float'", "expected 'int'"});
  ExpectError(ValidateAttrValue("n", AttrDef("a: int"), AttrOfIntList({1})),
              {"'list(int)'", "expected 'int'"});
  ExpectError(ValidateAttrValue("n", AttrDef("a: int"), tf::AttrValue()), {"no value"});
  tf::AttrValue placeholder;
  placeholder.set_placeholder("T");
  ExpectError(ValidateAttrValue("n", AttrDef("a: type"), placeholder), {"'placeholder'"});
  ExpectError(ValidateAttrValue("n", AttrDef("a: type"), AttrOfType(static_cast<DataType>(77))),
              {"invalid dtype 77"});
  tf::AttrValue bad_shape;
  bad_shape.mutable_shape()->add_dim()->set_size(-3);
  ExpectError(ValidateAttrValue("n", AttrDef("a: shape"), bad_shape), {"attr 'a'", "bad shape"});
  // Without a node the message still names the attr.
  ExpectError(ValidateAttrValue("", AttrDef("a: bool"), AttrOfInt(1)), {"attr 'a'"});
}

TEST(ValidateAttrValueTest, Lists) {
  EXPECT_TRUE(ValidateAttrValue("n", AttrDef("a: list(int)"), AttrOfIntList({1, 2})).ok());
  // `list {}` is valid for any list kind.
  for (const char* kind : {"list(int)", "list(string)", "list(type)", "list(shape)",
                           "list(func)", "list(tensor)", "list(bool)", "list(float)"}) {
    EXPECT_TRUE(ValidateAttrValue("n", AttrDef(std::string("a: ") + kind), AttrOfIntList({})).ok())
        << kind;
  }
  ExpectError(ValidateAttrValue("n", AttrDef("a: list(int)"), AttrOfFloatList({1})),
              {"'list(float)'", "expected 'list(int)'"});
  ExpectError(ValidateAttrValue("n", AttrDef("a: list(int)"), AttrOfInt(1)), {"'int'"});
  tf::AttrValue mixed = AttrOfIntList({1});
  mixed.mutable_list()->add_f(2);
  ExpectError(ValidateAttrValue("n", AttrDef("a: list(int)"), mixed),
              {"attr 'a'", "several kinds"});
  ExpectError(ValidateAttrValue("n", AttrDef("a: list(type)"),
                                AttrOfTypeList({DT_FLOAT, DT_INT32_REF})),
              {"invalid dtype 103"});
  tf::AttrValue shapes;
  shapes.mutable_list()->add_shape()->add_dim()->set_size(-9);
  ExpectError(ValidateAttrValue("n", AttrDef("a: list(shape)"), shapes), {"bad shape"});
}

TEST(ValidateAttrValueTest, AllowedValuesAndMinimums) {
  const auto types = AttrDef("a: list({float, int32}) >= 1");
  EXPECT_TRUE(ValidateAttrValue("n", types, AttrOfTypeList({DT_INT32, DT_FLOAT})).ok());
  ExpectError(ValidateAttrValue("n", types, AttrOfTypeList({DT_FLOAT, DT_BOOL})),
              {"bool", "not in the allowed list", "[float, int32]"});
  ExpectError(ValidateAttrValue("n", types, AttrOfTypeList({})), {"0 elements", "at least 1"});
  const auto strings = AttrDef("a: {'SAME', 'VALID'}");
  EXPECT_TRUE(ValidateAttrValue("n", strings, AttrOfString("VALID")).ok());
  ExpectError(ValidateAttrValue("n", strings, AttrOfString("same")),
              {"'same'", "'SAME', 'VALID'"});
  const auto n = AttrDef("a: int >= 2");
  EXPECT_TRUE(ValidateAttrValue("n", n, AttrOfInt(2)).ok());
  ExpectError(ValidateAttrValue("n", n, AttrOfInt(1)), {"is 1", ">= 2"});
}

TEST(ValidateAttrValueTest, UnknownDeclaredType) {
  tf::OpDef::AttrDef def;
  def.set_name("a");
  def.set_type("matrix");
  ExpectError(ValidateAttrValue("n", def, AttrOfInt(1)), {"unknown type 'matrix'"});
}

}  // namespace
}  // namespace tgraph
