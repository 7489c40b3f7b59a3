// Session run cost through the C API, as a client or binding sees it: the per-run overhead of
// small graphs with a cached plan (scalar chains and a wide fan-out), and MatMul in a session
// against the same Eigen contraction called directly with the same number of threads.
//
// Links libtgraph only (never tgraph_core: a second, static copy of the core in this binary
// would have its own registries, and the plugin would register into the wrong one). The CPU
// plugin is loaded from the build tree's path given at compile time.
//
// Targets (issue 5): a 10-node scalar chain at or under 1 us per run; under 50 ns per extra
// node in a serial chain; MatMul 1024 in a session at >= 95% of the direct call's GFLOP/s.
#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <unsupported/Eigen/CXX11/Tensor>
#include <vector>

#include "tgraph/c_api.h"

#ifndef TGRAPH_CPU_PLUGIN_PATH
#error "TGRAPH_CPU_PLUGIN_PATH must name the CPU plugin (set by bench/CMakeLists.txt)"
#endif

// Counts C++ heap allocations in the whole process (libtgraph and the plugin included: this
// replacement of the global operator new is what every shared object's `new` resolves to), so
// the chains can report allocations per run. Data buffers of tensors over 16 bytes come from
// aligned_alloc and are not counted.
namespace {
std::atomic<int64_t> g_allocations{0};
}  // namespace

// Not inlined: GCC would otherwise see malloc/free meet new/delete and warn
// (-Wmismatched-new-delete) although both sides are these replacements.
[[gnu::noinline]] void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new(std::size_t size, std::align_val_t align) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace {

// Owning handles, so an early return on an error frees what was made.
struct StatusDeleter {
  void operator()(TG_Status* s) const { TG_DeleteStatus(s); }
};
struct GraphDeleter {
  void operator()(TG_Graph* g) const { TG_DeleteGraph(g); }
};
struct TensorDeleter {
  void operator()(TG_Tensor* t) const { TG_DeleteTensor(t); }
};
struct SessionDeleter {
  void operator()(TG_Session* s) const {
    TG_Status* status = TG_NewStatus();
    TG_DeleteSession(s, status);
    TG_DeleteStatus(status);
  }
};
using StatusPtr = std::unique_ptr<TG_Status, StatusDeleter>;
using GraphPtr = std::unique_ptr<TG_Graph, GraphDeleter>;
using TensorPtr = std::unique_ptr<TG_Tensor, TensorDeleter>;
using SessionPtr = std::unique_ptr<TG_Session, SessionDeleter>;

std::string StatusText(const TG_Status* s) {
  return std::string(TG_CodeName(TG_GetCode(s))) + ": " + TG_Message(s);
}

// Builds graphs through the C API, remembering the first failure (later calls are no-ops),
// so a builder reads as a plain sequence of ops and the benchmark checks once at the end.
class Builder {
 public:
  Builder() : status_(TG_NewStatus()), graph_(TG_NewGraph()) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  TG_Graph* graph() const { return graph_.get(); }
  GraphPtr Release() { return std::move(graph_); }

  TG_Output Placeholder(const char* name, const std::vector<int64_t>& dims) {
    if (!ok()) return {nullptr, 0};
    TG_OperationDescription* d = TG_NewOperation(graph(), "Placeholder", name);
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    return Finish(d, "Placeholder");
  }

  TG_Output Const(const TG_Tensor* value) {
    if (!ok()) return {nullptr, 0};
    TG_OperationDescription* d = TG_NewOperation(graph(), "Const", nullptr);
    TG_SetAttrTensor(d, "value", value, status_.get());
    TG_SetAttrType(d, "dtype", TG_TensorType(value));
    return Finish(d, "Const");
  }

  TG_Output Op(const char* type, std::initializer_list<TG_Output> inputs) {
    if (!ok()) return {nullptr, 0};
    TG_OperationDescription* d = TG_NewOperation(graph(), type, nullptr);
    for (const TG_Output& in : inputs) TG_AddInput(d, in);
    return Finish(d, type);
  }

  TG_Output AddN(const std::vector<TG_Output>& inputs) {
    if (!ok()) return {nullptr, 0};
    TG_OperationDescription* d = TG_NewOperation(graph(), "AddN", nullptr);
    TG_AddInputList(d, inputs.data(), static_cast<int>(inputs.size()));
    return Finish(d, "AddN");
  }

 private:
  TG_Output Finish(TG_OperationDescription* d, const char* what) {
    // A setter's failure (TG_SetAttrTensor) is reported at once; the description is still
    // consumed by TG_FinishOperation, which reports its own errors.
    std::string setter_error;
    if (TG_GetCode(status_.get()) != TG_OK) setter_error = StatusText(status_.get());
    TG_Operation* op = TG_FinishOperation(d, status_.get());
    if (!setter_error.empty()) {
      error_ = std::string(what) + ": " + setter_error;
    } else if (op == nullptr || TG_GetCode(status_.get()) != TG_OK) {
      error_ = std::string(what) + ": " + StatusText(status_.get());
    }
    return {op, 0};
  }

  StatusPtr status_;
  GraphPtr graph_;
  std::string error_;
};

TensorPtr FloatTensor(const std::vector<int64_t>& dims, float fill) {
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  TensorPtr t(TG_AllocateTensor(TG_FLOAT, dims.data(), static_cast<int>(dims.size()),
                                count * sizeof(float)));
  if (t) {
    float* data = static_cast<float*>(TG_TensorData(t.get()));
    // Varying values: a constant matrix would not change GEMM speed, but keeps results
    // meaningful if someone prints them.
    for (size_t i = 0; i < count; ++i) data[i] = fill + 0.001f * static_cast<float>(i % 97);
  }
  return t;
}

// One session and one run request, with the output tensors freed after every run (as a
// client must), so the measured loop is exactly what a C caller pays per run.
class Runner {
 public:
  Runner(TG_Graph* graph, int inter_op_threads, int intra_op_threads) : status_(TG_NewStatus()) {
    TG_SessionOptions* options = TG_NewSessionOptions();
    TG_SetSessionInterOpThreads(options, inter_op_threads);
    TG_SetSessionIntraOpThreads(options, intra_op_threads);
    // The suite measures what running nodes costs: the plan-time rewrites would fold the
    // Const MatMuls, bypass the Identity chains and merge the fan-out's equal branches.
    TG_SetSessionRewrite(options, "all", 0, status_.get());
    if (TG_GetCode(status_.get()) == TG_OK) session_.reset(TG_NewSession(graph, options, status_.get()));
    TG_DeleteSessionOptions(options);
    if (TG_GetCode(status_.get()) != TG_OK) error_ = "TG_NewSession: " + StatusText(status_.get());
  }

  void Feed(TG_Output input, TG_Tensor* value) {
    inputs_.push_back(input);
    input_values_.push_back(value);
  }
  void Fetch(TG_Output output) {
    outputs_.push_back(output);
    output_values_.push_back(nullptr);
  }

  // One run; false (with error() set) when it fails.
  bool Run() {
    TG_SessionRun(session_.get(), nullptr, inputs_.data(), input_values_.data(),
                  static_cast<int>(inputs_.size()), outputs_.data(), output_values_.data(),
                  static_cast<int>(outputs_.size()), nullptr, 0, nullptr, status_.get());
    for (TG_Tensor*& t : output_values_) {
      TG_DeleteTensor(t);
      t = nullptr;
    }
    if (TG_GetCode(status_.get()) != TG_OK) {
      error_ = "TG_SessionRun: " + StatusText(status_.get());
      return false;
    }
    return true;
  }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  StatusPtr status_;
  SessionPtr session_;
  std::vector<TG_Output> inputs_;
  std::vector<TG_Tensor*> input_values_;
  std::vector<TG_Output> outputs_;
  std::vector<TG_Tensor*> output_values_;
  std::string error_;
};

// ---- per-run overhead ------------------------------------------------------------------

enum class ChainOp { kIdentity, kAdd };

// x (fed float scalar) -> `n` ops in a serial chain; the last one is fetched.
struct ScalarGraph {
  GraphPtr graph;
  TG_Output x{nullptr, 0};
  std::vector<TG_Output> fetches;
  std::string error;
};

ScalarGraph BuildChain(int n, ChainOp op) {
  Builder b;
  TensorPtr one = FloatTensor({}, 1.0f);
  ScalarGraph out;
  out.x = b.Placeholder("x", {});
  TG_Output c = op == ChainOp::kAdd ? b.Const(one.get()) : TG_Output{nullptr, 0};
  TG_Output prev = out.x;
  for (int i = 0; i < n; ++i) {
    prev = op == ChainOp::kAdd ? b.Op("AddV2", {prev, c}) : b.Op("Identity", {prev});
  }
  out.fetches = {prev};
  out.error = b.error();
  out.graph = b.Release();
  return out;
}

// x -> `n` independent AddV2(x, c); either every one is fetched, or AddN joins them.
ScalarGraph BuildFanOut(int n, bool join) {
  Builder b;
  TensorPtr one = FloatTensor({}, 1.0f);
  ScalarGraph out;
  out.x = b.Placeholder("x", {});
  TG_Output c = b.Const(one.get());
  std::vector<TG_Output> branches;
  for (int i = 0; i < n; ++i) branches.push_back(b.Op("AddV2", {out.x, c}));
  if (join) {
    out.fetches = {b.AddN(branches)};
  } else {
    out.fetches = branches;
  }
  out.error = b.error();
  out.graph = b.Release();
  return out;
}

// Mean ns per run of `runner`, the median of a few short batches, measured outside the
// benchmark's loop: the baseline that "ns per extra node" is taken against.
double MeasureNsPerRun(Runner& runner, int runs_per_batch) {
  std::vector<double> batches;
  for (int batch = 0; batch < 5; ++batch) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < runs_per_batch; ++i) {
      if (!runner.Run()) return -1;
    }
    const std::chrono::duration<double, std::nano> elapsed =
        std::chrono::steady_clock::now() - start;
    batches.push_back(elapsed.count() / runs_per_batch);
  }
  std::sort(batches.begin(), batches.end());
  return batches[batches.size() / 2];
}

// Runs `g` (plan cached by a warm-up run) and reports ns per run. With `extra_nodes` > 0,
// `base` (a smaller graph of the same kind) is measured first with the same session options
// and the counter extra_node_ns = (ns per run of g - of base) / extra_nodes is added: the
// marginal cost of a node, free of the fixed per-run cost.
void RunScalarGraph(benchmark::State& state, ScalarGraph g, ScalarGraph base,
                    int inter_op_threads, int extra_nodes) {
  if (!g.error.empty() || !base.error.empty()) {
    state.SkipWithError((g.error + base.error).c_str());
    return;
  }
  TensorPtr x = FloatTensor({}, 2.0f);

  double baseline_ns = 0;
  if (extra_nodes > 0) {
    Runner base_runner(base.graph.get(), inter_op_threads, 0);
    base_runner.Feed(base.x, x.get());
    base_runner.Fetch(base.fetches[0]);
    if (!base_runner.ok() || !base_runner.Run()) {
      state.SkipWithError(base_runner.error().c_str());
      return;
    }
    baseline_ns = MeasureNsPerRun(base_runner, 20000);
  }

  Runner runner(g.graph.get(), inter_op_threads, 0);
  runner.Feed(g.x, x.get());
  for (const TG_Output& f : g.fetches) runner.Fetch(f);
  // The first run plans; the loop measures runs with the cached plan.
  if (!runner.ok() || !runner.Run()) {
    state.SkipWithError(runner.error().c_str());
    return;
  }

  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    if (!runner.Run()) {
      state.SkipWithError(runner.error().c_str());
      return;
    }
  }
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  const double ns_per_run = elapsed.count() / static_cast<double>(state.iterations());
  state.counters["ns_per_run"] = ns_per_run;
  // Allocations of a repeated run (the plan is cached), outside the timed loop.
  constexpr int kCountedRuns = 1000;
  const int64_t before = g_allocations.load(std::memory_order_relaxed);
  for (int i = 0; i < kCountedRuns; ++i) runner.Run();
  state.counters["allocs_per_run"] =
      static_cast<double>(g_allocations.load(std::memory_order_relaxed) - before) / kCountedRuns;
  if (extra_nodes > 0) {
    state.counters["base_ns"] = baseline_ns;
    state.counters["extra_node_ns"] = (ns_per_run - baseline_ns) / extra_nodes;
  }
}

// Arg 0: chain length; arg 1: inter-op threads (0 = session default). The baseline of a
// chain is the 1-node chain of the same op, so extra_node_ns is the cost of one more link.
void BM_ChainIdentity(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  RunScalarGraph(state, BuildChain(n, ChainOp::kIdentity), BuildChain(1, ChainOp::kIdentity),
                 static_cast<int>(state.range(1)), n - 1);
}
void BM_ChainAdd(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  RunScalarGraph(state, BuildChain(n, ChainOp::kAdd), BuildChain(1, ChainOp::kAdd),
                 static_cast<int>(state.range(1)), n - 1);
}
// The baseline of a fan-out is its 1-branch version: n - 1 more branches (and, joined, the
// AddN's n - 1 more inputs, which cost no node).
void BM_FanOutFetchAll(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  RunScalarGraph(state, BuildFanOut(n, false), BuildFanOut(1, false),
                 static_cast<int>(state.range(1)), n - 1);
}
void BM_FanOutAddN(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  RunScalarGraph(state, BuildFanOut(n, true), BuildFanOut(1, true),
                 static_cast<int>(state.range(1)), n - 1);
}

void ChainArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nodes", "inter_op"});
  for (int threads : {1, 0}) {
    for (int n : {1, 10, 100}) b->Args({n, threads});
  }
  b->UseRealTime();
}
void FanOutArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nodes", "inter_op"});
  // 10 and 1000 besides the 100 of the target: extra_node_ns should not grow with the width.
  for (int threads : {1, 0}) {
    for (int n : {10, 100, 1000}) b->Args({n, threads});
  }
  b->UseRealTime();
}
BENCHMARK(BM_ChainIdentity)->Apply(ChainArgs);
BENCHMARK(BM_ChainAdd)->Apply(ChainArgs);
BENCHMARK(BM_FanOutFetchAll)->Apply(FanOutArgs);
BENCHMARK(BM_FanOutAddN)->Apply(FanOutArgs);

// ---- Control flow: a while loop of scalar adds -------------------------------------------

// while (i < n) { i = i + 1; acc = acc + x } over (i = 0, acc = 0), n a Const: per iteration
// two Merges, a Less, LoopCond, two Switches, two Identities, two AddV2 (and the Const 1
// under the body's pivot), two NextIterations. x (fed) enters as a loop invariant.
ScalarGraph BuildWhileLoop(int n) {
  Builder b;
  ScalarGraph out;
  TensorPtr zero = FloatTensor({}, 0.0f), limit = FloatTensor({}, static_cast<float>(n));
  out.x = b.Placeholder("x", {});
  TG_Output init[2] = {b.Const(zero.get()), b.Const(zero.get())};
  TG_Output bound = b.Const(limit.get());
  if (!b.ok()) {
    out.error = b.error();
    return out;
  }
  StatusPtr status(TG_NewStatus());
  TG_While* w = TG_NewWhile(b.graph(), init, 2, "loop", 10, status.get());
  if (w == nullptr) {
    out.error = StatusText(status.get());
    return out;
  }
  TG_WhileSetCond(w, b.Op("Less", {TG_WhileCondInput(w, 0), bound}), status.get());
  TensorPtr one = FloatTensor({}, 1.0f);
  TG_Output next[2] = {b.Op("AddV2", {TG_WhileBodyInput(w, 0), b.Const(one.get())}),
                       b.Op("AddV2", {TG_WhileBodyInput(w, 1), out.x})};
  TG_Output exits[2];
  if (TG_GetCode(status.get()) != TG_OK || !b.ok()) {
    out.error = b.ok() ? StatusText(status.get()) : b.error();
    TG_AbortWhile(w);
    return out;
  }
  TG_FinishWhile(w, next, exits, status.get());
  if (TG_GetCode(status.get()) != TG_OK) out.error = StatusText(status.get());
  out.fetches = {exits[1]};
  out.graph = b.Release();
  return out;
}

// Arg 0: iterations. Reports ns_per_iteration (target, issue 19: <= 1 us).
void BM_WhileLoopAdd(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ScalarGraph g = BuildWhileLoop(n);
  if (!g.error.empty()) {
    state.SkipWithError(g.error.c_str());
    return;
  }
  TensorPtr x = FloatTensor({}, 2.0f);
  Runner runner(g.graph.get(), 1, 0);
  runner.Feed(g.x, x.get());
  runner.Fetch(g.fetches[0]);
  if (!runner.ok() || !runner.Run()) {
    state.SkipWithError(runner.error().c_str());
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    if (!runner.Run()) {
      state.SkipWithError(runner.error().c_str());
      return;
    }
  }
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  const double ns_per_run = elapsed.count() / static_cast<double>(state.iterations());
  state.counters["ns_per_iteration"] = ns_per_run / n;
  constexpr int kCountedRuns = 20;
  const int64_t before = g_allocations.load(std::memory_order_relaxed);
  for (int i = 0; i < kCountedRuns; ++i) runner.Run();
  state.counters["allocs_per_iteration"] =
      static_cast<double>(g_allocations.load(std::memory_order_relaxed) - before) / kCountedRuns / n;
}
BENCHMARK(BM_WhileLoopAdd)->ArgName("iterations")->Arg(1000)->UseRealTime();

// ---- MatMul: session against direct Eigen -----------------------------------------------

constexpr int kMatMulThreads = 2;  // the session's intra-op threads and Eigen's pool size

void SetGflops(benchmark::State& state, int64_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) *
          static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// Arg 0: n (an n x n by n x n float product); arg 1: 1 = A and B fed as placeholders each
// run, 0 = A and B are Consts in the graph (no feed at all).
void BM_SessionMatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool feed = state.range(1) != 0;
  TensorPtr a = FloatTensor({n, n}, 0.5f);
  TensorPtr b = FloatTensor({n, n}, 0.25f);
  Builder builder;
  TG_Output pa = feed ? builder.Placeholder("a", {n, n}) : builder.Const(a.get());
  TG_Output pb = feed ? builder.Placeholder("b", {n, n}) : builder.Const(b.get());
  TG_Output product = builder.Op("MatMul", {pa, pb});
  if (!builder.ok()) {
    state.SkipWithError(builder.error().c_str());
    return;
  }
  GraphPtr graph = builder.Release();
  // One node: nothing for an inter-op pool to do, so it stays on the caller.
  Runner runner(graph.get(), 1, kMatMulThreads);
  if (feed) {
    runner.Feed(pa, a.get());
    runner.Feed(pb, b.get());
  }
  runner.Fetch(product);
  if (!runner.ok() || !runner.Run()) {
    state.SkipWithError(runner.error().c_str());
    return;
  }
  for (auto _ : state) {
    if (!runner.Run()) {
      state.SkipWithError(runner.error().c_str());
      return;
    }
  }
  SetGflops(state, n);
}
BENCHMARK(BM_SessionMatMul)
    ->ArgNames({"n", "feed"})
    ->Args({256, 1})
    ->Args({256, 0})
    ->Args({1024, 1})
    ->Args({1024, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// The same contraction the CPU plugin's MatMul kernel evaluates (row-major maps, contracting
// A's dim 1 with B's dim 0), on Eigen's own thread pool with the same thread count. The
// output buffer is allocated per iteration, as the session allocates its result per run.
void BM_EigenMatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  using ConstMatrix = Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::RowMajor, Eigen::Index>>;
  using Matrix = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor, Eigen::Index>>;
  TensorPtr a = FloatTensor({n, n}, 0.5f);
  TensorPtr b = FloatTensor({n, n}, 0.25f);
  Eigen::ThreadPool pool(kMatMulThreads);
  const Eigen::ThreadPoolDevice device(&pool, kMatMulThreads);
  const ConstMatrix ma(static_cast<const float*>(TG_TensorData(a.get())), n, n);
  const ConstMatrix mb(static_cast<const float*>(TG_TensorData(b.get())), n, n);
  const Eigen::array<Eigen::IndexPair<Eigen::Index>, 1> dims = {Eigen::IndexPair<Eigen::Index>(1, 0)};
  const size_t bytes = static_cast<size_t>(n * n) * sizeof(float);
  for (auto _ : state) {
    float* out = static_cast<float*>(Eigen::internal::aligned_malloc(bytes));
    Matrix mo(out, n, n);
    mo.device(device) = ma.contract(mb, dims);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
    Eigen::internal::aligned_free(out);
  }
  SetGflops(state, n);
}
BENCHMARK(BM_EigenMatMul)
    ->ArgName("n")
    ->Arg(256)
    ->Arg(1024)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // Kernels and the CPU device come from the plugin; without it nothing can run.
  StatusPtr status(TG_NewStatus());
  if (TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, status.get()) == nullptr) {
    std::fprintf(stderr, "session_bench: cannot load %s: %s\n", TGRAPH_CPU_PLUGIN_PATH,
                 StatusText(status.get()).c_str());
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
