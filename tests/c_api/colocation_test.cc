// Colocation: `_class = [loc:@name]`, from the colocation stack, explicit TG_ColocateWith, and
// variables (Assign and read live with their VariableV2).
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Name;
using tgtest::Out;

class ColocationTest : public CApiTest {};

TEST_F(ColocationTest, VariableAssignAndReadAreColocated) {
  TG_Tensor* t = TG_AllocateTensor(TG_INT32, nullptr, 0, 4);
  TG_Variable* v = TG_GraphNewVariableFromTensor(g_, t, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_DeleteTensor(t);
  EXPECT_EQ(StringListAttr(TG_VariableInitializer(v), "_class"),
            (std::vector<std::string>{"loc:@Variable"}));
  EXPECT_EQ(StringListAttr(TG_VariableReadValue(v).oper, "_class"),
            (std::vector<std::string>{"loc:@Variable"}));
  // The variable op and its initial value carry no _class.
  TG_OperationGetAttrMetadata(TG_VariableOutput(v).oper, "_class", s_);
  EXPECT_EQ(code(), TG_NOT_FOUND);
  TG_OperationGetAttrMetadata(TG_VariableInitialValue(v).oper, "_class", s_);
  EXPECT_EQ(code(), TG_NOT_FOUND);
}

TEST_F(ColocationTest, AssignToAVariableIsColocatedWithIt) {
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, nullptr, 0, 4);
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "V";
  TG_Variable* v = TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_ASSERT_OK(s_);
  TG_DeleteTensor(t);
  TG_Operation* one = ScalarConst(1);
  TG_OperationDescription* d = TG_NewOperation(g_, "AssignAdd", "inc");
  TG_AddInput(d, TG_VariableOutput(v));
  TG_AddInput(d, Out(one));
  TG_Operation* inc = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(StringListAttr(inc, "_class"), (std::vector<std::string>{"loc:@V"}));
}

TEST_F(ColocationTest, ColocateWithStack) {
  TG_GraphPushDevice(g_, "/gpu:1", s_);
  TG_ASSERT_OK(s_);
  TG_Operation* anchor = NoOp("anchor");
  TG_GraphPopDevice(g_, s_);
  TG_GraphPushColocateWith(g_, anchor, 0, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* x = NoOp("x");
  TG_GraphPopColocateWith(g_, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* y = NoOp("y");
  EXPECT_EQ(StringListAttr(x, "_class"), (std::vector<std::string>{"loc:@anchor"}));
  EXPECT_STREQ(TG_OperationDevice(x), "/device:GPU:1");  // takes the anchor's device
  TG_OperationGetAttrMetadata(y, "_class", s_);
  EXPECT_EQ(code(), TG_NOT_FOUND);
}

TEST_F(ColocationTest, ColocationGroupsAreInherited) {
  TG_Operation* a = NoOp("a");
  TG_GraphPushColocateWith(g_, a, 0, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* b = NoOp("b");  // group loc:@a
  TG_GraphPopColocateWith(g_, s_);
  TG_GraphPushColocateWith(g_, b, 0, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* c = NoOp("c");  // b's group, not loc:@b
  TG_GraphPopColocateWith(g_, s_);
  EXPECT_EQ(StringListAttr(c, "_class"), (std::vector<std::string>{"loc:@a"}));
}

TEST_F(ColocationTest, NestedEntriesAndIgnoreExisting) {
  TG_Operation* a = NoOp("a");
  TG_Operation* b = NoOp("b");
  TG_GraphPushColocateWith(g_, a, 0, s_);
  TG_GraphPushColocateWith(g_, b, 0, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* both = NoOp("both");
  TG_GraphPopColocateWith(g_, s_);
  TG_GraphPushColocateWith(g_, b, 1, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* only_b = NoOp("only_b");
  TG_GraphPopColocateWith(g_, s_);
  TG_GraphPopColocateWith(g_, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(StringListAttr(both, "_class"), (std::vector<std::string>{"loc:@a", "loc:@b"}));
  EXPECT_EQ(StringListAttr(only_b, "_class"), (std::vector<std::string>{"loc:@b"}));
}

TEST_F(ColocationTest, ExplicitColocateWithOnTheDescription) {
  TG_Operation* a = NoOp("a");
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "n");
  TG_ColocateWith(d, a);
  TG_Operation* n = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(StringListAttr(n, "_class"), (std::vector<std::string>{"loc:@a"}));

  d = TG_NewOperation(g_, "NoOp", "m");
  TG_ColocateWith(d, nullptr);
  EXPECT_EQ(TG_FinishOperation(d, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

TEST_F(ColocationTest, ColocationBeatsTheDeviceStack) {
  TG_GraphPushDevice(g_, "/cpu:0", s_);
  TG_Operation* anchor = NoOp("anchor");
  TG_GraphPopDevice(g_, s_);
  TG_GraphPushDevice(g_, "/gpu:0", s_);
  TG_GraphPushColocateWith(g_, anchor, 0, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* x = NoOp("x");
  TG_GraphPopColocateWith(g_, s_);
  TG_GraphPopDevice(g_, s_);
  EXPECT_STREQ(TG_OperationDevice(x), "/device:CPU:0");
}

TEST_F(ColocationTest, BadArguments) {
  TG_GraphPushColocateWith(g_, nullptr, 0, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPopColocateWith(g_, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  TG_Graph* other = TG_NewGraph();
  TG_Operation* foreign = ScalarConstIn(other, 1, "foreign");
  TG_GraphPushColocateWith(g_, foreign, 0, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("foreign"), std::string::npos) << msg();
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "n");
  TG_ColocateWith(d, foreign);
  TG_Operation* n = TG_FinishOperation(d, s_);
  // A foreign op cannot be a colocation anchor.
  EXPECT_EQ(n, nullptr);
  EXPECT_NE(code(), TG_OK);
  TG_DeleteGraph(other);
}

}  // namespace
