// The TF1 control-flow builders: how values from outside come into loops and branches, the
// pivot as a control input, nesting, closing in order, and the graph left usable on misuse.
#include "core/graph/control_flow_builder.h"

#include <gtest/gtest.h>

#include "tests/core/graph/graph_test_util.h"

namespace tgraph {
namespace {

using testing::BinarySpec;
using testing::Const;
using testing::MustAdd;
using testing::UnarySpec;

Output Add(Graph& g, Output a, Output b) { return MustAdd(g, BinarySpec("AddV2", a, b))->output(0); }
Output Less(Graph& g, Output a, Output b) { return MustAdd(g, BinarySpec("Less", a, b))->output(0); }

TEST(ControlFlowBuilderTest, OutsideValueEntersALoopOnceAsAConstant) {
  Graph g;
  Output x = Const(g, 2, "x")->output(0);
  Output zero = Const(g, 0, "zero")->output(0);
  auto w = WhileLoopBuilder::Start(g, {zero}, "", 10);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->SetCondition(Less(g, (*w)->cond_inputs()[0], x)).ok());
  Output i = (*w)->body_inputs()[0];
  Output a = Add(g, i, x);
  Output b = Add(g, a, x);
  // One Enter per value and loop, named after its first consumer (the condition's Less).
  const Operation* enter = a.op->input(1).op;
  EXPECT_EQ(b.op->input(1).op, enter);
  EXPECT_EQ(enter->type(), "Enter");
  EXPECT_EQ(enter->name(), "while/Less/Enter");
  EXPECT_TRUE(enter->FindAttr("is_constant")->b());
  EXPECT_EQ(enter->FindAttr("frame_name")->s(), "while/while_context");
  auto out = (*w)->Finish({b});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].op->name(), "while/Exit");
  EXPECT_EQ(g.build_context(), nullptr);
  EXPECT_EQ(g.name_scope(), "");
  // The loop is closed: Merge input 1 is the NextIteration.
  const Operation* merge = (*w)->cond_inputs()[0].op;
  EXPECT_EQ(merge->input(1).op->type(), "NextIteration");
}

TEST(ControlFlowBuilderTest, InputlessOpsGetThePivotAndOutsideControlInputsAreDropped) {
  Graph g;
  NodeSpec noop;
  noop.type = "NoOp";
  noop.name = "outside";
  Operation* outside = MustAdd(g, std::move(noop));
  Output zero = Const(g, 0, "zero")->output(0);
  auto w = WhileLoopBuilder::Start(g, {zero}, "loop", 10);
  ASSERT_TRUE(w.ok());
  Operation* limit = Const(g, 3, "limit");
  // In the condition the pivot is the Merge.
  ASSERT_EQ(limit->control_inputs().size(), 1u);
  EXPECT_EQ(limit->control_inputs()[0]->name(), "loop/Merge");
  ASSERT_TRUE((*w)->SetCondition(Less(g, (*w)->cond_inputs()[0], limit->output(0))).ok());
  NodeSpec one = testing::ConstSpec(testing::ScalarFloat(1), "one");
  one.control_inputs = {outside};  // a frame cannot see it
  Operation* c = MustAdd(g, std::move(one));
  ASSERT_EQ(c->control_inputs().size(), 1u);
  EXPECT_EQ(c->control_inputs()[0]->name(), "loop/Identity");  // the body's pivot
  ASSERT_TRUE((*w)->Finish({Add(g, (*w)->body_inputs()[0], c->output(0))}).ok());
}

TEST(ControlFlowBuilderTest, CondInsideALoopBringsAnOuterValueThroughEnterThenSwitch) {
  Graph g;
  Output x = Const(g, 5, "x")->output(0);
  Output zero = Const(g, 0, "zero")->output(0);
  auto w = WhileLoopBuilder::Start(g, {zero}, "", 10);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->SetCondition(Less(g, (*w)->cond_inputs()[0], Const(g, 3)->output(0))).ok());
  Output i = (*w)->body_inputs()[0];
  auto c = CondBuilder::Start(g, Less(g, i, Const(g, 1)->output(0)), "");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Output t = Add(g, i, x);  // x: outside both
  const Operation* sw = t.op->input(1).op;
  EXPECT_EQ(sw->type(), "Switch");
  EXPECT_EQ(t.op->input(1).index, 1);
  EXPECT_EQ(sw->input(0).op->type(), "Enter");  // entered the loop first
  EXPECT_EQ(sw->input(1).op->name(), "while/cond/pred_id");
  ASSERT_TRUE((*c)->Else({t}).ok());
  auto merged = (*c)->Finish({i});  // a loop value returned by the false branch: its Switch
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  const Operation* m = (*merged)[0].op;
  EXPECT_EQ(m->name(), "while/cond/Merge");
  EXPECT_EQ(m->input(0).op->type(), "Switch");
  EXPECT_EQ(m->input(0).index, 0);
  EXPECT_EQ(m->input(1), t);
  EXPECT_EQ(g.build_context(), w->get());
  ASSERT_TRUE((*w)->Finish({Add(g, i, (*merged)[0])}).ok());
  EXPECT_EQ(g.build_context(), nullptr);
}

TEST(ControlFlowBuilderTest, ClosingOutOfOrderIsAnError) {
  Graph g;
  Output zero = Const(g, 0, "zero")->output(0);
  auto w = WhileLoopBuilder::Start(g, {zero}, "", 10);
  ASSERT_TRUE(w.ok());
  auto c = CondBuilder::Start(g, Less(g, (*w)->cond_inputs()[0], zero), "");
  ASSERT_TRUE(c.ok());
  Status s = (*w)->SetCondition(Less(g, (*w)->cond_inputs()[0], zero));
  EXPECT_EQ(s.code(), Code::kFailedPrecondition);
  EXPECT_NE(s.message().find("still open"), std::string::npos) << s.ToString();
  (*c)->Abort();
  (*w)->Abort();
  EXPECT_EQ(g.build_context(), nullptr);
  EXPECT_EQ(g.name_scope(), "");
}

}  // namespace
}  // namespace tgraph
