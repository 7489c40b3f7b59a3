// Variables on /device:GPU:0 (CUDA): VariableV2, Assign (same shape, reshaped with
// validate_shape=false, rejected with it), AssignAdd/AssignSub and the optimizer updates
// ApplyGradientDescent, ApplyMomentum (plain and Nesterov) and ApplyAdam (plain and
// Nesterov), each run a few times in one session and compared with the same graph on the
// CPU. The variables' storage stays in device memory: the only copies are the fetches.
// Skipped, saying why, without a CUDA device.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::kCpu;
using devtest::kGpu;
using devtest::Random;
using devtest::RunResult;

class CudaStateTest : public devtest::DeviceTest {};

constexpr int64_t kRows = 3, kCols = 5;

// A float variable of [kRows, kCols] named `name`, with its Assign from a device Const.
struct Var {
  TG_Output ref, assign;
};

Var MakeVar(Builder& b, const std::string& name, uint32_t seed, float lo = -1.0f) {
  const int64_t dims[] = {kRows, kCols};
  Var v;
  v.ref = b.Op("VariableV2", {},
               [&](TG_OperationDescription* d) {
                 TG_SetAttrType(d, "dtype", TG_FLOAT);
                 TG_SetAttrShape(d, "shape", dims, 2);
               },
               name.c_str());
  TG_Output init = b.DeviceConst({kRows, kCols}, Random(kRows * kCols, lo, 1, seed));
  v.assign = b.Op("Assign", {v.ref, init}, {}, (name + "/Assign").c_str());
  return v;
}

// One session: each of `runs` in turn (initializers, then updates), then the final fetches,
// whose run is returned (or the first failing run).
struct Steps {
  std::vector<std::vector<TG_Output>> runs;
  std::vector<TG_Output> final_fetches;
};

RunResult RunSteps(Builder& b, const Steps& steps) {
  TG_Status* s = TG_NewStatus();
  TG_Session* session = TG_NewSession(b.graph(), nullptr, s);
  RunResult last;
  EXPECT_NE(session, nullptr) << TG_Message(s);
  if (session == nullptr) {
    TG_DeleteStatus(s);
    last.code = TG_INTERNAL;
    return last;
  }
  for (const auto& fetches : steps.runs) {
    last = b.RunIn(session, fetches);
    if (last.code != TG_OK) break;
  }
  if (last.code == TG_OK) last = b.RunIn(session, steps.final_fetches);
  TG_DeleteSession(session, s);
  TG_DeleteStatus(s);
  return last;
}

using StepsFn = std::function<Steps(Builder&)>;

// Builds and runs `build` on the CPU and on GPU:0; the final fetches must match, and the
// GPU's final run must have copied nothing but its fetches out.
void ExpectStateMatchesCpu(const StepsFn& build, double tol = 1e-5) {
  Builder cpu(kCpu), gpu(kGpu);
  const RunResult want = RunSteps(cpu, build(cpu));
  const RunResult got = RunSteps(gpu, build(gpu));
  ASSERT_EQ(want.code, TG_OK) << want.message;
  ASSERT_EQ(got.code, TG_OK) << got.message << "\n" << got.StepsString();
  ASSERT_EQ(got.values.size(), want.values.size());
  EXPECT_EQ(got.Copies(), static_cast<int>(got.values.size())) << got.StepsString();
  for (size_t f = 0; f < want.values.size(); ++f) {
    SCOPED_TRACE("fetch " + std::to_string(f));
    EXPECT_EQ(got.values[f].dims, want.values[f].dims);
    ASSERT_EQ(got.values[f].values.size(), want.values[f].values.size());
    for (size_t i = 0; i < want.values[f].values.size(); ++i) {
      EXPECT_NEAR(got.values[f].values[i], want.values[f].values[i],
                  tol * (1 + std::abs(want.values[f].values[i])))
          << "element " << i;
    }
  }
}

TEST_F(CudaStateTest, AssignAndAssignUpdatesMatchCpu) {
  for (const char* op : {"AssignAdd", "AssignSub"}) {
    SCOPED_TRACE(op);
    ExpectStateMatchesCpu([&](Builder& b) {
      Var v = MakeVar(b, "v", 1);
      TG_Output delta = b.DeviceConst({kRows, kCols}, Random(kRows * kCols, -1, 1, 2));
      TG_Output update = b.Op(op, {v.ref, delta}, {}, "update");
      TG_Output read = b.Op("Identity", {v.ref}, {}, "read");
      return Steps{{{v.assign}, {update}, {update}}, {read}};
    });
  }
}

TEST_F(CudaStateTest, AssignReshapesOnlyWithoutValidateShape) {
  ExpectStateMatchesCpu([](Builder& b) {
    Var v = MakeVar(b, "v", 3);
    TG_Output other = b.DeviceConst({2, 2}, {1, 2, 3, 4});
    TG_Output reshape = b.Op(
        "Assign", {v.ref, other},
        [](TG_OperationDescription* d) { TG_SetAttrBool(d, "validate_shape", 0); }, "reassign");
    TG_Output read = b.Op("Identity", {v.ref}, {}, "read");
    return Steps{{{v.assign}, {reshape}}, {read}};
  });
  // With validate_shape (a fed value: a constant one is refused while building).
  Builder gpu(kGpu);
  Var v = MakeVar(gpu, "v", 3);
  TG_Output other = gpu.Feed({2, 2}, {1, 2, 3, 4});
  TG_Output bad = gpu.Op("Assign", {v.ref, other}, {}, "bad_assign");
  const RunResult r = RunSteps(gpu, Steps{{{v.assign}}, {bad}});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_NE(r.message.find("bad_assign"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("shapes of both tensors to match"), std::string::npos) << r.message;
}

TEST_F(CudaStateTest, GradientDescentMatchesCpu) {
  ExpectStateMatchesCpu([](Builder& b) {
    Var v = MakeVar(b, "v", 4);
    TG_Output alpha = b.DeviceConst({}, {0.25f});
    TG_Output grad = b.DeviceConst({kRows, kCols}, Random(kRows * kCols, -1, 1, 5));
    TG_Output apply = b.Op("ApplyGradientDescent", {v.ref, alpha, grad}, {}, "apply");
    TG_Output read = b.Op("Identity", {v.ref}, {}, "read");
    return Steps{{{v.assign}, {apply}, {apply}, {apply}}, {read}};
  });
}

TEST_F(CudaStateTest, MomentumMatchesCpu) {
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "plain");
    ExpectStateMatchesCpu([&](Builder& b) {
      Var v = MakeVar(b, "v", 6), accum = MakeVar(b, "accum", 7);
      TG_Output lr = b.DeviceConst({}, {0.1f}), momentum = b.DeviceConst({}, {0.9f});
      TG_Output grad = b.DeviceConst({kRows, kCols}, Random(kRows * kCols, -1, 1, 8));
      TG_Output apply = b.Op("ApplyMomentum", {v.ref, accum.ref, lr, grad, momentum},
                             [&](TG_OperationDescription* d) {
                               TG_SetAttrBool(d, "use_nesterov", nesterov ? 1 : 0);
                             },
                             "apply");
      TG_Output read_v = b.Op("Identity", {v.ref}, {}, "read_v");
      TG_Output read_a = b.Op("Identity", {accum.ref}, {}, "read_accum");
      return Steps{{{v.assign, accum.assign}, {apply}, {apply}, {apply}}, {read_v, read_a}};
    });
  }
}

TEST_F(CudaStateTest, AdamMatchesCpu) {
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "plain");
    ExpectStateMatchesCpu([&](Builder& b) {
      // The second moment s (ApplyAdam's `v`) starts non-negative.
      Var v = MakeVar(b, "v", 9), m = MakeVar(b, "m", 10), s = MakeVar(b, "s", 11, 0.0f);
      std::vector<TG_Output> scalars;
      for (float x : {0.9f, 0.999f, 0.01f, 0.9f, 0.999f, 1e-7f}) {
        scalars.push_back(b.DeviceConst({}, {x}));
      }
      TG_Output grad = b.DeviceConst({kRows, kCols}, Random(kRows * kCols, -1, 1, 12));
      TG_Output apply = b.Op("ApplyAdam",
                             {v.ref, m.ref, s.ref, scalars[0], scalars[1], scalars[2], scalars[3],
                              scalars[4], scalars[5], grad},
                             [&](TG_OperationDescription* d) {
                               TG_SetAttrBool(d, "use_nesterov", nesterov ? 1 : 0);
                             },
                             "apply");
      TG_Output read_v = b.Op("Identity", {v.ref}, {}, "read_v");
      TG_Output read_m = b.Op("Identity", {m.ref}, {}, "read_m");
      TG_Output read_s = b.Op("Identity", {s.ref}, {}, "read_s");
      return Steps{{{v.assign, m.assign, s.assign}, {apply}, {apply}},
                   {read_v, read_m, read_s}};
    }, 1e-4);
  }
}

TEST_F(CudaStateTest, UpdatesCheckShapesAndInitialization) {
  {  // an uninitialized variable: FAILED_PRECONDITION naming it, before the kernel runs
    Builder gpu(kGpu);
    Var v = MakeVar(gpu, "never_set", 13);
    TG_Output alpha = gpu.DeviceConst({}, {0.5f});
    TG_Output grad = gpu.DeviceConst({kRows, kCols}, Random(kRows * kCols));
    TG_Output apply = gpu.Op("ApplyGradientDescent", {v.ref, alpha, grad}, {}, "apply");
    const RunResult r = RunSteps(gpu, Steps{{}, {apply}});
    EXPECT_EQ(r.code, TG_FAILED_PRECONDITION) << r.message;
    EXPECT_NE(r.message.find("never_set"), std::string::npos) << r.message;
  }
  {  // a gradient of another shape (fed, so the graph accepts it): rejected, var unchanged
    Builder gpu(kGpu);
    Var v = MakeVar(gpu, "v", 14);
    TG_Output alpha = gpu.DeviceConst({}, {0.5f});
    TG_Output grad = gpu.Feed({2, 2}, Random(4));
    TG_Output apply = gpu.Op("ApplyGradientDescent", {v.ref, alpha, grad}, {}, "apply");
    const RunResult r = RunSteps(gpu, Steps{{{v.assign}}, {apply}});
    EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
    EXPECT_NE(r.message.find("do not have the same shape"), std::string::npos) << r.message;
  }
}

}  // namespace
