// TG_SessionRun basics and the session's life: fetching, feeding, targets, owned results,
// devices, options, closing and deleting, bad arguments, kernel errors naming their node,
// placement (default device, soft placement, the placement log).
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::Contains;
using tgtest::FloatTensor;
using tgtest::Floats;
using tgtest::IntTensor;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

using SessionRunTest = SessionTest;

TEST_F(SessionRunTest, FetchesAConstantExpression) {
  TG_Operation* a = FloatConst({2, 2}, 3.0f, "a");
  TG_Operation* b = FloatConst({2, 2}, 4.0f, "b");
  TG_Operation* sum = Binary("AddV2", a, b, "sum");
  TG_ASSERT_OK(s_);
  TG_Session* sess = NewSession();
  TG_ASSERT_OK(s_);
  std::vector<TensorPtr> out = Run(sess, {}, {Out(sum), Out(a)});
  TG_ASSERT_OK(s_);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(tgtest::Dims(out[0].get()), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Floats(out[0].get()), (std::vector<float>{7, 7, 7, 7}));
  EXPECT_EQ(Floats(out[1].get()), (std::vector<float>{3, 3, 3, 3}));
}

TEST_F(SessionRunTest, FeedsAPlaceholder) {
  TG_Operation* x = Placeholder(TG_FLOAT, {3}, "x");
  TG_Operation* two = ScalarConst(2.0f);
  TG_Operation* y = Binary("Mul", x, two, "y");
  TG_ASSERT_OK(s_);
  TG_Session* sess = NewSession();
  TensorPtr v = FloatTensor({3}, {1, 2, 3});
  EXPECT_EQ(RunFloats(sess, Out(y), {{Out(x), v.get()}}), (std::vector<float>{2, 4, 6}));
  TG_EXPECT_OK(s_);
  // The caller still owns the fed value, unchanged.
  EXPECT_EQ(Floats(v.get()), (std::vector<float>{1, 2, 3}));
  // Another value through the same (cached) request.
  TensorPtr w = FloatTensor({3}, {-1, 0, 10});
  EXPECT_EQ(RunFloats(sess, Out(y), {{Out(x), w.get()}}), (std::vector<float>{-2, 0, 20}));
  TG_EXPECT_OK(s_);
}

TEST_F(SessionRunTest, FetchingAFedTensorReturnsTheFedValue) {
  TG_Operation* x = Placeholder(TG_FLOAT, {2}, "x");
  TG_Session* sess = NewSession();
  TensorPtr v = FloatTensor({2}, {5, 6});
  EXPECT_EQ(RunFloats(sess, Out(x), {{Out(x), v.get()}}), (std::vector<float>{5, 6}));
  TG_EXPECT_OK(s_);
}

TEST_F(SessionRunTest, ResultsAreOwnedByTheCaller) {
  TG_Variable* v = ScalarVar("v", 1.0f);
  TG_Operation* inc = Increment(v, "inc");
  TG_Operation* init = Init();
  TG_Operation* c = FloatConst({2}, 8.0f, "c");
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  std::vector<TensorPtr> first = Run(sess, {}, {Out(c), Out(inc)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Floats(first[1].get()), (std::vector<float>{2}));
  std::vector<TensorPtr> read = Run(sess, {}, {Read(v)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Floats(read[0].get()), (std::vector<float>{2}));
  // Writing into a fetched constant changes neither the graph's constant nor later runs.
  static_cast<float*>(TG_TensorData(first[0].get()))[0] = -1.0f;
  RunTargets(sess, {inc});
  TG_ASSERT_OK(s_);
  // Later updates of the variable leave earlier results (of the update and of a read) alone.
  EXPECT_EQ(Floats(first[1].get()), (std::vector<float>{2}));
  EXPECT_EQ(Floats(read[0].get()), (std::vector<float>{2}));
  EXPECT_EQ(RunFloats(sess, Out(c)), (std::vector<float>{8, 8}));
  EXPECT_EQ(ScalarValue(sess, v), 3.0f);
  // The same tensor fetched twice gives two tensors: writing one leaves the other.
  std::vector<TensorPtr> twice = Run(sess, {}, {Out(c), Out(c)});
  TG_ASSERT_OK(s_);
  static_cast<float*>(TG_TensorData(twice[0].get()))[1] = 0.0f;
  EXPECT_EQ(Floats(twice[1].get()), (std::vector<float>{8, 8}));
}

TEST_F(SessionRunTest, TargetsRunWithoutResults) {
  TG_Variable* v = ScalarVar("v", 0.0f);
  TG_Operation* inc = Increment(v, "inc");
  TG_Operation* init = Init();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  RunTargets(sess, {inc});
  TG_ASSERT_OK(s_);
  // A target given twice runs once.
  RunTargets(sess, {inc, inc});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ScalarValue(sess, v), 2.0f);
  // An empty request is fine and does nothing.
  RunTargets(sess, {});
  TG_EXPECT_OK(s_);
  EXPECT_EQ(ScalarValue(sess, v), 2.0f);
}

TEST_F(SessionRunTest, TheGraphMayGrowAfterTheSessionIsMade) {
  TG_Operation* a = ScalarConst(2.0f, "a");
  TG_Session* sess = NewSession();
  EXPECT_EQ(RunFloats(sess, Out(a)), (std::vector<float>{2}));
  TG_Operation* b = Binary("Mul", a, a, "b");
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Out(b)), (std::vector<float>{4}));
  TG_EXPECT_OK(s_);
}

TEST_F(SessionRunTest, ListsTheCpuDevice) {
  TG_Session* sess = NewSession();
  TG_ASSERT_OK(s_);
  const int n = TG_SessionNumDevices(sess);
  ASSERT_GE(n, 1);
  // CPU comes first; other test plugins loaded in this process may add devices after it.
  EXPECT_STREQ(TG_SessionDeviceName(sess, 0), "/device:CPU:0");
  EXPECT_STREQ(TG_SessionDeviceType(sess, 0), "CPU");
  EXPECT_NE(TG_SessionDeviceDescription(sess, 0), nullptr);
  for (int i = 0; i < n; ++i) EXPECT_NE(TG_SessionDeviceName(sess, i), nullptr) << i;
  EXPECT_EQ(TG_SessionDeviceName(sess, n), nullptr);
  EXPECT_EQ(TG_SessionDeviceName(sess, -1), nullptr);
  EXPECT_EQ(TG_SessionDeviceType(sess, n), nullptr);
  EXPECT_EQ(TG_SessionDeviceDescription(sess, -1), nullptr);
  EXPECT_EQ(TG_SessionNumDevices(nullptr), 0);
  EXPECT_EQ(TG_SessionDeviceName(nullptr, 0), nullptr);
}

TEST_F(SessionRunTest, OptionsAreAccepted) {
  TG_SessionOptions* opts = TG_NewSessionOptions();
  ASSERT_NE(opts, nullptr);
  TG_SetSessionInterOpThreads(opts, 2);
  TG_SetSessionIntraOpThreads(opts, 1);
  TG_SetSessionAllowSoftPlacement(opts, 1);
  TG_SetSessionDeterministic(opts, 1);
  TG_SetSessionDefaultDevice(opts, "/cpu:0");
  TG_Operation* a = ScalarConst(5.0f, "a");
  TG_Session* sess = NewSession(opts);
  TG_DeleteSessionOptions(opts);  // only read during TG_NewSession
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Out(a)), (std::vector<float>{5}));
  TG_EXPECT_OK(s_);
  // Setters on NULL options do nothing.
  TG_SetSessionInterOpThreads(nullptr, 1);
  TG_SetSessionIntraOpThreads(nullptr, 1);
  TG_SetSessionAllowSoftPlacement(nullptr, 1);
  TG_SetSessionLogDevicePlacement(nullptr, 1);
  TG_SetSessionDeterministic(nullptr, 1);
  TG_SetSessionDefaultDevice(nullptr, "/cpu:0");
  TG_DeleteSessionOptions(nullptr);
}

TEST_F(SessionRunTest, BadDefaultDeviceIsRefused) {
  TG_SessionOptions* opts = TG_NewSessionOptions();
  TG_SetSessionDefaultDevice(opts, "/device:NOSUCH:7");
  EXPECT_EQ(NewSession(opts), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "NOSUCH")) << msg();
  TG_SetSessionDefaultDevice(opts, "not a device");
  EXPECT_EQ(NewSession(opts), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_DeleteSessionOptions(opts);
}

TEST_F(SessionRunTest, ClosedSessionRefusesRuns) {
  TG_Operation* a = ScalarConst(1.0f, "a");
  TG_Session* sess = NewSession();
  EXPECT_EQ(RunFloats(sess, Out(a)), (std::vector<float>{1}));
  TG_CloseSession(sess, s_);
  TG_EXPECT_OK(s_);
  Run(sess, {}, {Out(a)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  // Closing again is fine, and runs still fail.
  TG_CloseSession(sess, s_);
  TG_EXPECT_OK(s_);
  RunTargets(sess, {a});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  DeleteSession(sess);
  TG_EXPECT_OK(s_);
}

TEST_F(SessionRunTest, DeleteWithoutClose) {
  TG_Operation* a = ScalarConst(1.0f, "a");
  TG_Session* sess = NewSession();
  EXPECT_EQ(RunFloats(sess, Out(a)), (std::vector<float>{1}));
  DeleteSession(sess);
  TG_EXPECT_OK(s_);
  TG_DeleteSession(nullptr, s_);
  TG_EXPECT_OK(s_);
  TG_DeleteSession(nullptr, nullptr);
}

TEST_F(SessionRunTest, NullArgumentsAreInvalid) {
  EXPECT_EQ(TG_NewSession(nullptr, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_CloseSession(nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);

  TG_Operation* a = ScalarConst(1.0f, "a");
  TG_Output fetch = Out(a);
  TG_Tensor* result = reinterpret_cast<TG_Tensor*>(alignof(TG_Tensor*));
  TG_SessionRun(nullptr, nullptr, nullptr, nullptr, 0, &fetch, &result, 1, nullptr, 0, nullptr,
                s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(result, nullptr);

  TG_Session* sess = NewSession();
  TG_ASSERT_OK(s_);
  // Counts with NULL arrays, and negative counts.
  TG_SessionRun(sess, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 1, nullptr, 0, nullptr,
                s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_SessionRun(sess, nullptr, nullptr, nullptr, 0, &fetch, nullptr, 1, nullptr, 0, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_SessionRun(sess, nullptr, nullptr, nullptr, 1, &fetch, &result, 1, nullptr, 0, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_EQ(result, nullptr);
  TG_SessionRun(sess, nullptr, nullptr, nullptr, -1, &fetch, &result, 1, nullptr, 0, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_SessionRun(sess, nullptr, nullptr, nullptr, 0, &fetch, &result, 1, nullptr, 2, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_SessionRun(sess, nullptr, nullptr, nullptr, 0, &fetch, &result, -3, nullptr, 0, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  // A NULL operation in a fetch, a NULL target, a NULL fed value.
  Run(sess, {}, {TG_Output{nullptr, 0}});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  Run(sess, {}, {}, {nullptr});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_Operation* x = Placeholder(TG_FLOAT, {}, "x");
  Run(sess, {{Out(x), nullptr}}, {Out(x)});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "x")) << msg();
  // A NULL status is tolerated.
  TG_SessionRun(sess, nullptr, nullptr, nullptr, 0, &fetch, &result, 1, nullptr, 0, nullptr,
                nullptr);
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(Floats(result), (std::vector<float>{1}));
  TG_DeleteTensor(result);
  // The session still works after all that.
  EXPECT_EQ(RunFloats(sess, fetch), (std::vector<float>{1}));
  TG_EXPECT_OK(s_);
}

TEST_F(SessionRunTest, KernelErrorNamesTheNode) {
  TG_Operation* x = FloatConst({2, 3}, 1.0f, "x");
  TG_Operation* shape = Placeholder(TG_INT32, {2}, "shape");
  TG_Operation* r = Binary("Reshape", x, shape, "bad_reshape");
  TG_ASSERT_OK(s_);
  TG_Operation* y = Unary("Neg", r, "y");
  TG_Session* sess = NewSession();
  TensorPtr impossible = IntTensor({2}, {4, 4});
  Run(sess, {{Out(shape), impossible.get()}}, {Out(y)});
  EXPECT_NE(code(), TG_OK);
  EXPECT_TRUE(Contains(msg(), "bad_reshape")) << msg();
  // The session goes on working after a failed run.
  TensorPtr fine = IntTensor({2}, {3, 2});
  std::vector<TensorPtr> out = Run(sess, {{Out(shape), fine.get()}}, {Out(y)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(tgtest::Dims(out[0].get()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Floats(out[0].get()), (std::vector<float>(6, -1.0f)));
}

TEST_F(SessionRunTest, ExplicitDeviceThatDoesNotExistFailsWithoutSoftPlacement) {
  TG_OperationDescription* d = TG_NewOperation(g_, "Neg", "on_gpu");
  TG_AddInput(d, Out(ScalarConst(3.0f, "three")));
  TG_SetDevice(d, "/device:GPU:3");
  TG_Operation* neg = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  TG_Session* hard = NewSession();
  Run(hard, {}, {Out(neg)});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "on_gpu")) << msg();
  EXPECT_TRUE(Contains(msg(), "GPU:3")) << msg();

  TG_SessionOptions* opts = TG_NewSessionOptions();
  TG_SetSessionAllowSoftPlacement(opts, 1);
  TG_Session* soft = NewSession(opts);
  TG_DeleteSessionOptions(opts);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(soft, Out(neg)), (std::vector<float>{-3}));
  TG_EXPECT_OK(s_);
}

TEST_F(SessionRunTest, LogsDevicePlacementToStandardError) {
  TG_Operation* a = ScalarConst(1.0f, "logged_const");
  TG_Operation* b = Unary("Neg", a, "logged_neg");
  TG_SessionOptions* opts = TG_NewSessionOptions();
  TG_SetSessionLogDevicePlacement(opts, 1);
  TG_Session* sess = NewSession(opts);
  TG_DeleteSessionOptions(opts);
  TG_ASSERT_OK(s_);
  ::testing::internal::CaptureStderr();
  std::vector<float> got = RunFloats(sess, Out(b));
  const std::string log = ::testing::internal::GetCapturedStderr();
  TG_ASSERT_OK(s_);
  EXPECT_EQ(got, (std::vector<float>{-1}));
  // c_api.h documents "name (Type): device"; TensorFlow writes "name: (Type): device".
  auto logged = [&](const std::string& name, const std::string& type) {
    const std::string tail = " (" + type + "): /device:CPU:0\n";
    return Contains(log, name + tail) || Contains(log, name + ":" + tail);
  };
  EXPECT_TRUE(logged("logged_neg", "Neg")) << log;
  EXPECT_TRUE(logged("logged_const", "Const")) << log;
}

}  // namespace
