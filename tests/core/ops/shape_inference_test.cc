#include "core/ops/shape_inference.h"

#include <gtest/gtest.h>

#include "core/graph/attr_value_util.h"
#include "core/ops/op_registry.h"

namespace tgraph {
namespace {

using PS = PartialShape;

void ExpectError(const Status& s, std::initializer_list<std::string> fragments) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  for (const auto& f : fragments) {
    EXPECT_NE(s.message().find(f), std::string::npos) << "'" << f << "' not in: " << s.message();
  }
}

TEST(InferenceContextTest, Accessors) {
  AttrMap attrs{{"k", AttrOfInt(3)}};
  auto value = Tensor::Allocate(DT_INT32, {2});
  InferenceContext c("n", "Foo", attrs, {DT_FLOAT, DT_INT32}, {PS{2}, PS()},
                     {nullptr, &value.value()}, 2);
  EXPECT_EQ(c.node_name(), "n");
  EXPECT_EQ(c.op_type(), "Foo");
  EXPECT_EQ(c.num_inputs(), 2);
  EXPECT_EQ(c.input_type(1), DT_INT32);
  EXPECT_EQ(c.input_shape(0), PS{2});
  EXPECT_EQ(c.input_value(0), nullptr);
  EXPECT_EQ(c.input_value(1), &value.value());
  ASSERT_EQ(c.num_outputs(), 2);
  EXPECT_FALSE(c.output_shapes()[0].known_rank());  // outputs start unknown
  c.set_output(1, PS{4});
  EXPECT_EQ(c.output_shapes()[1], PS{4});
}

TEST(InferenceContextTest, ShortTypeAndValueListsArePadded) {
  AttrMap attrs;
  InferenceContext c("n", "Foo", attrs, {}, {PS{1}, PS{2}}, {}, 1);
  EXPECT_EQ(c.input_type(1), DT_INVALID);
  EXPECT_EQ(c.input_value(1), nullptr);
}

TEST(InferenceContextTest, ErrorNamesOpAndNode) {
  AttrMap attrs;
  InferenceContext c("scope/m", "MatMul", attrs, {}, {}, {}, 0);
  Status s = c.Error("bad ", 42);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "MatMul 'scope/m': bad 42");
}

TEST(InferenceContextTest, GetAttr) {
  AttrMap attrs{{"i", AttrOfInt(-2)},
                {"b", AttrOfBool(true)},
                {"f", AttrOfFloat(0.25f)},
                {"t", AttrOfType(DT_HALF)},
                {"s", AttrOfString("VALID")},
                {"shape", AttrOfShape(PS{-1, 3})},
                {"ints", AttrOfIntList({1, 2})},
                {"empty", AttrOfIntList({})},
                {"types", AttrOfTypeList({DT_INT8})},
                {"strs", AttrOfStringList({"a"})},
                {"badtype", AttrOfType(static_cast<DataType>(90))}};
  InferenceContext c("n", "Foo", attrs, {}, {}, {}, 0);
  int64_t i;
  bool b;
  float f;
  DataType t;
  std::string s;
  PS shape;
  std::vector<int64_t> ints;
  std::vector<DataType> types;
  std::vector<std::string> strs;
  ASSERT_TRUE(c.GetAttr("i", &i).ok());
  EXPECT_EQ(i, -2);
  ASSERT_TRUE(c.GetAttr("b", &b).ok());
  EXPECT_TRUE(b);
  ASSERT_TRUE(c.GetAttr("f", &f).ok());
  EXPECT_EQ(f, 0.25f);
  ASSERT_TRUE(c.GetAttr("t", &t).ok());
  EXPECT_EQ(t, DT_HALF);
  ASSERT_TRUE(c.GetAttr("s", &s).ok());
  EXPECT_EQ(s, "VALID");
  ASSERT_TRUE(c.GetAttr("shape", &shape).ok());
  EXPECT_EQ(shape, (PS{-1, 3}));
  ASSERT_TRUE(c.GetAttr("ints", &ints).ok());
  EXPECT_EQ(ints, (std::vector<int64_t>{1, 2}));
  ASSERT_TRUE(c.GetAttr("empty", &ints).ok());
  EXPECT_TRUE(ints.empty());
  ASSERT_TRUE(c.GetAttr("empty", &types).ok());  // an empty list fits any list kind
  ASSERT_TRUE(c.GetAttr("types", &types).ok());
  EXPECT_EQ(types, std::vector<DataType>{DT_INT8});
  ASSERT_TRUE(c.GetAttr("strs", &strs).ok());
  EXPECT_EQ(strs, std::vector<std::string>{"a"});

  ExpectError(c.GetAttr("missing", &i), {"Foo 'n'", "missing attr 'missing'"});
  ExpectError(c.GetAttr("s", &i), {"Foo 'n'", "attr 's'", "'string'", "'int'"});
  ExpectError(c.GetAttr("i", &shape), {"attr 'i'", "'shape'"});
  ExpectError(c.GetAttr("ints", &types), {"attr 'ints'", "list(int)", "list(type)"});
  ExpectError(c.GetAttr("badtype", &t), {"attr 'badtype'", "invalid dtype 90"});
}

TEST(InferenceContextTest, WithRank) {
  AttrMap attrs;
  InferenceContext c("n", "Foo", attrs, {}, {PS{2, 3}, PS(), PS{4}}, {}, 0);
  PS out;
  ASSERT_TRUE(c.WithRank(0, 2, &out).ok());
  EXPECT_EQ(out, (PS{2, 3}));
  ASSERT_TRUE(c.WithRank(1, 2, &out).ok());
  EXPECT_EQ(out, (PS{-1, -1}));
  ExpectError(c.WithRank(2, 2, &out), {"Foo 'n'", "input 2", "rank 2", "[4]"});
}

struct BroadcastCase {
  PS a, b, expected;
};

TEST(BroadcastTest, Compatible) {
  const BroadcastCase cases[] = {
      {PS{2, 3}, PS{2, 3}, PS{2, 3}},
      {PS{2, 3}, PS{3}, PS{2, 3}},
      {PS{2, 1}, PS{1, 3}, PS{2, 3}},
      {PS::Scalar(), PS{4}, PS{4}},
      {PS{4}, PS::Scalar(), PS{4}},
      {PS{5, 1, 3}, PS{4, 1}, PS{5, 4, 3}},
      {PS{-1, 3}, PS{2, 1}, PS{2, 3}},  // ? vs 2: must be 1 or 2, result 2
      {PS{-1}, PS{1}, PS{-1}},          // ? vs 1: result is whatever ? is
      {PS{1}, PS{-1}, PS{-1}},
      {PS{-1}, PS{-1}, PS{-1}},
      {PS{0}, PS{1}, PS{0}},
      {PS{3, 0}, PS{0}, PS{3, 0}},
      {PS(), PS{2}, PS()},
      {PS{2}, PS(), PS()},
  };
  for (const auto& tc : cases) {
    PS out;
    Status s = shape_fns::BroadcastShapes(tc.a, tc.b, &out);
    ASSERT_TRUE(s.ok()) << tc.a.ToString() << " vs " << tc.b.ToString() << ": " << s.ToString();
    EXPECT_EQ(out, tc.expected) << tc.a.ToString() << " vs " << tc.b.ToString() << " gave "
                                << out.ToString();
  }
}

TEST(BroadcastTest, Incompatible) {
  PS out;
  ExpectError(shape_fns::BroadcastShapes(PS{2, 3}, PS{4}, &out), {"[2,3]", "[4]", "3 vs. 4"});
  ExpectError(shape_fns::BroadcastShapes(PS{2, 3}, PS{3, 3}, &out), {"2 vs. 3"});
  ExpectError(shape_fns::BroadcastShapes(PS{0}, PS{2}, &out), {"0 vs. 2"});
}

TEST(BroadcastTest, BinaryOpShapeNamesTheOp) {
  AttrMap attrs;
  InferenceContext ok("add", "Add", attrs, {}, {PS{2, 1}, PS{3}}, {}, 1);
  ASSERT_TRUE(shape_fns::BroadcastBinaryOpShape(ok).ok());
  EXPECT_EQ(ok.output_shapes()[0], (PS{2, 3}));

  InferenceContext bad("add", "Add", attrs, {}, {PS{2, 3}, PS{4}}, {}, 1);
  ExpectError(shape_fns::BroadcastBinaryOpShape(bad), {"Add 'add'", "[2,3]", "[4]"});

  InferenceContext one_input("add", "Add", attrs, {}, {PS{2}}, {}, 1);
  ExpectError(shape_fns::BroadcastBinaryOpShape(one_input), {"Add 'add'"});
}

TEST(CommonShapeFnsTest, UnknownUnchangedScalar) {
  AttrMap attrs;
  InferenceContext c("n", "Foo", attrs, {}, {PS{7, -1}}, {}, 2);
  c.set_output(0, PS{1});
  ASSERT_TRUE(shape_fns::UnknownShape(c).ok());
  EXPECT_FALSE(c.output_shapes()[0].known_rank());
  EXPECT_FALSE(c.output_shapes()[1].known_rank());
  ASSERT_TRUE(shape_fns::UnchangedShape(c).ok());
  EXPECT_EQ(c.output_shapes()[0], (PS{7, -1}));
  ASSERT_TRUE(shape_fns::ScalarShape(c).ok());
  EXPECT_EQ(c.output_shapes()[0], PS::Scalar());

  InferenceContext none("n", "Foo", attrs, {}, {}, {}, 1);
  ExpectError(shape_fns::UnchangedShape(none), {"Foo 'n'"});
}

TEST(CommonShapeFnsTest, MergeAllInputs) {
  AttrMap attrs;
  InferenceContext c("n", "AddN", attrs, {}, {PS{-1, 3}, PS(), PS{2, -1}}, {}, 1);
  ASSERT_TRUE(shape_fns::MergeAllInputsShape(c).ok());
  EXPECT_EQ(c.output_shapes()[0], (PS{2, 3}));
  InferenceContext bad("n", "AddN", attrs, {}, {PS{2, 3}, PS{2, 4}}, {}, 1);
  ExpectError(shape_fns::MergeAllInputsShape(bad), {"AddN 'n'", "input 1", "[2,4]", "[2,3]"});
}

TEST(CommonShapeFnsTest, ShapeFromAttr) {
  AttrMap attrs{{"shape", AttrOfShape(PS{-1, 5})}};
  InferenceContext c("p", "Placeholder", attrs, {}, {}, {}, 1);
  ASSERT_TRUE(shape_fns::ShapeFromAttr(c).ok());
  EXPECT_EQ(c.output_shapes()[0], (PS{-1, 5}));
  AttrMap none;
  InferenceContext missing("p", "Placeholder", none, {}, {}, {}, 1);
  ExpectError(shape_fns::ShapeFromAttr(missing), {"Placeholder 'p'", "attr 'shape'"});
}

// MatMul's shape function, through the registered op.
Status MatMul(PS a, PS b, bool ta, bool tb, PS* out) {
  const OpRegistration* reg = OpRegistry::Global()->Find("MatMul");
  EXPECT_NE(reg, nullptr);
  AttrMap attrs{{"T", AttrOfType(DT_FLOAT)},
                {"transpose_a", AttrOfBool(ta)},
                {"transpose_b", AttrOfBool(tb)}};
  InferenceContext c("m", "MatMul", attrs, {DT_FLOAT, DT_FLOAT}, {a, b}, {}, 1);
  TG_RETURN_IF_ERROR(reg->shape_fn(c));
  *out = c.output_shapes()[0];
  return Status::OK();
}

TEST(MatMulShapeTest, Shapes) {
  PS out;
  ASSERT_TRUE(MatMul(PS{2, 3}, PS{3, 4}, false, false, &out).ok());
  EXPECT_EQ(out, (PS{2, 4}));
  ASSERT_TRUE(MatMul(PS{3, 2}, PS{3, 4}, true, false, &out).ok());
  EXPECT_EQ(out, (PS{2, 4}));
  ASSERT_TRUE(MatMul(PS{2, 3}, PS{4, 3}, false, true, &out).ok());
  EXPECT_EQ(out, (PS{2, 4}));
  ASSERT_TRUE(MatMul(PS{-1, 3}, PS{-1, 7}, false, false, &out).ok());
  EXPECT_EQ(out, (PS{-1, 7}));
  ASSERT_TRUE(MatMul(PS(), PS{3, 4}, false, false, &out).ok());
  EXPECT_EQ(out, (PS{-1, 4}));
}

TEST(MatMulShapeTest, InnerDimensionMismatchNamesOpAndShapes) {
  PS out;
  Status s = MatMul(PS{2, 3}, PS{4, 2}, false, false, &out);
  ExpectError(s, {"MatMul 'm'", "[2,3]", "[4,2]", "3 and 4"});
  ExpectError(MatMul(PS{2, 3}, PS{2, 3}, true, true, &out), {"2 and 3"});
}

TEST(MatMulShapeTest, RankMustBeTwo) {
  PS out;
  ExpectError(MatMul(PS{3}, PS{3, 4}, false, false, &out), {"MatMul 'm'", "input 0", "rank 2"});
  ExpectError(MatMul(PS{2, 3}, PS{3, 4, 1}, false, false, &out), {"input 1", "[3,4,1]"});
}

}  // namespace
}  // namespace tgraph
