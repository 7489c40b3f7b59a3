#include "core/base/shape.h"

#include <gtest/gtest.h>

#include <limits>

namespace tgraph {
namespace {

TEST(PartialShapeTest, Construction) {
  PartialShape unknown;
  EXPECT_FALSE(unknown.known_rank());
  EXPECT_EQ(unknown.rank(), -1);
  EXPECT_EQ(unknown.ToString(), "<unknown>");
  EXPECT_EQ(PartialShape::Unknown(), unknown);

  PartialShape scalar = PartialShape::Scalar();
  EXPECT_TRUE(scalar.known_rank());
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.ToString(), "[]");
  EXPECT_NE(scalar, unknown);

  PartialShape s{2, -1, 3};
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.dim(1), PartialShape::kUnknownDim);
  EXPECT_EQ(s.ToString(), "[2,?,3]");
  EXPECT_EQ(PartialShape::UnknownOfRank(2), (PartialShape{-1, -1}));
}

TEST(PartialShapeTest, FullyDefinedAndNumElements) {
  EXPECT_TRUE((PartialShape{2, 3}).IsFullyDefined());
  EXPECT_EQ((PartialShape{2, 3}).NumElements(), 6);
  EXPECT_TRUE(PartialShape::Scalar().IsFullyDefined());
  EXPECT_EQ(PartialShape::Scalar().NumElements(), 1);
  EXPECT_EQ((PartialShape{4, 0}).NumElements(), 0);
  EXPECT_FALSE((PartialShape{2, -1}).IsFullyDefined());
  EXPECT_EQ((PartialShape{2, -1}).NumElements(), -1);
  EXPECT_FALSE(PartialShape().IsFullyDefined());
  EXPECT_EQ(PartialShape().NumElements(), -1);
}

// Issue 21, item 4: a product that overflows int64_t is -1 (no tensor of it can exist), not
// a wrapped-around, possibly small or negative count.
TEST(PartialShapeTest, NumElementsOverflowIsMinusOne) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ((PartialShape{big, big}).NumElements(), -1);
  EXPECT_EQ((PartialShape{std::numeric_limits<int64_t>::max(), 2}).NumElements(), -1);
  EXPECT_EQ((PartialShape{int64_t{1} << 31, int64_t{1} << 31, 2}).NumElements(), -1);  // 2^63
  // A zero dim anywhere makes the product 0, however large the others.
  EXPECT_EQ((PartialShape{std::numeric_limits<int64_t>::max(), 0}).NumElements(), 0);
  EXPECT_EQ((PartialShape{0, std::numeric_limits<int64_t>::max()}).NumElements(), 0);
  EXPECT_EQ((PartialShape{big, 1 << 22}).NumElements(), int64_t{1} << 62);
}

TEST(PartialShapeTest, Compatibility) {
  EXPECT_TRUE(PartialShape().IsCompatibleWith(PartialShape{1, 2}));
  EXPECT_TRUE((PartialShape{1, 2}).IsCompatibleWith(PartialShape()));
  EXPECT_TRUE((PartialShape{-1, 2}).IsCompatibleWith(PartialShape{5, -1}));
  EXPECT_FALSE((PartialShape{1, 2}).IsCompatibleWith(PartialShape{1, 3}));
  EXPECT_FALSE((PartialShape{1, 2}).IsCompatibleWith(PartialShape{1, 2, 1}));
  EXPECT_FALSE(PartialShape::Scalar().IsCompatibleWith(PartialShape{1}));
}

TEST(PartialShapeTest, Merge) {
  PartialShape out;
  ASSERT_TRUE((PartialShape{-1, 2}).Merge(PartialShape{5, -1}, &out).ok());
  EXPECT_EQ(out, (PartialShape{5, 2}));
  ASSERT_TRUE(PartialShape().Merge(PartialShape{3}, &out).ok());
  EXPECT_EQ(out, PartialShape{3});
  ASSERT_TRUE((PartialShape{3}).Merge(PartialShape(), &out).ok());
  EXPECT_EQ(out, PartialShape{3});
  ASSERT_TRUE(PartialShape().Merge(PartialShape(), &out).ok());
  EXPECT_FALSE(out.known_rank());

  Status s = (PartialShape{2, 3}).Merge(PartialShape{2, 4}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("[2,3]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[2,4]"), std::string::npos) << s.message();
}

TEST(PartialShapeTest, ValidateDims) {
  EXPECT_TRUE(ValidatePartialShapeDims({}).ok());
  EXPECT_TRUE(ValidatePartialShapeDims({0, -1, 7}).ok());
  Status s = ValidatePartialShapeDims({2, -2});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("dimension 1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tgraph
