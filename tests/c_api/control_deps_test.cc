// Control-dependency stack: nested union, None clears, only ops created inside.
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Name;
using tgtest::Out;

class ControlDepsTest : public CApiTest {
 protected:
  void Push(std::vector<TG_Operation*> ops) {
    TG_GraphPushControlDependencies(g_, ops.data(), static_cast<int>(ops.size()), s_);
    ASSERT_TRUE(tgtest::IsOk(s_));
  }
  void PushNone() {
    TG_GraphPushClearControlDependencies(g_, s_);
    ASSERT_TRUE(tgtest::IsOk(s_));
  }
  void Pop() {
    TG_GraphPopControlDependencies(g_, s_);
    ASSERT_TRUE(tgtest::IsOk(s_));
  }
};

TEST_F(ControlDepsTest, OpsInsideGetTheDependencies) {
  TG_Operation* a = NoOp("a");
  TG_Operation* b = NoOp("b");
  TG_Operation* c = NoOp("c");
  Push({a, b, c});
  TG_Operation* d = ScalarConst(1, "d");
  TG_Operation* e = NoOp("e");
  Pop();
  TG_Operation* after = NoOp("after");
  EXPECT_EQ(ControlInputNames(d), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(ControlInputNames(e), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(ControlInputNames(after).empty());
  EXPECT_EQ(TG_OperationNumControlOutputs(a), 2);
}

TEST_F(ControlDepsTest, NestedFramesUnion) {
  TG_Operation* a = NoOp("a");
  TG_Operation* b = NoOp("b");
  TG_Operation* c = NoOp("c");
  TG_Operation* d = NoOp("d");
  Push({a, b});
  TG_Operation* x = NoOp("x");
  Push({c, d});
  TG_Operation* y = NoOp("y");
  Pop();
  TG_Operation* z = NoOp("z");
  Pop();
  EXPECT_EQ(ControlInputNames(x), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ControlInputNames(y), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(ControlInputNames(z), (std::vector<std::string>{"a", "b"}));
}

TEST_F(ControlDepsTest, NoneClearsTheOuterFrames) {
  TG_Operation* a = NoOp("a");
  TG_Operation* b = NoOp("b");
  TG_Operation* c = NoOp("c");
  TG_Operation* d = NoOp("d");
  Push({a, b});
  PushNone();
  TG_Operation* free_op = NoOp("free");
  Push({c, d});
  TG_Operation* cd = NoOp("cd");
  Pop();
  Pop();
  TG_Operation* ab = NoOp("ab");
  Pop();
  EXPECT_TRUE(ControlInputNames(free_op).empty());
  EXPECT_EQ(ControlInputNames(cd), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(ControlInputNames(ab), (std::vector<std::string>{"a", "b"}));
}

TEST_F(ControlDepsTest, OnlyOpsCreatedInsideAreAffected) {
  // TF's "WRONG" example: t is made outside, merely used inside.
  TG_Operation* pred = NoOp("pred");
  TG_Operation* tensor = FloatConst({2, 2}, 1.0f, "tensor");
  TG_Operation* t = Binary("MatMul", tensor, tensor, "t");
  TG_ASSERT_OK(s_);
  Push({pred});
  TG_Operation* inside = Binary("MatMul", tensor, tensor, "inside");
  TG_ASSERT_OK(s_);
  Pop();
  EXPECT_TRUE(ControlInputNames(t).empty());
  EXPECT_TRUE(ControlInputNames(tensor).empty());
  EXPECT_EQ(ControlInputNames(inside), (std::vector<std::string>{"pred"}));
}

TEST_F(ControlDepsTest, DataInputMadeInsideAlreadyCarriesTheDependency) {
  TG_Operation* a = NoOp("a");
  Push({a});
  TG_Operation* x = ScalarConst(1, "x");
  TG_Operation* y = Identity(x, "y");  // x, made inside, already waits for a
  Pop();
  EXPECT_EQ(ControlInputNames(x), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(ControlInputNames(y).empty());
}

TEST_F(ControlDepsTest, DependencyThatIsADataInputIsNotRepeated) {
  TG_Operation* x = ScalarConst(1, "x");
  Push({x});
  TG_Operation* y = Identity(x, "y");
  Pop();
  EXPECT_TRUE(ControlInputNames(y).empty());
  EXPECT_EQ(TG_OperationInput(TG_Input{y, 0}).oper, x);
}

TEST_F(ControlDepsTest, ExplicitControlInputsCombineWithTheStack) {
  TG_Operation* a = NoOp("a");
  TG_Operation* b = NoOp("b");
  Push({a});
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "n");
  TG_AddControlInput(d, b);
  TG_AddControlInput(d, a);
  TG_Operation* n = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  Pop();
  EXPECT_EQ(ControlInputNames(n), (std::vector<std::string>{"b", "a"}));
}

TEST_F(ControlDepsTest, VariablesAndInitializerUnderDependencies) {
  // Seed: with control_dependencies([update_op]): add_with_dependencies = add(a_1, b_1).
  TG_Tensor* t = TG_AllocateTensor(TG_INT32, nullptr, 0, 4);
  TG_Variable* a1 = TG_GraphNewVariableFromTensor(g_, t, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_Variable* b1 = TG_GraphNewVariableFromTensor(g_, t, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_DeleteTensor(t);
  TG_Operation* ten = IntConst(10);
  TG_OperationDescription* d = TG_NewOperation(g_, "Assign", nullptr);
  TG_AddInput(d, TG_VariableOutput(a1));
  TG_AddInput(d, Out(ten));
  TG_Operation* update = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(update), "Assign");
  Push({update});
  d = TG_NewOperation(g_, "Add", nullptr);
  TG_AddInput(d, TG_VariableReadValue(a1));
  TG_AddInput(d, TG_VariableReadValue(b1));
  TG_Operation* add = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  Pop();
  EXPECT_EQ(Name(add), "Add");
  EXPECT_EQ(ControlInputNames(add), (std::vector<std::string>{"Assign"}));
}

TEST_F(ControlDepsTest, BadArguments) {
  TG_GraphPopControlDependencies(g_, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  TG_Operation* null_op = nullptr;
  TG_GraphPushControlDependencies(g_, &null_op, 1, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPushControlDependencies(g_, nullptr, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPushControlDependencies(g_, nullptr, -1, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPushControlDependencies(nullptr, nullptr, 0, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_Graph* other = TG_NewGraph();
  TG_Operation* foreign = ScalarConstIn(other, 1, "foreign");
  TG_GraphPushControlDependencies(g_, &foreign, 1, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("foreign"), std::string::npos) << msg();
  TG_DeleteGraph(other);
  // None of the failed pushes left a frame behind.
  TG_GraphPopControlDependencies(g_, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  // An empty list is a valid frame that adds nothing.
  Push({});
  TG_Operation* n = NoOp("n");
  Pop();
  EXPECT_TRUE(ControlInputNames(n).empty());
}

}  // namespace
