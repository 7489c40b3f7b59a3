// Graph construction cost: how fast the core builds large graphs (names, validation, shape
// inference per op), and GraphDef export/import of the result.
#include <benchmark/benchmark.h>

#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"

namespace tgraph {
namespace {

Operation* ScalarConst(Graph& g) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {}).value();
  NodeSpec spec;
  spec.type = "Const";
  spec.attrs["value"] = AttrOfTensor(t);
  spec.attrs["dtype"] = AttrOfType(DT_FLOAT);
  return g.AddOperation(std::move(spec)).value();
}

// A chain c -> Add -> Add -> ... of `n` Add ops, in a few nested scopes.
void BuildChain(Graph& g, int64_t n) {
  Output prev = ScalarConst(g)->output(0);
  Output one = ScalarConst(g)->output(0);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 1000 == 0) {
      if (i) (void)g.PopNameScope();
      (void)g.PushNameScope("block");
    }
    NodeSpec spec;
    spec.type = "AddV2";
    spec.inputs = {{{prev}, false}, {{one}, false}};
    prev = g.AddOperation(std::move(spec)).value()->output(0);
  }
  (void)g.PopNameScope();
}

void BM_BuildChain(benchmark::State& state) {
  for (auto _ : state) {
    Graph g;
    BuildChain(g, state.range(0));
    benchmark::DoNotOptimize(g.num_operations());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_BuildChain)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ExportGraphDef(benchmark::State& state) {
  Graph g;
  BuildChain(g, state.range(0));
  for (auto _ : state) {
    std::string bytes;
    (void)ExportGraphDefBytes(g, &bytes);
    benchmark::DoNotOptimize(bytes.size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ExportGraphDef)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ImportGraphDef(benchmark::State& state) {
  Graph source;
  BuildChain(source, state.range(0));
  tf::GraphDef def;
  (void)ExportGraphDef(source, &def);
  for (auto _ : state) {
    Graph g;
    ImportOptions options;
    options.prefix = "";
    ImportResults results;
    Status s = ImportGraphDef(def, options, &g, &results);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    benchmark::DoNotOptimize(g.num_operations());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ImportGraphDef)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tgraph

BENCHMARK_MAIN();
