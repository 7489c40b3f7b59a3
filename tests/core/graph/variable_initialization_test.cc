// The graphs of initialized_value, is_variable_initialized and
// report_uninitialized_variables; variable_scope's initializer and dtype defaults and
// get_variable's default initializer (core/autodiff/initializers.h).
#include <gtest/gtest.h>

#include "core/autodiff/initializers.h"
#include "core/graph/graph.h"
#include "core/graph/graph_context_guard.h"
#include "core/graph/variables.h"
#include "core/ops/op_registry.h"
#include "tests/core/graph/graph_test_util.h"

namespace tgraph {
namespace {

VariableOptions Named(const std::string& name) {
  VariableOptions o;
  o.name = name;
  return o;
}

Operation* NoOp(Graph& g, const std::string& name) {
  NodeSpec spec;
  spec.type = "NoOp";
  spec.name = name;
  return testing::MustAdd(g, std::move(spec));
}

std::vector<std::string> ControlInputs(const Operation* op) {
  std::vector<std::string> names;
  for (const Operation* c : op->control_inputs()) names.push_back(c->name());
  return names;
}

TEST(VariableInitializationTest, InitializedValueReadsAfterTheInitializerOnly) {
  Graph g;
  Variable* v = g.variables().CreateVariableFromTensor(testing::ScalarFloat(1), Named("v")).value();
  Operation* gate = NoOp(g, "gate");
  GraphContextGuard guard(g);
  ASSERT_TRUE(guard.ControlDependencies({gate}).ok());
  ASSERT_TRUE(guard.NameScope("outer").ok());
  Output value = g.variables().InitializedValue(*v).value();
  EXPECT_EQ(value.op->name(), "outer/Identity");
  EXPECT_EQ(value.op->type(), "Identity");
  EXPECT_EQ(value.dtype(), DT_FLOAT);
  EXPECT_EQ(value.op->input(0).op, v->op);
  EXPECT_EQ(ControlInputs(value.op), std::vector<std::string>{"v/Assign"});
  // The control dependency frame is back for later ops.
  Operation* later = NoOp(g, "later");
  EXPECT_EQ(ControlInputs(later), std::vector<std::string>{"gate"});
}

TEST(VariableInitializationTest, ReportUninitializedVariablesIsTensorFlowsSubgraph) {
  Graph g;
  Variable* a = g.variables().CreateVariableFromTensor(testing::ScalarFloat(1), Named("a")).value();
  g.variables().CreateVariableFromTensor(testing::ScalarFloat(2), Named("b")).value();
  const int before = g.num_operations();
  Output names = g.variables().ReportUninitializedVariables(nullptr).value();
  EXPECT_EQ(names.dtype(), DT_STRING);
  std::vector<std::string> made;
  for (int i = before; i < g.num_operations(); ++i) {
    made.push_back(g.operation(i)->name() + "=" + g.operation(i)->type());
  }
  const std::string scope = "report_uninitialized_variables/";
  for (std::string& n : made) {
    if (n.rfind(scope, 0) == 0) n = n.substr(scope.size());  // else the mismatch shows
  }
  EXPECT_EQ(made, (std::vector<std::string>{
                      "IsVariableInitialized=IsVariableInitialized",
                      "IsVariableInitialized_1=IsVariableInitialized", "stack=Pack",
                      "LogicalNot=LogicalNot", "Const=Const", "boolean_mask/Where=Where",
                      "boolean_mask/Squeeze=Squeeze", "boolean_mask/GatherV2/axis=Const",
                      "boolean_mask/GatherV2=GatherV2"}));
  EXPECT_EQ(names.op->name(), "report_uninitialized_variables/boolean_mask/GatherV2");
  Output flag = g.variables().IsVariableInitialized(*a).value();
  EXPECT_EQ(flag.op->name(), "IsVariableInitialized");
  EXPECT_EQ(flag.dtype(), DT_BOOL);
  EXPECT_EQ(flag.op->registration().op_def.allows_uninitialized_input(), true);
}

TEST(VariableInitializationTest, ScopeDefaultsAreInheritedAndRestored) {
  Graph g;
  VariableStore& store = g.variables();
  InitializerSpec ones;
  ones.kind = InitializerKind::kOnes;
  VariableScopeOptions outer;
  outer.initializer = ScopeInitializer(ones);
  outer.dtype = DT_DOUBLE;
  ASSERT_TRUE(store.PushVariableScope("outer", outer).ok());
  EXPECT_EQ(DefaultGetVariableDtype(store), DT_DOUBLE);
  ASSERT_TRUE(store.PushVariableScope("inner", VariableScopeOptions{}).ok());
  EXPECT_EQ(store.scope_dtype(), DT_DOUBLE);
  ASSERT_TRUE(static_cast<bool>(store.scope_initializer()));
  Variable* v = store.GetVariable("v", DT_DOUBLE, PartialShape({2}),
                                  DefaultGetVariableInitializer(store, "v", DT_DOUBLE,
                                                                PartialShape({2})),
                                  {}).value();
  EXPECT_EQ(v->name, "outer/inner/v");
  EXPECT_EQ(v->initial_value.op->name(), "outer/inner/v/Initializer/ones");
  ASSERT_TRUE(store.PopVariableScope().ok());
  ASSERT_TRUE(store.PopVariableScope().ok());
  EXPECT_EQ(store.scope_dtype(), DT_INVALID);
  EXPECT_FALSE(static_cast<bool>(store.scope_initializer()));
  EXPECT_EQ(DefaultGetVariableDtype(store), DT_FLOAT);
}

TEST(VariableInitializationTest, DefaultInitializerByDtype) {
  Graph g;
  VariableStore& store = g.variables();
  Variable* w = store.GetVariable("w", DT_FLOAT, PartialShape({3, 2}),
                                  DefaultGetVariableInitializer(store, "w", DT_FLOAT,
                                                                PartialShape({3, 2})),
                                  {}).value();
  EXPECT_EQ(w->initial_value.op->name(), "w/Initializer/random_uniform");
  Variable* n = store.GetVariable("n", DT_INT64, PartialShape({2}),
                                  DefaultGetVariableInitializer(store, "n", DT_INT64,
                                                                PartialShape({2})),
                                  {}).value();
  EXPECT_EQ(n->initial_value.op->name(), "n/Initializer/zeros");
  auto text = store.GetVariable("text", DT_STRING, PartialShape({}),
                                DefaultGetVariableInitializer(store, "text", DT_STRING,
                                                              PartialShape({})),
                                {});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), Code::kInvalidArgument);
  EXPECT_NE(text.status().message().find("variable text"), std::string::npos)
      << text.status().ToString();
  EXPECT_EQ(store.FindByName("text"), nullptr);
}

}  // namespace
}  // namespace tgraph
