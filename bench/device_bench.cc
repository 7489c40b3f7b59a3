// The same graphs on /device:CPU:0 (the CPU plugin) and /device:GPU:0 (the OpenCL plugin;
// PoCL on a machine without a GPU, where both run on the same CPU cores, so the comparison
// shows the device path's overhead and correctness rather than a speed-up), through the
// C API as a client sees it:
//
//   BM_MatMul/device:D/n:N: C = A x B for N x N float matrices; A and B are variables on the
//     device (uploaded once by their initializers), C is fetched (one device->host copy per
//     run, which also waits for the device). Counter: GFLOP/s (2 N^3 per run).
//   BM_MlpTrainStep/device:D: one training step of a 784-512-512-10 ReLU MLP, sparse softmax
//     cross-entropy, Adam (TG_OptimizerMinimize), batch 128, static feed shapes, every op
//     built under the device (soft placement). The batch is fed (host->device copies) and
//     the loss fetched. Counters: ms/step (the time per iteration), samples/s, GFLOP/s
//     (the three GEMMs per layer, as training_bench).
//
// D: 0 = /device:CPU:0, 1 = /device:GPU:0. A run does not wait for work it did not fetch (a
// device's queue is only synchronized by copies), so a step's last updates overlap the next
// step's enqueueing; over many iterations the time per step is the steady-state figure.
//
// Links libtgraph only; both plugins are loaded from the build tree's paths given at compile
// time (bench/CMakeLists.txt builds this suite only when the OpenCL plugin is built).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tgraph/c_api.h"

#if !defined(TGRAPH_CPU_PLUGIN_PATH) || !defined(TGRAPH_OPENCL_PLUGIN_PATH)
#error "TGRAPH_CPU_PLUGIN_PATH and TGRAPH_OPENCL_PLUGIN_PATH must name the plugins"
#endif

namespace {

const char* DeviceName(int64_t d) { return d == 0 ? "/device:CPU:0" : "/device:GPU:0"; }

// Empty when both plugins loaded and /device:GPU:0 exists, else why not.
const std::string& LoadPlugins() {
  static const std::string error = [] {
    std::string e;
    TG_Status* s = TG_NewStatus();
    for (const char* path : {TGRAPH_CPU_PLUGIN_PATH, TGRAPH_OPENCL_PLUGIN_PATH}) {
      TG_LoadPlugin(path, s);
      if (TG_GetCode(s) != TG_OK) e += std::string(path) + ": " + TG_Message(s) + "; ";
    }
    TG_DeleteStatus(s);
    return e;
  }();
  return error;
}

std::string StatusText(const TG_Status* s) {
  return std::string(TG_CodeName(TG_GetCode(s))) + ": " + TG_Message(s);
}

TG_Tensor* FloatTensor(const std::vector<int64_t>& dims, std::mt19937& rng, float scale) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims.data(), static_cast<int>(dims.size()),
                                   n * sizeof(float));
  std::uniform_real_distribution<float> u(-scale, scale);
  auto* p = static_cast<float*>(TG_TensorData(t));
  for (size_t i = 0; i < n; ++i) p[i] = scale > 0 ? u(rng) : 0.0f;
  return t;
}

// A graph whose ops are all built under one device, remembering the first failure.
class Graph {
 public:
  explicit Graph(const char* device) : s_(TG_NewStatus()), g_(TG_NewGraph()) {
    TG_GraphPushDevice(g_, device, s_);
    Check("TG_GraphPushDevice");
  }
  ~Graph() {
    for (TG_Tensor* t : feeds_) TG_DeleteTensor(t);
    TG_DeleteGraph(g_);
    TG_DeleteStatus(s_);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  TG_Graph* graph() const { return g_; }
  TG_Status* status() const { return s_; }

  void Check(const std::string& what) {
    if (ok() && TG_GetCode(s_) != TG_OK) error_ = what + ": " + StatusText(s_);
  }
  TG_Output Op(const char* type, std::vector<TG_Output> inputs, bool transpose_b = false) {
    if (!ok()) return {nullptr, 0};
    TG_OperationDescription* d = TG_NewOperation(g_, type, type);
    for (const TG_Output& in : inputs) TG_AddInput(d, in);
    if (transpose_b) TG_SetAttrBool(d, "transpose_b", 1);
    TG_Operation* op = TG_FinishOperation(d, s_);
    Check(type);
    return {op, 0};
  }
  TG_Output Int32Const(int32_t v) {
    if (!ok()) return {nullptr, 0};
    const int64_t one = 1;
    TG_Tensor* t = TG_AllocateTensor(TG_INT32, &one, 1, sizeof v);
    std::memcpy(TG_TensorData(t), &v, sizeof v);
    TG_OperationDescription* d = TG_NewOperation(g_, "Const", "axes");
    TG_SetAttrTensor(d, "value", t, s_);
    TG_SetAttrType(d, "dtype", TG_INT32);
    TG_Operation* op = TG_FinishOperation(d, s_);
    TG_DeleteTensor(t);
    Check("Const");
    return {op, 0};
  }
  // A placeholder of static shape, fed `value` (owned from now on) in every run.
  TG_Output Feed(const char* name, TG_Tensor* value) {
    feeds_.push_back(value);
    if (!ok()) return {nullptr, 0};
    std::vector<int64_t> dims;
    for (int i = 0; i < TG_NumDims(value); ++i) dims.push_back(TG_Dim(value, i));
    TG_OperationDescription* d = TG_NewOperation(g_, "Placeholder", name);
    TG_SetAttrType(d, "dtype", TG_TensorType(value));
    TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    TG_Operation* op = TG_FinishOperation(d, s_);
    Check("Placeholder");
    feed_outputs_.push_back({op, 0});
    return feed_outputs_.back();
  }
  TG_Variable* Variable(const char* name, TG_Tensor* init) {
    TG_Variable* v = nullptr;
    if (ok()) {
      TG_VariableOptions opts;
      TG_InitVariableOptions(&opts);
      opts.name = name;
      v = TG_GraphNewVariableFromTensor(g_, init, &opts, s_);
      Check(name);
    }
    TG_DeleteTensor(init);
    return v;
  }
  const std::vector<TG_Output>& feed_outputs() const { return feed_outputs_; }
  const std::vector<TG_Tensor*>& feed_values() const { return feeds_; }

 private:
  TG_Status* s_;
  TG_Graph* g_;
  std::string error_;
  std::vector<TG_Tensor*> feeds_;
  std::vector<TG_Output> feed_outputs_;
};

// A soft-placement session on `g`: runs `init`, then Run() fetches `fetch` (and runs
// `target`) with the graph's feeds.
class Runner {
 public:
  Runner(Graph& g, TG_Operation* init, TG_Output fetch, TG_Operation* target)
      : g_(g), fetch_(fetch), target_(target) {
    TG_SessionOptions* so = TG_NewSessionOptions();
    TG_SetSessionAllowSoftPlacement(so, 1);
    session_ = TG_NewSession(g.graph(), so, g.status());
    TG_DeleteSessionOptions(so);
    if (session_ == nullptr) {
      error_ = "TG_NewSession: " + StatusText(g.status());
      return;
    }
    TG_SessionRun(session_, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, &init, 1, nullptr,
                  g.status());
    if (TG_GetCode(g.status()) != TG_OK) error_ = "init: " + StatusText(g.status());
  }
  ~Runner() {
    if (session_ != nullptr) TG_DeleteSession(session_, g_.status());
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  const std::string& error() const { return error_; }
  bool Run() {
    TG_Tensor* out = nullptr;
    TG_SessionRun(session_, nullptr, g_.feed_outputs().data(), g_.feed_values().data(),
                  static_cast<int>(g_.feed_outputs().size()), &fetch_, &out, 1, &target_,
                  target_ != nullptr ? 1 : 0, nullptr, g_.status());
    TG_DeleteTensor(out);
    if (TG_GetCode(g_.status()) != TG_OK) {
      error_ = "run: " + StatusText(g_.status());
      return false;
    }
    return true;
  }

 private:
  Graph& g_;
  TG_Session* session_ = nullptr;
  TG_Output fetch_;
  TG_Operation* target_;
  std::string error_;
};

bool Ready(benchmark::State& state, const std::string& error) {
  if (error.empty()) return true;
  state.SkipWithError(error.c_str());
  return false;
}

// Runs `runner` once (planning, program builds), then the timed loop.
void TimeRuns(benchmark::State& state, Runner& runner) {
  if (!Ready(state, runner.error()) || !runner.Run()) {
    state.SkipWithError(runner.error().c_str());
    return;
  }
  for (auto _ : state) {
    if (!runner.Run()) {
      state.SkipWithError(runner.error().c_str());
      return;
    }
  }
}

void BM_MatMul(benchmark::State& state) {
  if (!Ready(state, LoadPlugins())) return;
  const int64_t n = state.range(1);
  std::mt19937 rng(1);
  Graph g(DeviceName(state.range(0)));
  TG_Variable* a = g.Variable("A", FloatTensor({n, n}, rng, 1.0f));
  TG_Variable* b = g.Variable("B", FloatTensor({n, n}, rng, 1.0f));
  if (!Ready(state, g.error())) return;
  TG_Output c = g.Op("MatMul", {TG_VariableReadValue(a), TG_VariableReadValue(b)});
  TG_Operation* init = TG_GraphGlobalVariablesInitializer(g.graph(), g.status());
  g.Check("init");
  if (!Ready(state, g.error())) return;
  Runner runner(g, init, c, nullptr);
  TimeRuns(state, runner);
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(n * n * n) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MatMul)
    ->ArgNames({"device", "n"})
    ->ArgsProduct({{0, 1}, {256, 1024}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_MlpTrainStep(benchmark::State& state) {
  if (!Ready(state, LoadPlugins())) return;
  constexpr int64_t kBatch = 128;
  const std::vector<int64_t> sizes = {784, 512, 512, 10};
  std::mt19937 rng(1);
  Graph g(DeviceName(state.range(0)));
  TG_Output x = g.Feed("x", FloatTensor({kBatch, sizes[0]}, rng, 1.0f));
  TG_Tensor* labels = TG_AllocateTensor(TG_INT32, &kBatch, 1, kBatch * sizeof(int32_t));
  for (int64_t i = 0; i < kBatch; ++i) {
    static_cast<int32_t*>(TG_TensorData(labels))[i] = static_cast<int32_t>(rng() % 10);
  }
  TG_Output y = g.Feed("y", labels);
  TG_Output h = x;
  double flops_per_sample = 0;
  for (size_t layer = 0; layer + 1 < sizes.size(); ++layer) {
    const int64_t in = sizes[layer], out = sizes[layer + 1];
    // Appended: GCC 12 at -O3 warns falsely (-Wrestrict) on "W" + to_string(layer).
    std::string wn = "W", bn = "b";
    wn += std::to_string(layer);
    bn += std::to_string(layer);
    TG_Variable* w = g.Variable(
        wn.c_str(), FloatTensor({in, out}, rng, static_cast<float>(std::sqrt(6.0 / (in + out)))));
    TG_Variable* bias = g.Variable(bn.c_str(), FloatTensor({out}, rng, 0.0f));
    if (!Ready(state, g.error())) return;
    h = g.Op("BiasAdd", {g.Op("MatMul", {h, TG_VariableReadValue(w)}), TG_VariableReadValue(bias)});
    if (layer + 2 < sizes.size()) h = g.Op("Relu", {h});
    flops_per_sample += (layer == 0 ? 2.0 : 3.0) * 2.0 * static_cast<double>(in * out);
  }
  TG_Output loss =
      g.Op("Mean", {g.Op("SparseSoftmaxCrossEntropyWithLogits", {h, y}), g.Int32Const(0)});
  if (!Ready(state, g.error())) return;
  TG_OptimizerOptions options;
  TG_InitOptimizerOptions(&options, TG_OPTIMIZER_ADAM);
  TG_Optimizer* opt = TG_NewOptimizer(&options, g.status());
  g.Check("TG_NewOptimizer");
  TG_Operation* train = nullptr;
  if (g.ok()) train = TG_OptimizerMinimize(opt, g.graph(), loss, nullptr, 0, nullptr, g.status());
  TG_DeleteOptimizer(opt);
  g.Check("TG_OptimizerMinimize");
  TG_Operation* init = g.ok() ? TG_GraphGlobalVariablesInitializer(g.graph(), g.status()) : nullptr;
  g.Check("init");
  if (!Ready(state, g.error())) return;
  Runner runner(g, init, loss, train);
  TimeRuns(state, runner);
  const double steps = static_cast<double>(state.iterations());
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(kBatch) * steps, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops_per_sample * static_cast<double>(kBatch) * steps / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MlpTrainStep)
    ->ArgName("device")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
