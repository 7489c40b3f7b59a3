// Helpers for a device plugin's tests, through tgraph/c_api.h only, for any device plugin
// (tests/plugins/device/ holds the tests every backend runs; they are built once per backend):
// the CPU plugin and the device plugin loaded by path (TGRAPH_CPU_PLUGIN_PATH,
// TGRAPH_DEVICE_PLUGIN_PATH; TGRAPH_DEVICE_NAME names the backend in messages, e.g. "CUDA"),
// a graph builder that puts every op it makes (but not the fed placeholders or the
// host-side Consts) on one device, a runner that returns the fetched values with the run's
// step stats, variables with a runner of their initializers, an update and their reads (the
// training tests'), and a fixture that skips, saying why, when the plugin has no device (or fails,
// where the target defines TGRAPH_DEVICE_REQUIRED: the OpenCL tests run on PoCL in CI and
// must never skip). A test builds the same computation for /device:CPU:0 and the device
// and compares.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tgraph/c_api.h"

namespace devtest {

constexpr const char* kCpu = "/device:CPU:0";
// The device under test: /device:GPU:0 unless the test target defines TGRAPH_TEST_DEVICE
// (e.g. "/device:CUDA_GPU:0" for a second GPU backend in one process).
#ifdef TGRAPH_TEST_DEVICE
constexpr const char* kGpu = TGRAPH_TEST_DEVICE;
#else
constexpr const char* kGpu = "/device:GPU:0";
#endif

// Runs `fn` with stderr sent to a file; returns what was written (the plugins' log lines).
template <typename F>
std::string CapturingStderr(F&& fn) {
  char path[] = "/tmp/tgraph_device_test_logXXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    fn();
    return "<mkstemp failed>";
  }
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(fd, 2);
  fn();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path);
  return ss.str();
}

// Both plugins, loaded once per process.
struct LoadedPlugins {
  std::string error;       // "" when both loaded
  std::string device_log;  // what the device plugin logged while loading, printed or not
};

// What a plugin logged while it loaded, printed or not (a backend without a device says why
// at INFO level, which is not printed by default), one line each.
inline std::string PluginLog(const TG_Plugin* plugin) {
  std::string log;
  for (int i = 0; i < TG_PluginNumMessages(plugin); ++i) {
    log += std::string(TG_PluginMessage(plugin, i)) + "\n";
  }
  return log;
}

// A backend that found no device printed nothing (`printed`: its stderr while loading) and
// has one line on record saying so, "INFO: <who> plugin: no device (<why>)...".
inline void ExpectQuietNoDeviceLine(const TG_Plugin* plugin, const std::string& printed,
                                    const std::string& who) {
  EXPECT_EQ(printed, "");
  ASSERT_EQ(TG_PluginNumMessages(plugin), 1) << PluginLog(plugin);
  const std::string line = TG_PluginMessage(plugin, 0);
  EXPECT_EQ(line.rfind("INFO: " + who + " plugin: no device (", 0), 0u) << line;
}

inline const LoadedPlugins& LoadPlugins() {
  static const LoadedPlugins loaded = [] {
    LoadedPlugins l;
    TG_Status* s = TG_NewStatus();
    TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
    auto check = [&](const char* path) {
      if (TG_GetCode(s) != TG_OK) l.error += std::string(path) + ": " + TG_Message(s) + "\n";
    };
    check(TGRAPH_CPU_PLUGIN_PATH);
    l.device_log = PluginLog(TG_LoadPlugin(TGRAPH_DEVICE_PLUGIN_PATH, s));
    check(TGRAPH_DEVICE_PLUGIN_PATH);
    // Pass the log on, so the test's output still shows it.
    std::fputs(l.device_log.c_str(), stderr);
    TG_DeleteStatus(s);
    return l;
  }();
  return loaded;
}

// Whether a session on an empty graph lists `device`.
inline bool SessionHasDevice(const std::string& device) {
  TG_Graph* g = TG_NewGraph();
  TG_Status* s = TG_NewStatus();
  TG_Session* session = TG_NewSession(g, nullptr, s);
  bool found = false;
  if (session != nullptr) {
    for (int i = 0; i < TG_SessionNumDevices(session); ++i) {
      found = found || std::string(TG_SessionDeviceName(session, i)) == device;
    }
    TG_DeleteSession(session, s);
  }
  TG_DeleteStatus(s);
  TG_DeleteGraph(g);
  return found;
}

// Why the device plugin offers no device: its log line saying "no device", if it wrote one.
inline std::string NoDeviceReason() {
  const std::string& log = LoadPlugins().device_log;
  const size_t at = log.find("no device");
  if (at == std::string::npos) return "the session lists no " + std::string(kGpu);
  const size_t begin = log.rfind('\n', at), end = log.find('\n', at);
  const size_t from = begin == std::string::npos ? 0 : begin + 1;
  return "the plugin logged \"" +
         log.substr(from, end == std::string::npos ? std::string::npos : end - from) + "\"";
}

// A host tensor's value: dims and elements (float, int32 or int64, kept as double).
struct Value {
  TG_DataType dtype = TG_FLOAT;
  std::vector<int64_t> dims;
  std::vector<double> values;
};

inline Value ValueOf(const TG_Tensor* t) {
  Value v;
  if (t == nullptr) return v;
  v.dtype = TG_TensorType(t);
  for (int i = 0; i < TG_NumDims(t); ++i) v.dims.push_back(TG_Dim(t, i));
  const int64_t n = TG_TensorElementCount(t);
  for (int64_t i = 0; i < n; ++i) {
    const void* p = TG_TensorData(t);
    v.values.push_back(v.dtype == TG_INT32   ? static_cast<const int32_t*>(p)[i]
                       : v.dtype == TG_INT64 ? static_cast<double>(static_cast<const int64_t*>(p)[i])
                       : v.dtype == TG_BOOL  ? static_cast<const uint8_t*>(p)[i]
                                             : static_cast<const float*>(p)[i]);
  }
  return v;
}

struct Step {
  std::string name, op, device;
};

struct RunResult {
  TG_Code code = TG_OK;
  std::string message;
  std::vector<Value> values;
  std::vector<Step> steps;

  std::string DeviceOf(const std::string& node) const {
    for (const Step& s : steps) {
      if (s.name == node && s.op != "_Copy") return s.device;
    }
    return "<not run>";
  }
  int Copies() const {
    int n = 0;
    for (const Step& s : steps) n += s.op == "_Copy";
    return n;
  }
  int CopiesOf(const std::string& tensor) const {
    int n = 0;
    for (const Step& s : steps) n += s.op == "_Copy" && s.name == tensor;
    return n;
  }
  std::string StepsString() const {
    std::string out;
    for (const Step& s : steps) out += "  " + s.name + " (" + s.op + ") on " + s.device + "\n";
    return out;
  }
};

// Builds one graph; ops made through Op() get `device`.
class Builder {
 public:
  explicit Builder(std::string device) : device_(std::move(device)), g_(TG_NewGraph()), s_(TG_NewStatus()) {}
  ~Builder() {
    for (TG_Tensor* t : feed_values_) TG_DeleteTensor(t);
    TG_DeleteGraph(g_);
    TG_DeleteStatus(s_);
  }
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  TG_Graph* graph() const { return g_; }
  // Placeholders made from now on declare their fed shape (static shapes let gradient
  // builders use constant shapes); by default they declare none, so that bad shapes reach
  // the kernels.
  void DeclareFeedShapes() { declare_shapes_ = true; }
  const std::string& device() const { return device_; }

  // A placeholder of unknown shape, fed `values` of `dims` at run time.
  TG_Output Feed(std::vector<int64_t> dims, const std::vector<float>& values) {
    return FeedOf(MakeTensor(TG_FLOAT, dims, values.data(), values.size()));
  }
  TG_Output FeedInt(std::vector<int64_t> dims, const std::vector<int32_t>& values) {
    return FeedOf(MakeTensor(TG_INT32, dims, values.data(), values.size()));
  }
  TG_Output FeedInt64(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
    return FeedOf(MakeTensor(TG_INT64, dims, values.data(), values.size()));
  }
  TG_Output FeedBool(std::vector<int64_t> dims, const std::vector<bool>& values) {
    const std::vector<unsigned char> bytes(values.begin(), values.end());
    return FeedOf(MakeTensor(TG_BOOL, dims, bytes.data(), bytes.size()));
  }
  // A Const on the default device (the CPU): for host-memory args (shapes, axes).
  TG_Output HostInts(std::vector<int64_t> dims, const std::vector<int32_t>& values) {
    return Const(MakeTensor(TG_INT32, dims, values.data(), values.size()), nullptr);
  }
  // A float Const on `device`.
  TG_Output DeviceConst(std::vector<int64_t> dims, const std::vector<float>& values) {
    return Const(MakeTensor(TG_FLOAT, dims, values.data(), values.size()), device_.c_str());
  }

  using AttrFn = std::function<void(TG_OperationDescription*)>;
  TG_Output Op(const char* type, const std::vector<TG_Output>& inputs, const AttrFn& attrs = {},
               const char* name = nullptr) {
    TG_OperationDescription* d = TG_NewOperation(g_, type, name != nullptr ? name : type);
    for (const TG_Output& in : inputs) TG_AddInput(d, in);
    if (attrs) attrs(d);
    TG_SetDevice(d, device_.c_str());
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_EQ(TG_GetCode(s_), TG_OK) << type << ": " << TG_Message(s_);
    return TG_Output{op, 0};
  }

  // An op whose inputs are lists (AddN's, DynamicStitch's `indices` and `data`), in order.
  TG_Output OpOfLists(const char* type, const std::vector<std::vector<TG_Output>>& lists,
                      const char* name) {
    TG_OperationDescription* d = TG_NewOperation(g_, type, name);
    for (const auto& list : lists) {
      TG_AddInputList(d, list.data(), static_cast<int>(list.size()));
    }
    TG_SetDevice(d, device_.c_str());
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_EQ(TG_GetCode(s_), TG_OK) << type << ": " << TG_Message(s_);
    return TG_Output{op, 0};
  }

  // Runs the fetches in a new session (trace level 1), `runs` times; the last run's result.
  RunResult Run(const std::vector<TG_Output>& fetches, int runs = 1) {
    RunResult r;
    TG_Session* session = TG_NewSession(g_, nullptr, s_);
    if (session == nullptr) {
      r.code = TG_GetCode(s_);
      r.message = TG_Message(s_);
      return r;
    }
    for (int i = 0; i < runs; ++i) r = RunIn(session, fetches);
    TG_DeleteSession(session, s_);
    EXPECT_EQ(TG_GetCode(s_), TG_OK) << TG_Message(s_);
    return r;
  }

  RunResult RunIn(TG_Session* session, const std::vector<TG_Output>& fetches) {
    RunResult r;
    TG_RunOptions* ro = TG_NewRunOptions();
    TG_SetRunOptionsTraceLevel(ro, 1);
    TG_RunMetadata* md = TG_NewRunMetadata();
    std::vector<TG_Tensor*> outs(fetches.size(), nullptr);
    TG_SessionRun(session, ro, feeds_.data(), feed_values_.data(), static_cast<int>(feeds_.size()),
                  fetches.data(), outs.data(), static_cast<int>(fetches.size()), nullptr, 0, md,
                  s_);
    r.code = TG_GetCode(s_);
    r.message = TG_Message(s_);
    for (TG_Tensor* t : outs) {
      r.values.push_back(ValueOf(t));
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

 private:
  TG_Tensor* MakeTensor(TG_DataType dt, const std::vector<int64_t>& dims, const void* data,
                        size_t n) {
    const size_t bytes = n * (dt == TG_INT64 ? 8 : dt == TG_BOOL ? 1 : 4);
    TG_Tensor* t = TG_AllocateTensor(dt, dims.data(), static_cast<int>(dims.size()), bytes);
    EXPECT_NE(t, nullptr) << "values do not fit the shape";
    if (t != nullptr && bytes != 0) std::memcpy(TG_TensorData(t), data, bytes);
    return t;
  }
  TG_Output FeedOf(TG_Tensor* t) {
    const std::string name = "feed" + std::to_string(feeds_.size());
    TG_OperationDescription* d = TG_NewOperation(g_, "Placeholder", name.c_str());
    TG_SetAttrType(d, "dtype", TG_TensorType(t));
    if (declare_shapes_) {
      std::vector<int64_t> dims;
      for (int i = 0; i < TG_NumDims(t); ++i) dims.push_back(TG_Dim(t, i));
      TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    }
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_EQ(TG_GetCode(s_), TG_OK) << TG_Message(s_);
    feeds_.push_back(TG_Output{op, 0});
    feed_values_.push_back(t);
    return feeds_.back();
  }
  TG_Output Const(TG_Tensor* t, const char* device) {
    const std::string name = "const" + std::to_string(num_consts_++);
    TG_OperationDescription* d = TG_NewOperation(g_, "Const", name.c_str());
    TG_SetAttrTensor(d, "value", t, s_);
    TG_SetAttrType(d, "dtype", TG_TensorType(t));
    if (device != nullptr) TG_SetDevice(d, device);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_EQ(TG_GetCode(s_), TG_OK) << TG_Message(s_);
    TG_DeleteTensor(t);
    return TG_Output{op, 0};
  }

  std::string device_;
  TG_Graph* g_;
  TG_Status* s_;
  std::vector<TG_Output> feeds_;
  std::vector<TG_Tensor*> feed_values_;
  int num_consts_ = 0;
  bool declare_shapes_ = false;
};

// Deterministic pseudo-random floats in [lo, hi).
inline std::vector<float> Random(size_t n, float lo = -2.0f, float hi = 2.0f,
                                 uint32_t seed = 1) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 12345u;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = lo + (hi - lo) * static_cast<float>(x >> 8) / static_cast<float>(1u << 24);
  }
  return v;
}

// Builds the computation `build` for the CPU and for the device (kGpu), runs both and
// expects equal shapes and dtypes and values within rtol * |cpu| + atol; the op named `node`
// (the fetch, unless given) must have run on the device in its graph. Returns its run.
using BuildFn = std::function<std::vector<TG_Output>(Builder&)>;
inline RunResult ExpectDeviceMatchesCpu(const BuildFn& build, double rtol = 1e-5,
                                        double atol = 1e-6, const char* node = nullptr) {
  Builder cpu(kCpu), gpu(kGpu);
  const std::vector<TG_Output> cpu_fetches = build(cpu), gpu_fetches = build(gpu);
  const RunResult want = cpu.Run(cpu_fetches);
  const RunResult got = gpu.Run(gpu_fetches);
  EXPECT_EQ(want.code, TG_OK) << want.message;
  EXPECT_EQ(got.code, TG_OK) << got.message;
  if (want.code != TG_OK || got.code != TG_OK) return got;
  const std::string name = node != nullptr ? node : TG_OperationName(gpu_fetches[0].oper);
  EXPECT_EQ(got.DeviceOf(name), kGpu) << got.StepsString();
  EXPECT_EQ(want.DeviceOf(name), kCpu) << want.StepsString();
  for (size_t f = 0; f < want.values.size(); ++f) {
    const Value& w = want.values[f];
    const Value& g = got.values[f];
    EXPECT_EQ(g.dtype, w.dtype) << "fetch " << f;
    EXPECT_EQ(g.dims, w.dims) << "fetch " << f;
    if (g.values.size() != w.values.size()) continue;
    int bad = 0;
    for (size_t i = 0; i < w.values.size() && bad < 5; ++i) {
      const double a = w.values[i], b = g.values[i];
      const bool same = (std::isnan(a) && std::isnan(b)) || a == b ||
                        std::abs(a - b) <= rtol * std::abs(a) + atol;
      if (!same) {
        ++bad;
        ADD_FAILURE() << "fetch " << f << " element " << i << ": CPU " << a << ", " << kGpu
                      << " " << b;
      }
    }
  }
  return got;
}

// Runtime tests' fixture: both plugins loaded, and the device present or the test skipped,
// saying why (a CUDA plugin on a machine without a GPU or driver loads and has no device);
// with TGRAPH_DEVICE_REQUIRED a missing device is a failure instead.
class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(LoadPlugins().error, "");
    if (!SessionHasDevice(kGpu)) {
#ifdef TGRAPH_DEVICE_REQUIRED
      GTEST_FAIL() << "no " << TGRAPH_DEVICE_NAME << " device (" << TGRAPH_DEVICE_REQUIRED
                   << "): " << NoDeviceReason();
#else
      GTEST_SKIP() << "no " << TGRAPH_DEVICE_NAME << " device: " << NoDeviceReason();
#endif
    }
  }

  // Runs `build` on the device only and expects it to fail with `code` and a message naming the
  // node and containing `text`.
  static void ExpectDeviceError(const BuildFn& build, TG_Code code, const std::string& node,
                                const std::string& text) {
    Builder gpu(kGpu);
    const RunResult r = gpu.Run(build(gpu));
    EXPECT_EQ(r.code, code) << r.message;
    EXPECT_NE(r.message.find(node), std::string::npos) << r.message;
    EXPECT_NE(r.message.find(text), std::string::npos) << r.message;
  }
};

// After a backend found no device: no session lists a GPU, a graph asking for /device:GPU:0
// fails placement naming the op and the device, and CPU work still runs.
inline void ExpectNoGpuAndCpuStillWorks() {
  TG_Status* s = TG_NewStatus();
  Builder gpu(kGpu);
  TG_Output y = gpu.Op("Relu", {gpu.Feed({2}, {-1.0f, 1.0f})}, {}, "relu_on_gpu");
  TG_Session* session = TG_NewSession(gpu.graph(), nullptr, s);
  ASSERT_NE(session, nullptr) << TG_Message(s);
  for (int i = 0; i < TG_SessionNumDevices(session); ++i) {
    EXPECT_STREQ(TG_SessionDeviceType(session, i), "CPU") << TG_SessionDeviceName(session, i);
  }
  const RunResult r = gpu.RunIn(session, {y});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_NE(r.message.find("relu_on_gpu"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("/device:GPU:0"), std::string::npos) << r.message;
  TG_DeleteSession(session, s);
  TG_DeleteStatus(s);

  Builder cpu(kCpu);
  TG_Output z = cpu.Op("Relu", {cpu.Feed({2}, {-1.0f, 1.0f})});
  const RunResult ok = cpu.Run({z});
  ASSERT_EQ(ok.code, TG_OK) << ok.message;
  EXPECT_EQ(ok.values[0].values, (std::vector<double>{0.0, 1.0}));
}

// ---- variables and their updates (training_test.cc, sparse_training_test.cc) ----

// A variable on the builder's device holding `values` of `dims` (float; with `ints`, int32
// values * 100).
inline TG_Variable* NewVariable(Builder& b, const std::string& name,
                                const std::vector<int64_t>& dims, const std::vector<float>& values,
                                bool ints = false) {
  TG_Status* s = TG_NewStatus();
  TG_Tensor* t = TG_AllocateTensor(ints ? TG_INT32 : TG_FLOAT, dims.data(),
                                   static_cast<int>(dims.size()), values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    if (ints) {
      static_cast<int32_t*>(TG_TensorData(t))[i] = static_cast<int32_t>(values[i] * 100);
    } else {
      static_cast<float*>(TG_TensorData(t))[i] = values[i];
    }
  }
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = name.c_str();
  TG_GraphPushDevice(b.graph(), b.device().c_str(), s);
  TG_Variable* v = TG_GraphNewVariableFromTensor(b.graph(), t, &opts, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  TG_GraphPopDevice(b.graph(), s);
  TG_DeleteTensor(t);
  TG_DeleteStatus(s);
  return v;
}

// Runs the initializers of `vars`, then `update` `steps` times, then fetches every variable
// of `vars`. The last update run goes to *update_run (its status too: a failed update stops
// there, and the variables are read after it all the same, so a test can check that it
// changed nothing).
inline RunResult InitUpdateRead(Builder& b, const std::vector<TG_Variable*>& vars,
                                TG_Output update, int steps, RunResult* update_run) {
  TG_Status* s = TG_NewStatus();
  TG_Session* session = TG_NewSession(b.graph(), nullptr, s);
  EXPECT_NE(session, nullptr) << TG_Message(s);
  RunResult r;
  if (session == nullptr) {
    r.code = TG_GetCode(s);
    r.message = TG_Message(s);
    TG_DeleteStatus(s);
    return r;
  }
  std::vector<TG_Output> inits, reads;
  for (TG_Variable* v : vars) {
    inits.push_back(TG_Output{TG_VariableInitializer(v), 0});
    reads.push_back(TG_VariableReadValue(v));
  }
  r = b.RunIn(session, inits);
  EXPECT_EQ(r.code, TG_OK) << r.message;
  for (int i = 0; r.code == TG_OK && i < steps; ++i) {
    const RunResult u = b.RunIn(session, {update});
    if (update_run != nullptr) *update_run = u;
    if (u.code != TG_OK) break;
  }
  if (r.code == TG_OK) r = b.RunIn(session, reads);
  TG_DeleteSession(session, s);
  TG_DeleteStatus(s);
  return r;
}

// Both runs succeeded and fetched the same dims, with values within atol + rtol * |want|.
inline void ExpectSameValues(const RunResult& want, const RunResult& got, double rtol,
                             double atol) {
  ASSERT_EQ(want.code, TG_OK) << want.message;
  ASSERT_EQ(got.code, TG_OK) << got.message;
  ASSERT_EQ(got.values.size(), want.values.size());
  for (size_t f = 0; f < want.values.size(); ++f) {
    EXPECT_EQ(got.values[f].dims, want.values[f].dims) << "fetch " << f;
    ASSERT_EQ(got.values[f].values.size(), want.values[f].values.size());
    for (size_t i = 0; i < want.values[f].values.size(); ++i) {
      const double a = want.values[f].values[i], g = got.values[f].values[i];
      EXPECT_NEAR(g, a, atol + rtol * std::abs(a)) << "fetch " << f << " element " << i;
    }
  }
}

}  // namespace devtest
