// Placement and copy insertion through the C API, on the CPU plugin plus a test-only device
// backend (tests/plugin/test_device_plugin.cc): "TESTACC", two devices whose memory is not
// host accessible, guarded and counted. Covered: the device listing, explicit placement,
// one copy per (tensor, destination device) per run in every direction, the error without
// soft placement and the fallback with it, colocation of a variable's ops, the placement
// log, and that every device buffer is freed, by the right allocator, once sessions go.
//
// Every test ends (TearDown) by deleting its sessions and checking the device's counters:
// no live buffer, no new bad free, no device kernel or copy that was handed the wrong
// memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "c_api_test_util.h"
#include "tgraph/c_api.h"

namespace {

using tgtest::CApiTest;
using tgtest::Out;

constexpr const char* kCpu = "/device:CPU:0";
constexpr const char* kDev0 = "/device:TESTACC:0";
constexpr const char* kDev1 = "/device:TESTACC:1";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// What TestDevStats reports (see test_device_plugin.cc).
struct DevStats {
  int64_t h2d = 0, d2h = 0, d2d = 0, live = 0, bad_frees = 0, bad_accesses = 0, syncs = 0;
  DevStats operator-(const DevStats& o) const {
    return {h2d - o.h2d, d2h - o.d2h, d2d - o.d2d, live - o.live, bad_frees - o.bad_frees,
            bad_accesses - o.bad_accesses, syncs - o.syncs};
  }
};

struct Step {
  std::string name, op, device;
};

// One run's results: status, fetched float values and the traced steps.
struct RunResult {
  TG_Code code = TG_OK;
  std::string message;
  std::vector<std::vector<float>> values;
  std::vector<Step> steps;

  std::string DeviceOf(const std::string& node) const {
    for (const Step& s : steps) {
      if (s.name == node && s.op != "_Copy") return s.device;
    }
    return "<not run>";
  }
  // _Copy steps of `tensor` ("a:0") to `device`.
  int Copies(const std::string& tensor, const std::string& device) const {
    int n = 0;
    for (const Step& s : steps) n += s.op == "_Copy" && s.name == tensor && s.device == device;
    return n;
  }
  // _Copy steps of `tensor`, wherever they are recorded.
  int CopiesOf(const std::string& tensor) const {
    int n = 0;
    for (const Step& s : steps) n += s.op == "_Copy" && s.name == tensor;
    return n;
  }
  // The device a copy of `tensor` to the host is recorded on: the CPU, or (as the executor
  // does, since host memory belongs to no one device) the device the tensor comes from.
  bool CopiedToHost(const std::string& tensor, const std::string& from) const {
    return CopiesOf(tensor) == 1 && (Copies(tensor, kCpu) == 1 || Copies(tensor, from) == 1);
  }
  int AllCopies() const {
    int n = 0;
    for (const Step& s : steps) n += s.op == "_Copy";
    return n;
  }
  std::string StepsString() const {
    std::string out;
    for (const Step& s : steps) out += s.name + " (" + s.op + ") on " + s.device + "\n";
    return out;
  }
};

class SessionPlacementTest : public CApiTest {
 protected:
  static void SetUpTestSuite() {
    TG_Status* s = TG_NewStatus();
    TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
    ASSERT_TRUE(tgtest::IsOk(s)) << TGRAPH_CPU_PLUGIN_PATH;
    TG_LoadPlugin(TGRAPH_TEST_DEVICE_PLUGIN_PATH, s);
    ASSERT_TRUE(tgtest::IsOk(s)) << TGRAPH_TEST_DEVICE_PLUGIN_PATH;
    TG_DeleteStatus(s);
  }

  // The bad-free and bad-access counters are process-wide: each test answers for its own.
  void SetUp() override { baseline_ = Stats(); }

  void TearDown() override {
    for (TG_Session* session : sessions_) {
      TG_DeleteSession(session, s_);
      EXPECT_TRUE(tgtest::IsOk(s_));
    }
    sessions_.clear();
    // Every device buffer went back to the TESTACC allocator it came from.
    const DevStats st = Stats();
    EXPECT_EQ(st.live, 0) << "TESTACC buffers leaked";
    EXPECT_EQ(st.bad_frees - baseline_.bad_frees, 0)
        << "TESTACC deallocate got a pointer it did not hand out, or a corrupted buffer";
    EXPECT_EQ(st.bad_accesses - baseline_.bad_accesses, 0)
        << "a TESTACC kernel or copy got memory of the wrong device";
  }

  // The device counters, read by running TestDevStats on the CPU in a graph of its own.
  DevStats Stats() {
    TG_Graph* g = TG_NewGraph();
    TG_Status* s = TG_NewStatus();
    DevStats st;
    TG_Operation* op = TG_FinishOperation(TG_NewOperation(g, "TestDevStats", "stats"), s);
    TG_Session* session = op == nullptr ? nullptr : TG_NewSession(g, nullptr, s);
    if (session != nullptr) {
      TG_Output fetch{op, 0};
      TG_Tensor* out = nullptr;
      TG_SessionRun(session, nullptr, nullptr, nullptr, 0, &fetch, &out, 1, nullptr, 0, nullptr,
                    s);
      if (TG_GetCode(s) == TG_OK && TG_TensorElementCount(out) == 7) {
        const auto* v = static_cast<const int64_t*>(TG_TensorData(out));
        st = {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
      }
      TG_DeleteTensor(out);
    }
    EXPECT_TRUE(tgtest::IsOk(s)) << "reading the TESTACC counters";
    TG_DeleteSession(session, s);
    TG_DeleteGraph(g);
    TG_DeleteStatus(s);
    return st;
  }

  TG_Session* NewSession(bool soft = false, bool log = false) {
    TG_SessionOptions* opts = TG_NewSessionOptions();
    TG_SetSessionAllowSoftPlacement(opts, soft ? 1 : 0);
    TG_SetSessionLogDevicePlacement(opts, log ? 1 : 0);
    TG_Session* session = TG_NewSession(g_, opts, s_);
    TG_DeleteSessionOptions(opts);
    EXPECT_TRUE(tgtest::IsOk(s_));
    if (session != nullptr) sessions_.push_back(session);
    return session;
  }

  // A float tensor of `values`, shape [n], for feeding (the caller deletes it).
  static TG_Tensor* FloatVector(const std::vector<float>& values) {
    const int64_t n = static_cast<int64_t>(values.size());
    TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, &n, 1, values.size() * sizeof(float));
    std::memcpy(TG_TensorData(t), values.data(), values.size() * sizeof(float));
    return t;
  }

  // A float Const of `values` (shape [n]) on `device` (nullptr: none requested).
  TG_Operation* Vec(const char* name, std::vector<float> values, const char* device = nullptr) {
    const int64_t n = static_cast<int64_t>(values.size());
    TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, &n, 1, values.size() * sizeof(float));
    std::memcpy(TG_TensorData(t), values.data(), values.size() * sizeof(float));
    TG_OperationDescription* d = TG_NewOperation(g_, "Const", name);
    TG_SetAttrTensor(d, "value", t, s_);
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    if (device != nullptr) TG_SetDevice(d, device);
    TG_Operation* op = TG_FinishOperation(d, s_);
    TG_DeleteTensor(t);
    EXPECT_TRUE(tgtest::IsOk(s_)) << name;
    return op;
  }
  // A float Const of shape dims with `values`.
  TG_Operation* Mat(const char* name, std::vector<int64_t> dims, std::vector<float> values) {
    TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims.data(), static_cast<int>(dims.size()),
                                     values.size() * sizeof(float));
    std::memcpy(TG_TensorData(t), values.data(), values.size() * sizeof(float));
    TG_Operation* op = ConstOf(g_, t, name);
    TG_DeleteTensor(t);
    return op;
  }
  TG_Operation* Op2(const char* type, const char* name, TG_Operation* a, TG_Operation* b,
                    const char* device = nullptr) {
    TG_OperationDescription* d = TG_NewOperation(g_, type, name);
    TG_AddInput(d, Out(a));
    TG_AddInput(d, Out(b));
    if (device != nullptr) TG_SetDevice(d, device);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(tgtest::IsOk(s_)) << name;
    return op;
  }

  // Runs with trace level 1; float fetches (doubles are narrowed to float).
  RunResult Run(TG_Session* session, std::vector<TG_Output> fetches,
                std::vector<TG_Operation*> targets = {},
                std::vector<std::pair<TG_Output, TG_Tensor*>> feeds = {}) {
    RunResult r;
    TG_RunOptions* ro = TG_NewRunOptions();
    TG_SetRunOptionsTraceLevel(ro, 1);
    TG_RunMetadata* md = TG_NewRunMetadata();
    std::vector<TG_Output> feed_outs;
    std::vector<TG_Tensor*> feed_values;
    for (auto& [o, t] : feeds) {
      feed_outs.push_back(o);
      feed_values.push_back(t);
    }
    std::vector<TG_Tensor*> outs(fetches.size(), nullptr);
    TG_SessionRun(session, ro, feed_outs.data(), feed_values.data(),
                  static_cast<int>(feeds.size()), fetches.data(), outs.data(),
                  static_cast<int>(fetches.size()), targets.data(),
                  static_cast<int>(targets.size()), md, s_);
    r.code = TG_GetCode(s_);
    r.message = TG_Message(s_);
    for (TG_Tensor* t : outs) {
      std::vector<float> v;
      if (t != nullptr && TG_TensorType(t) == TG_FLOAT) {
        const auto* p = static_cast<const float*>(TG_TensorData(t));
        v.assign(p, p + TG_TensorElementCount(t));
      } else if (t != nullptr && TG_TensorType(t) == TG_DOUBLE) {
        const auto* p = static_cast<const double*>(TG_TensorData(t));
        for (int64_t i = 0; i < TG_TensorElementCount(t); ++i) v.push_back(static_cast<float>(p[i]));
      }
      r.values.push_back(v);
      TG_DeleteTensor(t);
    }
    for (int i = 0; i < TG_RunMetadataNumNodes(md); ++i) {
      r.steps.push_back({TG_RunMetadataNodeName(md, i), TG_RunMetadataNodeOpType(md, i),
                         TG_RunMetadataNodeDevice(md, i)});
    }
    TG_DeleteRunMetadata(md);
    TG_DeleteRunOptions(ro);
    return r;
  }

  static std::vector<std::string> DeviceNames(const TG_Session* session) {
    std::vector<std::string> names;
    for (int i = 0; i < TG_SessionNumDevices(session); ++i) {
      names.push_back(TG_SessionDeviceName(session, i));
    }
    return names;
  }
  static bool HasDevice(const TG_Session* session, const std::string& name) {
    auto names = DeviceNames(session);
    return std::find(names.begin(), names.end(), name) != names.end();
  }

  std::vector<TG_Session*> sessions_;
  DevStats baseline_;
};

#define ASSERT_RUN_OK(r) ASSERT_EQ((r).code, TG_OK) << (r).message

TEST_F(SessionPlacementTest, ListsCpuAndBothTestDevices) {
  ScalarConst(1.0f, "unused");
  TG_Session* session = NewSession();
  ASSERT_NE(session, nullptr);
  const std::vector<std::string> names = DeviceNames(session);
  auto index = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) - names.begin();
  };
  ASSERT_LT(index(kCpu), static_cast<long>(names.size()));
  ASSERT_LT(index(kDev0), static_cast<long>(names.size()));
  ASSERT_LT(index(kDev1), static_cast<long>(names.size()));
  EXPECT_EQ(index("/device:TESTACC:2"), static_cast<long>(names.size()));
  EXPECT_EQ(names[0], kCpu) << "the default device comes first";
  const int dev1 = static_cast<int>(index(kDev1));
  EXPECT_STREQ(TG_SessionDeviceType(session, dev1), "TESTACC");
  EXPECT_TRUE(Contains(TG_SessionDeviceDescription(session, dev1), "test device 1"))
      << TG_SessionDeviceDescription(session, dev1);
  EXPECT_STREQ(TG_SessionDeviceType(session, static_cast<int>(index(kCpu))), "CPU");
  EXPECT_EQ(TG_SessionDeviceName(session, static_cast<int>(names.size())), nullptr);
  EXPECT_EQ(TG_SessionDeviceName(session, -1), nullptr);
}

TEST_F(SessionPlacementTest, ExplicitDeviceRunsThereAndResultComesBack) {
  TG_Operation* a = Vec("a", {1, 2, 3});
  TG_Operation* b = Vec("b", {10, 20, 30});
  TG_Operation* sum = Op2("AddV2", "sum", a, b, kDev1);
  TG_Session* session = NewSession();
  const DevStats before = Stats();
  RunResult r = Run(session, {Out(sum)});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(r.DeviceOf("sum"), kDev1) << r.StepsString();
  EXPECT_EQ(r.DeviceOf("a"), kCpu) << r.StepsString();
  EXPECT_EQ(r.Copies("a:0", kDev1), 1) << r.StepsString();
  EXPECT_EQ(r.Copies("b:0", kDev1), 1) << r.StepsString();
  EXPECT_TRUE(r.CopiedToHost("sum:0", kDev1)) << "the fetch\n" << r.StepsString();
  EXPECT_EQ(r.AllCopies(), 3) << r.StepsString();
  const DevStats d = Stats() - before;
  EXPECT_EQ(d.h2d, 2);
  EXPECT_EQ(d.d2h, 1) << "the fetched tensor is copied to the host once";
  EXPECT_EQ(d.d2d, 0);
}

TEST_F(SessionPlacementTest, OneHostToDeviceCopyPerTensorPerRun) {
  // c is consumed three times on TESTACC:0 (twice by one op): one copy each run.
  TG_Operation* c = Vec("c", {1, 2, 3});
  TG_Operation* sq = Op2("Mul", "sq", c, c, kDev0);
  TG_Operation* out = Op2("AddV2", "out", c, sq, kDev0);
  TG_Session* session = NewSession();
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const DevStats before = Stats();
    RunResult r = Run(session, {Out(out), Out(sq)});
    ASSERT_RUN_OK(r);
    EXPECT_EQ(r.values[0], (std::vector<float>{2, 6, 12}));
    EXPECT_EQ(r.values[1], (std::vector<float>{1, 4, 9}));
    EXPECT_EQ(r.DeviceOf("sq"), kDev0) << r.StepsString();
    EXPECT_EQ(r.DeviceOf("out"), kDev0) << r.StepsString();
    EXPECT_EQ(r.Copies("c:0", kDev0), 1) << r.StepsString();
    EXPECT_TRUE(r.CopiedToHost("out:0", kDev0)) << r.StepsString();
    EXPECT_TRUE(r.CopiedToHost("sq:0", kDev0)) << r.StepsString();
    EXPECT_EQ(r.AllCopies(), 3) << r.StepsString();
    const DevStats d = Stats() - before;
    EXPECT_EQ(d.h2d, 1);
    EXPECT_EQ(d.d2h, 2) << "two fetched device tensors";
    EXPECT_EQ(d.d2d, 0);
  }
}

TEST_F(SessionPlacementTest, DeviceResultConsumedOnCpuIsCopiedToHost) {
  TG_Operation* x = Vec("x", {1, 2}, kDev0);
  TG_Operation* y = Op2("AddV2", "y", x, x, kDev0);
  TG_Operation* h = Vec("h", {100, 200});
  TG_Operation* z = Op2("AddV2", "z", y, h);  // no request: the CPU
  TG_Operation* w = Op2("Mul", "w", y, h);    // a second CPU consumer of y
  TG_Session* session = NewSession();
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const DevStats before = Stats();
    RunResult r = Run(session, {Out(z), Out(w)});
    ASSERT_RUN_OK(r);
    EXPECT_EQ(r.values[0], (std::vector<float>{102, 204}));
    EXPECT_EQ(r.values[1], (std::vector<float>{200, 800}));
    EXPECT_EQ(r.DeviceOf("x"), kDev0) << r.StepsString();
    EXPECT_EQ(r.DeviceOf("y"), kDev0) << r.StepsString();
    EXPECT_EQ(r.DeviceOf("z"), kCpu) << r.StepsString();
    EXPECT_TRUE(r.CopiedToHost("y:0", kDev0)) << r.StepsString();
    EXPECT_EQ(r.AllCopies(), 1) << "z and w share the copy\n" << r.StepsString();
    const DevStats d = Stats() - before;
    EXPECT_EQ(d.h2d, 0);
    EXPECT_EQ(d.d2h, 1);
    EXPECT_EQ(d.d2d, 0);
  }
}

TEST_F(SessionPlacementTest, DeviceToDeviceCopyBetweenOrdinals) {
  TG_Operation* x = Vec("x", {1, 2, 3}, kDev0);
  TG_Operation* y = Op2("Mul", "y", x, x, kDev0);
  TG_Operation* w = Op2("AddV2", "w", y, y, kDev1);
  TG_Session* session = NewSession();
  const DevStats before = Stats();
  RunResult r = Run(session, {Out(w)});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{2, 8, 18}));
  EXPECT_EQ(r.DeviceOf("y"), kDev0) << r.StepsString();
  EXPECT_EQ(r.DeviceOf("w"), kDev1) << r.StepsString();
  EXPECT_EQ(r.Copies("y:0", kDev1), 1) << r.StepsString();
  EXPECT_TRUE(r.CopiedToHost("w:0", kDev1)) << "the fetch\n" << r.StepsString();
  EXPECT_EQ(r.AllCopies(), 2) << r.StepsString();
  const DevStats d = Stats() - before;
  EXPECT_EQ(d.d2d, 1) << "TESTACC:0 -> TESTACC:1 goes device to device, not through the host";
  EXPECT_EQ(d.h2d, 0);
  EXPECT_EQ(d.d2h, 1) << "the fetch";
}

TEST_F(SessionPlacementTest, FedTensorIsCopiedToTheDevice) {
  TG_Operation* p = Placeholder(TG_FLOAT, {-1}, "p");
  TG_Operation* q = Placeholder(TG_FLOAT, {-1}, "q");
  TG_Operation* s = Op2("AddV2", "dev_sum", p, q, kDev0);
  TG_Session* session = NewSession();
  TG_Tensor* a = FloatVector({1, 2});
  TG_Tensor* b = FloatVector({3, 4});
  TG_Tensor* c = FloatVector({5, 6, 7});
  const DevStats before = Stats();
  RunResult r = Run(session, {Out(s)}, {}, {{Out(p), a}, {Out(q), b}});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{4, 6}));
  EXPECT_EQ((Stats() - before).h2d, 2);
  // A device kernel's error names the node; the buffers of the failed run are freed
  // (checked in TearDown).
  r = Run(session, {Out(s)}, {}, {{Out(p), a}, {Out(q), c}});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_TRUE(Contains(r.message, "dev_sum")) << r.message;
  EXPECT_TRUE(Contains(r.message, "same shape")) << r.message;
  TG_DeleteTensor(a);
  TG_DeleteTensor(b);
  TG_DeleteTensor(c);
}

// Nothing of a run stays in device memory once the run returns, while its session lives on:
// after a success every slot was released at its last read (fetched ones once copied out),
// after a failure every slot is cleared.
TEST_F(SessionPlacementTest, NoDeviceBufferOutlivesItsRun) {
  TG_Operation* p = Placeholder(TG_FLOAT, {-1}, "p");
  TG_Operation* c = Vec("c", {1, 2, 3});
  TG_Operation* sq = Op2("Mul", "sq", c, c, kDev0);
  TG_Operation* sum = Op2("AddV2", "sum", sq, p, kDev0);
  TG_Operation* out = Op2("AddV2", "out", sum, sq, kDev0);
  TG_Session* session = NewSession();
  TG_Tensor* ones = FloatVector({1, 1, 1});
  TG_Tensor* short_feed = FloatVector({1, 1});
  const DevStats before = Stats();
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    RunResult r = Run(session, {Out(out), Out(sq)}, {}, {{Out(p), ones}});
    ASSERT_RUN_OK(r);
    EXPECT_EQ(r.values[0], (std::vector<float>{3, 9, 19}));
    EXPECT_EQ(r.values[1], (std::vector<float>{1, 4, 9}));
    EXPECT_EQ(r.DeviceOf("out"), kDev0) << r.StepsString();
    EXPECT_EQ((Stats() - before).live, 0) << "TESTACC buffers held after a successful run";
  }
  // sum fails after sq has run: sq's buffer and the copies on the device are let go.
  RunResult r = Run(session, {Out(out)}, {}, {{Out(p), short_feed}});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_TRUE(Contains(r.message, "sum")) << r.message;
  EXPECT_EQ((Stats() - before).live, 0) << "TESTACC buffers held after a failed run";
  TG_DeleteTensor(ones);
  TG_DeleteTensor(short_feed);
}

TEST_F(SessionPlacementTest, MissingKernelFailsWithoutSoftPlacement) {
  TG_Operation* a = Mat("a", {2, 2}, {1, 2, 3, 4});
  TG_Operation* b = Mat("b", {2, 2}, {5, 6, 7, 8});
  TG_Operation* mm = Op2("MatMul", "the_matmul", a, b, kDev0);
  RunResult r = Run(NewSession(), {Out(mm)});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_TRUE(Contains(r.message, "the_matmul")) << r.message;
  EXPECT_TRUE(Contains(r.message, kDev0)) << r.message;
  EXPECT_TRUE(Contains(r.message, "CPU")) << r.message;
  EXPECT_TRUE(r.values[0].empty());

  r = Run(NewSession(/*soft=*/true), {Out(mm)});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(r.DeviceOf("the_matmul"), kCpu) << r.StepsString();
  EXPECT_EQ(r.AllCopies(), 0) << r.StepsString();
}

TEST_F(SessionPlacementTest, MissingDeviceFailsWithoutSoftPlacement) {
  TG_Operation* a = Mat("a", {2, 2}, {1, 2, 3, 4});
  TG_Operation* b = Mat("b", {2, 2}, {5, 6, 7, 8});
  TG_Operation* mm7 = Op2("MatMul", "mm_on_testacc7", a, b, "/device:TESTACC:7");
  TG_Operation* mmg = Op2("MatMul", "mm_on_gpu0", a, b, "/device:GPU:0");
  TG_Operation* add7 = Op2("AddV2", "add_on_testacc7", a, b, "/device:TESTACC:7");
  TG_Session* strict = NewSession();
  // Other tests in this binary may have loaded a real GPU backend.
  const bool gpu0_exists = HasDevice(strict, "/device:GPU:0");
  struct Case {
    TG_Operation* op;
    const char* name;
    const char* device;
    std::vector<float> want;
  };
  std::vector<Case> cases = {
      {mm7, "mm_on_testacc7", "/device:TESTACC:7", {19, 22, 43, 50}},
      {add7, "add_on_testacc7", "/device:TESTACC:7", {6, 8, 10, 12}},
  };
  if (!gpu0_exists) cases.push_back({mmg, "mm_on_gpu0", "/device:GPU:0", {19, 22, 43, 50}});
  TG_Session* soft = NewSession(/*soft=*/true);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    RunResult r = Run(strict, {Out(c.op)});
    EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
    EXPECT_TRUE(Contains(r.message, c.name)) << r.message;
    EXPECT_TRUE(Contains(r.message, c.device)) << r.message;
    EXPECT_TRUE(Contains(r.message, "CPU")) << r.message;

    r = Run(soft, {Out(c.op)});
    ASSERT_RUN_OK(r);
    EXPECT_EQ(r.values[0], c.want);
    const std::string device = r.DeviceOf(c.name);
    if (std::string(c.name).starts_with("mm")) {
      EXPECT_EQ(device, kCpu) << r.StepsString();
    } else {
      // AddV2 has a TESTACC kernel: another ordinal of the type, or the CPU.
      EXPECT_TRUE(device == kCpu || device == kDev0 || device == kDev1) << r.StepsString();
    }
  }
}

TEST_F(SessionPlacementTest, VariableOpsStayTogetherUnderSoftPlacement) {
  TG_GraphPushDevice(g_, kDev0, s_);
  TG_ASSERT_OK(s_);
  const int64_t n = 2;
  // A double variable: TESTACC has VariableV2 kernels for float only.
  TG_Tensor* init = TG_AllocateTensor(TG_DOUBLE, &n, 1, 2 * sizeof(double));
  static_cast<double*>(TG_TensorData(init))[0] = 1.5;
  static_cast<double*>(TG_TensorData(init))[1] = -2.5;
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "placed_var";
  TG_Variable* v = TG_GraphNewVariableFromTensor(g_, init, &opts, s_);
  TG_DeleteTensor(init);
  TG_ASSERT_OK(s_);
  TG_GraphPopDevice(g_, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* assign = TG_VariableInitializer(v);
  TG_Output read = TG_VariableReadValue(v);

  // Without soft placement the variable cannot go where it asked.
  RunResult r = Run(NewSession(), {}, {assign});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_TRUE(Contains(r.message, "placed_var")) << r.message;
  EXPECT_TRUE(Contains(r.message, kDev0)) << r.message;

  TG_Session* session = NewSession(/*soft=*/true);
  r = Run(session, {}, {assign});
  ASSERT_RUN_OK(r);
  const std::string var_device = r.DeviceOf("placed_var");
  EXPECT_EQ(var_device, kCpu) << "TESTACC has no double VariableV2 kernel\n" << r.StepsString();
  EXPECT_EQ(r.DeviceOf("placed_var/Assign"), var_device) << r.StepsString();
  r = Run(session, {read});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{1.5f, -2.5f}));
  EXPECT_EQ(r.DeviceOf("placed_var/read"), var_device)
      << "Identity has a TESTACC kernel, but the read is colocated with its variable\n"
      << r.StepsString();
}

// A variable placed on a device that is not host-accessible keeps its storage in that
// device's memory: Assign and AssignAdd update it there, readers elsewhere get one copy,
// values persist between runs and stay separate between sessions, and deleting the sessions
// gives every buffer back (TearDown checks the allocator).
TEST_F(SessionPlacementTest, VariableOnDeviceLivesInDeviceMemory) {
  TG_GraphPushDevice(g_, kDev0, s_);
  TG_ASSERT_OK(s_);
  const int64_t n = 2;
  TG_Tensor* init = TG_AllocateTensor(TG_FLOAT, &n, 1, 2 * sizeof(float));
  static_cast<float*>(TG_TensorData(init))[0] = 1.5f;
  static_cast<float*>(TG_TensorData(init))[1] = -2.5f;
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "dev_var";
  TG_Variable* v = TG_GraphNewVariableFromTensor(g_, init, &opts, s_);
  TG_DeleteTensor(init);
  TG_ASSERT_OK(s_);
  TG_Operation* delta = Vec("delta", {10, 20}, kCpu);  // host memory: copied in per run
  TG_Operation* bump = Op2("AssignAdd", "bump", TG_VariableOutput(v).oper, delta);
  TG_GraphPopDevice(g_, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* assign = TG_VariableInitializer(v);
  TG_Output read = TG_VariableReadValue(v);
  TG_Output host_read = Out(Op2("AddV2", "host_read", read.oper, read.oper, kCpu));

  TG_Session* session = NewSession();
  const DevStats before = Stats();
  RunResult r = Run(session, {}, {assign});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.DeviceOf("dev_var"), kDev0) << r.StepsString();
  EXPECT_EQ(r.DeviceOf("dev_var/Assign"), kDev0) << r.StepsString();
  EXPECT_EQ(r.AllCopies(), 0) << "the initial value is a TESTACC Const\n" << r.StepsString();
  EXPECT_EQ((Stats() - before).live, 1) << "the variable's storage is one TESTACC buffer";

  DevStats at = Stats();
  r = Run(session, {}, {bump});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.DeviceOf("bump"), kDev0) << r.StepsString();
  EXPECT_EQ(r.Copies("delta:0", kDev0), 1) << r.StepsString();
  // Nothing is fetched, yet the run waits for the device once before it returns.
  EXPECT_EQ((Stats() - at).syncs, 1);
  r = Run(session, {}, {bump});
  ASSERT_RUN_OK(r);

  // Read on the device, consumed on the CPU: one copy to the host.
  r = Run(session, {host_read, read});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{43, 75}));
  EXPECT_EQ(r.values[1], (std::vector<float>{21.5f, 37.5f}));
  EXPECT_EQ(r.DeviceOf("dev_var/read"), kDev0) << r.StepsString();
  EXPECT_TRUE(r.CopiedToHost("dev_var/read:0", kDev0)) << r.StepsString();
  // The ref output itself, fetched: copied out of device memory.
  r = Run(session, {TG_VariableOutput(v)});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{21.5f, 37.5f}));

  // A second session on the graph has its own, uninitialized variable.
  TG_Session* other = NewSession();
  r = Run(other, {read});
  EXPECT_EQ(r.code, TG_FAILED_PRECONDITION) << r.message;
  EXPECT_TRUE(Contains(r.message, "dev_var")) << r.message;
  r = Run(other, {}, {assign});
  ASSERT_RUN_OK(r);
  r = Run(other, {read});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{1.5f, -2.5f}));
  r = Run(session, {read});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{21.5f, 37.5f}));
}

TEST_F(SessionPlacementTest, LogDevicePlacementWritesOneLinePerOp) {
  TG_Operation* a = Vec("log_a", {1, 2});
  TG_Operation* b = Vec("log_b", {3, 4}, kDev0);
  TG_Operation* sum = Op2("AddV2", "log_sum", a, b, kDev0);
  TG_Session* session = NewSession(/*soft=*/false, /*log=*/true);
  testing::internal::CaptureStderr();
  RunResult r = Run(session, {Out(sum)});
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{4, 6}));
  std::vector<std::string> lines;
  for (size_t start = 0; start < log.size();) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    lines.push_back(log.substr(start, end - start));
    start = end + 1;
  }
  // c_api.h documents "name (Type): device"; TensorFlow writes "name: (Type): device".
  // Either is accepted, once per op.
  auto count = [&](const std::string& name, const std::string& type, const std::string& dev) {
    const std::string tail = " (" + type + "): " + dev;
    return std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l == name + tail || l == name + ":" + tail;
    });
  };
  EXPECT_EQ(count("log_a", "Const", kCpu), 1) << log;
  EXPECT_EQ(count("log_b", "Const", kDev0), 1) << log;
  EXPECT_EQ(count("log_sum", "AddV2", kDev0), 1) << log;
  for (const std::string op : {"log_a", "log_b", "log_sum"}) {
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [&](const std::string& l) {
                              return l.starts_with(op) && l.size() > op.size() &&
                                     (l[op.size()] == ' ' || l[op.size()] == ':');
                            }),
              1)
        << op << " in:\n" << log;
  }

  // A cached plan is not logged again.
  testing::internal::CaptureStderr();
  r = Run(session, {Out(sum)});
  const std::string again = testing::internal::GetCapturedStderr();
  ASSERT_RUN_OK(r);
  EXPECT_FALSE(Contains(again, "log_sum")) << again;
}

TEST_F(SessionPlacementTest, ConcurrentRunsAcrossDevicesFreeEverything) {
  TG_Operation* c = Vec("c", {1, 2, 3, 4});
  TG_Operation* x = Op2("Mul", "x", c, c, kDev0);
  TG_Operation* y = Op2("AddV2", "y", x, c, kDev1);
  TG_Operation* z = Op2("AddV2", "z", y, c);  // back on the CPU
  TG_Session* session = NewSession();
  const DevStats before = Stats();
  constexpr int kThreads = 4, kRuns = 50;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TG_Status* s = TG_NewStatus();
      for (int i = 0; i < kRuns; ++i) {
        TG_Output fetches[2] = {Out(z), Out(y)};
        TG_Tensor* outs[2] = {nullptr, nullptr};
        TG_SessionRun(session, nullptr, nullptr, nullptr, 0, fetches, outs, 2, nullptr, 0,
                      nullptr, s);
        const float want_z[4] = {3, 8, 15, 24}, want_y[4] = {2, 6, 12, 20};
        if (TG_GetCode(s) != TG_OK || TG_TensorElementCount(outs[0]) != 4 ||
            std::memcmp(TG_TensorData(outs[0]), want_z, sizeof want_z) != 0 ||
            std::memcmp(TG_TensorData(outs[1]), want_y, sizeof want_y) != 0) {
          ++failures[static_cast<size_t>(t)];
        }
        TG_DeleteTensor(outs[0]);
        TG_DeleteTensor(outs[1]);
      }
      TG_DeleteStatus(s);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[static_cast<size_t>(t)], 0) << t;
  const DevStats d = Stats() - before;
  constexpr int64_t kTotal = kThreads * kRuns;
  EXPECT_EQ(d.h2d, 2 * kTotal) << "c to TESTACC:0 and to TESTACC:1";
  EXPECT_EQ(d.d2d, kTotal) << "x to TESTACC:1";
  EXPECT_EQ(d.d2h, kTotal) << "y to the CPU, once for z and the fetch together";
}

// The explicit end-of-life check (TearDown repeats it after every test): many sessions and
// plans, then nothing left on the devices.
TEST_F(SessionPlacementTest, DeletingSessionsFreesEveryDeviceBuffer) {
  TG_Operation* c = Vec("c", {1, 2, 3}, kDev0);
  TG_Operation* x = Op2("Mul", "x", c, c, kDev0);
  TG_Operation* y = Op2("AddV2", "y", x, x, kDev1);
  for (int i = 0; i < 3; ++i) {
    TG_Session* session = NewSession();
    RunResult r = Run(session, {Out(y)});
    ASSERT_RUN_OK(r);
    EXPECT_EQ(r.values[0], (std::vector<float>{2, 8, 18}));
    r = Run(session, {Out(x), Out(y)});
    ASSERT_RUN_OK(r);
  }
  for (TG_Session* session : sessions_) {
    TG_DeleteSession(session, s_);
    TG_EXPECT_OK(s_);
  }
  sessions_.clear();
  const DevStats st = Stats();
  EXPECT_EQ(st.live, 0);
  EXPECT_EQ(st.bad_frees - baseline_.bad_frees, 0);
  EXPECT_EQ(st.bad_accesses - baseline_.bad_accesses, 0);
}

}  // namespace

// ---- kernels declining nodes (plugin ABI 6) ----
// TestDecline (tests/plugin/test_device_plugin.cc) computes x + 1 (CPU, priority 10), x + 2
// (CPU fallback) or x + 10 (TESTACC); each kernel declines some values of attr `mode`.
class SessionDeclineTest : public SessionPlacementTest {
 protected:
  TG_Operation* Decline(const char* name, TG_Operation* x, const char* mode,
                        const char* device = nullptr) {
    TG_OperationDescription* d = TG_NewOperation(g_, "TestDecline", name);
    TG_AddInput(d, Out(x));
    TG_SetAttrString(d, "mode", mode, std::strlen(mode));
    if (device != nullptr) TG_SetDevice(d, device);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(tgtest::IsOk(s_)) << name;
    return op;
  }
};

TEST_F(SessionDeclineTest, ADeclinedKernelPassesTheNodeToTheNextKernelOnTheDevice) {
  TG_Operation* x = Vec("x", {1, 2});
  TG_Operation* fast = Decline("fast", x, "plain");
  TG_Operation* fallback = Decline("fallback", x, "no_fast");
  RunResult r = Run(NewSession(), {Out(fast), Out(fallback)});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{2, 3})) << "the priority-10 kernel takes it";
  EXPECT_EQ(r.values[1], (std::vector<float>{3, 4})) << "the fallback kernel takes it";
  EXPECT_EQ(r.DeviceOf("fallback"), kCpu) << r.StepsString();
}

TEST_F(SessionDeclineTest, ADeviceKernelThatDeclinesSendsTheNodeToTheCpuUnderSoftPlacement) {
  TG_Operation* x = Vec("x", {1, 2});
  TG_Operation* taken = Decline("taken", x, "plain", kDev0);
  TG_Operation* declined = Decline("declined", x, "no_device", kDev0);
  // A consumer on the device: the declined node's result is copied back to it.
  TG_Operation* sum = Op2("AddV2", "sum", taken, declined, kDev0);
  RunResult r = Run(NewSession(/*soft=*/true), {Out(taken), Out(declined), Out(sum)});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{11, 12}));
  EXPECT_EQ(r.values[1], (std::vector<float>{2, 3}));
  EXPECT_EQ(r.values[2], (std::vector<float>{13, 15}));
  EXPECT_EQ(r.DeviceOf("taken"), kDev0) << r.StepsString();
  EXPECT_EQ(r.DeviceOf("declined"), kCpu) << r.StepsString();
  EXPECT_EQ(r.Copies("declined:0", kDev0), 1) << r.StepsString();
}

TEST_F(SessionDeclineTest, ADeclineOnAnExplicitDeviceWithoutSoftPlacementNamesKernelAndReason) {
  TG_Operation* x = Vec("x", {1, 2});
  TG_Operation* declined = Decline("the_declined", x, "no_device", kDev0);
  RunResult r = Run(NewSession(), {Out(declined)});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_TRUE(Contains(r.message, "the_declined")) << r.message;
  EXPECT_TRUE(Contains(r.message, kDev0)) << r.message;
  EXPECT_TRUE(Contains(r.message, "kernel TestDecline on TESTACC")) << r.message;
  EXPECT_TRUE(Contains(r.message, "of plugin 'test_device'")) << r.message;
  EXPECT_TRUE(Contains(r.message, "mode 'no_device' is not supported by the +10 kernel")) << r.message;
}

TEST_F(SessionDeclineTest, ANodeEveryKernelDeclinesFailsNamingEachKernel) {
  TG_Operation* x = Vec("x", {1, 2});
  TG_Operation* nowhere = Decline("nowhere_node", x, "nowhere");
  RunResult r = Run(NewSession(/*soft=*/true), {Out(nowhere)});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_TRUE(Contains(r.message, "nowhere_node")) << r.message;
  EXPECT_TRUE(Contains(r.message, "+1 kernel")) << r.message;
  EXPECT_TRUE(Contains(r.message, "+2 kernel")) << r.message;
  EXPECT_TRUE(Contains(r.message, "+10 kernel")) << r.message;
  // The session goes on: another node of the op still runs.
  TG_Operation* fine = Decline("fine", x, "plain");
  TG_Session* session = NewSession();
  r = Run(session, {Out(fine)});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.values[0], (std::vector<float>{2, 3}));
}

// A colocation group follows its member whose device kernel declined: the group is placed
// again, and under soft placement both members go where both have a kernel (the CPU).
TEST_F(SessionDeclineTest, AColocationGroupMovesWithItsDeclinedMember) {
  TG_Operation* x = Vec("x", {1, 2});
  TG_Operation* first = Decline("first", x, "plain", kDev0);
  TG_OperationDescription* d = TG_NewOperation(g_, "TestDecline", "second");
  TG_AddInput(d, Out(first));
  TG_SetAttrString(d, "mode", "no_device", std::strlen("no_device"));
  TG_SetDevice(d, kDev0);
  TG_ColocateWith(d, first);
  TG_Operation* second = TG_FinishOperation(d, s_);
  ASSERT_TRUE(tgtest::IsOk(s_)) << msg();
  RunResult r = Run(NewSession(/*soft=*/true), {Out(second)});
  ASSERT_RUN_OK(r);
  EXPECT_EQ(r.DeviceOf("first"), kCpu) << r.StepsString();
  EXPECT_EQ(r.DeviceOf("second"), kCpu) << r.StepsString();
  EXPECT_EQ(r.values[0], (std::vector<float>{3, 4})) << "+1 on the CPU, twice";
  EXPECT_EQ(r.AllCopies(), 0) << r.StepsString();
}
