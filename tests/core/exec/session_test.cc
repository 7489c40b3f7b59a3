// The core Session on the CPU plugin: pruning, feeds, variables, serial and parallel plans.
// (The C API tests in tests/c_api/session_*_test.cc cover the rules from a client's side.)
#include "core/exec/session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>

#include "core/base/buffer_versions.h"
#include "core/exec/prune.h"
#include "core/exec/session_state.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/variables.h"
#include "core/plugin/plugin_loader.h"
#include "session_test_util.h"

namespace tgraph {
namespace {

TEST_F(SessionTest, RunsOnlyTheNeededFragment) {
  Variable* v = Var(1.0f, "v");
  Output one = Const(Scalar(1.0f));
  Op("AssignAdd", {v->ref(), one}, {}, "bump");  // not needed by the fetch below
  Output sum = Op("AddV2", {one, one})->output(0);
  auto session = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {v->initializer->output(0)}, {}, &out).ok());
  ASSERT_TRUE(session->Run({}, {sum}, {}, &out).ok());
  EXPECT_EQ(Value(out[0]), 2.0f);
  ASSERT_TRUE(session->Run({}, {v->snapshot}, {}, &out).ok());
  EXPECT_EQ(Value(out[0]), 1.0f);  // bump never ran
}

TEST_F(SessionTest, PruneStopsAtFedTensors) {
  Output x = Placeholder(PartialShape::Scalar(), "x");
  Output y = Op("Neg", {x})->output(0);
  Output z = Op("Square", {y})->output(0);
  PruneRequest request;
  request.fed = {y};
  request.fetches = {z};
  auto pruned = PruneAndOrder(g_, request);
  ASSERT_TRUE(pruned.ok());
  ASSERT_EQ(pruned->ordered.size(), 1u);
  EXPECT_EQ(pruned->ordered[0], z.op);

  auto session = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{y, Scalar(3.0f)}}, {z}, {}, &out).ok());
  EXPECT_EQ(Value(out[0]), 9.0f);
  Status s = session->Run({}, {z}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("'x'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("float"), std::string::npos) << s.message();
}

TEST_F(SessionTest, FeedsAreCheckedBeforeAnythingRuns) {
  Variable* v = Var(1.0f, "v");
  Output x = Placeholder(PartialShape({2}), "x");
  Operation* bump = Op("AssignAdd", {v->ref(), Const(Scalar(1.0f))}, {}, "bump");
  auto session = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {v->initializer}, &out).ok());
  Status s = session->Run({{x, Matrix(2, 2, 1.0f)}}, {x}, {bump}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  Tensor ints = Tensor::Allocate(DT_INT32, {2}).value();
  s = session->Run({{x, ints}}, {x}, {bump}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  ASSERT_TRUE(session->Run({}, {v->snapshot}, {}, &out).ok());
  EXPECT_EQ(Value(out[0]), 1.0f);
}

TEST_F(SessionTest, UninitializedVariableIsFailedPrecondition) {
  Variable* v = Var(5.0f, "weights");
  auto session = NewSession();
  std::vector<Tensor> out;
  Status s = session->Run({}, {v->snapshot}, {}, &out);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition);
  EXPECT_NE(s.message().find("weights"), std::string::npos) << s.message();
  ASSERT_TRUE(session->Run({}, {}, {v->initializer}, &out).ok());
  ASSERT_TRUE(session->Run({}, {v->snapshot}, {}, &out).ok());
  EXPECT_EQ(Value(out[0]), 5.0f);
}

TEST_F(SessionTest, StatefulOpRunsOncePerRunAndPlansAreCached) {
  Variable* v = Var(0.0f, "counter");
  Output bump = Op("AssignAdd", {v->ref(), Const(Scalar(1.0f))})->output(0);
  Output twice = Op("AddV2", {bump, bump})->output(0);
  auto session = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {v->initializer}, &out).ok());
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(session->Run({}, {bump, twice, bump}, {}, &out).ok());
    EXPECT_EQ(Value(out[0]), static_cast<float>(i));
    EXPECT_EQ(Value(out[1]), 2.0f * i);
    EXPECT_EQ(Value(out[2]), static_cast<float>(i));
  }
  EXPECT_EQ(session->plans_built(), 2);
}

TEST_F(SessionTest, FetchedValuesDoNotChangeWhenTheVariableDoes) {
  Variable* v = Var(1.0f, "v");
  Operation* bump = Op("AssignAdd", {v->ref(), Const(Scalar(1.0f))});
  auto session = NewSession();
  std::vector<Tensor> out, later;
  ASSERT_TRUE(session->Run({}, {}, {v->initializer}, &out).ok());
  ASSERT_TRUE(session->Run({}, {v->snapshot}, {}, &out).ok());
  ASSERT_TRUE(session->Run({}, {}, {bump}, &later).ok());
  EXPECT_EQ(Value(out[0]), 1.0f);
}

TEST_F(SessionTest, SessionsHaveTheirOwnVariables) {
  Variable* v = Var(1.0f, "v");
  Operation* bump = Op("AssignAdd", {v->ref(), Const(Scalar(10.0f))});
  auto a = NewSession(), b = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(a->Run({}, {}, {v->initializer}, &out).ok());
  ASSERT_TRUE(b->Run({}, {}, {v->initializer}, &out).ok());
  ASSERT_TRUE(a->Run({}, {}, {bump}, &out).ok());
  ASSERT_TRUE(a->Run({}, {v->snapshot}, {}, &out).ok());
  EXPECT_EQ(Value(out[0]), 11.0f);
  ASSERT_TRUE(b->Run({}, {v->snapshot}, {}, &out).ok());
  EXPECT_EQ(Value(out[0]), 1.0f);
}

// Independent expensive branches take the parallel path; results match the serial one.
TEST_F(SessionTest, ParallelPlanMatchesSerial) {
  const Output sum = SumOfFourMatMuls();
  SessionOptions parallel;
  parallel.inter_op_threads = 4;
  parallel.intra_op_threads = 1;
  // The branches must run: constant folding would compute them at plan time.
  ASSERT_TRUE(parallel.rewrites.Set("all", false).ok());
  SessionOptions serial = parallel;
  serial.deterministic = true;
  for (const SessionOptions& options : {parallel, serial}) {
    auto session = NewSession(options);
    for (int run = 0; run < 20; ++run) {
      std::vector<Tensor> out;
      RunMetadata meta;
      RunOptions trace;
      trace.trace_level = 1;
      ASSERT_TRUE(session->Run(trace, {}, {sum}, {}, &out, &meta).ok());
      ASSERT_EQ(out[0].NumElements(), 128 * 128);
      EXPECT_FLOAT_EQ(out[0].flat<float>()[0], 4 * 128 * 0.25f);
      EXPECT_EQ(meta.step_stats.size(), 6u);
      // Handed-off branches ran on pool threads; the deterministic plan stays on the caller.
      bool on_pool = false;
      for (const NodeStepStats& st : meta.step_stats) on_pool = on_pool || st.thread_id > 0;
      EXPECT_EQ(on_pool, !options.deterministic);
    }
  }
}

// With an intra-op thread for every hardware thread, each expensive kernel already spreads
// over all the cores: the same independent branches then run one at a time on the caller
// (session.h, SessionOptions::inter_op_threads), whatever the inter-op setting.
TEST_F(SessionTest, StepsRunOnTheCallerWhenIntraOpFillsTheCores) {
  const Output sum = SumOfFourMatMuls();
  SessionOptions options;
  options.inter_op_threads = 4;
  options.intra_op_threads = std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
  ASSERT_TRUE(options.rewrites.Set("all", false).ok());
  auto session = NewSession(options);
  for (int run = 0; run < 5; ++run) {
    std::vector<Tensor> out;
    RunMetadata meta;
    RunOptions trace;
    trace.trace_level = 1;
    ASSERT_TRUE(session->Run(trace, {}, {sum}, {}, &out, &meta).ok());
    EXPECT_FLOAT_EQ(out[0].flat<float>()[0], 4 * 128 * 0.25f);
    EXPECT_EQ(meta.step_stats.size(), 6u);
    for (const NodeStepStats& st : meta.step_stats) EXPECT_EQ(st.thread_id, 0) << st.node_name;
  }
}

// A sparse update of a big variable is a few rows of work, not the variable's size: four
// independent ScatterAdds of one row into [65536, 16] variables plan no hand-offs (each
// counted the variable's million elements as work before, and the plan went parallel).
TEST_F(SessionTest, SparseUpdatesOfBigVariablesStayOnTheCaller) {
  std::vector<Operation*> updates;
  std::vector<Variable*> vars;
  Tensor row = Tensor::Allocate(DT_INT32, {1}).value();
  row.flat<int32_t>()[0] = 7;
  for (int i = 0; i < 4; ++i) {
    VariableOptions options;
    options.name = "big" + std::to_string(i);
    auto v = g_.variables().CreateVariableFromTensor(Matrix(65536, 16, 0.0f), options);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    vars.push_back(v.value());
    updates.push_back(Op("ScatterAdd", {v.value()->ref(), Const(row), Const(Matrix(1, 16, 1.0f))}));
  }
  SessionOptions options;
  options.inter_op_threads = 4;
  options.intra_op_threads = 1;
  auto session = NewSession(options);
  std::vector<Tensor> out;
  for (Variable* v : vars) ASSERT_TRUE(session->Run({}, {}, {v->initializer}, &out).ok());
  RunMetadata meta;
  RunOptions trace;
  trace.trace_level = 1;
  ASSERT_TRUE(session->Run(trace, {}, {}, updates, &out, &meta).ok());
  int scatters = 0;
  for (const NodeStepStats& st : meta.step_stats) {
    scatters += st.op_type == "ScatterAdd";
    EXPECT_EQ(st.thread_id, 0) << st.node_name;
  }
  EXPECT_EQ(scatters, 4);
  ASSERT_TRUE(session->Run({}, {vars[3]->snapshot}, {}, &out).ok());
  EXPECT_EQ(out[0].flat<float>()[7 * 16 + 5], 1.0f);
  EXPECT_EQ(out[0].flat<float>()[8 * 16], 0.0f);
}

// A view (Identity, Reshape, ExpandDims) of a big tensor is no work: four independent views
// of [512, 1024] variables plan no hand-offs (counted by their elements, each was worth
// another thread, and a training step's first MatMul waited for a pool thread to wake up to
// run its weight's `read` Identity).
TEST_F(SessionTest, ViewsOfBigTensorsStayOnTheCaller) {
  Tensor shape = Tensor::Allocate(DT_INT32, {2}).value();
  shape.flat<int32_t>()[0] = 1024;
  shape.flat<int32_t>()[1] = 512;
  Tensor axis = Tensor::Allocate(DT_INT32, {}).value();
  axis.flat<int32_t>()[0] = 0;
  std::vector<Variable*> vars;
  std::vector<Output> views;
  for (int i = 0; i < 4; ++i) {
    VariableOptions options;
    options.name = "w" + std::to_string(i);
    auto v = g_.variables().CreateVariableFromTensor(Matrix(512, 1024, 1.0f), options);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    vars.push_back(v.value());
    Output value = Op("Identity", {v.value()->ref()}, {}, "read" + std::to_string(i))->output(0);
    if (i == 1) value = Op("Reshape", {value, Const(shape)}, {}, "reshaped")->output(0);
    if (i == 2) value = Op("ExpandDims", {value, Const(axis)}, {}, "expanded")->output(0);
    views.push_back(value);
  }
  SessionOptions options;
  options.inter_op_threads = 4;
  options.intra_op_threads = 1;
  ASSERT_TRUE(options.rewrites.Set("all", false).ok());
  auto session = NewSession(options);
  std::vector<Tensor> out;
  for (Variable* v : vars) ASSERT_TRUE(session->Run({}, {}, {v->initializer}, &out).ok());
  RunMetadata meta;
  RunOptions trace;
  trace.trace_level = 1;
  ASSERT_TRUE(session->Run(trace, {}, views, {}, &out, &meta).ok());
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[1].shape().dim(0), 1024);
  EXPECT_EQ(out[2].shape().rank(), 3);
  int checked = 0;
  for (const NodeStepStats& st : meta.step_stats) {
    checked += st.op_type == "Identity" || st.op_type == "Reshape" || st.op_type == "ExpandDims";
    EXPECT_EQ(st.thread_id, 0) << st.node_name;
  }
  EXPECT_EQ(checked, 6);
}

TEST_F(SessionTest, KernelErrorNamesTheNodeAndStopsTheRun) {
  Output x = Placeholder(PartialShape::Unknown(), "x");
  Tensor shape = Tensor::Allocate(DT_INT32, {1}).value();
  shape.flat<int32_t>()[0] = 3;
  Output reshaped = Op("Reshape", {x, Const(shape)}, {}, "bad_reshape")->output(0);
  auto session = NewSession();
  std::vector<Tensor> out;
  Status s = session->Run({{x, Matrix(2, 2, 1.0f)}}, {reshaped}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("bad_reshape"), std::string::npos) << s.message();
  EXPECT_TRUE(out.empty());
}

TEST_F(SessionTest, ConcurrentRunsOnOneSession) {
  Output x = Placeholder(PartialShape({2, 2}), "x");
  Output y = Op("MatMul", {x, x})->output(0);
  Variable* v = Var(0.0f, "count");
  Operation* bump = Op("AssignAdd", {v->ref(), Const(Scalar(1.0f))}, {{"use_locking", AttrOfBool(true)}});
  auto session = NewSession();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {v->initializer}, &out).ok());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::vector<Tensor> r;
        const float f = static_cast<float>(t + 1);
        Status s = session->Run({{x, Matrix(2, 2, f)}}, {y}, {bump}, &r);
        if (!s.ok() || r.size() != 1 || r[0].flat<float>()[3] != 2 * f * f) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_TRUE(session->Run({}, {v->snapshot}, {}, &out).ok());
  EXPECT_EQ(Value(out[0]), 1600.0f);
}

TEST_F(SessionTest, ClosedSessionRefusesRuns) {
  Output c = Const(Scalar(1.0f));
  auto session = NewSession();
  ASSERT_TRUE(session->Close().ok());
  std::vector<Tensor> out;
  EXPECT_EQ(session->Run({}, {c}, {}, &out).code(), Code::kFailedPrecondition);
}


// A plan numbers the graph's constants (input_version); the numbers' table holds a weak
// reference to each buffer, which kept the dead buffer's control block until a later purge.
// Deleting the graph drops them: nothing of a graph's run stays allocated after it (what
// libFuzzer's per-input leak check needs: op_run ran 15 times slower while it did).
TEST(SessionGraphTest, DeletingAGraphForgetsItsConstantsNumbers) {
  LoadCpu();
  BufferVersions::ForgetDead();
  const size_t before = BufferVersions::NumEntriesForTest();
  auto graph = std::make_unique<Graph>();
  NodeSpec spec;
  spec.type = "Const";
  spec.attrs = {{"value", AttrOfTensor(Matrix(2, 3, 1.0f))}, {"dtype", AttrOfType(DT_FLOAT)}};
  auto c = graph->AddOperation(std::move(spec));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  NodeSpec neg;
  neg.type = "Neg";
  neg.inputs.push_back({{(*c)->output(0)}, false});
  auto n = graph->AddOperation(std::move(neg));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  {
    auto session = Session::Create(graph.get(), {});
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)->Run({}, {(*n)->output(0)}, {}, &out).ok());
    EXPECT_EQ(out[0].flat<float>()[0], -1.0f);
    EXPECT_NE(BufferVersions::Get((*c)->constant_value()->buffer().get()), 0u);
  }
  EXPECT_GT(BufferVersions::NumEntriesForTest(), before);
  graph.reset();
  EXPECT_EQ(BufferVersions::NumEntriesForTest(), before);
}

}  // namespace
}  // namespace tgraph
