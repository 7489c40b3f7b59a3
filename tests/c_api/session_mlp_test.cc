// A small MLP forward pass with variables, built, initialized and run through the C API:
//   h = relu(x . W1 + b1), y = h . W2 + b2
// against numbers worked out by hand (every value is exact in float).
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::FloatTensor;
using tgtest::Floats;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

class SessionMlpTest : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    x_ = Placeholder(TG_FLOAT, {-1, 3}, "x");
    TG_Variable* w1 = Var("W1", FloatTensor({3, 4}, {1, -1, 0, 2,  //
                                                     0, 1, -2, 1,  //
                                                     1, 0, 1, -1}));
    TG_Variable* b1 = Var("b1", FloatTensor({4}, {0.5f, -1, 0.5f, 0}));
    TG_Variable* w2 = Var("W2", FloatTensor({4, 2}, {1, 0,   //
                                                     2, 1,   //
                                                     -1, 1,  //
                                                     0.5f, -2}));
    TG_Variable* b2 = Var("b2", FloatTensor({2}, {0.25f, -0.5f}));
    TG_Operation* xw1 = OpOf("MatMul", {Out(x_), Read(w1)}, "layer1/MatMul");
    TG_Operation* pre = OpOf("BiasAdd", {Out(xw1), Read(b1)}, "layer1/BiasAdd");
    hidden_ = OpOf("Relu", {Out(pre)}, "layer1/Relu");
    TG_Operation* hw2 = OpOf("MatMul", {Out(hidden_), Read(w2)}, "layer2/MatMul");
    y_ = OpOf("BiasAdd", {Out(hw2), Read(b2)}, "layer2/BiasAdd");
    ASSERT_TRUE(tgtest::IsOk(s_));
    init_ = Init();
  }

  TG_Operation* x_ = nullptr;
  TG_Operation* hidden_ = nullptr;
  TG_Operation* y_ = nullptr;
  TG_Operation* init_ = nullptr;
};

// x = [[1, 2, 3], [-1, 0, 2]]
//   x . W1        = [[4, 1, -1, 1], [1, 1, 2, -4]]
//   + b1          = [[4.5, 0, -0.5, 1], [1.5, 0, 2.5, -4]]
//   relu          = [[4.5, 0, 0, 1], [1.5, 0, 2.5, 0]]
//   h . W2        = [[4.5 + 0.5, -2], [1.5 - 2.5, 2.5]] = [[5, -2], [-1, 2.5]]
//   + b2          = [[5.25, -2.5], [-0.75, 2]]
TEST_F(SessionMlpTest, ForwardPassGivesTheHandComputedNumbers) {
  // Every execution mode gives the same numbers.
  for (int mode = 0; mode < 3; ++mode) {
    TG_SessionOptions* opts = TG_NewSessionOptions();
    if (mode == 1) TG_SetSessionInterOpThreads(opts, 1);
    if (mode == 2) TG_SetSessionDeterministic(opts, 1);
    TG_Session* sess = NewSession(opts);
    TG_DeleteSessionOptions(opts);
    TG_ASSERT_OK(s_);
    RunTargets(sess, {init_});
    TG_ASSERT_OK(s_);
    TensorPtr x = FloatTensor({2, 3}, {1, 2, 3, -1, 0, 2});
    std::vector<TensorPtr> out = Run(sess, {{Out(x_), x.get()}}, {Out(y_), Out(hidden_)});
    TG_ASSERT_OK(s_);
    EXPECT_EQ(tgtest::Dims(out[0].get()), (std::vector<int64_t>{2, 2})) << "mode " << mode;
    EXPECT_EQ(Floats(out[0].get()), (std::vector<float>{5.25f, -2.5f, -0.75f, 2.0f}))
        << "mode " << mode;
    EXPECT_EQ(Floats(out[1].get()), (std::vector<float>{4.5f, 0, 0, 1, 1.5f, 0, 2.5f, 0}))
        << "mode " << mode;
    // One row at a time gives the rows.
    TensorPtr row = FloatTensor({1, 3}, {-1, 0, 2});
    EXPECT_EQ(RunFloats(sess, Out(y_), {{Out(x_), row.get()}}),
              (std::vector<float>{-0.75f, 2.0f}));
    TG_EXPECT_OK(s_);
  }
}

TEST_F(SessionMlpTest, ForwardPassNeedsInitializedVariables) {
  TG_Session* sess = NewSession();
  TensorPtr x = FloatTensor({1, 3}, {1, 2, 3});
  Run(sess, {{Out(x_), x.get()}}, {Out(y_)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
}

}  // namespace
