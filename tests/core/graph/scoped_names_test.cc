// Moving names in and out of a scope (TF's strip_name_scope / prepend_name_scope).
#include "core/graph/scoped_names.h"

#include <gtest/gtest.h>

namespace tgraph {
namespace {

TEST(ScopedNamesTest, NodeNameOfEveryForm) {
  EXPECT_EQ(NodeNameOf("a/b"), "a/b");
  EXPECT_EQ(NodeNameOf("a/b:1"), "a/b");
  EXPECT_EQ(NodeNameOf("^a/b"), "a/b");
  EXPECT_EQ(NodeNameOf("loc:@a/b"), "a/b");
}

TEST(ScopedNamesTest, InScopeMeansTheScopeOrUnderIt) {
  EXPECT_TRUE(IsInScope("s", "s"));
  EXPECT_TRUE(IsInScope("s/x:0", "s"));
  EXPECT_TRUE(IsInScope("^s/x", "s"));
  EXPECT_FALSE(IsInScope("s_other/x", "s"));
  EXPECT_FALSE(IsInScope("x", "s"));
  EXPECT_TRUE(IsInScope("x", ""));
}

TEST(ScopedNamesTest, StripAndPrependAreInverse) {
  for (const char* name : {"x", "x:1", "^x", "loc:@x", "a/b:0"}) {
    EXPECT_EQ(StripScope(PrependScope(name, "s/t"), "s/t"), name);
  }
  EXPECT_EQ(PrependScope("^x", "s"), "^s/x");
  EXPECT_EQ(PrependScope("loc:@x", "s"), "loc:@s/x");
  EXPECT_EQ(StripScope("other/x", "s"), "other/x");
  EXPECT_EQ(PrependScope("x:0", ""), "x:0");
}

}  // namespace
}  // namespace tgraph
