#include "core/graph/collections.h"

#include <gtest/gtest.h>

#include "core/graph/variables.h"
#include "tests/core/graph/graph_test_util.h"

namespace tgraph {
namespace {

TEST(CollectionsTest, AnyKeyKeepsInsertionOrderAndMixedItems) {
  Graph g;
  Operation* a = testing::Const(g, 1, "a");
  ASSERT_TRUE(g.AddToCollection("my_key", CollectionItem::OfOperation(a)).ok());
  ASSERT_TRUE(g.AddToCollection("my_key", CollectionItem::OfTensor(a->output(0))).ok());
  ASSERT_TRUE(g.AddToCollection("my_key", CollectionItem::OfBytes("raw")).ok());
  ASSERT_TRUE(g.AddToCollection("my_key", CollectionItem::OfInt64(7)).ok());
  ASSERT_TRUE(g.AddToCollection(collection_keys::kLosses, CollectionItem::OfFloat(0.5f)).ok());
  auto items = g.collections().Get("my_key").value();
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].op, a);
  EXPECT_EQ(items[1].tensor, a->output(0));
  EXPECT_EQ(items[2].bytes, "raw");
  EXPECT_EQ(items[3].int64_value, 7);
  EXPECT_EQ(g.collections().Keys(), (std::vector<std::string>{"losses", "my_key"}));
  EXPECT_TRUE(g.collections().Get("absent").value().empty());
  g.collections().Clear("my_key");
  EXPECT_TRUE(g.collections().Get("my_key").value().empty());
}

TEST(CollectionsTest, ScopeFilterMatchesNamesFromTheStart) {
  Graph g;
  ASSERT_TRUE(g.PushNameScope("enc").ok());
  Operation* e = testing::Const(g, 1, "w");
  ASSERT_TRUE(g.PopNameScope().ok());
  ASSERT_TRUE(g.PushNameScope("dec").ok());
  Operation* d = testing::Const(g, 1, "w");
  Operation* nested = testing::Const(g, 1, "enc");
  ASSERT_TRUE(g.PopNameScope().ok());
  for (Operation* op : {e, d, nested}) {
    ASSERT_TRUE(g.AddToCollection("weights", CollectionItem::OfOperation(op)).ok());
  }
  ASSERT_TRUE(g.AddToCollection("weights", CollectionItem::OfInt64(3)).ok());
  auto enc = g.collections().Get("weights", "enc").value();
  ASSERT_EQ(enc.size(), 1u);
  EXPECT_EQ(enc[0].op, e);
  EXPECT_EQ(g.collections().Get("weights", "dec/").value().size(), 2u);
  EXPECT_EQ(g.collections().Get("weights", "(enc|dec)/w").value().size(), 2u);
  EXPECT_EQ(g.collections().Get("weights", "(").status().code(), Code::kInvalidArgument);
}

TEST(CollectionsTest, VariableItemsAreNamedByTheirTensor) {
  Graph g;
  VariableOptions o;
  o.name = "scope/v";
  Variable* v = g.variables().CreateVariableFromTensor(testing::ScalarFloat(1), o).value();
  auto found = g.collections().Get(collection_keys::kGlobalVariables, "scope").value();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].variable, v);
  EXPECT_EQ(found[0].Name(), "scope/v:0");
  EXPECT_TRUE(g.collections().Get(collection_keys::kGlobalVariables, "other").value().empty());
}

}  // namespace
}  // namespace tgraph
