// Naming rules and name scopes (docs/ARCHITECTURE.md "Graph building").
#include <gtest/gtest.h>

#include "tests/core/graph/graph_test_util.h"

namespace tgraph {
namespace {

using testing::Const;

TEST(GraphNamesTest, DefaultNamesAreTheOpTypeMadeUnique) {
  Graph g;
  EXPECT_EQ(Const(g, 1)->name(), "Const");
  EXPECT_EQ(Const(g, 2)->name(), "Const_1");
  EXPECT_EQ(Const(g, 3)->name(), "Const_2");
}

TEST(GraphNamesTest, TakenExplicitNamesGetSuffixes) {
  Graph g;
  EXPECT_EQ(Const(g, 1, "a")->name(), "a");
  EXPECT_EQ(Const(g, 1, "a")->name(), "a_1");
  EXPECT_EQ(Const(g, 1, "a")->name(), "a_2");
  // "a_1" is already used, so an explicit "a_1" moves on too.
  EXPECT_EQ(Const(g, 1, "a_1")->name(), "a_1_1");
  // Names are compared case-insensitively, as TensorFlow does.
  EXPECT_EQ(Const(g, 1, "A")->name(), "A_3");
}

TEST(GraphNamesTest, TrailingSlashTakesTheNameExactly) {
  Graph g;
  EXPECT_EQ(Const(g, 1, "exact/")->name(), "exact");
  auto again = g.AddOperation(testing::ConstSpec(testing::ScalarFloat(1), "exact/"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kAlreadyExists);
  EXPECT_NE(again.status().message().find("exact"), std::string::npos);
}

TEST(GraphNamesTest, InvalidNamesAreRejected) {
  Graph g;
  for (const char* bad : {"_hidden", "a b", "-x", "a//b"}) {
    auto op = g.AddOperation(testing::ConstSpec(testing::ScalarFloat(1), bad));
    EXPECT_FALSE(op.ok()) << bad;
    EXPECT_EQ(op.status().code(), Code::kInvalidArgument) << bad;
  }
  EXPECT_EQ(g.num_operations(), 0);
}

TEST(GraphNamesTest, NameScopesNest) {
  Graph g;
  ASSERT_EQ(g.PushNameScope("nested").value(), "nested");
  ASSERT_EQ(g.PushNameScope("inner").value(), "nested/inner");
  EXPECT_EQ(Const(g, 1, "c")->name(), "nested/inner/c");
  ASSERT_TRUE(g.PopNameScope().ok());
  // Reopening a used scope gives a fresh one.
  ASSERT_EQ(g.PushNameScope("inner").value(), "nested/inner_1");
  EXPECT_EQ(Const(g, 1, "c")->name(), "nested/inner_1/c");
  ASSERT_TRUE(g.PopNameScope().ok());
  ASSERT_TRUE(g.PopNameScope().ok());
  EXPECT_EQ(g.name_scope(), "");
  EXPECT_EQ(Const(g, 1, "c")->name(), "c");
}

TEST(GraphNamesTest, TrailingSlashReentersAScopeAbsolutely) {
  Graph g;
  ASSERT_TRUE(g.PushNameScope("a").ok());
  ASSERT_TRUE(g.PushNameScope("b").ok());
  EXPECT_EQ(Const(g, 1, "x")->name(), "a/b/x");
  ASSERT_TRUE(g.PopNameScope().ok());
  ASSERT_TRUE(g.PopNameScope().ok());
  ASSERT_TRUE(g.PushNameScope("other").ok());
  ASSERT_EQ(g.PushNameScope("a/b/").value(), "a/b");
  EXPECT_EQ(Const(g, 1, "x")->name(), "a/b/x_1");
  ASSERT_TRUE(g.PopNameScope().ok());
  EXPECT_EQ(g.name_scope(), "other");
  ASSERT_TRUE(g.PopNameScope().ok());
}

TEST(GraphNamesTest, EmptyScopeResetsToTopLevel) {
  Graph g;
  ASSERT_TRUE(g.PushNameScope("outer").ok());
  ASSERT_EQ(g.PushNameScope("").value(), "");
  EXPECT_EQ(Const(g, 1, "top")->name(), "top");
  ASSERT_TRUE(g.PopNameScope().ok());
  EXPECT_EQ(Const(g, 1, "in")->name(), "outer/in");
  ASSERT_TRUE(g.PopNameScope().ok());
}

TEST(GraphNamesTest, ScopeNamesAndOpNamesShareTheNamespace) {
  Graph g;
  ASSERT_TRUE(g.PushNameScope("layer").ok());
  ASSERT_TRUE(g.PopNameScope().ok());
  // An op may not take the name of a used scope.
  EXPECT_EQ(Const(g, 1, "layer")->name(), "layer_1");
  EXPECT_EQ(g.PushNameScope("layer").value(), "layer_2");
}

TEST(GraphNamesTest, UnbalancedPopIsAnError) {
  Graph g;
  EXPECT_EQ(g.PopNameScope().code(), Code::kFailedPrecondition);
}

TEST(GraphNamesTest, LookupsByOpAndTensorName) {
  Graph g;
  Operation* c = Const(g, 1, "c");
  EXPECT_EQ(g.FindOperation("c"), c);
  EXPECT_EQ(g.FindOperation("nope"), nullptr);
  EXPECT_EQ(g.FindOutput("c").value(), c->output(0));
  EXPECT_EQ(g.FindOutput("c:0").value(), c->output(0));
  EXPECT_EQ(g.FindOutput("c:1").status().code(), Code::kOutOfRange);
  EXPECT_EQ(g.FindOutput("nope:0").status().code(), Code::kNotFound);
  EXPECT_EQ(g.FindOutput("c:x").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(c->output(0).Name(), "c:0");
}

TEST(GraphNamesTest, IterationIsInCreationOrder) {
  Graph g;
  Const(g, 1, "z");
  Const(g, 1, "a");
  Const(g, 1, "m");
  std::vector<std::string> names;
  for (const auto& op : g.operations()) names.push_back(op->name());
  EXPECT_EQ(names, (std::vector<std::string>{"z", "a", "m"}));
  EXPECT_EQ(g.operation(1)->name(), "a");
  EXPECT_EQ(g.operation(1)->id(), 1);
}

}  // namespace
}  // namespace tgraph
