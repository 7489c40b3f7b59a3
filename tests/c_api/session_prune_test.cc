// What a run executes: only the fragment its fetches and targets need (walking back over
// data and control edges, stopping at fed tensors), each node once, in an order that honours
// control dependencies; the fetch list's order changes nothing. Stateful ops (AssignAdd on a
// variable) make each rule observable from outside.
#include <algorithm>
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::FloatScalar;
using tgtest::FloatTensor;
using tgtest::Floats;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

class SessionPruneTest : public SessionTest {
 protected:
  // A session with `v` (and any other variable) initialized.
  TG_Session* InitializedSession(const TG_SessionOptions* opts = nullptr) {
    TG_Operation* init = Init();
    TG_Session* sess = NewSession(opts);
    EXPECT_TRUE(tgtest::IsOk(s_));
    RunTargets(sess, {init});
    EXPECT_TRUE(tgtest::IsOk(s_));
    return sess;
  }
};

TEST_F(SessionPruneTest, UnneededOpsNeverRun) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* inc = Increment(v, "inc_not_needed");
  // Downstream of the increment, but not fetched either.
  TG_Operation* doubled = Binary("Mul", inc, ScalarConst(2.0f), "doubled");
  TG_ASSERT_OK(s_);
  // Needed ops that would fail if they ran: an unfed placeholder and an uninitialized
  // variable's read.
  TG_Operation* unfed = Placeholder(TG_FLOAT, {2}, "unfed");
  TG_Operation* uses_unfed = Unary("Neg", unfed, "uses_unfed");
  TG_Variable* never_init = ScalarVar("never_initialized", 5.0f);
  TG_Operation* uses_uninit = Unary("Neg", Read(never_init).oper, "uses_uninit");
  (void)doubled;
  (void)uses_unfed;
  (void)uses_uninit;
  TG_Operation* c = ScalarConst(7.0f, "c");
  TG_Operation* wanted = Unary("Neg", c, "wanted");

  TG_Session* sess = NewSession();
  RunTargets(sess, {TG_VariableInitializer(v)});
  TG_ASSERT_OK(s_);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(RunFloats(sess, Out(wanted)), (std::vector<float>{-7}));
    TG_ASSERT_OK(s_);
  }
  EXPECT_EQ(ScalarValue(sess, v), 0.0f);
  // Running it as a target does increment: the check above would have seen it.
  RunTargets(sess, {inc});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ScalarValue(sess, v), 1.0f);
}

TEST_F(SessionPruneTest, UnneededRandomOpDoesNotRun) {
  // RandomUniform is stateful: a seeded one gives a fixed sequence, so if it ran in the
  // runs that do not need it, the next value it gives would differ.
  auto make_random = [&](const char* name) {
    TG_OperationDescription* d = TG_NewOperation(g_, "RandomUniform", name);
    TG_AddInput(d, Out(ConstTensor(tgtest::IntTensor({1}, {4}))));
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    TG_SetAttrInt(d, "seed", 7);
    TG_SetAttrInt(d, "seed2", 11);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(tgtest::IsOk(s_));
    return op;
  };
  TG_Operation* r = make_random("r");
  TG_Operation* other = ScalarConst(1.0f, "other");
  TG_Session* quiet = NewSession();
  TG_Session* busy = NewSession();
  TG_ASSERT_OK(s_);
  // `busy` runs other fragments first; `quiet` does not. If those runs drew numbers from r,
  // r's first values in the two sessions would differ.
  for (int i = 0; i < 5; ++i) {
    RunFloats(busy, Out(other));
    TG_ASSERT_OK(s_);
  }
  std::vector<float> a = RunFloats(quiet, Out(r));
  TG_ASSERT_OK(s_);
  std::vector<float> b = RunFloats(busy, Out(r));
  TG_ASSERT_OK(s_);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a, b);
  // And r does move on when it runs (so the check above means something).
  EXPECT_NE(RunFloats(quiet, Out(r)), a);
}

TEST_F(SessionPruneTest, FeedingATensorCutsWhatComputesIt) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* inc = Increment(v, "inc");
  TG_Operation* scaled = Binary("Mul", inc, ScalarConst(2.0f, "two"), "scaled");
  TG_Operation* plus1 = Binary("AddV2", scaled, ScalarConst(1.0f, "one"), "plus1");
  TG_ASSERT_OK(s_);
  TG_Session* sess = InitializedSession();

  TensorPtr ten = FloatScalar(10.0f);
  EXPECT_EQ(RunFloats(sess, Out(plus1), {{Out(scaled), ten.get()}}), (std::vector<float>{11}));
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ScalarValue(sess, v), 0.0f) << "the fed tensor's producer (an AssignAdd) ran";
  // Without the feed the increment is needed and runs.
  EXPECT_EQ(RunFloats(sess, Out(plus1)), (std::vector<float>{3}));
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ScalarValue(sess, v), 1.0f);
}

TEST_F(SessionPruneTest, FeedingTheOutputOfAnUnfedPlaceholderConsumer) {
  TG_Operation* p = Placeholder(TG_FLOAT, {2}, "p");
  TG_Operation* ip = Identity(p, "ip");
  TG_Operation* out = Binary("Mul", ip, ScalarConst(3.0f), "out");
  TG_ASSERT_OK(s_);
  TG_Session* sess = NewSession();
  TensorPtr v = FloatTensor({2}, {1, -2});
  // p is upstream of the fed tensor only: it is not needed, so it need not be fed.
  EXPECT_EQ(RunFloats(sess, Out(out), {{Out(ip), v.get()}}), (std::vector<float>{3, -6}));
  TG_EXPECT_OK(s_);
  // A constant can be fed too: the feed wins over its value.
  TG_Operation* k = ScalarConst(4.0f, "k");
  TG_Operation* k2 = Binary("Mul", k, k, "k2");
  TensorPtr five = FloatScalar(5.0f);
  EXPECT_EQ(RunFloats(sess, Out(k2), {{Out(k), five.get()}}), (std::vector<float>{25}));
  TG_EXPECT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Out(k2)), (std::vector<float>{16}));
}

TEST_F(SessionPruneTest, ATensorFetchedTwiceIsComputedOnce) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* inc = Increment(v, "inc");
  // Two more consumers of the increment's result.
  TG_Operation* doubled = Binary("Mul", inc, ScalarConst(2.0f, "two"), "doubled");
  TG_Operation* tripled = Binary("Mul", inc, ScalarConst(3.0f, "three"), "tripled");
  TG_ASSERT_OK(s_);
  TG_Session* sess = InitializedSession();

  for (int run = 1; run <= 3; ++run) {
    std::vector<TensorPtr> out =
        Run(sess, {}, {Out(inc), Out(doubled), Out(inc), Out(tripled)}, {inc});
    TG_ASSERT_OK(s_);
    const float n = static_cast<float>(run);
    EXPECT_EQ(Floats(out[0].get()), (std::vector<float>{n})) << "run " << run;
    EXPECT_EQ(Floats(out[1].get()), (std::vector<float>{2 * n})) << "run " << run;
    EXPECT_EQ(Floats(out[2].get()), (std::vector<float>{n})) << "run " << run;
    EXPECT_EQ(Floats(out[3].get()), (std::vector<float>{3 * n})) << "run " << run;
    EXPECT_EQ(ScalarValue(sess, v), n) << "run " << run;
  }
}

TEST_F(SessionPruneTest, FetchOrderChangesNothing) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* inc = Increment(v, "inc");
  TG_Operation* doubled = Binary("Mul", inc, ScalarConst(2.0f, "two"), "doubled");
  TG_Operation* c = ScalarConst(9.0f, "c");
  TG_ASSERT_OK(s_);
  TG_Session* sess = InitializedSession();

  std::vector<TensorPtr> forward = Run(sess, {}, {Out(inc), Out(doubled), Out(c)});
  TG_ASSERT_OK(s_);
  std::vector<TensorPtr> backward = Run(sess, {}, {Out(c), Out(doubled), Out(inc)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Floats(forward[0].get()), (std::vector<float>{1}));
  EXPECT_EQ(Floats(forward[1].get()), (std::vector<float>{2}));
  EXPECT_EQ(Floats(forward[2].get()), (std::vector<float>{9}));
  // The second run increments once more, whatever the order it asks in.
  EXPECT_EQ(Floats(backward[0].get()), (std::vector<float>{9}));
  EXPECT_EQ(Floats(backward[1].get()), (std::vector<float>{4}));
  EXPECT_EQ(Floats(backward[2].get()), (std::vector<float>{2}));
  EXPECT_EQ(ScalarValue(sess, v), 2.0f);
}

// A read made under control_dependencies([update]) sees the update: the update is pulled
// into the fragment by the control edge and runs first. The update's value goes through a
// chain of ops, so a read that ignored the edge would be ready long before it.
TEST_F(SessionPruneTest, ControlDependencyOrdersAnUpdateBeforeARead) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* one = ScalarConst(1.0f, "one");
  TG_Operation* chain = one;
  for (int i = 0; i < 8; ++i) chain = Identity(chain);
  TG_Operation* inc = Update("AssignAdd", v, Out(chain), "inc");
  TG_GraphPushControlDependencies(g_, &inc, 1, s_);
  TG_ASSERT_OK(s_);
  TG_OperationDescription* d = TG_NewOperation(g_, "Identity", "read_after");
  TG_AddInput(d, TG_VariableOutput(v));
  TG_Operation* read = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  TG_GraphPopControlDependencies(g_, s_);
  TG_ASSERT_OK(s_);

  for (int deterministic = 0; deterministic <= 1; ++deterministic) {
    TG_SessionOptions* opts = TG_NewSessionOptions();
    TG_SetSessionDeterministic(opts, deterministic);
    TG_Session* sess = InitializedSession(opts);
    TG_DeleteSessionOptions(opts);
    for (int run = 1; run <= 50; ++run) {
      ASSERT_EQ(RunFloats(sess, Out(read)), (std::vector<float>{static_cast<float>(run)}))
          << "run " << run << (deterministic ? " (deterministic)" : "");
      TG_ASSERT_OK(s_);
    }
  }
}

// Assign then read: the initial assignment under a control dependency is what the read sees,
// every run, even though the variable holds something else before.
TEST_F(SessionPruneTest, ControlDependencyOrdersAnAssignBeforeARead) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");
  TG_Operation* set = Update("Assign", v, Out(x), "set");
  TG_GraphPushControlDependencies(g_, &set, 1, s_);
  TG_ASSERT_OK(s_);
  TG_OperationDescription* d = TG_NewOperation(g_, "Identity", "read_after_set");
  TG_AddInput(d, TG_VariableOutput(v));
  TG_Operation* read = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  TG_GraphPopControlDependencies(g_, s_);
  TG_Session* sess = InitializedSession();
  for (int run = 0; run < 50; ++run) {
    TensorPtr value = FloatScalar(static_cast<float>(100 + run));
    ASSERT_EQ(RunFloats(sess, Out(read), {{Out(x), value.get()}}),
              (std::vector<float>{static_cast<float>(100 + run)}))
        << "run " << run;
    TG_ASSERT_OK(s_);
  }
}

// Deterministic mode with two independent updates of one variable, `add` (v += 1) made
// before `set` (v = 10): v ends at 10 if add runs first, 11 if set does.
class SessionDeterministicTest : public SessionPruneTest {
 protected:
  void SetUp() override {
    SessionPruneTest::SetUp();
    v_ = ScalarVar("v", 0.0f);
    TG_Operation* one = ScalarConst(1.0f, "one");
    TG_Operation* ten = ScalarConst(10.0f, "ten");
    add_ = Update("AssignAdd", v_, Out(one), "add");
    set_ = Update("Assign", v_, Out(ten), "set");
  }
  TG_Session* DeterministicSession() {
    TG_SessionOptions* opts = TG_NewSessionOptions();
    TG_SetSessionDeterministic(opts, 1);
    TG_Session* sess = InitializedSession(opts);
    TG_DeleteSessionOptions(opts);
    return sess;
  }
  // Runs both updates, listed in the given order, from v = 0; returns v.
  float RunBoth(TG_Session* sess, bool set_first) {
    RunTargets(sess, {TG_VariableInitializer(v_)});
    EXPECT_TRUE(tgtest::IsOk(s_));
    RunTargets(sess, set_first ? std::vector<TG_Operation*>{set_, add_}
                               : std::vector<TG_Operation*>{add_, set_});
    EXPECT_TRUE(tgtest::IsOk(s_));
    return ScalarValue(sess, v_);
  }

  TG_Variable* v_ = nullptr;
  TG_Operation* add_ = nullptr;
  TG_Operation* set_ = nullptr;
};

// One order on every run, whatever order the request lists the ops in, in every session.
TEST_F(SessionDeterministicTest, OneOrderEveryRun) {
  TG_Session* first = DeterministicSession();
  const float expected = RunBoth(first, false);
  EXPECT_TRUE(expected == 10.0f || expected == 11.0f) << expected;
  for (int run = 0; run < 20; ++run) {
    ASSERT_EQ(RunBoth(first, run % 2 == 0), expected) << "run " << run;
  }
  TG_Session* second = DeterministicSession();
  for (int run = 0; run < 4; ++run) {
    ASSERT_EQ(RunBoth(second, run % 2 == 1), expected) << "second session, run " << run;
  }
}

// The documented order (c_api.h, TG_SetSessionDeterministic): ties are broken by creation
// order, so `add` (made first) runs first.
TEST_F(SessionDeterministicTest, TiesBrokenByCreationOrder) {
  TG_Session* sess = DeterministicSession();
  EXPECT_EQ(RunBoth(sess, true), 10.0f);
  EXPECT_EQ(RunBoth(sess, false), 10.0f);
}

TEST_F(SessionPruneTest, TracedRunListsOnlyTheFragment) {
  TG_Operation* a = ScalarConst(2.0f, "a");
  TG_Operation* b = Unary("Neg", a, "b");
  TG_Operation* unused = Unary("Square", a, "unused");
  TG_Operation* also_unused = ScalarConst(3.0f, "also_unused");
  (void)unused;
  (void)also_unused;
  TG_Session* sess = NewSession();
  TG_RunOptions* opts = TG_NewRunOptions();
  TG_SetRunOptionsTraceLevel(opts, 1);
  TG_RunMetadata* md = TG_NewRunMetadata();
  Run(sess, {}, {Out(b)}, {}, opts, md);
  TG_ASSERT_OK(s_);
  std::vector<std::string> names;
  for (int i = 0; i < TG_RunMetadataNumNodes(md); ++i) {
    names.push_back(TG_RunMetadataNodeName(md, i));
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  TG_DeleteRunMetadata(md);
  TG_DeleteRunOptions(opts);
}

}  // namespace
