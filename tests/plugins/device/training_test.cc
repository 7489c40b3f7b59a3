// Variables and optimizer updates on /device:GPU:0 against the CPU plugin: the same graph
// (variables, their initializers and the update op, all placed on one device with
// TG_GraphPushDevice) is run on each device, the update three times, and every variable's
// value must match. Hyper-parameters are float Consts on the device (device scalars, as
// the device kernels take them); gradients are fed.
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectSameValues;
using devtest::InitUpdateRead;
using devtest::kCpu;
using devtest::kGpu;
using devtest::NewVariable;
using devtest::Random;
using devtest::RunResult;

class TrainingTest : public devtest::DeviceTest {};

// An update op's inputs in order: 'v' the variable (random values), 'p' a positive slot
// ([1, 2): accumulators under a square root), 'm' a small slot ([-0.3, 0.3)), 's' the next
// scalar of `scalars`, 'g' the gradient (fed).
struct UpdateCase {
  const char* op;
  const char* kinds;
  std::vector<float> scalars;
  const char* flag;  // a bool attr to set, or nullptr
  bool flag_value;
  bool use_locking;
};

void PrintTo(const UpdateCase& c, std::ostream* os) { *os << c.op << " " << c.kinds; }

TG_Output BuildUpdate(Builder& b, const UpdateCase& c, std::vector<TG_Variable*>* vars) {
  const std::vector<int64_t> dims = {7, 9};
  std::vector<TG_Output> inputs;
  size_t scalar = 0;
  for (size_t i = 0; c.kinds[i] != '\0'; ++i) {
    const uint32_t seed = static_cast<uint32_t>(20 + i);
    switch (c.kinds[i]) {
      case 'v':
      case 'p':
      case 'm': {
        const float lo = c.kinds[i] == 'p' ? 1.0f : c.kinds[i] == 'm' ? -0.3f : -2.0f;
        const float hi = c.kinds[i] == 'p' ? 2.0f : c.kinds[i] == 'm' ? 0.3f : 2.0f;
        vars->push_back(NewVariable(b, "slot" + std::to_string(i), dims, Random(63, lo, hi, seed)));
        inputs.push_back(TG_VariableOutput(vars->back()));
        break;
      }
      case 's':
        inputs.push_back(b.DeviceConst({}, {c.scalars.at(scalar++)}));
        break;
      default:
        inputs.push_back(b.Feed(dims, Random(63, -1.0f, 1.0f, seed)));
    }
  }
  return b.Op(c.op, inputs, [&](TG_OperationDescription* d) {
    TG_SetAttrBool(d, "use_locking", c.use_locking ? 1 : 0);
    if (c.flag != nullptr) TG_SetAttrBool(d, c.flag, c.flag_value ? 1 : 0);
  }, "update");
}

class UpdateTest : public TrainingTest,
                         public ::testing::WithParamInterface<UpdateCase> {};

TEST_P(UpdateTest, MatchesCpuOverThreeSteps) {
  const UpdateCase& c = GetParam();
  Builder cpu(kCpu), gpu(kGpu);
  std::vector<TG_Variable*> cpu_vars, gpu_vars;
  const TG_Output cpu_update = BuildUpdate(cpu, c, &cpu_vars);
  const TG_Output gpu_update = BuildUpdate(gpu, c, &gpu_vars);
  RunResult cpu_step, gpu_step;
  const RunResult want = InitUpdateRead(cpu, cpu_vars, cpu_update, 3, &cpu_step);
  const RunResult got = InitUpdateRead(gpu, gpu_vars, gpu_update, 3, &gpu_step);
  ExpectSameValues(want, got, 1e-5, 1e-6);
  EXPECT_EQ(gpu_step.DeviceOf("update"), kGpu) << gpu_step.StepsString();
  EXPECT_EQ(cpu_step.DeviceOf("update"), kCpu) << cpu_step.StepsString();
  // The update's step moves the gradient in and the variable's value out, nothing else:
  // the scalars and the slots stay on the device.
  EXPECT_EQ(gpu_step.Copies(), 2) << gpu_step.StepsString();
}

std::string CaseName(const ::testing::TestParamInfo<UpdateCase>& info) {
  std::string name = info.param.op;
  if (info.param.flag != nullptr) name += std::string("_") + info.param.flag + (info.param.flag_value ? "_on" : "_off");
  if (info.param.use_locking) name += "_locking";
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Ops, UpdateTest,
    ::testing::Values(
        UpdateCase{"ApplyGradientDescent", "vsg", {0.1f}, nullptr, false, false},
        UpdateCase{"ApplyGradientDescent", "vsg", {0.1f}, nullptr, false, true},
        UpdateCase{"ApplyMomentum", "vmsgs", {0.1f, 0.9f}, "use_nesterov", false, false},
        UpdateCase{"ApplyMomentum", "vmsgs", {0.1f, 0.9f}, "use_nesterov", true, true},
        UpdateCase{"ApplyAdam", "vmpssssssg", {0.9f, 0.999f, 0.01f, 0.9f, 0.999f, 1e-8f},
                   "use_nesterov", false, false},
        UpdateCase{"ApplyAdam", "vmpssssssg", {0.81f, 0.998f, 0.01f, 0.9f, 0.999f, 1e-8f},
                   "use_nesterov", true, true},
        UpdateCase{"ApplyAdagrad", "vpsg", {0.1f}, "update_slots", true, false},
        UpdateCase{"ApplyAdagrad", "vpsg", {0.1f}, "update_slots", false, false},
        UpdateCase{"ApplyRMSProp", "vppssssg", {0.01f, 0.9f, 0.5f, 1e-6f}, nullptr, false, true},
        UpdateCase{"ApplyCenteredRMSProp", "vmppssssg", {0.01f, 0.9f, 0.5f, 1e-6f}, nullptr,
                   false, false}),
    CaseName);

TEST_F(TrainingTest, UpdateRejectsBadShapesAndUninitializedVariables) {
  // (Fed with unknown shapes, so that bad shapes reach the kernel.)
  auto run = [](Builder& b, bool init, std::vector<int64_t> grad_dims, std::vector<int64_t> lr_dims) {
    TG_Variable* v = NewVariable(b, "w", {2, 3}, Random(6));
    std::vector<float> lr(lr_dims.empty() ? 1 : 2, 0.1f);
    TG_Output update = b.Op("ApplyGradientDescent",
                            {TG_VariableOutput(v), b.Feed(lr_dims, lr),
                             b.Feed(grad_dims, Random(grad_dims.size() == 2 ? 6 : 3))},
                            {}, "sgd");
    TG_Status* s = TG_NewStatus();
    TG_Session* session = TG_NewSession(b.graph(), nullptr, s);
    RunResult r;
    if (init) r = b.RunIn(session, {TG_Output{TG_VariableInitializer(v), 0}});
    if (r.code == TG_OK) r = b.RunIn(session, {update});
    TG_DeleteSession(session, s);
    TG_DeleteStatus(s);
    return r;
  };
  {
    Builder gpu(kGpu);
    const RunResult r = run(gpu, true, {3}, {});
    EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
    EXPECT_NE(r.message.find("var and delta do not have the same shape: [2,3] vs [3]"),
              std::string::npos)
        << r.message;
  }
  {
    Builder gpu(kGpu);
    const RunResult r = run(gpu, true, {2, 3}, {2});
    EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
    EXPECT_NE(r.message.find("alpha is not a scalar: [2]"), std::string::npos) << r.message;
  }
  {
    Builder gpu(kGpu);
    const RunResult r = run(gpu, false, {2, 3}, {});
    EXPECT_EQ(r.code, TG_FAILED_PRECONDITION) << r.message;
  }
}

// Assign (in place, reshaping without validate_shape, refusing a new shape with it),
// AssignAdd and AssignSub, each against the CPU.
TEST_F(TrainingTest, AssignAndAssignAddSubMatchCpu) {
  for (const char* op : {"Assign", "AssignAdd", "AssignSub"}) {
    SCOPED_TRACE(op);
    Builder cpu(kCpu), gpu(kGpu);
    std::vector<TG_Variable*> cv, gv;
    auto build = [&](Builder& b, std::vector<TG_Variable*>* vars) {
      vars->push_back(NewVariable(b, "w", {4, 5}, Random(20, -1, 1, 5)));
      return b.Op(op, {TG_VariableOutput(vars->back()), b.Feed({4, 5}, Random(20, -1, 1, 6))},
                  {}, "update");
    };
    const TG_Output cu = build(cpu, &cv), gu = build(gpu, &gv);
    RunResult cpu_step, gpu_step;
    ExpectSameValues(InitUpdateRead(cpu, cv, cu, 2, &cpu_step),
                     InitUpdateRead(gpu, gv, gu, 2, &gpu_step), 1e-6, 1e-6);
    EXPECT_EQ(gpu_step.DeviceOf("update"), kGpu) << gpu_step.StepsString();
  }
  // validate_shape false: the variable takes the value's shape (reallocated on the device).
  Builder cpu(kCpu), gpu(kGpu);
  std::vector<TG_Variable*> cv, gv;
  auto build = [&](Builder& b, std::vector<TG_Variable*>* vars, bool validate) {
    vars->push_back(NewVariable(b, "w", {2, 2}, {1, 2, 3, 4}));
    return b.Op("Assign", {TG_VariableOutput(vars->back()), b.Feed({3, 1}, {7, 8, 9})},
                [&](TG_OperationDescription* d) { TG_SetAttrBool(d, "validate_shape", validate); },
                "assign");
  };
  const TG_Output cu = build(cpu, &cv, false), gu = build(gpu, &gv, false);
  const RunResult want = InitUpdateRead(cpu, cv, cu, 1, nullptr);
  const RunResult got = InitUpdateRead(gpu, gv, gu, 1, nullptr);
  ExpectSameValues(want, got, 0, 0);
  ASSERT_EQ(got.values.size(), 1u);
  EXPECT_EQ(got.values[0].dims, (std::vector<int64_t>{3, 1}));
  Builder bad(kGpu);
  std::vector<TG_Variable*> bv;
  RunResult r;
  const RunResult after = InitUpdateRead(bad, bv, build(bad, &bv, true), 1, &r);
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  ASSERT_EQ(after.code, TG_OK) << after.message;  // the variable keeps its value
  EXPECT_EQ(after.values[0].values, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_NE(r.message.find("Assign requires shapes of both tensors to match"), std::string::npos)
      << r.message;
}

// `type`(inputs) on `device`, after `after` (a control input).
TG_Output OpAfter(Builder& b, const char* type, const char* name,
                  const std::vector<TG_Output>& inputs, TG_Operation* after) {
  TG_Status* s = TG_NewStatus();
  TG_OperationDescription* d = TG_NewOperation(b.graph(), type, name);
  for (const TG_Output& in : inputs) TG_AddInput(d, in);
  TG_AddControlInput(d, after);
  TG_SetDevice(d, b.device().c_str());
  TG_Operation* op = TG_FinishOperation(d, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << type << ": " << TG_Message(s);
  TG_DeleteStatus(s);
  return TG_Output{op, 0};
}

// Assign adopts a value nobody else holds (plugin ABI 8, plugins/cpu/assign_kernel.h): on the
// device as on the CPU, the variable takes the value's buffer, in the device's memory, and
// nothing is copied. Seen through a reader that took the variable's value (v/read, an alias
// of its buffer) before the Assign and reads it after (control dependencies order the
// three): it keeps the old bytes when the variable moved to the value's buffer, and sees the
// new ones when the value was copied into the variable's own buffer -- which is what happens
// when the value is fetched too.
TEST_F(TrainingTest, AssignAdoptsAValueNobodyElseHolds) {
  for (const char* device : {kCpu, kGpu}) {
    for (bool fetched : {false, true}) {
      SCOPED_TRACE(std::string(device) + (fetched ? ", the value fetched" : ""));
      Builder b(device);
      TG_Variable* v = NewVariable(b, "v", {3}, {1, 2, 3});
      const TG_Output before = TG_VariableReadValue(v);
      // A fresh buffer on the device (a fed operand: nothing to fold into a constant).
      const TG_Output value =
          b.Op("Mul", {b.Feed({3}, {10, 20, 30}), b.DeviceConst({3}, {1, 1, 1})}, {}, "value");
      const TG_Output assign =
          OpAfter(b, "Assign", "assign", {TG_VariableOutput(v), value}, before.oper);
      const TG_Output after = OpAfter(b, "Neg", "after", {before}, assign.oper);
      TG_Status* s = TG_NewStatus();
      TG_Session* session = TG_NewSession(b.graph(), nullptr, s);
      ASSERT_NE(session, nullptr) << TG_Message(s);
      ASSERT_EQ(b.RunIn(session, {TG_Output{TG_VariableInitializer(v), 0}}).code, TG_OK);
      std::vector<TG_Output> fetches = {after};
      if (fetched) fetches.push_back(value);
      const RunResult r = b.RunIn(session, fetches);
      ASSERT_EQ(r.code, TG_OK) << r.message;
      EXPECT_EQ(r.DeviceOf("assign"), device) << r.StepsString();
      EXPECT_EQ(r.values[0].values, fetched ? (std::vector<double>{-10, -20, -30})
                                            : (std::vector<double>{-1, -2, -3}))
          << (fetched ? "copied in place" : "adopted: the old buffer is the reader's alone");
      const RunResult read = b.RunIn(session, {TG_VariableReadValue(v)});
      ASSERT_EQ(read.code, TG_OK) << read.message;
      EXPECT_EQ(read.values[0].values, (std::vector<double>{10, 20, 30}));
      TG_DeleteSession(session, s);
      TG_DeleteStatus(s);
    }
  }
}

}  // namespace
