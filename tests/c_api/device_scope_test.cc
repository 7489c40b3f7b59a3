// Device stack: canonical strings, nested merge, device functions, None.
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Name;
using tgtest::Out;

class DeviceScopeTest : public CApiTest {
 protected:
  void Push(const char* device) {
    TG_GraphPushDevice(g_, device, s_);
    ASSERT_TRUE(tgtest::IsOk(s_)) << device;
  }
  void Pop() {
    TG_GraphPopDevice(g_, s_);
    ASSERT_TRUE(tgtest::IsOk(s_));
  }
  std::string Device(TG_Operation* op) { return TG_OperationDevice(op); }
};

TEST_F(DeviceScopeTest, StringsAreCanonicalised) {
  Push("/gpu:1");
  EXPECT_EQ(Device(NoOp()), "/device:GPU:1");
  Pop();
  Push("/cpu:0");
  EXPECT_EQ(Device(NoOp()), "/device:CPU:0");
  Pop();
  Push("/device:GPU:0");
  EXPECT_EQ(Device(NoOp()), "/device:GPU:0");
  Pop();
  Push("/job:worker/replica:0/task:1/gpu:3");
  EXPECT_EQ(Device(NoOp()), "/job:worker/replica:0/task:1/device:GPU:3");
  Pop();
  EXPECT_EQ(Device(NoOp()), "");
}

TEST_F(DeviceScopeTest, NestedScopesMergeInnerFieldsWin) {
  Push("/job:worker");
  Push("/gpu:0");
  EXPECT_EQ(Device(NoOp("a")), "/job:worker/device:GPU:0");
  Push("/cpu:1");
  EXPECT_EQ(Device(NoOp("b")), "/job:worker/device:CPU:1");
  Pop();
  Pop();
  EXPECT_EQ(Device(NoOp("c")), "/job:worker");
  Pop();
}

TEST_F(DeviceScopeTest, NoneClearsEnclosingDevices) {
  Push("/gpu:0");
  TG_GraphPushClearDevice(g_, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Device(NoOp("free")), "");
  Push("/cpu:0");
  EXPECT_EQ(Device(NoOp("cpu")), "/device:CPU:0");
  Pop();
  Pop();  // the clear entry
  EXPECT_EQ(Device(NoOp("gpu")), "/device:GPU:0");
  Pop();
}

TEST_F(DeviceScopeTest, ExplicitDeviceMergesWithTheStack) {
  Push("/job:ps/task:2");
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "n");
  TG_SetDevice(d, "/gpu:1");
  TG_Operation* n = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Device(n), "/job:ps/task:2/device:GPU:1");
  Pop();
  d = TG_NewOperation(g_, "NoOp", "bad");
  TG_SetDevice(d, "/nonsense:::");
  EXPECT_EQ(TG_FinishOperation(d, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

// TF's example: a function that puts MatMul on /gpu:0 and everything else on /cpu:0.
const char* MatMulOnGpu(void* arg, const TG_Operation* op) {
  ++*static_cast<int*>(arg);
  return std::string(TG_OperationOpType(op)) == "MatMul" ? "/gpu:0" : "/cpu:0";
}

TEST_F(DeviceScopeTest, DeviceFunctionIsCalledPerOp) {
  int calls = 0;
  TG_GraphPushDeviceFunction(g_, MatMulOnGpu, &calls, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* a = FloatConst({2, 2});
  TG_Operation* m = Binary("MatMul", a, a, "m");
  TG_ASSERT_OK(s_);
  Pop();
  TG_Operation* after = NoOp("after");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(Device(a), "/device:CPU:0");
  EXPECT_EQ(Device(m), "/device:GPU:0");
  EXPECT_EQ(Device(after), "");
}

const char* NoChoice(void*, const TG_Operation*) { return nullptr; }
const char* EmptyChoice(void*, const TG_Operation*) { return ""; }
const char* BadChoice(void*, const TG_Operation*) { return "/what:is:this"; }
const char* NameBased(void*, const TG_Operation* op) {
  // Reads the op's name while it is being created.
  return std::string(TG_OperationName(op)).find("gpu") != std::string::npos ? "/gpu:2" : nullptr;
}

TEST_F(DeviceScopeTest, FunctionReturningNothingKeepsOuterDevice) {
  Push("/cpu:0");
  TG_GraphPushDeviceFunction(g_, NoChoice, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Device(NoOp("a")), "/device:CPU:0");
  TG_GraphPushDeviceFunction(g_, EmptyChoice, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Device(NoOp("b")), "/device:CPU:0");
  Pop();
  Pop();
  TG_GraphPushDeviceFunction(g_, NameBased, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Device(NoOp("on_gpu")), "/device:GPU:2");
  EXPECT_EQ(Device(NoOp("elsewhere")), "/device:CPU:0");
  Pop();
  Pop();
}

TEST_F(DeviceScopeTest, FunctionReturningBadDeviceFailsTheOp) {
  TG_GraphPushDeviceFunction(g_, BadChoice, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", "victim");
  EXPECT_EQ(TG_FinishOperation(d, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("victim"), std::string::npos) << msg();
  EXPECT_EQ(TG_GraphNumOperations(g_), 0);
  Pop();
}

struct Reentry {
  TG_Graph* g;
  TG_Status* status;
  TG_Code finish_code;
  TG_Code push_code;
};
const char* TriesToBuild(void* arg, const TG_Operation*) {
  auto* r = static_cast<Reentry*>(arg);
  TG_OperationDescription* d = TG_NewOperation(r->g, "NoOp", "sneaky");
  TG_FinishOperation(d, r->status);
  r->finish_code = TG_GetCode(r->status);
  TG_GraphPushDevice(r->g, "/cpu:0", r->status);
  r->push_code = TG_GetCode(r->status);
  return "/cpu:3";
}

TEST_F(DeviceScopeTest, DeviceFunctionCannotChangeTheGraph) {
  TG_Status* inner = TG_NewStatus();
  Reentry r{g_, inner, TG_OK, TG_OK};
  TG_GraphPushDeviceFunction(g_, TriesToBuild, &r, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* n = NoOp("n");
  Pop();
  EXPECT_EQ(r.finish_code, TG_FAILED_PRECONDITION);
  EXPECT_EQ(r.push_code, TG_FAILED_PRECONDITION);
  EXPECT_EQ(Device(n), "/device:CPU:3");
  EXPECT_EQ(OpNames(), (std::vector<std::string>{"n"}));
  // The stack is intact: nothing was pushed from inside.
  TG_GraphPopDevice(g_, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  TG_DeleteStatus(inner);
}

TEST_F(DeviceScopeTest, SeedWord2VecDeviceAndNameScope) {
  // Seed 000: with tf.device('/cpu:0'): with tf.name_scope("embed"): Variable(...).
  Push("/cpu:0");
  TG_GraphPushNameScope(g_, "embed", s_);
  TG_ASSERT_OK(s_);
  int64_t dims[] = {4, 2};
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims, 2, 8 * sizeof(float));
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "embed_matrix";
  TG_Variable* v = TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_ASSERT_OK(s_);
  TG_DeleteTensor(t);
  TG_GraphPopNameScope(g_, s_);
  Pop();
  EXPECT_STREQ(TG_VariableName(v), "embed/embed_matrix");
  EXPECT_EQ(Device(TG_VariableOutput(v).oper), "/device:CPU:0");
  EXPECT_EQ(Device(TG_VariableInitializer(v)), "/device:CPU:0");
  EXPECT_EQ(Device(TG_VariableReadValue(v).oper), "/device:CPU:0");
}

TEST_F(DeviceScopeTest, BadArguments) {
  TG_GraphPushDevice(g_, "/gpu:x", s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("/gpu:x"), std::string::npos) << msg();
  TG_GraphPushDevice(g_, "garbage", s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPushDeviceFunction(g_, nullptr, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPushDevice(nullptr, "/cpu:0", s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPopDevice(g_, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  // An empty string is a valid entry that sets nothing.
  Push("");
  EXPECT_EQ(Device(NoOp()), "");
  Pop();
}

}  // namespace
