// TG_AddGradients itself (the per-op gradients have their own tests): what it returns for
// unconnected xs, how contributions of several paths are summed, grad_ys, name scopes, and
// the errors it reports before building anything.
#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

class GradientsTest : public SessionTest {
 protected:
  TG_Output Placeholder(const char* name, std::vector<int64_t> dims, TG_DataType dt = TG_DOUBLE) {
    return AddOp(g_, "Placeholder", {}, [&](TG_OperationDescription* d) {
      TG_SetAttrType(d, "dtype", dt);
      TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    }, 0, name);
  }
  std::vector<double> RunWith(TG_Output fetch, TG_Output x, const std::vector<double>& xv) {
    TG_Session* session = NewSession();
    TensorPtr t = MakeTensor<double>(TG_DOUBLE, {static_cast<int64_t>(xv.size())}, xv);
    std::vector<TensorPtr> out = Run(session, {{x, t.get()}}, {fetch});
    return out.empty() ? std::vector<double>{} : Doubles(out[0].get());
  }
};

TEST_F(GradientsTest, UnconnectedXGetsNoGradientAndNothingIsBuilt) {
  TG_Output a = Placeholder("a", {3});
  TG_Output b = Placeholder("b", {3});
  TG_Output y = AddOp(g_, "Relu", {a});
  const int before = TG_GraphNumOperations(g_);
  TG_Output dy{};
  TG_AddGradients(g_, &y, 1, &b, 1, nullptr, s_, &dy);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(dy.oper, nullptr);
  EXPECT_EQ(TG_GraphNumOperations(g_), before);
}

TEST_F(GradientsTest, TwoPathsAreSummed) {
  TG_Output x = Placeholder("x", {3});
  TG_Output r1 = AddOp(g_, "Relu", {x});
  TG_Output r2 = AddOp(g_, "Relu", {x});
  TG_Output y = AddOp(g_, "Pack", {OpArg::List({r1, r2})});
  TG_Output dx{};
  TG_AddGradients(g_, &y, 1, &x, 1, nullptr, s_, &dx);
  TG_ASSERT_OK(s_);
  ASSERT_NE(dx.oper, nullptr);
  EXPECT_STREQ(TG_OperationOpType(dx.oper), "AddN");
  EXPECT_EQ(RunWith(dx, x, {1, 2, 3}), (std::vector<double>{2, 2, 2}));
  // Where x < 0 Relu passes nothing back.
  EXPECT_EQ(RunWith(dx, x, {-1, 2, -3}), (std::vector<double>{0, 2, 0}));
}

TEST_F(GradientsTest, GradYsWeighTheOutputs) {
  TG_Output x = Placeholder("x", {3});
  TG_Output y = AddOp(g_, "Relu", {x});
  TG_Output gy = ConstDouble(g_, {10, 20, 30});
  TG_Output dx{};
  TG_AddGradients(g_, &y, 1, &x, 1, &gy, s_, &dx);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunWith(dx, x, {1, -1, 1}), (std::vector<double>{10, 0, 30}));
}

TEST_F(GradientsTest, XEqualToYGetsOnes) {
  TG_Output x = Placeholder("x", {2});
  TG_Output dx{};
  TG_AddGradients(g_, &x, 1, &x, 1, nullptr, s_, &dx);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunWith(dx, x, {5, 6}), (std::vector<double>{1, 1}));
}

TEST_F(GradientsTest, EachCallGetsItsOwnScope) {
  TG_Output x = Placeholder("x", {2});
  TG_Output y = AddOp(g_, "Relu", {x}, {}, 0, "act");
  TG_Output d1{}, d2{}, d3{};
  TG_AddGradients(g_, &y, 1, &x, 1, nullptr, s_, &d1);
  TG_ASSERT_OK(s_);
  TG_AddGradients(g_, &y, 1, &x, 1, nullptr, s_, &d2);
  TG_ASSERT_OK(s_);
  TG_AddGradientsWithPrefix(g_, "train/", &y, 1, &x, 1, nullptr, s_, &d3);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(d1.oper), "gradients/act_grad/ReluGrad");
  EXPECT_EQ(Name(d2.oper), "gradients_1/act_grad/ReluGrad");
  EXPECT_EQ(Name(d3.oper), "train/act_grad/ReluGrad");
  EXPECT_NE(TG_GraphOperationByName(g_, "gradients/grad_ys_0"), nullptr);
  EXPECT_NE(TG_GraphOperationByName(g_, "gradients/Fill"), nullptr);
}

TEST_F(GradientsTest, IntegerYIsRejected) {
  TG_Output x = Placeholder("x", {2});
  TG_Output shape = AddOp(g_, "Shape", {x});
  TG_Output dx{};
  TG_AddGradients(g_, &shape, 1, &x, 1, nullptr, s_, &dx);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "int32")) << Message(s_);
}

// Integer tensors carry no gradient: an integer x gets none, without an error.
TEST_F(GradientsTest, IntegerXGetsNoGradient) {
  TG_Output x = Placeholder("x", {2});
  TG_Output ids = Placeholder("ids", {2}, TG_INT32);
  TG_Output y = AddOp(g_, "GatherV2", {x, ids, ScalarInt32(g_, 0)});
  TG_Output xs[2] = {x, ids};
  TG_Output dxs[2] = {};
  TG_AddGradients(g_, &y, 1, xs, 2, nullptr, s_, dxs);
  TG_ASSERT_OK(s_);
  EXPECT_NE(dxs[0].oper, nullptr);
  EXPECT_EQ(dxs[1].oper, nullptr);
}

// An op without a gradient function on the path: NOT_FOUND naming it, graph untouched.
TEST_F(GradientsTest, MissingGradientIsReportedBeforeBuilding) {
  TG_LoadPlugin((std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/libtg_test_good.so").c_str(), s_);
  TG_ASSERT_OK(s_);
  TG_Output x = Placeholder("x", {2}, TG_FLOAT);
  TG_Output mid = AddOp(g_, "TestScratch", {x}, {}, 0, "scratch");
  TG_Output y = AddOp(g_, "Relu", {mid});
  const int before = TG_GraphNumOperations(g_);
  TG_Output dx{};
  TG_AddGradients(g_, &y, 1, &x, 1, nullptr, s_, &dx);
  EXPECT_EQ(TG_GetCode(s_), TG_NOT_FOUND);
  EXPECT_TRUE(Contains(Message(s_), "'scratch'")) << Message(s_);
  EXPECT_TRUE(Contains(Message(s_), "TestScratch")) << Message(s_);
  EXPECT_EQ(TG_GraphNumOperations(g_), before);
  // Not needed when differentiating with respect to something after it.
  TG_AddGradients(g_, &y, 1, &mid, 1, nullptr, s_, &dx);
  TG_EXPECT_OK(s_);
}

TEST_F(GradientsTest, BadArguments) {
  TG_Output x = Placeholder("x", {2});
  TG_Output y = AddOp(g_, "Relu", {x});
  TG_Output dx{};
  TG_AddGradients(g_, &y, 0, &x, 1, nullptr, s_, &dx);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  TG_AddGradients(nullptr, &y, 1, &x, 1, nullptr, s_, &dx);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  TG_AddGradients(g_, &y, 1, &x, 1, nullptr, s_, nullptr);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  // grad_ys of another dtype.
  TG_Output gy = AddOp(g_, "Const", {}, [&](TG_OperationDescription* d) {
    TensorPtr t = FloatTensor({2}, {1, 1});
    TG_SetAttrTensor(d, "value", t.get(), s_);
    TG_SetAttrType(d, "dtype", TG_FLOAT);
  });
  TG_AddGradients(g_, &y, 1, &x, 1, &gy, s_, &dx);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(Message(s_), "grad_ys")) << Message(s_);
  // A tensor of another graph.
  TG_Graph* other = TG_NewGraph();
  TG_Output foreign = AddOp(other, "Placeholder", {}, [](TG_OperationDescription* d) {
    TG_SetAttrType(d, "dtype", TG_DOUBLE);
  });
  TG_AddGradients(g_, &y, 1, &foreign, 1, nullptr, s_, &dx);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  TG_DeleteGraph(other);
}

// A binding's gradient function (TG_RegisterGradientCallback): d(y)/d(x) = -2 * dy, for
// ops whose "_gradient_op_type" names it; `arg` counts the calls.
void NegTwiceGradient(void* arg, TG_Graph* g, TG_Operation* op, const TG_Output* output_grads,
                      int num_outputs, TG_Output* input_grads, int num_inputs,
                      TG_Status* status) {
  ++*static_cast<int*>(arg);
  if (num_outputs != 1 || num_inputs != 1 || output_grads[0].oper == nullptr) {
    TG_SetStatus(status, TG_INTERNAL, "unexpected op shape");
    return;
  }
  TG_Output minus_two = ConstDouble(g, {-2.0});
  input_grads[0] = AddOp(g, "Mul", {output_grads[0], minus_two}, {}, 0, "neg_twice");
  (void)op;
}

void FailingGradient(void*, TG_Graph*, TG_Operation*, const TG_Output*, int, TG_Output*, int,
                     TG_Status* status) {
  TG_SetStatus(status, TG_FAILED_PRECONDITION, "the binding refused");
}

TEST_F(GradientsTest, ABindingsGradientCallbackBuildsTheGradient) {
  int calls = 0;
  TG_RegisterGradientCallback("CApiTestNegTwice", &NegTwiceGradient, &calls, s_);
  TG_ASSERT_OK(s_);
  TG_Output x = Placeholder("x", {3});
  TG_Output y = AddOp(g_, "Square", {x}, [](TG_OperationDescription* d) {
    TG_SetAttrString(d, "_gradient_op_type", "CApiTestNegTwice", 16);
  }, 0, "sq");
  TG_Output dx{};
  TG_AddGradients(g_, &y, 1, &x, 1, nullptr, s_, &dx);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(calls, 1);
  ASSERT_NE(dx.oper, nullptr);
  // Built under the op's gradient scope, like the core's own.
  EXPECT_EQ(std::string(TG_OperationName(dx.oper)), "gradients/sq_grad/neg_twice");
  EXPECT_EQ(RunWith(dx, x, {1, 2, 3}), (std::vector<double>{-2, -2, -2}));

  // A type with a gradient already, the same type twice, and bad arguments.
  TG_RegisterGradientCallback("CApiTestNegTwice", &NegTwiceGradient, &calls, s_);
  EXPECT_EQ(TG_GetCode(s_), TG_ALREADY_EXISTS) << TG_Message(s_);
  TG_RegisterGradientCallback("Relu", &NegTwiceGradient, &calls, s_);
  EXPECT_EQ(TG_GetCode(s_), TG_ALREADY_EXISTS) << TG_Message(s_);
  TG_RegisterGradientCallback("Shape", &NegTwiceGradient, &calls, s_);  // not differentiable
  EXPECT_EQ(TG_GetCode(s_), TG_ALREADY_EXISTS) << TG_Message(s_);
  TG_RegisterGradientCallback(nullptr, &NegTwiceGradient, &calls, s_);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT) << TG_Message(s_);
  TG_RegisterGradientCallback("CApiTestNoFunction", nullptr, nullptr, s_);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT) << TG_Message(s_);
}

TEST_F(GradientsTest, ACallbacksErrorFailsTheCallNamingTheOp) {
  TG_RegisterGradientCallback("CApiTestFailing", &FailingGradient, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_Output x = Placeholder("x", {3});
  TG_Output y = AddOp(g_, "Square", {x}, [](TG_OperationDescription* d) {
    TG_SetAttrString(d, "_gradient_op_type", "CApiTestFailing", 15);
  }, 0, "refused_square");
  TG_Output dx{};
  TG_AddGradients(g_, &y, 1, &x, 1, nullptr, s_, &dx);
  EXPECT_EQ(TG_GetCode(s_), TG_FAILED_PRECONDITION);
  const std::string message = TG_Message(s_);
  EXPECT_NE(message.find("refused_square"), std::string::npos) << message;
  EXPECT_NE(message.find("the binding refused"), std::string::npos) << message;
}

}  // namespace
}  // namespace tgtest

