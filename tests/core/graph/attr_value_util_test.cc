#include "core/graph/attr_value_util.h"

#include <gtest/gtest.h>

namespace tgraph {
namespace {

TEST(AttrValueUtilTest, Scalars) {
  EXPECT_EQ(AttrOfString("SAME").s(), "SAME");
  EXPECT_EQ(AttrOfInt(-7).i(), -7);
  EXPECT_FLOAT_EQ(AttrOfFloat(0.5f).f(), 0.5f);
  EXPECT_TRUE(AttrOfBool(true).b());
  EXPECT_EQ(AttrOfBool(false).value_case(), tf::AttrValue::kB);  // set even when false
  EXPECT_EQ(AttrOfInt(0).value_case(), tf::AttrValue::kI);
  EXPECT_EQ(AttrOfType(DT_INT64).type(), tf::DT_INT64);
}

TEST(AttrValueUtilTest, ShapeAndTensor) {
  tf::AttrValue unknown = AttrOfShape(PartialShape());
  EXPECT_TRUE(unknown.shape().unknown_rank());
  EXPECT_EQ(unknown.shape().dim_size(), 0);
  tf::AttrValue scalar = AttrOfShape(PartialShape::Scalar());
  EXPECT_EQ(scalar.value_case(), tf::AttrValue::kShape);
  EXPECT_FALSE(scalar.shape().unknown_rank());
  tf::AttrValue s = AttrOfShape(PartialShape{2, -1});
  ASSERT_EQ(s.shape().dim_size(), 2);
  EXPECT_EQ(s.shape().dim(1).size(), -1);

  auto t = Tensor::Allocate(DT_INT32, {2});
  t->flat<int32_t>()[1] = 9;
  tf::AttrValue tv = AttrOfTensor(t.value());
  EXPECT_EQ(tv.tensor().dtype(), tf::DT_INT32);
  EXPECT_EQ(tv.tensor().tensor_content().size(), 8u);
}

TEST(AttrValueUtilTest, Lists) {
  EXPECT_EQ(AttrOfStringList({"a", "b"}).list().s(1), "b");
  EXPECT_EQ(AttrOfIntList({1, 2, 3}).list().i_size(), 3);
  EXPECT_EQ(AttrOfFloatList({1.5f}).list().f(0), 1.5f);
  EXPECT_EQ(AttrOfBoolList({true, false}).list().b_size(), 2);
  EXPECT_EQ(AttrOfTypeList({DT_FLOAT, DT_STRING}).list().type(1), tf::DT_STRING);
  EXPECT_TRUE(AttrOfShapeList({PartialShape(), PartialShape{1}}).list().shape(0).unknown_rank());
  auto t = Tensor::Allocate(DT_FLOAT, {});
  EXPECT_EQ(AttrOfTensorList({t.value(), t.value()}).list().tensor_size(), 2);
}

TEST(AttrValueUtilTest, EmptyListsAreListsNotUnset) {
  // An empty list attr must still be `list {}` on the wire.
  for (const tf::AttrValue& v : {AttrOfIntList({}), AttrOfTypeList({}), AttrOfStringList({}),
                                 AttrOfShapeList({}), AttrOfTensorList({})}) {
    EXPECT_EQ(v.value_case(), tf::AttrValue::kList);
    EXPECT_EQ(AttrValueKind(v), "list(any)");
    std::string bytes;
    ASSERT_TRUE(v.SerializeToString(&bytes));
    EXPECT_EQ(bytes, std::string("\x0a\x00", 2));  // field 1, length 0
  }
}

TEST(AttrValueUtilTest, Kinds) {
  EXPECT_EQ(AttrValueKind(AttrOfString("x")), "string");
  EXPECT_EQ(AttrValueKind(AttrOfInt(1)), "int");
  EXPECT_EQ(AttrValueKind(AttrOfFloat(1)), "float");
  EXPECT_EQ(AttrValueKind(AttrOfBool(true)), "bool");
  EXPECT_EQ(AttrValueKind(AttrOfType(DT_FLOAT)), "type");
  EXPECT_EQ(AttrValueKind(AttrOfShape(PartialShape())), "shape");
  EXPECT_EQ(AttrValueKind(AttrOfTensor(Tensor::Allocate(DT_FLOAT, {}).value())), "tensor");
  EXPECT_EQ(AttrValueKind(AttrOfStringList({"x"})), "list(string)");
  EXPECT_EQ(AttrValueKind(AttrOfIntList({1})), "list(int)");
  EXPECT_EQ(AttrValueKind(AttrOfFloatList({1})), "list(float)");
  EXPECT_EQ(AttrValueKind(AttrOfBoolList({true})), "list(bool)");
  EXPECT_EQ(AttrValueKind(AttrOfTypeList({DT_FLOAT})), "list(type)");
  EXPECT_EQ(AttrValueKind(AttrOfShapeList({PartialShape()})), "list(shape)");
  tf::AttrValue func;
  func.mutable_func()->set_name("f");
  EXPECT_EQ(AttrValueKind(func), "func");
  func.mutable_list()->add_func()->set_name("f");
  EXPECT_EQ(AttrValueKind(func), "list(func)");
  EXPECT_EQ(AttrValueKind(tf::AttrValue()), "");
}

}  // namespace
}  // namespace tgraph
