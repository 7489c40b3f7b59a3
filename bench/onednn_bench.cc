// The oneDNN plugin against the Eigen kernels it outranks, in one process and one run:
// MatMul 256 and 1024 (and 1024 in bfloat16), a convolution layer (forward, input gradient, filter gradient), and an
// MLP's forward pass (MatMuls between Eigen's BiasAdd and Relu: whether oneDNN's threads get
// in the way of the Eigen kernels that run next), each in a session through the C API with
// 2 intra-op threads. Each row also reports the process's thread count after it ran: oneDNN
// adds none (dnnl_context.h).
//
// The Eigen sessions are created and run once (their plans, with the kernels chosen then,
// are cached) while only the CPU plugin is loaded; then the oneDNN plugin is loaded and the
// oneDNN sessions are created over the same graphs. The benchmarks then alternate between
// the two, so both run on the same machine state. Each row reports GFLOP/s; bench/README.md
// quotes the ratios.
//
// Links libtgraph only (like session_bench), loading both plugins from the build tree.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tgraph/c_api.h"

#ifndef TGRAPH_CPU_PLUGIN_PATH
#error "TGRAPH_CPU_PLUGIN_PATH must name the CPU plugin (set by bench/CMakeLists.txt)"
#endif
#ifndef TGRAPH_ONEDNN_PLUGIN_PATH
#error "TGRAPH_ONEDNN_PLUGIN_PATH must name the oneDNN plugin (set by bench/CMakeLists.txt)"
#endif

namespace {

constexpr int kIntraOpThreads = 2;

struct StatusDeleter {
  void operator()(TG_Status* s) const { TG_DeleteStatus(s); }
};
using StatusPtr = std::unique_ptr<TG_Status, StatusDeleter>;

TG_Tensor* Filled(const std::vector<int64_t>& dims, float seed) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims.data(), static_cast<int>(dims.size()),
                                   static_cast<size_t>(n) * sizeof(float));
  float* p = static_cast<float*>(TG_TensorData(t));
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>((i * 7919 + 13) % 1000) / 1000.0f - seed;
  return t;
}

// The same values rounded down to bfloat16 (the upper half of each float's bits).
TG_Tensor* FilledBFloat16(const std::vector<int64_t>& dims, float seed) {
  TG_Tensor* f = Filled(dims, seed);
  const size_t n = TG_TensorByteSize(f) / sizeof(float);
  TG_Tensor* t = TG_AllocateTensor(TG_BFLOAT16, dims.data(), static_cast<int>(dims.size()),
                                   n * sizeof(uint16_t));
  const float* from = static_cast<const float*>(TG_TensorData(f));
  uint16_t* to = static_cast<uint16_t*>(TG_TensorData(t));
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, from + i, sizeof(bits));
    to[i] = static_cast<uint16_t>(bits >> 16);
  }
  TG_DeleteTensor(f);
  return t;
}

TG_Tensor* Ints(const std::vector<int64_t>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  TG_Tensor* t = TG_AllocateTensor(TG_INT32, &n, 1, values.size() * sizeof(int32_t));
  int32_t* p = static_cast<int32_t*>(TG_TensorData(t));
  for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<int32_t>(values[i]);
  return t;
}

// One workload: a graph with fed inputs and one fetched output, and its multiply-adds.
struct Workload {
  std::string name;
  double flops = 0;
  TG_Graph* graph = TG_NewGraph();
  std::vector<TG_Output> feeds;
  std::vector<TG_Tensor*> values;
  TG_Output fetch{};
  std::string error;

  TG_Output Feed(const char* name, const std::vector<int64_t>& dims, float seed,
                 TG_DataType dtype = TG_FLOAT) {
    TG_OperationDescription* d = TG_NewOperation(graph, "Placeholder", name);
    TG_SetAttrType(d, "dtype", dtype);
    TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    const TG_Output out{Finish(d), 0};
    feeds.push_back(out);
    values.push_back(dtype == TG_BFLOAT16 ? FilledBFloat16(dims, seed) : Filled(dims, seed));
    return out;
  }
  TG_Output Const(const char* name, TG_Tensor* value) {
    StatusPtr s(TG_NewStatus());
    TG_OperationDescription* d = TG_NewOperation(graph, "Const", name);
    TG_SetAttrType(d, "dtype", TG_INT32);
    TG_SetAttrTensor(d, "value", value, s.get());
    TG_DeleteTensor(value);
    return TG_Output{Finish(d), 0};
  }
  TG_Operation* Finish(TG_OperationDescription* d) {
    StatusPtr s(TG_NewStatus());
    TG_Operation* op = TG_FinishOperation(d, s.get());
    if (TG_GetCode(s.get()) != TG_OK && error.empty()) error = TG_Message(s.get());
    return op;
  }
  TG_Output FloatConst(const char* name, const std::vector<int64_t>& dims, float seed) {
    StatusPtr s(TG_NewStatus());
    TG_Tensor* value = Filled(dims, seed);
    TG_OperationDescription* d = TG_NewOperation(graph, "Const", name);
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    TG_SetAttrTensor(d, "value", value, s.get());
    TG_DeleteTensor(value);
    return TG_Output{Finish(d), 0};
  }
  TG_Output Op(const char* type, const std::string& name, std::vector<TG_Output> inputs) {
    TG_OperationDescription* d = TG_NewOperation(graph, type, name.c_str());
    for (const TG_Output& in : inputs) TG_AddInput(d, in);
    return TG_Output{Finish(d), 0};
  }
  void ConvAttrs(TG_OperationDescription* d) {
    const int64_t strides[] = {1, 1, 1, 1};
    TG_SetAttrIntList(d, "strides", strides, 4);
    TG_SetAttrString(d, "padding", "SAME", 4);
  }
};

Workload MatMul(int64_t n, TG_DataType dtype = TG_FLOAT) {
  Workload w;
  w.name = "MatMul/n:" + std::to_string(n) + (dtype == TG_BFLOAT16 ? "/bfloat16" : "");
  w.flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  const TG_Output a = w.Feed("a", {n, n}, 0.5f, dtype);
  const TG_Output b = w.Feed("b", {n, n}, 0.25f, dtype);
  TG_OperationDescription* d = TG_NewOperation(w.graph, "MatMul", "product");
  TG_AddInput(d, a);
  TG_AddInput(d, b);
  w.fetch = TG_Output{w.Finish(d), 0};
  return w;
}

// The forward pass of issue 20's MLP, 784-512-512-10 with ReLU, batch 128.
Workload Mlp() {
  Workload w;
  w.name = "MLP784-512-512-10/batch:128";
  const int64_t batch = 128, sizes[] = {784, 512, 512, 10};
  TG_Output h = w.Feed("x", {batch, sizes[0]}, 0.5f);
  for (int layer = 0; layer < 3; ++layer) {
    const std::string l = "layer" + std::to_string(layer);
    w.flops += 2.0 * static_cast<double>(batch * sizes[layer] * sizes[layer + 1]);
    h = w.Op("MatMul", l + "/MatMul",
             {h, w.FloatConst((l + "/w").c_str(), {sizes[layer], sizes[layer + 1]}, 0.5f)});
    h = w.Op("BiasAdd", l + "/BiasAdd", {h, w.FloatConst((l + "/b").c_str(), {sizes[layer + 1]}, 0.5f)});
    if (layer < 2) h = w.Op("Relu", l + "/Relu", {h});
  }
  w.fetch = h;
  return w;
}

// The second layer of the small CNN of issue 20: batch 64, 14x14x32 -> 3x3, 64 filters, SAME.
constexpr int64_t kN = 64, kH = 14, kW = 14, kC = 32, kK = 3, kOC = 64;

Workload Conv(const char* op) {
  Workload w;
  w.name = std::string(op) + "/64x14x14x32,3x3x32x64";
  w.flops = 2.0 * kN * kH * kW * kOC * kK * kK * kC;
  TG_OperationDescription* d = TG_NewOperation(w.graph, op, "conv");
  const std::string type = op;
  if (type == "Conv2D") {
    TG_AddInput(d, w.Feed("x", {kN, kH, kW, kC}, 0.5f));
    TG_AddInput(d, w.Feed("filter", {kK, kK, kC, kOC}, 0.5f));
  } else if (type == "Conv2DBackpropInput") {
    const TG_Output sizes = w.Const("sizes", Ints({kN, kH, kW, kC}));
    const TG_Output filter = w.Feed("filter", {kK, kK, kC, kOC}, 0.5f);
    const TG_Output dy = w.Feed("dy", {kN, kH, kW, kOC}, 0.5f);
    TG_AddInput(d, sizes);
    TG_AddInput(d, filter);
    TG_AddInput(d, dy);
  } else {
    const TG_Output x = w.Feed("x", {kN, kH, kW, kC}, 0.5f);
    const TG_Output sizes = w.Const("sizes", Ints({kK, kK, kC, kOC}));
    const TG_Output dy = w.Feed("dy", {kN, kH, kW, kOC}, 0.5f);
    TG_AddInput(d, x);
    TG_AddInput(d, sizes);
    TG_AddInput(d, dy);
  }
  w.ConvAttrs(d);
  w.fetch = TG_Output{w.Finish(d), 0};
  return w;
}

// A session over a workload's graph, with the kernels chosen when it first ran.
class Runner {
 public:
  explicit Runner(Workload* w) : w_(w), status_(TG_NewStatus()) {
    TG_SessionOptions* options = TG_NewSessionOptions();
    TG_SetSessionInterOpThreads(options, 1);
    TG_SetSessionIntraOpThreads(options, kIntraOpThreads);
    session_ = TG_NewSession(w->graph, options, status_.get());
    TG_DeleteSessionOptions(options);
  }
  ~Runner() {
    if (session_ != nullptr) TG_DeleteSession(session_, status_.get());
  }
  // The first run: planning, kernel creation and, for oneDNN, primitive creation (cached by
  // each kernel: later runs of the same shapes create nothing).
  bool FirstRun() {
    const auto start = std::chrono::steady_clock::now();
    const bool ok = Run();
    first_run_us_ =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    return ok;
  }
  double first_run_us() const { return first_run_us_; }

  bool Run() {
    if (session_ == nullptr) return false;
    TG_Tensor* out = nullptr;
    TG_SessionRun(session_, nullptr, w_->feeds.data(), w_->values.data(),
                  static_cast<int>(w_->feeds.size()), &w_->fetch, &out, 1, nullptr, 0, nullptr,
                  status_.get());
    TG_DeleteTensor(out);
    return TG_GetCode(status_.get()) == TG_OK;
  }
  std::string error() const { return TG_Message(status_.get()); }

 private:
  Workload* w_;
  StatusPtr status_;
  TG_Session* session_ = nullptr;
  double first_run_us_ = 0;
};

void RunBenchmark(benchmark::State& state, Runner* runner, double flops) {
  for (auto _ : state) {
    if (!runner->Run()) {
      state.SkipWithError(runner->error().c_str());
      return;
    }
  }
  int threads = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    ++threads;
  }
  state.counters["threads"] = threads;
  state.counters["first_run_us"] = runner->first_run_us();
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  StatusPtr s(TG_NewStatus());
  TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s.get());
  if (TG_GetCode(s.get()) != TG_OK) {
    std::fprintf(stderr, "loading the CPU plugin: %s\n", TG_Message(s.get()));
    return 1;
  }
  std::vector<std::unique_ptr<Workload>> workloads;
  for (int64_t n : {256, 1024}) workloads.push_back(std::make_unique<Workload>(MatMul(n)));
  // bfloat16: oneDNN's kernel where the CPU has AVX512_BF16 or AMX (else both rows are Eigen's).
  workloads.push_back(std::make_unique<Workload>(MatMul(1024, TG_BFLOAT16)));
  for (const char* op : {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"}) {
    workloads.push_back(std::make_unique<Workload>(Conv(op)));
  }
  workloads.push_back(std::make_unique<Workload>(Mlp()));
  // Eigen: sessions planned (and run once) before the oneDNN plugin exists.
  std::vector<std::unique_ptr<Runner>> eigen, onednn;
  for (auto& w : workloads) {
    if (!w->error.empty()) {
      std::fprintf(stderr, "%s: %s\n", w->name.c_str(), w->error.c_str());
      return 1;
    }
    eigen.push_back(std::make_unique<Runner>(w.get()));
    if (!eigen.back()->FirstRun()) {
      std::fprintf(stderr, "%s (Eigen): %s\n", w->name.c_str(), eigen.back()->error().c_str());
      return 1;
    }
  }
  TG_LoadPlugin(TGRAPH_ONEDNN_PLUGIN_PATH, s.get());
  if (TG_GetCode(s.get()) != TG_OK) {
    std::fprintf(stderr, "loading the oneDNN plugin: %s\n", TG_Message(s.get()));
    return 1;
  }
  for (auto& w : workloads) {
    onednn.push_back(std::make_unique<Runner>(w.get()));
    if (!onednn.back()->FirstRun()) {
      std::fprintf(stderr, "%s (oneDNN): %s\n", w->name.c_str(), onednn.back()->error().c_str());
      return 1;
    }
  }
  for (size_t i = 0; i < workloads.size(); ++i) {
    const double flops = workloads[i]->flops;
    const std::pair<const char*, Runner*> impls[] = {{"eigen", eigen[i].get()},
                                                      {"onednn", onednn[i].get()}};
    for (const auto& impl : impls) {
      Runner* runner = impl.second;
      benchmark::RegisterBenchmark((workloads[i]->name + "/" + impl.first).c_str(),
                                   [runner, flops](benchmark::State& st) {
                                     RunBenchmark(st, runner, flops);
                                   })
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  eigen.clear();
  onednn.clear();
  for (auto& w : workloads) {
    for (TG_Tensor* t : w->values) TG_DeleteTensor(t);
    TG_DeleteGraph(w->graph);
  }
  return 0;
}
