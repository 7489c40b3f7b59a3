// Feeds and what a run needs: an unfed placeholder is INVALID_ARGUMENT naming it with its
// dtype and shape; feeds of the wrong dtype or an incompatible shape are refused before
// anything runs (a stateful op in the same request stays untouched); tensors, targets and
// fetches of another graph or with a bad index are INVALID_ARGUMENT.
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::Contains;
using tgtest::FloatScalar;
using tgtest::FloatTensor;
using tgtest::IntTensor;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

class SessionFeedTest : public SessionTest {
 protected:
  // v = 0, initialized, and `inc` (v += 1) to put in requests that must not run.
  void SetUp() override {
    SessionTest::SetUp();
    v_ = ScalarVar("v", 0.0f);
    inc_ = Increment(v_, "inc");
    init_ = Init();
  }
  TG_Session* InitializedSession() {
    TG_Session* sess = NewSession();
    EXPECT_TRUE(tgtest::IsOk(s_));
    RunTargets(sess, {init_});
    EXPECT_TRUE(tgtest::IsOk(s_));
    return sess;
  }
  float V(TG_Session* sess) { return ScalarValue(sess, v_); }

  TG_Variable* v_ = nullptr;
  TG_Operation* inc_ = nullptr;
  TG_Operation* init_ = nullptr;
};

TEST_F(SessionFeedTest, UnfedPlaceholderNamesItsDtypeAndShape) {
  TG_Operation* x = Placeholder(TG_FLOAT, {2, 3}, "images");
  TG_Operation* y = Unary("Neg", x, "y");
  TG_Session* sess = InitializedSession();
  Run(sess, {}, {Out(y)}, {inc_});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "images")) << msg();
  EXPECT_TRUE(Contains(msg(), "float")) << msg();
  EXPECT_TRUE(Contains(msg(), "[2,3]")) << msg();
  EXPECT_EQ(V(sess), 0.0f) << "a run that cannot start ran a target";
  // Unknown dims and ranks are named too.
  TG_Operation* ids = Placeholder(TG_INT32, {-1, 4}, "ids");
  Run(sess, {}, {Out(ids)});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "ids")) << msg();
  EXPECT_TRUE(Contains(msg(), "int32")) << msg();
  EXPECT_TRUE(Contains(msg(), "[?,4]")) << msg();
}

TEST_F(SessionFeedTest, UnfedPlaceholderBehindAControlEdgeIsNeededToo) {
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "gate");
  TG_GraphPushControlDependencies(g_, &x, 1, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* c = ScalarConst(1.0f, "after_gate");
  TG_GraphPopControlDependencies(g_, s_);
  TG_Session* sess = NewSession();
  Run(sess, {}, {Out(c)});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "gate")) << msg();
  TensorPtr zero = FloatScalar(0.0f);
  EXPECT_EQ(RunFloats(sess, Out(c), {{Out(x), zero.get()}}), (std::vector<float>{1}));
  TG_EXPECT_OK(s_);
}

TEST_F(SessionFeedTest, WrongDtypeIsRefusedBeforeAnythingRuns) {
  TG_Operation* x = Placeholder(TG_FLOAT, {2}, "x");
  TG_Operation* y = Unary("Neg", x, "y");
  TG_Session* sess = InitializedSession();
  TensorPtr ints = IntTensor({2}, {1, 2});
  Run(sess, {{Out(x), ints.get()}}, {Out(y)}, {inc_});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "x:0")) << msg();
  EXPECT_TRUE(Contains(msg(), "int32")) << msg();
  EXPECT_TRUE(Contains(msg(), "float")) << msg();
  EXPECT_EQ(V(sess), 0.0f);
  // A non-placeholder tensor is checked against its dtype as well.
  Run(sess, {{Out(y), ints.get()}}, {Out(y)}, {inc_});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_EQ(V(sess), 0.0f);
}

TEST_F(SessionFeedTest, IncompatibleShapeIsRefusedBeforeAnythingRuns) {
  TG_Operation* x = Placeholder(TG_FLOAT, {-1, 2}, "x");
  TG_Operation* y = Unary("Neg", x, "y");
  TG_Session* sess = InitializedSession();
  // Compatible: any batch size.
  TensorPtr ok1 = FloatTensor({1, 2}, {1, 2});
  TensorPtr ok3 = FloatTensor({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(RunFloats(sess, Out(y), {{Out(x), ok1.get()}}), (std::vector<float>{-1, -2}));
  TG_EXPECT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Out(y), {{Out(x), ok3.get()}}).size(), 6u);
  TG_EXPECT_OK(s_);
  // Incompatible: another inner size, another rank.
  TensorPtr bad_dim = FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorPtr bad_rank = FloatTensor({2}, {1, 2});
  for (const TG_Tensor* bad : {bad_dim.get(), bad_rank.get()}) {
    Run(sess, {{Out(x), bad}}, {Out(y)}, {inc_});
    EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
    EXPECT_TRUE(Contains(msg(), "x:0")) << msg();
    EXPECT_TRUE(Contains(msg(), "[?,2]")) << msg();
  }
  EXPECT_EQ(V(sess), 0.0f);
  // Fed with a value of a static shape the graph knows: a Const's.
  TG_Operation* k = FloatConst({3}, 1.0f, "k");
  TG_Operation* k2 = Unary("Neg", k, "k2");
  Run(sess, {{Out(k), ok1.get()}}, {Out(k2)}, {inc_});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_EQ(V(sess), 0.0f);
}

TEST_F(SessionFeedTest, UnknownRankPlaceholderTakesAnyShape) {
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x", /*unknown_rank=*/true);
  TG_Operation* y = Unary("Neg", x, "y");
  TG_Session* sess = NewSession();
  TensorPtr scalar = FloatScalar(2.0f);
  TensorPtr cube = FloatTensor({1, 1, 2}, {3, 4});
  EXPECT_EQ(RunFloats(sess, Out(y), {{Out(x), scalar.get()}}), (std::vector<float>{-2}));
  TG_EXPECT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Out(y), {{Out(x), cube.get()}}), (std::vector<float>{-3, -4}));
  TG_EXPECT_OK(s_);
}

TEST_F(SessionFeedTest, TensorsOfAnotherGraphAreInvalid) {
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");
  TG_Operation* y = Unary("Neg", x, "y");
  TG_Session* sess = InitializedSession();

  TG_Graph* other = TG_NewGraph();
  TG_Operation* foreign = ScalarConstIn(other, 1.0f, "foreign");
  TensorPtr one = FloatScalar(1.0f);
  Run(sess, {{Out(foreign), one.get()}, {Out(x), one.get()}}, {Out(y)}, {inc_});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "foreign")) << msg();
  Run(sess, {{Out(x), one.get()}}, {Out(y), Out(foreign)}, {inc_});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "foreign")) << msg();
  Run(sess, {{Out(x), one.get()}}, {Out(y)}, {inc_, foreign});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "foreign")) << msg();
  EXPECT_EQ(V(sess), 0.0f);
  TG_DeleteGraph(other);
}

TEST_F(SessionFeedTest, BadOutputIndexIsInvalid) {
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");
  TG_Session* sess = InitializedSession();
  TensorPtr one = FloatScalar(1.0f);
  for (int index : {1, -1, 1000}) {
    Run(sess, {{TG_Output{x, index}, one.get()}}, {Out(x)}, {inc_});
    EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << index << ": " << msg();
    EXPECT_TRUE(Contains(msg(), "x")) << msg();
    Run(sess, {{Out(x), one.get()}}, {TG_Output{x, index}}, {inc_});
    EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << index << ": " << msg();
  }
  EXPECT_EQ(V(sess), 0.0f);
}

TEST_F(SessionFeedTest, FeedingTheSameTensorTwiceIsInvalid) {
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");
  TG_Operation* y = Unary("Neg", x, "y");
  TG_Session* sess = InitializedSession();
  TensorPtr one = FloatScalar(1.0f);
  TensorPtr two = FloatScalar(2.0f);
  Run(sess, {{Out(x), one.get()}, {Out(x), two.get()}}, {Out(y)}, {inc_});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "x")) << msg();
  EXPECT_EQ(V(sess), 0.0f);
}

TEST_F(SessionFeedTest, FeedsAreCheckedOnEveryRunOfACachedRequest) {
  TG_Operation* x = Placeholder(TG_FLOAT, {2}, "x");
  TG_Operation* y = Unary("Neg", x, "y");
  TG_Session* sess = InitializedSession();
  TensorPtr good = FloatTensor({2}, {1, 2});
  TensorPtr bad = FloatTensor({3}, {1, 2, 3});
  // The same request (feeds, fetches, targets) each time: only the good runs increment.
  for (int i = 0; i < 3; ++i) {
    Run(sess, {{Out(x), good.get()}}, {Out(y)}, {inc_});
    TG_ASSERT_OK(s_);
    Run(sess, {{Out(x), bad.get()}}, {Out(y)}, {inc_});
    EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  }
  EXPECT_EQ(V(sess), 3.0f);
}

}  // namespace
