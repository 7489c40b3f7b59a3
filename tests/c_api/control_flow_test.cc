// TF1 dataflow control flow through the C API: TG_NewCond / TG_NewWhile build the node
// pattern, sessions run it (dead branches, frames, iterations), and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "session_test_util.h"

namespace tgtest {
namespace {

class ControlFlowTest : public SessionTest {
 protected:
  TensorPtr BoolScalar(bool v) { return MakeTensor<uint8_t>(TG_BOOL, {}, {static_cast<uint8_t>(v ? 1 : 0)}); }

  TG_Operation* Bool(bool v, const char* name = nullptr) {
    TensorPtr t = BoolScalar(v);
    return ConstOf(g_, t.get(), name);
  }
  TG_Output Add(TG_Output a, TG_Output b) { return Out(OpOf("AddV2", {a, b})); }
  TG_Output Mul(TG_Output a, TG_Output b) { return Out(OpOf("Mul", {a, b})); }
  TG_Output Less(TG_Output a, TG_Output b) { return Out(OpOf("Less", {a, b})); }
  TG_Output Const(float v) { return Out(ScalarConst(v)); }

  // while (i <= n) { acc *= i; i += 1 } over (i = 1, acc = 1): n! in acc.
  TG_Output Factorial(TG_Output n, const char* name = nullptr) {
    TG_Output init[2] = {Const(1), Const(1)};
    TG_While* w = TG_NewWhile(g_, init, 2, name, 10, s_);
    EXPECT_TRUE(IsOk(s_));
    if (w == nullptr) return TG_Output{nullptr, 0};
    TG_WhileSetCond(w, Out(OpOf("LessEqual", {TG_WhileCondInput(w, 0), n})), s_);
    EXPECT_TRUE(IsOk(s_));
    TG_Output i = TG_WhileBodyInput(w, 0), acc = TG_WhileBodyInput(w, 1);
    TG_Output next[2] = {Add(i, Const(1)), Mul(acc, i)};
    TG_Output out[2];
    TG_FinishWhile(w, next, out, s_);
    EXPECT_TRUE(IsOk(s_));
    return out[1];
  }

  float RunScalar(TG_Session* session, TG_Output fetch, const Feeds& feeds = {}) {
    std::vector<float> got = RunFloats(session, fetch, feeds);
    EXPECT_TRUE(IsOk(s_)) << Message(s_);
    return got.size() == 1 ? got[0] : -12345.0f;
  }
};

TEST_F(ControlFlowTest, CondNodesAreNamedAsTensorFlowNamesThem) {
  TG_Operation* pred = Bool(true, "p");
  TG_Output x = Const(3);
  TG_Cond* c = TG_NewCond(g_, Out(pred), nullptr, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output t = Add(x, Const(1));
  TG_CondElse(c, &t, 1, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output f = Mul(x, Const(2));
  TG_Output merged;
  TG_FinishCond(c, &f, 1, &merged, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(Name(merged.oper), "cond/Merge");
  for (const char* name : {"cond/Switch", "cond/switch_t", "cond/switch_f", "cond/pred_id", "cond/AddV2/Switch",
                           "cond/Mul/Switch"}) {
    EXPECT_NE(TG_GraphOperationByName(g_, name), nullptr) << name;
  }
  // The branch constants run under the branch's pivot.
  TG_Operation* one = TG_GraphOperationByName(g_, "cond/Const");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(ControlInputNames(one), std::vector<std::string>{"cond/switch_t"});
  TG_Session* session = NewSession();
  EXPECT_EQ(RunScalar(session, merged), 4.0f);
}

TEST_F(ControlFlowTest, UntakenBranchStatefulOpDoesNotRun) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* init = Init();
  TG_Operation* pred = Placeholder(TG_BOOL, {}, "pred");
  TG_Cond* c = TG_NewCond(g_, Out(pred), "cond", s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Operation* add = Update("AssignAdd", v, Const(1), "add");
  TG_Output t = Out(Identity(add));
  TG_CondElse(c, &t, 1, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Output f = Const(-1);
  TG_Output merged;
  TG_FinishCond(c, &f, 1, &merged, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);

  TG_Session* session = NewSession();
  RunTargets(session, {init});
  ASSERT_TRUE(IsOk(s_));
  TensorPtr no = BoolScalar(false), yes = BoolScalar(true);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(RunScalar(session, merged, {{Out(pred), no.get()}}), -1.0f);
  EXPECT_EQ(ScalarValue(session, v), 0.0f);  // AssignAdd never ran
  EXPECT_EQ(RunScalar(session, merged, {{Out(pred), yes.get()}}), 1.0f);
  EXPECT_EQ(RunScalar(session, merged, {{Out(pred), yes.get()}}), 2.0f);
  EXPECT_EQ(ScalarValue(session, v), 2.0f);
}

// An op in the body fed only by loop invariants (here the variable and an outside constant,
// both brought in by constant Enters) runs once per iteration, as in TensorFlow: it gets the
// body's pivot as a control input, so it does not run again in the iteration that exits.
TEST_F(ControlFlowTest, BodyOpOnLoopInvariantsRunsOncePerIteration) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* init = Init();
  TG_Output step = Const(2.5f);
  TG_Output zero = Const(0);
  TG_While* w = TG_NewWhile(g_, &zero, 1, "loop", 10, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(4)), s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Operation* bump = Update("AssignAdd", v, step, "bump");
  EXPECT_EQ(ControlInputNames(bump), std::vector<std::string>{"loop/Identity"});
  TG_Output next = Add(TG_WhileBodyInput(w, 0), Const(1));
  TG_Operation* after = OpOf("AddV2", {next, Out(Identity(bump))});
  TG_Output next_value = Out(after);
  TG_Output out;
  TG_FinishWhile(w, &next_value, &out, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  RunTargets(session, {init});
  ASSERT_TRUE(IsOk(s_));
  RunScalar(session, out);
  EXPECT_EQ(ScalarValue(session, v), 2.5f * 2);  // i: 0 -> 3.5 -> 9.5: two iterations
}

TEST_F(ControlFlowTest, FetchingADeadTensorIsAnError) {
  TG_Operation* pred = Placeholder(TG_BOOL, {}, "pred");
  TG_Cond* c = TG_NewCond(g_, Out(pred), "cond", s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output t = Add(Const(1), Const(2));
  TG_CondElse(c, &t, 1, s_);
  TG_Output f = Const(0);
  TG_Output merged;
  TG_FinishCond(c, &f, 1, &merged, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  TensorPtr no = BoolScalar(false);
  Run(session, {{Out(pred), no.get()}}, {t, merged});
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "Retval[0] does not have value")) << Message(s_);
  EXPECT_TRUE(Contains(Message(s_), "'cond/AddV2:0'")) << Message(s_);
  // The same plan runs live when the branch is taken.
  TensorPtr yes = BoolScalar(true);
  std::vector<TensorPtr> out = Run(session, {{Out(pred), yes.get()}}, {t, merged});
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(Floats(out[0].get()), std::vector<float>{3});
  EXPECT_EQ(Floats(out[1].get()), std::vector<float>{3});
}

TEST_F(ControlFlowTest, UnfedPlaceholderInUntakenBranchIsNotNeeded) {
  TG_Operation* pred = Placeholder(TG_BOOL, {}, "pred");
  TG_Cond* c = TG_NewCond(g_, Out(pred), "cond", s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");  // inside the true branch
  TG_Output t = Add(Out(x), Const(1));
  TG_CondElse(c, &t, 1, s_);
  TG_Output f = Const(7);
  TG_Output merged;
  TG_FinishCond(c, &f, 1, &merged, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  TensorPtr no = BoolScalar(false), yes = BoolScalar(true), five = FloatScalar(5);
  EXPECT_EQ(RunScalar(session, merged, {{Out(pred), no.get()}}), 7.0f);
  EXPECT_EQ(RunScalar(session, merged, {{Out(pred), yes.get()}, {Out(x), five.get()}}), 6.0f);
  // Taken but not fed: the placeholder's own error.
  RunFloats(session, merged, {{Out(pred), yes.get()}});
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "You must feed a value for placeholder tensor 'cond/x'")) << Message(s_);
}

TEST_F(ControlFlowTest, WhileLoopComputesAFactorial) {
  TG_Operation* n = Placeholder(TG_FLOAT, {}, "n");
  TG_Output fact = Factorial(Out(n));
  ASSERT_NE(fact.oper, nullptr);
  EXPECT_EQ(Name(fact.oper), "while/Exit_1");
  for (const char* name : {"while/Enter", "while/Enter_1", "while/Merge", "while/Merge_1", "while/LoopCond",
                           "while/Switch", "while/Switch_1", "while/Identity", "while/Identity_1",
                           "while/NextIteration", "while/NextIteration_1", "while/Exit"}) {
    EXPECT_NE(TG_GraphOperationByName(g_, name), nullptr) << name;
  }
  EXPECT_EQ(StringAttr(TG_GraphOperationByName(g_, "while/Enter"), "frame_name"), "while/while_context");
  EXPECT_NE(TG_GraphOperationByName(g_, "while/LessEqual/Enter"), nullptr);  // n, a loop invariant
  TG_Session* session = NewSession();
  for (auto [k, expect] : std::vector<std::pair<float, float>>{{5, 120}, {0, 1}, {1, 1}, {10, 3628800}}) {
    TensorPtr nv = FloatScalar(k);
    EXPECT_EQ(RunScalar(session, fact, {{Out(n), nv.get()}}), expect) << k;
  }
}

TEST_F(ControlFlowTest, StatefulBodyWithAControlDependencyInsideTheFrame) {
  // A loop (one iteration at a time) whose body updates a variable brought in as a ref.
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* init = Init();
  TG_Output start = Const(0);
  TG_While* w = TG_NewWhile(g_, &start, 1, "loop", 1, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(5)), s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Operation* add = Update("AssignAdd", v, TG_WhileBodyInput(w, 0), "acc");
  // The next value waits for the update (a control dependency inside the frame).
  TG_OperationDescription* d = TG_NewOperation(g_, "AddV2", "next");
  TG_AddInput(d, TG_WhileBodyInput(w, 0));
  TG_AddInput(d, Const(1));
  TG_AddControlInput(d, add);
  TG_Operation* next = TG_FinishOperation(d, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Output nx = Out(next), out;
  TG_FinishWhile(w, &nx, &out, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  RunTargets(session, {init});
  EXPECT_EQ(RunScalar(session, out), 5.0f);
  EXPECT_EQ(ScalarValue(session, v), 0 + 1 + 2 + 3 + 4.0f);
  EXPECT_EQ(RunScalar(session, out), 5.0f);
  EXPECT_EQ(ScalarValue(session, v), 20.0f);
}

TEST_F(ControlFlowTest, NestedLoops) {
  // for i in range(3): for j in range(4): total += i
  TG_Output init[2] = {Const(0), Const(0)};
  TG_While* outer = TG_NewWhile(g_, init, 2, "outer", 10, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(outer, Less(TG_WhileCondInput(outer, 0), Const(3)), s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output i = TG_WhileBodyInput(outer, 0);
  TG_Output inner_init[2] = {Const(0), TG_WhileBodyInput(outer, 1)};
  TG_While* inner = TG_NewWhile(g_, inner_init, 2, "inner", 10, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_WhileSetCond(inner, Less(TG_WhileCondInput(inner, 0), Const(4)), s_);
  ASSERT_TRUE(IsOk(s_));
  // `i` comes from the outer loop: it enters the inner frame as a loop invariant.
  TG_Output inner_next[2] = {Add(TG_WhileBodyInput(inner, 0), Const(1)), Add(TG_WhileBodyInput(inner, 1), i)};
  TG_Output inner_out[2];
  TG_FinishWhile(inner, inner_next, inner_out, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(Name(inner_out[0].oper), "outer/inner/Exit");
  TG_Output outer_next[2] = {Add(i, Const(1)), inner_out[1]};
  TG_Output outer_out[2];
  TG_FinishWhile(outer, outer_next, outer_out, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  std::vector<TensorPtr> out = Run(session, {}, {outer_out[0], outer_out[1]});
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(Floats(out[0].get()), std::vector<float>{3});
  EXPECT_EQ(Floats(out[1].get()), std::vector<float>{(0 + 1 + 2) * 4});
}

TEST_F(ControlFlowTest, LoopInsideCond) {
  TG_Operation* pred = Placeholder(TG_BOOL, {}, "pred");
  TG_Operation* n = Placeholder(TG_FLOAT, {}, "n");
  TG_Cond* c = TG_NewCond(g_, Out(pred), "cond", s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output t = Factorial(Out(n));
  ASSERT_NE(t.oper, nullptr);
  EXPECT_EQ(Name(t.oper), "cond/while/Exit_1");
  TG_CondElse(c, &t, 1, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Output f = Const(-1);
  TG_Output merged;
  TG_FinishCond(c, &f, 1, &merged, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  TensorPtr yes = BoolScalar(true), no = BoolScalar(false), five = FloatScalar(5);
  EXPECT_EQ(RunScalar(session, merged, {{Out(pred), yes.get()}, {Out(n), five.get()}}), 120.0f);
  EXPECT_EQ(RunScalar(session, merged, {{Out(pred), no.get()}, {Out(n), five.get()}}), -1.0f);
  EXPECT_EQ(RunScalar(session, merged, {{Out(pred), yes.get()}, {Out(n), five.get()}}), 120.0f);
}

TEST_F(ControlFlowTest, CondInsideLoop) {
  // sum over i in range(5) of (i < 2.5 ? 10 * i : i) = 0 + 10 + 20 + 3 + 4
  TG_Output init[2] = {Const(0), Const(0)};
  TG_While* w = TG_NewWhile(g_, init, 2, nullptr, 10, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(5)), s_);
  TG_Output i = TG_WhileBodyInput(w, 0);
  TG_Cond* c = TG_NewCond(g_, Less(i, Const(2.5f)), "cond", s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Output t = Mul(i, Const(10));
  TG_CondElse(c, &t, 1, s_);
  TG_Output f = i;
  TG_Output merged;
  TG_FinishCond(c, &f, 1, &merged, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(Name(merged.oper), "while/cond/Merge");
  TG_Output next[2] = {Add(i, Const(1)), Add(TG_WhileBodyInput(w, 1), merged)};
  TG_Output out[2];
  TG_FinishWhile(w, next, out, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  EXPECT_EQ(RunScalar(session, out[1]), 37.0f);
}

TEST_F(ControlFlowTest, LoopUsesAnOutsideValueAsLoopInvariant) {
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");
  TG_Output init[2] = {Const(0), Const(0)};
  TG_While* w = TG_NewWhile(g_, init, 2, nullptr, 10, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(3)), s_);
  TG_Output next[2] = {Add(TG_WhileBodyInput(w, 0), Const(1)), Add(TG_WhileBodyInput(w, 1), Out(x))};
  TG_Output out[2];
  TG_FinishWhile(w, next, out, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  TensorPtr two = FloatScalar(2.5f);
  EXPECT_EQ(RunScalar(session, out[1], {{Out(x), two.get()}}), 7.5f);
}

TEST_F(ControlFlowTest, FetchInsideALoopIsRejected) {
  TG_Output start = Const(0);
  TG_While* w = TG_NewWhile(g_, &start, 1, nullptr, 10, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(3)), s_);
  TG_Output body = Add(TG_WhileBodyInput(w, 0), Const(1)), out;
  TG_FinishWhile(w, &body, &out, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Session* session = NewSession();
  RunFloats(session, body);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "while-loop frame 'while/while_context'")) << Message(s_);
}

TEST_F(ControlFlowTest, RealCycleIsStillRejected) {
  // a = Identity(x); b = Identity(a); then a's input becomes b: a cycle without NextIteration.
  TG_Operation* x = ScalarConst(1, "x");
  TG_Operation* a = Identity(x, "a");
  TG_Operation* b = Identity(a, "b");
  TG_UpdateEdge(g_, Out(b), TG_Input{a, 0}, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  RunFloats(session, Out(b));
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "cycle")) << Message(s_);
  EXPECT_TRUE(Contains(Message(s_), "'a'")) << Message(s_);
  EXPECT_TRUE(Contains(Message(s_), "'b'")) << Message(s_);
}

// Export, import into a fresh graph (no prefix, TF's default): the importer closes the
// loop's back edges.
TEST_F(ControlFlowTest, ExportedLoopImportsAndRuns) {
  TG_Operation* n = Placeholder(TG_FLOAT, {}, "n");
  TG_Output fact = Factorial(Out(n));
  ASSERT_NE(fact.oper, nullptr);
  TG_Buffer* def = TG_NewBuffer();
  TG_GraphToGraphDef(g_, def, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Graph* g2 = TG_NewGraph();
  TG_GraphImportGraphDef(g2, def, nullptr, s_);
  TG_DeleteBuffer(def);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Operation* merge = TG_GraphOperationByName(g2, "while/Merge_1");
  ASSERT_NE(merge, nullptr);
  EXPECT_EQ(Name(TG_OperationInput(TG_Input{merge, 1}).oper), "while/NextIteration_1");
  TG_Session* session = TG_NewSession(g2, nullptr, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output in = {TG_GraphOperationByName(g2, "n"), 0};
  TG_Output out = {TG_GraphOperationByName(g2, "while/Exit_1"), 0};
  TensorPtr six = FloatScalar(6);
  TG_Tensor* value = six.get();
  TG_Tensor* result = nullptr;
  TG_SessionRun(session, nullptr, &in, &value, 1, &out, &result, 1, nullptr, 0, nullptr, s_);
  EXPECT_TRUE(IsOk(s_)) << Message(s_);
  if (result != nullptr) {
    EXPECT_EQ(Floats(result), std::vector<float>{720});
    TG_DeleteTensor(result);
  }
  TG_DeleteSession(session, s_);
  TG_DeleteGraph(g2);
}

TEST_F(ControlFlowTest, GraphDefWithARealCycleIsRejectedOnImport) {
  TG_Operation* x = ScalarConst(1, "x");
  TG_Operation* a = Identity(x, "a");
  TG_Operation* b = Identity(a, "b");
  TG_UpdateEdge(g_, Out(b), TG_Input{a, 0}, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Buffer* def = TG_NewBuffer();
  TG_GraphToGraphDef(g_, def, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Graph* g2 = TG_NewGraph();
  TG_GraphImportGraphDef(g2, def, nullptr, s_);
  TG_DeleteBuffer(def);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "cycle")) << Message(s_);
  TG_DeleteGraph(g2);
}

// d/dx cond(p, x * x, 3 * x) and cond(p, 2 * x, 5): the gradient follows the taken branch;
// a branch that does not use x gives 0.
TEST_F(ControlFlowTest, GradientThroughCond) {
  TG_Operation* pred = Placeholder(TG_BOOL, {}, "pred");
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");
  TG_Cond* c = TG_NewCond(g_, Out(pred), "c1", s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output t = Mul(Out(x), Out(x));
  TG_CondElse(c, &t, 1, s_);
  TG_Output f = Mul(Const(3), Out(x));
  TG_Output y1;
  TG_FinishCond(c, &f, 1, &y1, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  c = TG_NewCond(g_, Out(pred), "c2", s_);
  ASSERT_TRUE(IsOk(s_));
  t = Mul(Const(2), Out(x));
  TG_CondElse(c, &t, 1, s_);
  f = Const(5);
  TG_Output y2;
  TG_FinishCond(c, &f, 1, &y2, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);

  TG_Output xs = Out(x), dy[2];
  TG_AddGradients(g_, &y1, 1, &xs, 1, nullptr, s_, &dy[0]);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_AddGradients(g_, &y2, 1, &xs, 1, nullptr, s_, &dy[1]);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  TensorPtr two = FloatScalar(2), yes = BoolScalar(true), no = BoolScalar(false);
  std::vector<TensorPtr> out = Run(session, {{Out(pred), yes.get()}, {Out(x), two.get()}}, {dy[0], dy[1]});
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(Floats(out[0].get()), std::vector<float>{4});
  EXPECT_EQ(Floats(out[1].get()), std::vector<float>{2});
  out = Run(session, {{Out(pred), no.get()}, {Out(x), two.get()}}, {dy[0], dy[1]});
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(Floats(out[0].get()), std::vector<float>{3});
  EXPECT_EQ(Floats(out[1].get()), std::vector<float>{0});
}

// The gradient of a loop: p = n * 2 in each of two iterations, y = 4n, dy/dn = 4; the
// backward loop reads each iteration's forward values back off stacks.
TEST_F(ControlFlowTest, GradientThroughALoop) {
  TG_Operation* n = Placeholder(TG_FLOAT, {}, "n");
  TG_Output init[2] = {Const(1), Out(n)};
  TG_While* w = TG_NewWhile(g_, init, 2, nullptr, 10, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(3)), s_);
  TG_Output p = TG_WhileBodyInput(w, 1);
  TG_Output next[2] = {Add(TG_WhileBodyInput(w, 0), Const(1)), Mul(Mul(p, p), Const(2))};
  TG_Output out[2];
  TG_FinishWhile(w, next, out, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output xs = Out(n), dy;
  TG_AddGradients(g_, &out[1], 1, &xs, 1, nullptr, s_, &dy);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  // y = 2 (2 n^2)^2 = 8 n^4, dy/dn = 32 n^3.
  TG_Session* session = NewSession();
  TensorPtr half = FloatScalar(0.5);
  std::vector<TensorPtr> got = Run(session, {{Out(n), half.get()}}, {out[1], dy});
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(Floats(got[0].get()), std::vector<float>{0.5f});
  EXPECT_EQ(Floats(got[1].get()), std::vector<float>{4.0f});
}

// A loop whose body holds a cond: p -> p < 10 ? 2p : p + 1, twice. From n = 3 both
// iterations double (dy/dn = 4); from n = 6 the second adds (dy/dn = 2). The backward loop
// pops the predicate and the taken branch's values per iteration (while_grad_test.cc
// checks more against finite differences).
TEST_F(ControlFlowTest, GradientThroughALoopWithACond) {
  TG_Operation* n = Placeholder(TG_FLOAT, {}, "n");
  TG_Output init[2] = {Const(1), Out(n)};
  TG_While* w = TG_NewWhile(g_, init, 2, nullptr, 10, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(3)), s_);
  TG_Output p = TG_WhileBodyInput(w, 1);
  TG_Cond* c = TG_NewCond(g_, Less(p, Const(10)), "pick", s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Output t = Mul(p, Const(2));
  TG_CondElse(c, &t, 1, s_);
  TG_Output f = Add(p, Const(1));
  TG_Output merged;
  TG_FinishCond(c, &f, 1, &merged, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Output next[2] = {Add(TG_WhileBodyInput(w, 0), Const(1)), merged};
  TG_Output out[2];
  TG_FinishWhile(w, next, out, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output xs = Out(n), dy;
  TG_AddGradients(g_, &out[1], 1, &xs, 1, nullptr, s_, &dy);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  for (auto [from, y, grad] : {std::tuple{3.0f, 12.0f, 4.0f}, {6.0f, 13.0f, 2.0f}, {11.0f, 13.0f, 1.0f}}) {
    TensorPtr v = FloatScalar(from);
    std::vector<TensorPtr> got = Run(session, {{Out(n), v.get()}}, {out[1], dy});
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    EXPECT_EQ(Floats(got[0].get()), std::vector<float>{y}) << from;
    EXPECT_EQ(Floats(got[1].get()), std::vector<float>{grad}) << from;
  }
}

// parallel_iterations bounds the iterations in flight: with 1, iteration k + 1's Merges run
// only after every op of iteration k; with 10 the next iteration starts as soon as one of
// iteration k's NextIterations fires. Either way, the same values.
TEST_F(ControlFlowTest, ParallelIterationsBoundsIterationsInFlight) {
  for (int parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    TG_DeleteGraph(g_);
    for (TG_Session* s : sessions_) TG_DeleteSession(s, nullptr);
    sessions_.clear();
    g_ = TG_NewGraph();
    TG_Output init[2] = {Const(0), Const(0)};
    TG_While* w = TG_NewWhile(g_, init, 2, nullptr, parallel, s_);
    ASSERT_TRUE(IsOk(s_));
    TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(4)), s_);
    TG_Output acc = TG_WhileBodyInput(w, 1);
    for (int k = 0; k < 5; ++k) acc = Out(OpOf("Identity", {acc}));
    TG_Output next[2] = {Add(TG_WhileBodyInput(w, 0), Const(1)), Add(acc, Const(10))};
    TG_Output out[2];
    TG_FinishWhile(w, next, out, s_);
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    TG_Session* session = NewSession();
    TG_RunOptions* options = TG_NewRunOptions();
    TG_SetRunOptionsTraceLevel(options, 1);
    TG_RunMetadata* metadata = TG_NewRunMetadata();
    std::vector<TensorPtr> got = Run(session, {}, {out[0], out[1]}, {}, options, metadata);
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    EXPECT_EQ(Floats(got[0].get()), std::vector<float>{4});
    EXPECT_EQ(Floats(got[1].get()), std::vector<float>{40});
    // Whether a Merge of iteration k + 1 ran before both NextIterations of iteration k had.
    int merges[2] = {0, 0}, nexts[2] = {0, 0};
    bool overlapped = false;
    for (int i = 0; i < TG_RunMetadataNumNodes(metadata); ++i) {
      const std::string name = TG_RunMetadataNodeName(metadata, i);
      for (int v = 0; v < 2; ++v) {
        const std::string suffix = v == 0 ? "" : "_1";
        if (name == "while/NextIteration" + suffix) ++nexts[v];
        if (name == "while/Merge" + suffix) {
          if (std::min(nexts[0], nexts[1]) < merges[v]) overlapped = true;
          ++merges[v];
        }
      }
    }
    EXPECT_EQ(merges[0], 5);  // iterations 0..4 (the last one exits)
    EXPECT_EQ(merges[1], 5);
    EXPECT_EQ(overlapped, parallel > 1);
    TG_DeleteRunMetadata(metadata);
    TG_DeleteRunOptions(options);
  }
}

// The executor runs control flow itself: op info lists every device type for it, so
// `tgraph info` does not report Switch or Merge as missing a kernel.
TEST_F(ControlFlowTest, ControlFlowOpsRunOnEveryDeviceType) {
  for (const char* op : {"Switch", "RefSwitch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"}) {
    TG_OpInfo* info = TG_NewOpInfo(op, s_);
    ASSERT_TRUE(IsOk(s_)) << op;
    std::vector<std::string> types;
    for (int i = 0; i < TG_OpInfoNumKernelDeviceTypes(info); ++i) types.push_back(TG_OpInfoKernelDeviceType(info, i));
    EXPECT_NE(std::find(types.begin(), types.end(), "CPU"), types.end()) << op;
    TG_DeleteOpInfo(info);
  }
}

// A loop inside a cond inside a loop: in the outer iterations where the cond goes the other
// way the inner loop's Enters are dead, its frame starts and ends with nothing run, and
// the outer iteration still completes.
TEST_F(ControlFlowTest, LoopInsideCondInsideLoop) {
  // for i in range(6): total += (i < 3 ? sum(k + 1 for k in range(i)) : 100)
  TG_Output init[2] = {Const(0), Const(0)};
  for (int parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    TG_While* outer = TG_NewWhile(g_, init, 2, "outer", parallel, s_);
    ASSERT_TRUE(IsOk(s_));
    TG_WhileSetCond(outer, Less(TG_WhileCondInput(outer, 0), Const(6)), s_);
    TG_Output i = TG_WhileBodyInput(outer, 0);
    TG_Cond* c = TG_NewCond(g_, Less(i, Const(3)), "small", s_);
    ASSERT_TRUE(IsOk(s_));
    TG_Output inner_init[2] = {Const(0), Const(0)};
    TG_While* inner = TG_NewWhile(g_, inner_init, 2, "inner", parallel, s_);
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    TG_WhileSetCond(inner, Less(TG_WhileCondInput(inner, 0), i), s_);
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    TG_Output k = TG_WhileBodyInput(inner, 0);
    TG_Output inner_next[2] = {Add(k, Const(1)), Add(TG_WhileBodyInput(inner, 1), Add(k, Const(1)))};
    TG_Output inner_out[2];
    TG_FinishWhile(inner, inner_next, inner_out, s_);
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    TG_CondElse(c, &inner_out[1], 1, s_);
    TG_Output hundred = Const(100), r;
    TG_FinishCond(c, &hundred, 1, &r, s_);
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    TG_Output outer_next[2] = {Add(i, Const(1)), Add(TG_WhileBodyInput(outer, 1), r)};
    TG_Output outer_out[2];
    TG_FinishWhile(outer, outer_next, outer_out, s_);
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    TG_Session* session = NewSession();
    EXPECT_EQ(RunScalar(session, outer_out[1]), 0 + 1 + 3 + 300.0f);
    EXPECT_EQ(RunScalar(session, outer_out[1]), 304.0f);  // the cached plan, again
  }
}

TEST_F(ControlFlowTest, ExitOutsideALoopIsRejected) {
  TG_Operation* exit = OpOf("Exit", {Const(1)}, "stray_exit");
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  RunFloats(session, Out(exit));
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "node 'stray_exit' (Exit) is not inside a while loop")) << Message(s_);
}

// Concurrent runs of one loop plan each take their own run state (and frame memory).
TEST_F(ControlFlowTest, ConcurrentRunsOfALoop) {
  TG_Operation* n = Placeholder(TG_FLOAT, {}, "n");
  TG_Output fact = Factorial(Out(n));
  ASSERT_NE(fact.oper, nullptr);
  TG_Session* session = NewSession();
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      TG_Status* status = TG_NewStatus();
      for (int k = 0; k < 50; ++k) {
        const float nv = static_cast<float>(1 + (t + k) % 6);
        TensorPtr value = FloatScalar(nv);
        TG_Tensor* in = value.get();
        TG_Tensor* out = nullptr;
        const TG_Output feed = Out(n);
        TG_SessionRun(session, nullptr, &feed, &in, 1,
                      &fact, &out, 1, nullptr, 0, nullptr, status);
        float expect = 1;
        for (int i = 2; i <= static_cast<int>(nv); ++i) expect *= static_cast<float>(i);
        if (TG_GetCode(status) != TG_OK || out == nullptr || Floats(out) != std::vector<float>{expect}) ++wrong[static_cast<size_t>(t)];
        if (out != nullptr) TG_DeleteTensor(out);
      }
      TG_DeleteStatus(status);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

TEST_F(ControlFlowTest, FeedingAValueInsideALoopIsRejected) {
  // The fed value is a root-frame value; the body's other input is in the loop's frame.
  TG_Output start = Const(0);
  TG_While* w = TG_NewWhile(g_, &start, 1, nullptr, 10, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(3)), s_);
  TG_Output body = Add(TG_WhileBodyInput(w, 0), Const(1)), out;
  TG_FinishWhile(w, &body, &out, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Session* session = NewSession();
  TensorPtr one = FloatScalar(1);
  RunFloats(session, out, {{Out(TG_GraphOperationByName(g_, "while/Identity")), one.get()}});
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "inputs from different frames")) << Message(s_);
}

TEST_F(ControlFlowTest, NonScalarPredicateIsAnError) {
  TG_Operation* pred = Placeholder(TG_BOOL, {-1}, "pred");  // any length, checked at run time
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");
  TG_Operation* sw = OpOf("Switch", {Out(x), Out(pred)}, "sw");
  EXPECT_EQ(sw, nullptr);  // the shape function wants a scalar predicate
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  TG_Operation* any = Placeholder(TG_BOOL, {}, "any", /*unknown_rank=*/true);
  sw = OpOf("Switch", {Out(x), Out(any)}, "sw");
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  TensorPtr two = MakeTensor<uint8_t>(TG_BOOL, {2}, {1, 0}), v = FloatScalar(1);
  RunFloats(session, Out(sw, 1), {{Out(any), two.get()}, {Out(x), v.get()}});
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "node 'sw' (Switch): the predicate must be a bool scalar")) << Message(s_);
}

TEST_F(ControlFlowTest, BuilderMisuseIsAnError) {
  TG_Output start = Const(0);
  TG_NewWhile(g_, &start, 1, nullptr, 0, s_);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  TG_While* w = TG_NewWhile(g_, &start, 1, nullptr, 10, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_WhileSetCond(w, Const(1), s_);  // not a bool
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  TG_WhileSetCond(w, Less(TG_WhileCondInput(w, 0), Const(3)), s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Output wrong = Out(Bool(true)), out;
  TG_FinishWhile(w, &wrong, &out, s_);  // a bool for a float loop variable
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "loop variable 0")) << Message(s_);
  // The builder closed its scope: new ops are at the top level again.
  EXPECT_EQ(Scope(), "");
  TG_Cond* c = TG_NewCond(g_, Const(1), nullptr, s_);
  EXPECT_EQ(c, nullptr);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  c = TG_NewCond(g_, Out(Bool(true)), nullptr, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_AbortCond(c);
  EXPECT_EQ(Scope(), "");
}

}  // namespace
}  // namespace tgtest
