// tf.summary's graph builders: names, tags, the tag Const, the "summaries" collection and
// merge / merge_all, as TensorFlow 1.x builds them.
#include "core/io/summary_ops.h"

#include <gtest/gtest.h>

#include "core/graph/graph.h"
#include "tests/core/graph/graph_test_util.h"

namespace tgraph::io {
namespace {

std::string TagOf(const Output& summary) {
  const Operation* tag = summary.op->input(0).op;
  EXPECT_EQ(tag->type(), "Const");
  return tag->constant_value()->strings()[0];
}

TEST(SummaryOpsTest, ScalarTakesItsScopeAsTagAndName) {
  Graph g;
  Operation* x = testing::Const(g, 1.5f, "x");
  auto a = AddScalarSummary(g, "loss", x->output(0));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->op->name(), "loss");
  EXPECT_EQ(a->op->type(), "ScalarSummary");
  EXPECT_EQ(a->op->input(0).op->name(), "loss/tags");
  EXPECT_EQ(TagOf(*a), "loss");
  EXPECT_EQ(a->dtype(), DT_STRING);
  EXPECT_EQ(a->shape().rank(), 0);
  auto b = AddScalarSummary(g, "loss", x->output(0));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->op->name(), "loss_1");
  EXPECT_EQ(TagOf(*b), "loss_1");
  ASSERT_TRUE(g.PushNameScope("train").ok());
  auto c = AddScalarSummary(g, "bad name!", x->output(0));
  ASSERT_TRUE(g.PopNameScope().ok());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(TagOf(*c), "train/bad_name_");
  EXPECT_EQ(g.name_scope(), "");

  auto items = g.collections().Get("summaries").value();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].tensor, *a);
  EXPECT_EQ(items[2].tensor, *c);
}

TEST(SummaryOpsTest, HistogramHoldsItsTagInATagConst) {
  Graph g;
  Operation* w = testing::MustAdd(g, testing::ConstSpec(testing::FloatMatrix(2, 3), "w"));
  auto h = AddHistogramSummary(g, "weights", w->output(0));
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->op->type(), "HistogramSummary");
  EXPECT_EQ(h->op->input(0).op->name(), "weights/tag");
  EXPECT_EQ(TagOf(*h), "weights");
}

TEST(SummaryOpsTest, MergeAllMergesTheCollectionOrNothing) {
  Graph g;
  auto none = AddMergeAllSummaries(g);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  Operation* x = testing::Const(g, 1.5f, "x");
  ASSERT_TRUE(AddScalarSummary(g, "a", x->output(0)).ok());
  ASSERT_TRUE(AddHistogramSummary(g, "b", x->output(0)).ok());
  auto merged = AddMergeAllSummaries(g);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_TRUE(merged->has_value());
  const Output m = **merged;
  EXPECT_EQ(m.op->name(), "Merge/MergeSummary");
  EXPECT_EQ(m.op->type(), "MergeSummary");
  ASSERT_EQ(m.op->num_inputs(), 2);
  EXPECT_EQ(m.op->input(0).op->name(), "a");
  EXPECT_EQ(m.op->input(1).op->name(), "b");
  // The merge is not a summary of its own.
  EXPECT_EQ(g.collections().Get("summaries").value().size(), 2u);
  auto named = AddMergeSummary(g, {m}, "all");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->op->name(), "all/all");
}

TEST(SummaryOpsTest, BadInputsAreInvalidArguments) {
  Graph g;
  Graph other;
  Operation* x = testing::Const(g, 1.5f, "x");
  Operation* y = testing::Const(other, 1.5f, "y");
  EXPECT_EQ(AddScalarSummary(g, "s", y->output(0)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(AddScalarSummary(g, "///", x->output(0)).status().code(), Code::kInvalidArgument);
  Status not_string = AddMergeSummary(g, {x->output(0)}).status();
  EXPECT_EQ(not_string.code(), Code::kInvalidArgument);
  EXPECT_NE(not_string.message().find("x:0"), std::string::npos) << not_string.message();
  EXPECT_EQ(AddMergeSummary(g, {}).status().code(), Code::kInvalidArgument);
  // A failed builder leaves no summary behind.
  EXPECT_TRUE(g.collections().Get("summaries").value().empty());
}

TEST(SummaryOpsTest, CleanTagAsTensorFlow) {
  EXPECT_EQ(CleanTag("a b:c/d-e.f_g"), "a_b_c/d-e.f_g");
  EXPECT_EQ(CleanTag("//lead"), "lead");
  EXPECT_EQ(CleanTag("/"), "");
}

}  // namespace
}  // namespace tgraph::io
