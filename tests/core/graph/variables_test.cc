// The variable subgraph, initializers, variable scopes and get_variable reuse rules.
#include "core/graph/variables.h"

#include <gtest/gtest.h>

#include "tests/core/graph/graph_test_util.h"

namespace tgraph {
namespace {

using testing::Names;

VariableOptions Named(const std::string& name, bool trainable = true) {
  VariableOptions o;
  o.name = name;
  o.trainable = trainable;
  return o;
}

InitialValueFn ZerosOf(std::vector<int64_t> dims) {
  return [dims](Graph& g) -> StatusOr<Output> {
    NodeSpec spec = testing::ConstSpec(Tensor::Allocate(DT_FLOAT, dims).value(), "zeros");
    TG_ASSIGN_OR_RETURN(Operation * op, g.AddOperation(std::move(spec)));
    return op->output(0);
  };
}

TEST(VariablesTest, AVariableIsTheTensorFlowSubgraph) {
  Graph g;
  Variable* v = g.variables().CreateVariableFromTensor(testing::FloatMatrix(2, 3), Named("V")).value();
  std::vector<std::string> names;
  for (const auto& op : g.operations()) names.push_back(op->name() + "=" + op->type());
  EXPECT_EQ(names, (std::vector<std::string>{"V/initial_value=Const", "V=VariableV2",
                                             "V/Assign=Assign", "V/read=Identity"}));
  EXPECT_EQ(v->name, "V");
  EXPECT_EQ(v->TensorName(), "V:0");
  EXPECT_EQ(v->op->output_type(0), DT_FLOAT_REF);
  EXPECT_EQ(v->snapshot.dtype(), DT_FLOAT);
  EXPECT_EQ(v->snapshot.shape(), PartialShape({2, 3}));
  EXPECT_EQ(v->op->output_shape(0), PartialShape({2, 3}));
  EXPECT_EQ(v->initializer->name(), "V/Assign");
  // Assign and read live with the variable.
  EXPECT_EQ(v->initializer->ColocationGroups(), (std::vector<std::string>{"loc:@V"}));
  EXPECT_EQ(v->snapshot.op->ColocationGroups(), (std::vector<std::string>{"loc:@V"}));
}

TEST(VariablesTest, CollectionsAndTrainability) {
  Graph g;
  Variable* w = g.variables().CreateVariableFromTensor(testing::ScalarFloat(1), Named("w")).value();
  Variable* step = g.variables().CreateVariableFromTensor(testing::ScalarFloat(0), Named("step", false)).value();
  auto global = g.collections().Get(collection_keys::kGlobalVariables).value();
  auto trainable = g.collections().Get(collection_keys::kTrainableVariables).value();
  ASSERT_EQ(global.size(), 2u);
  EXPECT_EQ(global[0].variable, w);
  EXPECT_EQ(global[1].variable, step);
  ASSERT_EQ(trainable.size(), 1u);
  EXPECT_EQ(trainable[0].variable, w);
}

TEST(VariablesTest, GlobalVariablesInitializerIsInitNoOpOnEveryAssign) {
  Graph g;
  Variable* a = g.variables().CreateVariableFromTensor(testing::ScalarFloat(1), Named("a")).value();
  Variable* b = g.variables().CreateVariableFromTensor(testing::ScalarFloat(2), Named("b", false)).value();
  Operation* init = g.variables().GlobalVariablesInitializer().value();
  EXPECT_EQ(init->name(), "init");
  EXPECT_EQ(init->type(), "NoOp");
  EXPECT_EQ(Names(init->control_inputs()), (std::vector<std::string>{"a/Assign", "b/Assign"}));
  (void)a;
  (void)b;
  EXPECT_EQ(g.variables().GlobalVariablesInitializer().value()->name(), "init_1");
}

TEST(VariablesTest, NamesAreUniqueAndScoped) {
  Graph g;
  ASSERT_TRUE(g.PushNameScope("layer").ok());
  Variable* v1 = g.variables().CreateVariableFromTensor(testing::ScalarFloat(1), Named("W")).value();
  Variable* v2 = g.variables().CreateVariableFromTensor(testing::ScalarFloat(1), Named("W")).value();
  EXPECT_EQ(v1->name, "layer/W");
  EXPECT_EQ(v2->name, "layer/W_1");
  EXPECT_EQ(v2->initializer->name(), "layer/W_1/Assign");
}

TEST(VariablesTest, InitialValueNeedsAKnownShape) {
  Graph g;
  auto v = g.variables().CreateVariable(
      [](Graph& graph) -> StatusOr<Output> {
        NodeSpec ph;
        ph.type = "Placeholder";
        ph.name = std::string(1, 'p');  // not = "p": GCC 12 -O3 false -Wrestrict
        ph.attrs["dtype"] = AttrOfType(DT_FLOAT);
        TG_ASSIGN_OR_RETURN(Operation * op, graph.AddOperation(std::move(ph)));
        return op->output(0);
      },
      Named("V"));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kInvalidArgument);
  EXPECT_NE(v.status().message().find("V"), std::string::npos);
  EXPECT_EQ(g.name_scope(), "");  // the scope was closed again
}

TEST(VariableScopeTest, GetVariableUsesVariableScopeNotNameScope) {
  Graph g;
  ASSERT_TRUE(g.PushNameScope("ns").ok());
  ASSERT_EQ(g.variables().PushVariableScope("vs", VariableReuse::kInherit).value(), "ns/vs");
  Variable* v = g.variables().GetVariable("v", DT_FLOAT, PartialShape({2}), ZerosOf({2}), {}).value();
  EXPECT_EQ(v->name, "vs/v");
  EXPECT_EQ(v->initial_value.op->name(), "vs/v/Initializer/zeros");
  // Ops made in the variable scope get its name scope.
  EXPECT_EQ(testing::Const(g, 1, "c")->name(), "ns/vs/c");
  ASSERT_TRUE(g.variables().PopVariableScope().ok());
  EXPECT_EQ(g.name_scope(), "ns");
}

TEST(VariableScopeTest, ReuseFalseRefusesDuplicatesAndTrueRefusesMissing) {
  Graph g;
  ASSERT_TRUE(g.variables().PushVariableScope("s", VariableReuse::kFalse).ok());
  Variable* v = g.variables().GetVariable("v", DT_FLOAT, PartialShape({2}), ZerosOf({2}), {}).value();
  auto dup = g.variables().GetVariable("v", DT_FLOAT, PartialShape({2}), ZerosOf({2}), {});
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("Variable s/v already exists"), std::string::npos);
  ASSERT_TRUE(g.variables().PopVariableScope().ok());

  ASSERT_TRUE(g.variables().PushVariableScope("s", VariableReuse::kTrue).ok());
  EXPECT_EQ(g.variables().GetVariable("v", DT_FLOAT, PartialShape({2}), nullptr, {}).value(), v);
  auto missing = g.variables().GetVariable("w", DT_FLOAT, PartialShape({2}), ZerosOf({2}), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("Variable s/w does not exist"), std::string::npos);
  auto wrong_shape = g.variables().GetVariable("v", DT_FLOAT, PartialShape({3}), nullptr, {});
  EXPECT_EQ(wrong_shape.status().code(), Code::kInvalidArgument);
  // reuse=True is inherited, even when a sub-scope asks for False.
  ASSERT_TRUE(g.variables().PushVariableScope("inner", VariableReuse::kFalse).ok());
  EXPECT_EQ(g.variables().reuse(), VariableReuse::kTrue);
  ASSERT_TRUE(g.variables().PopVariableScope().ok());
  ASSERT_TRUE(g.variables().PopVariableScope().ok());
}

TEST(VariableScopeTest, AutoReuseGetsOrCreates) {
  Graph g;
  ASSERT_TRUE(g.variables().PushVariableScope("auto", VariableReuse::kAuto).ok());
  Variable* a = g.variables().GetVariable("v", DT_FLOAT, PartialShape({1}), ZerosOf({1}), {}).value();
  Variable* b = g.variables().GetVariable("v", DT_FLOAT, PartialShape({1}), ZerosOf({1}), {}).value();
  EXPECT_EQ(a, b);
  EXPECT_EQ(g.variables().all().size(), 1u);
  ASSERT_TRUE(g.variables().PopVariableScope().ok());
}

TEST(VariableScopeTest, ReopeningAVariableScopeSharesVariablesButNotNameScopes) {
  Graph g;
  ASSERT_EQ(g.variables().PushVariableScope("foo", VariableReuse::kInherit).value(), "foo");
  Variable* v = g.variables().GetVariable("v", DT_FLOAT, PartialShape({1}), ZerosOf({1}), {}).value();
  ASSERT_TRUE(g.variables().PopVariableScope().ok());
  ASSERT_EQ(g.variables().PushVariableScope("foo", VariableReuse::kTrue).value(), "foo_1");
  EXPECT_EQ(g.variables().GetVariable("v", DT_FLOAT, PartialShape({1}), nullptr, {}).value(), v);
  ASSERT_TRUE(g.variables().PopVariableScope().ok());
}

TEST(VariableScopeTest, NewVariablesNeedFullShapes) {
  Graph g;
  auto v = g.variables().GetVariable("v", DT_FLOAT, PartialShape({-1}), ZerosOf({1}), {});
  EXPECT_EQ(v.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(g.variables().PopVariableScope().code(), Code::kFailedPrecondition);
}

}  // namespace
}  // namespace tgraph
