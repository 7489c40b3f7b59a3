// Name scopes and unique names (docs/ARCHITECTURE.md "Graph building": nesting, _1 on reuse,
// absolute re-entry with a trailing '/', reset with "").
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Name;
using tgtest::Out;

class NameScopeTest : public CApiTest {
 protected:
  void Push(const char* name) {
    TG_GraphPushNameScope(g_, name, s_);
    ASSERT_TRUE(tgtest::IsOk(s_)) << name;
  }
  void Pop() {
    TG_GraphPopNameScope(g_, s_);
    ASSERT_TRUE(tgtest::IsOk(s_));
  }
};

// tf.Graph.name_scope's docstring example, step by step.
TEST_F(NameScopeTest, TensorFlowDocstringExample) {
  EXPECT_EQ(Name(ScalarConst(5, "c")), "c");
  EXPECT_EQ(Name(ScalarConst(6, "c")), "c_1");

  Push("nested");
  std::string scope = Scope();
  EXPECT_EQ(scope, "nested");
  EXPECT_EQ(Name(ScalarConst(10, "c")), "nested/c");

  Push("inner");
  EXPECT_EQ(Name(ScalarConst(20, "c")), "nested/inner/c");
  Pop();

  Push("inner");
  EXPECT_EQ(Scope(), "nested/inner_1");
  EXPECT_EQ(Name(ScalarConst(30, "c")), "nested/inner_1/c");

  // Absolute re-entry of the captured scope "nested/".
  Push((scope + "/").c_str());
  EXPECT_EQ(Scope(), "nested");
  EXPECT_EQ(Name(ScalarConst(40, "d")), "nested/d");

  Push("");
  EXPECT_EQ(Scope(), "");
  EXPECT_EQ(Name(ScalarConst(50, "e")), "e");
  Pop();
  Pop();
  EXPECT_EQ(Scope(), "nested/inner_1");
  Pop();
  Pop();
  EXPECT_EQ(Scope(), "");
}

// Seed: name_scope('conv1') / ('conv2') with variables 'weights' and 'bias'.
TEST_F(NameScopeTest, ConvScopesNameVariables) {
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, nullptr, 0, 4);
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  Push("conv1");
  opts.name = "weights";
  TG_Variable* w1 = TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_ASSERT_OK(s_);
  opts.name = "bias";
  TG_Variable* b1 = TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_ASSERT_OK(s_);
  Pop();
  Push("conv2");
  opts.name = "weights";
  TG_Variable* w2 = TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_ASSERT_OK(s_);
  Pop();
  TG_DeleteTensor(t);
  EXPECT_STREQ(TG_VariableName(w1), "conv1/weights");
  EXPECT_STREQ(TG_VariableName(b1), "conv1/bias");
  EXPECT_STREQ(TG_VariableName(w2), "conv2/weights");
}

TEST_F(NameScopeTest, ReopeningAScopeUniquifiesIt) {
  Push("s");
  Pop();
  Push("s");
  EXPECT_EQ(Scope(), "s_1");
  Pop();
  Push("s");
  EXPECT_EQ(Scope(), "s_2");
  EXPECT_EQ(Name(NoOp()), "s_2/NoOp");
  Pop();
}

TEST_F(NameScopeTest, ScopeAndOpNamesShareOneNamespace) {
  EXPECT_EQ(Name(NoOp("x")), "x");
  Push("x");  // "x" is an op already
  EXPECT_EQ(Scope(), "x_1");
  Pop();
  Push("y");
  Pop();
  EXPECT_EQ(Name(NoOp("y")), "y_1");  // "y" is a scope already
}

TEST_F(NameScopeTest, ScopesNestThreeDeepAndDefaultNames) {
  Push("a");
  Push("b");
  Push("c");
  EXPECT_EQ(Name(ScalarConst(1)), "a/b/c/Const");
  EXPECT_EQ(Name(ScalarConst(1)), "a/b/c/Const_1");
  Pop();
  EXPECT_EQ(Name(ScalarConst(1)), "a/b/Const");
  Pop();
  Pop();
  EXPECT_EQ(Name(ScalarConst(1)), "Const");
}

TEST_F(NameScopeTest, AbsoluteReentryOfAnyPath) {
  Push("a");
  Push("b");
  Pop();
  Pop();
  Push("other");
  Push("a/b/");
  EXPECT_EQ(Scope(), "a/b");
  EXPECT_EQ(Name(NoOp("n")), "a/b/n");
  Pop();
  EXPECT_EQ(Scope(), "other");
  Pop();
}

TEST_F(NameScopeTest, NullResetsLikeEmpty) {
  Push("a");
  TG_GraphPushNameScope(g_, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Scope(), "");
  EXPECT_EQ(Name(NoOp("n")), "n");
  Pop();
  Pop();
}

TEST_F(NameScopeTest, OpsNamedWithSlashesKeepTheirPath) {
  Push("s");
  EXPECT_EQ(Name(NoOp("x/y")), "s/x/y");
  Pop();
}

TEST_F(NameScopeTest, PopWithoutPushFails) {
  TG_GraphPopNameScope(g_, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  TG_GraphPopNameScope(nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPushNameScope(nullptr, "a", s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphCurrentNameScope(nullptr), nullptr);
}

TEST_F(NameScopeTest, InvalidScopeNameIsRejected) {
  TG_GraphPushNameScope(g_, "bad scope!", s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("bad scope!"), std::string::npos) << msg();
  EXPECT_EQ(Scope(), "");
  // Nothing was pushed.
  TG_GraphPopNameScope(g_, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
}

TEST_F(NameScopeTest, UniqueName) {
  TG_Buffer* b = TG_NewBuffer();
  auto get = [&](const char* name, int mark) {
    TG_GraphUniqueName(g_, name, mark, b, s_);
    EXPECT_TRUE(tgtest::IsOk(s_));
    return std::string(static_cast<const char*>(b->data), b->length);
  };
  EXPECT_EQ(get("foo", 0), "foo");
  EXPECT_EQ(get("foo", 0), "foo");  // not reserved
  EXPECT_EQ(get("foo", 1), "foo");
  EXPECT_EQ(get("foo", 1), "foo_1");
  EXPECT_EQ(Name(NoOp("foo")), "foo_2");
  Push("s");
  EXPECT_EQ(get("bar", 1), "s/bar");
  Pop();
  TG_GraphUniqueName(g_, nullptr, 1, b, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphUniqueName(g_, "x", 1, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_DeleteBuffer(b);
}

TEST_F(NameScopeTest, GlobalVariablesInitializerNames) {
  // Seed: init, then init_1, then a = init_2.
  TG_Operation* i0 = TG_GraphGlobalVariablesInitializer(g_, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* i1 = TG_GraphGlobalVariablesInitializer(g_, s_);
  TG_Operation* i2 = TG_GraphGlobalVariablesInitializer(g_, s_);
  EXPECT_EQ(Name(i0), "init");
  EXPECT_EQ(Name(i1), "init_1");
  EXPECT_EQ(Name(i2), "init_2");
  EXPECT_STREQ(TG_OperationOpType(i2), "NoOp");
}

TEST_F(NameScopeTest, DataScopeForPlaceholders) {
  // Seed 000: with name_scope("data"): placeholders center_words / target_words.
  Push("data");
  TG_Operation* cw = Placeholder(TG_INT32, {128}, "center_words");
  TG_Operation* tw = Placeholder(TG_INT32, {128, 1}, "target_words");
  Pop();
  EXPECT_EQ(Name(cw), "data/center_words");
  EXPECT_EQ(Name(tw), "data/target_words");
  EXPECT_EQ(Shape(tw), (std::vector<int64_t>{128, 1}));
}

}  // namespace
