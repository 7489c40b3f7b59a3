// Einsum equations (common/einsum.h): parsing, the implicit output, and resolving labels and
// ellipses against shapes, with the errors each rule gives.
#include "common/einsum.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tgraph::einsum {
namespace {

using Dims = std::vector<int64_t>;

// The output dims of `equation` over `shapes`, or the error.
std::string Out(const std::string& equation, const std::vector<Dims>& shapes, Dims* dims) {
  Equation eq;
  std::string error = Parse(equation, static_cast<int>(shapes.size()), &eq);
  if (!error.empty()) return error;
  Resolved r;
  error = Resolve(eq, shapes, &r);
  *dims = r.output_dims;
  return error;
}

void ExpectError(const std::string& equation, const std::vector<Dims>& shapes,
                 const std::string& fragment) {
  Dims dims;
  const std::string error = Out(equation, shapes, &dims);
  EXPECT_NE(error.find(fragment), std::string::npos) << equation << ": '" << error << "'";
}

TEST(EinsumTest, ParsesTermsAndLabels) {
  Equation eq;
  ASSERT_EQ(Parse("bqhd, bkhd -> bhqk", 2, &eq), "");
  EXPECT_EQ(eq.num_labels, 5);
  EXPECT_EQ(eq.inputs[0], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(eq.inputs[1], (std::vector<int>{0, 4, 2, 3}));
  EXPECT_EQ(eq.output, (std::vector<int>{0, 2, 1, 4}));
}

TEST(EinsumTest, ImplicitOutputIsEllipsisThenSingleLabelsAlphabetically) {
  Equation eq;
  ASSERT_EQ(Parse("...ba,bc", 2, &eq), "");
  // Labels: b=0, a=1, c=2; used once: a, c.
  EXPECT_EQ(eq.output, (std::vector<int>{kEllipsis, 1, 2}));
}

TEST(EinsumTest, ResolvesShapes) {
  Dims d;
  ASSERT_EQ(Out("bqhd,bkhd->bhqk", {{2, 3, 4, 5}, {2, 6, 4, 5}}, &d), "");
  EXPECT_EQ(d, (Dims{2, 4, 3, 6}));
  ASSERT_EQ(Out("...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}, &d), "");
  EXPECT_EQ(d, (Dims{2, 5, 3, 2}));
  ASSERT_EQ(Out("ii->i", {{3, 3}}, &d), "");
  EXPECT_EQ(d, (Dims{3}));
  ASSERT_EQ(Out("ij->", {{3, 3}}, &d), "");
  EXPECT_EQ(d, (Dims{}));
  // Unknown dims (-1) adopt what another input says, or stay unknown.
  ASSERT_EQ(Out("ij,jk->ik", {{-1, 3}, {-1, 5}}, &d), "");
  EXPECT_EQ(d, (Dims{-1, 5}));
  ASSERT_EQ(Out("...i,...i->...", {{-1, 3}, {4, 3}}, &d), "");
  EXPECT_EQ(d, (Dims{4}));
}

TEST(EinsumTest, RejectsBadEquations) {
  ExpectError("ij,jk->ik", {{2, 3}}, "1 input(s)");
  ExpectError("i,j,k->ijk", {{1}, {1}, {1}}, "1 or 2 inputs");
  ExpectError("i$->i", {{2}}, "invalid character '$'");
  ExpectError("i..->i", {{2}}, "'.'");
  ExpectError("...i...->i", {{2}}, "more than one ellipsis");
  ExpectError("ij->ii", {{2, 2}}, "more than once");
  ExpectError("ij->k", {{2, 2}}, "'k' appears in no input");
  ExpectError("ij->...i", {{2, 2}}, "no input has one");
  ExpectError("ij->i->j", {{2, 2}}, "more than one '->'");
  ExpectError("ijk->i", {{2, 2}}, "rank 2");
  ExpectError("ij,jk->ik", {{2, 3}, {4, 5}}, "label 'j' has size 3");
  ExpectError("...i,...i->...", {{2, 3}, {4, 3}}, "do not broadcast");
}

}  // namespace
}  // namespace tgraph::einsum
