// Session state: reading an uninitialized variable is FAILED_PRECONDITION naming it; the
// initializer makes reads work; values persist between runs and are separate per session;
// Assign with and without validate_shape.
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::Contains;
using tgtest::FloatScalar;
using tgtest::FloatTensor;
using tgtest::Floats;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

using SessionVariablesTest = SessionTest;

TEST_F(SessionVariablesTest, ReadingAnUninitializedVariableNamesIt) {
  TG_Variable* w = Var("weights", FloatTensor({2}, {1.5f, -2.5f}));
  TG_Operation* init = Init();
  TG_Session* sess = NewSession();
  Run(sess, {}, {Read(w)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  EXPECT_TRUE(Contains(msg(), "weights")) << msg();
  // Through a consumer too, and by fetching the variable's ref itself.
  TG_Operation* neg = Unary("Neg", Read(w).oper, "neg");
  Run(sess, {}, {Out(neg)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  EXPECT_TRUE(Contains(msg(), "weights")) << msg();
  Run(sess, {}, {TG_VariableOutput(w)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  EXPECT_TRUE(Contains(msg(), "weights")) << msg();
  // An update of an uninitialized variable fails the same way.
  TG_Operation* inc = Update("AssignAdd", w, Out(FloatConst({2}, 1.0f)), "inc");
  RunTargets(sess, {inc});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  EXPECT_TRUE(Contains(msg(), "weights")) << msg();

  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(w)), (std::vector<float>{1.5f, -2.5f}));
  TG_EXPECT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Out(neg)), (std::vector<float>{-1.5f, 2.5f}));
  EXPECT_EQ(RunFloats(sess, TG_VariableOutput(w)), (std::vector<float>{1.5f, -2.5f}));
  TG_EXPECT_OK(s_);
}

TEST_F(SessionVariablesTest, OneVariablesInitializerLeavesTheOthers) {
  TG_Variable* a = ScalarVar("a", 1.0f);
  TG_Variable* b = ScalarVar("b", 2.0f);
  TG_Session* sess = NewSession();
  RunTargets(sess, {TG_VariableInitializer(a)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ScalarValue(sess, a), 1.0f);
  Run(sess, {}, {Read(b)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  EXPECT_TRUE(Contains(msg(), "b")) << msg();
}

TEST_F(SessionVariablesTest, ValuesPersistBetweenRuns) {
  TG_Variable* v = ScalarVar("counter", 0.0f);
  TG_Operation* inc = Increment(v, "inc");
  TG_Operation* init = Init();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  for (int i = 1; i <= 10; ++i) {
    RunTargets(sess, {inc});
    TG_ASSERT_OK(s_);
  }
  EXPECT_EQ(ScalarValue(sess, v), 10.0f);
  // Initializing again resets it.
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ScalarValue(sess, v), 0.0f);
}

TEST_F(SessionVariablesTest, SessionsOnOneGraphHaveSeparateVariables) {
  TG_Variable* v = ScalarVar("shared_name_in_graph", 0.0f);
  TG_Operation* inc = Increment(v, "inc");
  TG_Operation* init = Init();
  TG_Session* first = NewSession();
  TG_Session* second = NewSession();
  TG_ASSERT_OK(s_);
  RunTargets(first, {init});
  TG_ASSERT_OK(s_);
  // Initialized in the first session only.
  Run(second, {}, {Read(v)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  RunTargets(second, {init});
  TG_ASSERT_OK(s_);
  RunTargets(first, {inc});
  RunTargets(first, {inc});
  TG_ASSERT_OK(s_);
  RunTargets(second, {inc});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ScalarValue(first, v), 2.0f);
  EXPECT_EQ(ScalarValue(second, v), 1.0f);
  // Deleting one session leaves the other's values.
  DeleteSession(first);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(ScalarValue(second, v), 1.0f);
  // A new session starts uninitialized.
  TG_Session* third = NewSession();
  Run(third, {}, {Read(v)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
}

TEST_F(SessionVariablesTest, AssignWithValidateShape) {
  TG_Variable* v = Var("v", FloatTensor({2}, {1, 2}));
  TG_Operation* init = Init();
  // A value of unknown shape, so the check falls to the run.
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x", /*unknown_rank=*/true);
  TG_Operation* strict = Update("Assign", v, Out(x), "strict", "validate_shape", true);
  TG_Operation* loose = Update("Assign", v, Out(x), "loose", "validate_shape", false);
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);

  TensorPtr same = FloatTensor({2}, {5, 6});
  TensorPtr longer = FloatTensor({3}, {7, 8, 9});
  Run(sess, {{Out(x), same.get()}}, {}, {strict});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(v)), (std::vector<float>{5, 6}));
  // validate_shape=true: another shape is refused, and the variable keeps its value.
  Run(sess, {{Out(x), longer.get()}}, {}, {strict});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "strict")) << msg();
  EXPECT_EQ(RunFloats(sess, Read(v)), (std::vector<float>{5, 6}));
  TG_EXPECT_OK(s_);
  // validate_shape=false: the variable takes the value's shape.
  Run(sess, {{Out(x), longer.get()}}, {}, {loose});
  TG_ASSERT_OK(s_);
  std::vector<TensorPtr> out = Run(sess, {}, {Read(v)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(tgtest::Dims(out[0].get()), (std::vector<int64_t>{3}));
  EXPECT_EQ(Floats(out[0].get()), (std::vector<float>{7, 8, 9}));
}

TEST_F(SessionVariablesTest, StaticallyIncompatibleAssignFailsAtConstruction) {
  TG_Variable* v = Var("v", FloatTensor({2}, {1, 2}));
  TG_OperationDescription* d = TG_NewOperation(g_, "Assign", "bad_assign");
  TG_AddInput(d, TG_VariableOutput(v));
  TG_AddInput(d, Out(FloatConst({3}, 0.0f)));
  EXPECT_EQ(TG_FinishOperation(d, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "bad_assign")) << msg();
}

TEST_F(SessionVariablesTest, GetVariableWorksInASession) {
  TensorPtr three = FloatScalar(3.0f);
  const int64_t dims[] = {2, 2};
  TG_Variable* w = TG_GraphGetVariable(g_, "w", TG_FLOAT, dims, 2, three.get(), nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* init = Init();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(w)), (std::vector<float>{3, 3, 3, 3}));
  TG_EXPECT_OK(s_);
}

}  // namespace
