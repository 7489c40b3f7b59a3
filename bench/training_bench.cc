// Training-step throughput through the C API, as a client sees it: one TG_SessionRun of the
// training op per iteration, batches fed as placeholders (prepared before the timed loop).
//
//   BM_MlpTrainStep: a 784-512-512-10 ReLU MLP, sparse softmax cross-entropy, Adam
//     (TG_OptimizerMinimize), batch 128 of random data. Counters: samples/s, and GFLOP/s
//     counting the three GEMMs of each layer (forward, input gradient, weight gradient).
//   BM_Word2VecTrainStep: skip-gram with NCE as examples/word2vec builds it (vocabulary 50k,
//     embedding 128, batch 128, 64 classes from LogUniformCandidateSampler), sparse updates
//     by GradientDescent (adagrad:0) or Adagrad (adagrad:1); the loss from TG_EmbeddingLookup +
//     TG_NceLoss (builder:1) or built op by op (builder:0). Counter: samples/s (pairs).
//
// Links libtgraph only, like session_bench (a static core beside it would be a second core);
// the CPU plugin is loaded from the build tree's path given at compile time.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tgraph/c_api.h"

#ifndef TGRAPH_CPU_PLUGIN_PATH
#error "TGRAPH_CPU_PLUGIN_PATH must name the CPU plugin (set by bench/CMakeLists.txt)"
#endif

namespace {

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
struct OptimizerDeleter {
  void operator()(TG_Optimizer* o) const { TG_DeleteOptimizer(o); }
};
using StatusPtr = std::unique_ptr<TG_Status, StatusDeleter>;
using GraphPtr = std::unique_ptr<TG_Graph, GraphDeleter>;
using TensorPtr = std::unique_ptr<TG_Tensor, TensorDeleter>;
using SessionPtr = std::unique_ptr<TG_Session, SessionDeleter>;
using OptimizerPtr = std::unique_ptr<TG_Optimizer, OptimizerDeleter>;

std::string StatusText(const TG_Status* s) {
  return std::string(TG_CodeName(TG_GetCode(s))) + ": " + TG_Message(s);
}

// A tensor of `dims` whose elements are written by fill(i).
template <typename T, typename Fill>
TensorPtr MakeTensor(TG_DataType dtype, const std::vector<int64_t>& dims, Fill fill) {
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  TensorPtr t(TG_AllocateTensor(dtype, dims.data(), static_cast<int>(dims.size()),
                                count * sizeof(T)));
  if (t) {
    T* data = static_cast<T*>(TG_TensorData(t.get()));
    for (size_t i = 0; i < count; ++i) data[i] = fill(i);
  }
  return t;
}

// Builds a training graph through the C API, remembering the first failure (later calls are
// no-ops), so the model reads as a plain sequence of ops, checked once at the end.
class Builder {
 public:
  Builder() : status_(TG_NewStatus()), graph_(TG_NewGraph()) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  TG_Graph* graph() const { return graph_.get(); }
  TG_Status* status() const { return status_.get(); }

  // Starts an op; nullptr after a failure (the setters below then do nothing).
  TG_OperationDescription* Begin(const char* type, const char* name = nullptr) {
    return ok() ? TG_NewOperation(graph(), type, name) : nullptr;
  }
  TG_Output Finish(TG_OperationDescription* d, const char* what) {
    if (d == nullptr) return {nullptr, 0};
    std::string setter_error;
    if (TG_GetCode(status()) != TG_OK) setter_error = StatusText(status());
    TG_Operation* op = TG_FinishOperation(d, status());
    if (!setter_error.empty()) {
      Fail(what, setter_error);
    } else if (op == nullptr || TG_GetCode(status()) != TG_OK) {
      Fail(what, StatusText(status()));
    }
    return {op, 0};
  }
  void Check(const char* what) {
    if (ok() && TG_GetCode(status()) != TG_OK) Fail(what, StatusText(status()));
  }

  TG_Output Op(const char* type, std::initializer_list<TG_Output> inputs) {
    TG_OperationDescription* d = Begin(type);
    if (d != nullptr) {
      for (const TG_Output& in : inputs) TG_AddInput(d, in);
    }
    return Finish(d, type);
  }
  TG_Output Placeholder(const char* name, TG_DataType dtype, const std::vector<int64_t>& dims) {
    TG_OperationDescription* d = Begin("Placeholder", name);
    if (d != nullptr) {
      TG_SetAttrType(d, "dtype", dtype);
      TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    }
    return Finish(d, "Placeholder");
  }
  TG_Output Const(const TG_Tensor* value) {
    TG_OperationDescription* d = Begin("Const");
    if (d != nullptr) {
      TG_SetAttrTensor(d, "value", value, status());
      TG_SetAttrType(d, "dtype", TG_TensorType(value));
    }
    return Finish(d, "Const");
  }
  TG_Output Int32s(const std::vector<int32_t>& values) {
    TensorPtr t = MakeTensor<int32_t>(TG_INT32, {static_cast<int64_t>(values.size())},
                                      [&](size_t i) { return values[i]; });
    return Const(t.get());
  }
  TG_Output ScalarInt32(int32_t value) {
    TensorPtr t = MakeTensor<int32_t>(TG_INT32, {}, [&](size_t) { return value; });
    return Const(t.get());
  }
  TG_Output Reduce(const char* type, TG_Output x, int32_t axis) {
    return Op(type, {x, Int32s({axis})});
  }
  TG_Output MatMul(TG_Output a, TG_Output b, bool transpose_b) {
    TG_OperationDescription* d = Begin("MatMul");
    if (d != nullptr) {
      TG_AddInput(d, a);
      TG_AddInput(d, b);
      TG_SetAttrBool(d, "transpose_b", transpose_b ? 1 : 0);
    }
    return Finish(d, "MatMul");
  }
  TG_Output Gather(TG_Output params, TG_Output indices) {
    return Op("GatherV2", {params, indices, ScalarInt32(0)});
  }
  // A trainable float variable of `dims`, uniform in [-limit, limit) (limit 0: zeros).
  TG_Variable* Variable(const char* name, const std::vector<int64_t>& dims, double limit,
                        std::mt19937& rng) {
    if (!ok()) return nullptr;
    std::uniform_real_distribution<float> u(static_cast<float>(-limit),
                                            static_cast<float>(limit));
    TensorPtr init =
        MakeTensor<float>(TG_FLOAT, dims, [&](size_t) { return limit > 0 ? u(rng) : 0.0f; });
    TG_VariableOptions opts;
    TG_InitVariableOptions(&opts);
    opts.name = name;
    TG_Variable* v = TG_GraphNewVariableFromTensor(graph(), init.get(), &opts, status());
    Check(name);
    return v;
  }
  // optimizer.minimize(loss) over every trainable variable, then the initializer of all.
  void Minimize(TG_OptimizerKind kind, double learning_rate, TG_Output loss,
                TG_Operation** train, TG_Operation** init) {
    if (!ok()) return;
    TG_OptimizerOptions options;
    TG_InitOptimizerOptions(&options, kind);
    options.learning_rate = learning_rate;
    OptimizerPtr opt(TG_NewOptimizer(&options, status()));
    Check("TG_NewOptimizer");
    if (!ok()) return;
    *train = TG_OptimizerMinimize(opt.get(), graph(), loss, nullptr, 0, nullptr, status());
    Check("TG_OptimizerMinimize");
    if (!ok()) return;
    *init = TG_GraphGlobalVariablesInitializer(graph(), status());
    Check("global_variables_initializer");
  }

 private:
  void Fail(const char* what, const std::string& message) {
    if (ok()) error_ = std::string(what) + ": " + message;
  }

  StatusPtr status_;
  GraphPtr graph_;
  std::string error_;
};

// A session with the default thread pools; runs the initializer, then training steps.
class Trainer {
 public:
  Trainer(TG_Graph* graph, TG_Operation* init, TG_Operation* train)
      : status_(TG_NewStatus()), train_(train) {
    session_.reset(TG_NewSession(graph, nullptr, status_.get()));
    if (TG_GetCode(status_.get()) != TG_OK) {
      error_ = "TG_NewSession: " + StatusText(status_.get());
      return;
    }
    const TG_Operation* targets[1] = {init};
    TG_SessionRun(session_.get(), nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, targets, 1,
                  nullptr, status_.get());
    if (TG_GetCode(status_.get()) != TG_OK) error_ = "init: " + StatusText(status_.get());
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // One step on the given feeds; false (with error() set) when it fails.
  bool Step(const std::vector<TG_Output>& inputs, const std::vector<TG_Tensor*>& values) {
    const TG_Operation* targets[1] = {train_};
    TG_SessionRun(session_.get(), nullptr, inputs.data(), values.data(),
                  static_cast<int>(inputs.size()), nullptr, nullptr, 0, targets, 1, nullptr,
                  status_.get());
    if (TG_GetCode(status_.get()) != TG_OK) {
      error_ = "training step: " + StatusText(status_.get());
      return false;
    }
    return true;
  }

 private:
  StatusPtr status_;
  SessionPtr session_;
  TG_Operation* train_;
  std::string error_;
};

void SetSamplesPerSecond(benchmark::State& state, int64_t batch) {
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(batch) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// ---- MLP 784-512-512-10, Adam ----------------------------------------------------------

void BM_MlpTrainStep(benchmark::State& state) {
  const int64_t batch = state.range(0);
  const std::vector<int64_t> sizes = {784, 512, 512, 10};
  std::mt19937 rng(1);
  Builder b;
  TG_Output x = b.Placeholder("x", TG_FLOAT, {-1, sizes[0]});
  TG_Output y = b.Placeholder("y", TG_INT64, {-1});
  TG_Output h = x;
  double flops_per_sample = 0;
  for (size_t layer = 0; layer + 1 < sizes.size(); ++layer) {
    const int64_t in = sizes[layer], out = sizes[layer + 1];
    // Appended: GCC 12 at -O3 warns falsely (-Wrestrict) on "W" + to_string(layer).
    std::string w_name = "W", b_name = "b";
    w_name += std::to_string(layer);
    b_name += std::to_string(layer);
    TG_Variable* w = b.Variable(w_name.c_str(), {in, out},
                                std::sqrt(6.0 / static_cast<double>(in + out)), rng);
    TG_Variable* bias = b.Variable(b_name.c_str(), {out}, 0.0, rng);
    if (!b.ok()) break;
    h = b.Op("BiasAdd",
             {b.MatMul(h, TG_VariableReadValue(w), false), TG_VariableReadValue(bias)});
    if (layer + 2 < sizes.size()) h = b.Op("Relu", {h});
    // Forward x W, the weight gradient x^T dy, and (except the first layer) dy W^T.
    flops_per_sample += (layer == 0 ? 2.0 : 3.0) * 2.0 * static_cast<double>(in * out);
  }
  TG_OperationDescription* d = b.Begin("SparseSoftmaxCrossEntropyWithLogits");
  if (d != nullptr) {
    TG_AddInput(d, h);
    TG_AddInput(d, y);
  }
  TG_Output loss = b.Reduce("Mean", b.Finish(d, "SparseSoftmaxCrossEntropyWithLogits"), 0);
  TG_Operation* train = nullptr;
  TG_Operation* init = nullptr;
  b.Minimize(TG_OPTIMIZER_ADAM, 0.001, loss, &train, &init);
  if (!b.ok()) {
    state.SkipWithError(b.error().c_str());
    return;
  }

  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int64_t> label(0, sizes.back() - 1);
  TensorPtr xv =
      MakeTensor<float>(TG_FLOAT, {batch, sizes[0]}, [&](size_t) { return normal(rng); });
  TensorPtr yv = MakeTensor<int64_t>(TG_INT64, {batch}, [&](size_t) { return label(rng); });
  Trainer trainer(b.graph(), init, train);
  const std::vector<TG_Output> inputs = {x, y};
  const std::vector<TG_Tensor*> values = {xv.get(), yv.get()};
  if (!trainer.ok() || !trainer.Step(inputs, values)) {  // the first step plans the run
    state.SkipWithError(trainer.error().c_str());
    return;
  }
  for (auto _ : state) {
    if (!trainer.Step(inputs, values)) {
      state.SkipWithError(trainer.error().c_str());
      return;
    }
  }
  SetSamplesPerSecond(state, batch);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops_per_sample * static_cast<double>(batch) * static_cast<double>(state.iterations()) /
          1e9,
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MlpTrainStep)
    ->ArgName("batch")
    ->Arg(128)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// ---- word2vec skip-gram, NCE -------------------------------------------------------------

// The per-example NCE loss [batch] built op by op (examples/word2vec --nce-from-ops).
TG_Output NceLossFromOps(Builder& b, TG_Variable* emb, TG_Output w_read, TG_Output b_read,
                         TG_Output center, TG_Output context, int64_t vocab,
                         int64_t num_sampled) {
  TG_Output embed = b.Gather(TG_VariableReadValue(emb), center);
  TG_OperationDescription* d = b.Begin("LogUniformCandidateSampler");
  if (d != nullptr) {
    TG_AddInput(d, context);
    TG_SetAttrInt(d, "num_true", 1);
    TG_SetAttrInt(d, "num_sampled", num_sampled);
    TG_SetAttrBool(d, "unique", 1);
    TG_SetAttrInt(d, "range_max", vocab);
    TG_SetAttrInt(d, "seed", 1);
    TG_SetAttrInt(d, "seed2", 2);
  }
  TG_Output sampled = b.Finish(d, "LogUniformCandidateSampler");
  TG_Output q_true = b.Op("Reshape", {{sampled.oper, 1}, b.Int32s({-1})});
  TG_Output q_sampled = {sampled.oper, 2};
  TG_Output labels = b.Op("Reshape", {context, b.Int32s({-1})});
  TG_Output true_logit = b.Reduce("Sum", b.Op("Mul", {embed, b.Gather(w_read, labels)}), 1);
  true_logit = b.Op("AddV2", {true_logit, b.Gather(b_read, labels)});
  true_logit = b.Op("Sub", {true_logit, b.Op("Log", {q_true})});
  TG_Output sampled_logit = b.MatMul(embed, b.Gather(w_read, sampled), true);
  sampled_logit = b.Op("BiasAdd", {sampled_logit, b.Gather(b_read, sampled)});
  sampled_logit = b.Op("Sub", {sampled_logit, b.Op("Log", {q_sampled})});
  return b.Op("AddV2", {b.Op("Softplus", {b.Op("Neg", {true_logit})}),
                        b.Reduce("Sum", b.Op("Softplus", {sampled_logit}), 1)});
}

// The same through the C API's builders: TG_EmbeddingLookup and TG_NceLoss.
TG_Output NceLossBuilder(Builder& b, TG_Variable* emb, TG_Output w_read, TG_Output b_read,
                         TG_Output center, TG_Output context, int64_t vocab,
                         int64_t num_sampled) {
  if (!b.ok()) return {nullptr, 0};
  TG_Output embed =
      TG_EmbeddingLookup(b.graph(), TG_VariableReadValue(emb), center, "embed", b.status());
  b.Check("TG_EmbeddingLookup");
  if (!b.ok()) return {nullptr, 0};
  TG_NceLossOptions options;
  TG_InitNceLossOptions(&options);
  options.has_seed = 1;
  options.seed = 1;
  TG_Output loss = TG_NceLoss(b.graph(), w_read, b_read, context, embed, num_sampled, vocab,
                              &options, b.status());
  b.Check("TG_NceLoss");
  return loss;
}

void BM_Word2VecTrainStep(benchmark::State& state) {
  const int64_t vocab = state.range(0), dim = state.range(1), batch = state.range(2);
  const int64_t num_sampled = state.range(3);
  const bool adagrad = state.range(4) != 0;
  const bool nce_builder = state.range(5) != 0;
  std::mt19937 rng(1);
  Builder b;
  TG_Output center = b.Placeholder("center", TG_INT32, {-1});
  TG_Output context = b.Placeholder("context", TG_INT64, {-1, 1});
  TG_Variable* emb = b.Variable("embeddings", {vocab, dim}, 1.0, rng);
  TG_Variable* nce_w =
      b.Variable("nce_weights", {vocab, dim}, std::sqrt(3.0 / static_cast<double>(dim)), rng);
  TG_Variable* nce_b = b.Variable("nce_biases", {vocab}, 0.0, rng);
  if (!b.ok()) {
    state.SkipWithError(b.error().c_str());
    return;
  }
  const TG_Output w_read = TG_VariableReadValue(nce_w), b_read = TG_VariableReadValue(nce_b);
  TG_Output per_example = nce_builder ? NceLossBuilder(b, emb, w_read, b_read, center, context,
                                                       vocab, num_sampled)
                                      : NceLossFromOps(b, emb, w_read, b_read, center, context,
                                                       vocab, num_sampled);
  TG_Output loss = b.Reduce("Mean", per_example, 0);
  TG_Operation* train = nullptr;
  TG_Operation* init = nullptr;
  b.Minimize(adagrad ? TG_OPTIMIZER_ADAGRAD : TG_OPTIMIZER_GRADIENT_DESCENT,
             adagrad ? 0.5 : 1.0, loss, &train, &init);
  if (!b.ok()) {
    state.SkipWithError(b.error().c_str());
    return;
  }

  // Batches cycled through; word ids drawn Zipf-like (the log-uniform law the sampler
  // assumes), so row updates collide as they would on text.
  constexpr int kBatches = 16;
  auto zipf = [&]() {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double r = std::exp(u(rng) * std::log(static_cast<double>(vocab) + 1.0)) - 1.0;
    return std::min<int64_t>(static_cast<int64_t>(r), vocab - 1);
  };
  std::vector<TensorPtr> centers, contexts;
  for (int i = 0; i < kBatches; ++i) {
    centers.push_back(MakeTensor<int32_t>(TG_INT32, {batch},
                                          [&](size_t) { return static_cast<int32_t>(zipf()); }));
    contexts.push_back(MakeTensor<int64_t>(TG_INT64, {batch, 1}, [&](size_t) { return zipf(); }));
  }
  Trainer trainer(b.graph(), init, train);
  const std::vector<TG_Output> inputs = {center, context};
  if (!trainer.ok() || !trainer.Step(inputs, {centers[0].get(), contexts[0].get()})) {
    state.SkipWithError(trainer.error().c_str());
    return;
  }
  int next = 0;
  for (auto _ : state) {
    if (!trainer.Step(inputs, {centers[next].get(), contexts[next].get()})) {
      state.SkipWithError(trainer.error().c_str());
      return;
    }
    next = (next + 1) % kBatches;
  }
  SetSamplesPerSecond(state, batch);
}
BENCHMARK(BM_Word2VecTrainStep)
    ->ArgNames({"vocab", "dim", "batch", "sampled", "adagrad", "builder"})
    ->Args({10000, 128, 128, 64, 0, 1})
    ->Args({50000, 128, 128, 64, 0, 1})
    ->Args({50000, 128, 128, 64, 1, 1})
    ->Args({50000, 128, 128, 64, 0, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // Kernels and the CPU device come from the plugin; without it nothing can run.
  StatusPtr status(TG_NewStatus());
  if (TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, status.get()) == nullptr) {
    std::fprintf(stderr, "training_bench: cannot load %s: %s\n", TGRAPH_CPU_PLUGIN_PATH,
                 StatusText(status.get()).c_str());
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
