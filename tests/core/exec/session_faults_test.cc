// Faults in the middle of a run: a tensor allocation that fails (each one in turn, of every
// run of a training step) fails the run cleanly with RESOURCE_EXHAUSTED, leaves the variable
// as it was and the session usable; a kernel error in one branch of a parallel run stops the
// run, and nothing of it is still running when Run returns. The sanitizer stages run these
// too, so a leak or a race on those paths fails them.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/base/allocation_faults.h"
#include "session_test_util.h"

namespace tgraph {
namespace {

// Disarms the injected failure when a test ends, however it ends.
struct DisarmAllocationFaults {
  ~DisarmAllocationFaults() { FailNthTensorAllocation(0); }
};

class SessionFaultsTest : public SessionTest {
 protected:
  // One step of w -= 0.01 * tanh(x . w), after the loss sum(tanh(x . w)^2) is computed:
  // every allocation of the step comes before the update, which is in place.
  void BuildStep() {
    VariableOptions options;
    options.name = "w";
    w_ = g_.variables().CreateVariableFromTensor(Matrix(8, 8, 0.25f), options).value();
    x_ = Placeholder(PartialShape({8, 8}), "x");
    Output h = Op("Tanh", {Op("MatMul", {x_, w_->snapshot})->output(0)})->output(0);
    Tensor axes = Tensor::Allocate(DT_INT32, {2}).value();
    axes.flat<int32_t>()[0] = 0;
    axes.flat<int32_t>()[1] = 1;
    loss_ = Op("Sum", {Op("Square", {h})->output(0), Const(axes)})->output(0);
    Output delta = Op("Mul", {h, Const(Scalar(0.01f))})->output(0);
    NodeSpec update;
    update.type = "AssignSub";
    update.name = "update";
    update.inputs = {{{w_->ref()}, false}, {{delta}, false}};
    update.control_inputs = {loss_.op};
    update_ = g_.AddOperation(std::move(update)).value();
  }

  // The feed is made once, before any failure is armed.
  Status Step(Session* session, std::vector<Tensor>* out) {
    return session->Run({{x_, x_value_}}, {loss_}, {update_}, out);
  }

  std::vector<float> Weights(Session* session) {
    std::vector<Tensor> out;
    Status s = session->Run({}, {w_->snapshot}, {}, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return {};
    return std::vector<float>(out[0].flat<float>(), out[0].flat<float>() + out[0].NumElements());
  }

  void FailEachAllocationInTurn(SessionOptions options) {
    DisarmAllocationFaults disarm;
    BuildStep();
    auto session = NewSession(options);
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run({}, {}, {w_->initializer}, &out).ok());
    ASSERT_TRUE(Step(session.get(), &out).ok());  // the plan is built and cached

    constexpr int64_t kMany = int64_t{1} << 40;
    FailNthTensorAllocation(kMany);
    ASSERT_TRUE(Step(session.get(), &out).ok());
    const int64_t allocations = kMany - TensorAllocationsBeforeFailure();
    FailNthTensorAllocation(0);
    ASSERT_GE(allocations, 2) << "the step should allocate its intermediate tensors";

    int failed_runs = 0;
    for (int64_t nth = 1; nth <= allocations; ++nth) {
      SCOPED_TRACE("failing allocation " + std::to_string(nth) + " of " +
                   std::to_string(allocations));
      const std::vector<float> before = Weights(session.get());
      out.clear();
      FailNthTensorAllocation(nth);
      const Status s = Step(session.get(), &out);
      FailNthTensorAllocation(0);
      if (s.ok()) {
        // Only a parallel run's allocations can differ in number from run to run.
        EXPECT_FALSE(options.deterministic) << "allocation " << nth << " never failed";
        continue;
      }
      ++failed_runs;
      EXPECT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
      EXPECT_TRUE(out.empty());
      EXPECT_EQ(Weights(session.get()), before) << "a failed step changed the variable";
      // The next step works and moves the variable.
      ASSERT_TRUE(Step(session.get(), &out).ok());
      EXPECT_NE(Weights(session.get()), before);
    }
    EXPECT_GE(failed_runs, allocations / 2);
  }

  // Fetching the variable's value copies it (the fetch must not alias the variable): when
  // that copy cannot be made the run fails, and never hands out the variable's own buffer.
  void FailTheCopyOfAFetchedVariable(SessionOptions options) {
    DisarmAllocationFaults disarm;
    BuildStep();
    auto session = NewSession(options);
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run({}, {}, {w_->initializer}, &out).ok());
    ASSERT_TRUE(session->Run({}, {w_->snapshot}, {}, &out).ok());
    bool failed = false;
    for (int64_t nth = 1; nth <= 4; ++nth) {
      out.clear();
      FailNthTensorAllocation(nth);
      const Status s = session->Run({}, {w_->snapshot}, {}, &out);
      FailNthTensorAllocation(0);
      if (!s.ok()) {
        failed = true;
        EXPECT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
        EXPECT_TRUE(out.empty());
        continue;
      }
      ASSERT_EQ(out.size(), 1u);
      const std::vector<float> fetched(out[0].flat<float>(), out[0].flat<float>() + 64);
      ASSERT_TRUE(Step(session.get(), &scratch_).ok());
      EXPECT_EQ(std::vector<float>(out[0].flat<float>(), out[0].flat<float>() + 64), fetched)
          << "the fetched value aliases the variable";
    }
    EXPECT_TRUE(failed) << "no allocation of the fetch was made";
  }

  Variable* w_ = nullptr;
  Output x_, loss_;
  Operation* update_ = nullptr;
  Tensor x_value_ = Matrix(8, 8, 0.5f);
  std::vector<Tensor> scratch_;
};

TEST_F(SessionFaultsTest, EachFailedAllocationFailsASerialStepCleanly) {
  SessionOptions options;
  options.deterministic = true;
  FailEachAllocationInTurn(options);
}

TEST_F(SessionFaultsTest, EachFailedAllocationFailsAParallelStepCleanly) {
  SessionOptions options;
  options.inter_op_threads = 4;
  options.intra_op_threads = 1;  // leaves cores free: the plan runs steps concurrently
  FailEachAllocationInTurn(options);
}

TEST_F(SessionFaultsTest, AFetchedVariableIsCopiedOrTheRunFails) {
  SessionOptions options;
  options.deterministic = true;
  FailTheCopyOfAFetchedVariable(options);
}

// Eight long branches each end by bumping their own counter; a ninth fails at once (a
// Reshape of a fed vector to a size it does not have). When Run returns the error, no
// branch is still running: the counters stay where they are.
TEST_F(SessionFaultsTest, KernelErrorStopsAParallelRun) {
  constexpr int kBranches = 8;
  Output a = Const(Matrix(96, 96, 0.01f));
  std::vector<Variable*> counters;
  std::vector<Operation*> targets;
  for (int b = 0; b < kBranches; ++b) {
    Output chain = a;
    for (int i = 0; i < 12; ++i) chain = Op("MatMul", {chain, a})->output(0);
    counters.push_back(Var(0.0f, "counter" + std::to_string(b)));
    NodeSpec bump;
    bump.type = "AssignAdd";
    bump.inputs = {{{counters.back()->ref()}, false}, {{Const(Scalar(1.0f))}, false}};
    bump.control_inputs = {chain.op};
    targets.push_back(g_.AddOperation(std::move(bump)).value());
  }
  Output x = Placeholder(PartialShape({-1}), "x");
  Tensor three = Tensor::Allocate(DT_INT32, {1}).value();
  three.flat<int32_t>()[0] = 3;
  Output reshaped = Op("Reshape", {x, Const(three)}, {}, "bad_reshape")->output(0);

  SessionOptions options;
  options.inter_op_threads = 4;
  options.intra_op_threads = 1;
  auto session = NewSession(options);
  std::vector<Tensor> out;
  for (Variable* c : counters) ASSERT_TRUE(session->Run({}, {}, {c->initializer}, &out).ok());

  auto counter_values = [&] {
    std::vector<float> values;
    for (Variable* c : counters) {
      std::vector<Tensor> v;
      EXPECT_TRUE(session->Run({}, {c->snapshot}, {}, &v).ok());
      values.push_back(v.empty() ? -1.0f : Value(v[0]));
    }
    return values;
  };
  Tensor four = Tensor::Allocate(DT_FLOAT, {4}).value();
  for (int attempt = 0; attempt < 5; ++attempt) {
    out.clear();
    const Status s = session->Run({{x, four}}, {reshaped}, targets, &out);
    ASSERT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find("bad_reshape"), std::string::npos) << s.message();
    EXPECT_TRUE(out.empty());
    const std::vector<float> at_return = counter_values();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(counter_values(), at_return) << "a branch kept running after Run returned";
  }
  // The session still runs the same request with a good feed.
  Tensor three_values = Tensor::Allocate(DT_FLOAT, {3}).value();
  ASSERT_TRUE(session->Run({{x, three_values}}, {reshaped}, targets, &out).ok());
}

}  // namespace
}  // namespace tgraph
