// Prune + plan cost of large graphs: what the first run of a (feeds, fetches, targets)
// signature pays before anything executes, measured with Session::Prepare (which the C API
// does not expose). Each iteration makes a fresh session on an already built graph and
// prepares the fetch of its last node, so no cached plan is ever reused.
//
// Two shapes: a serial chain (deep: one long path for the walk and the topological sort) and
// a balanced binary AddV2 tree over Identity leaves (wide: half the nodes ready at once).
//
// BM_PruneOnly times PruneAndOrder alone on the same graphs, to split pruning from the rest.
//
// Target (issue 5): linear in the fragment's size, at most 1 s for 1M nodes. per_node should
// stay flat from 10k to 1M.
//
// Links tgraph_core only (libtgraph.so beside it would be a second core with its own
// registries); the CPU plugin, whose kernels and device the plan needs, is loaded with the
// core's own loader.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/prune.h"
#include "core/exec/session.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/plugin/plugin_loader.h"

#ifndef TGRAPH_CPU_PLUGIN_PATH
#error "TGRAPH_CPU_PLUGIN_PATH must name the CPU plugin (set by bench/CMakeLists.txt)"
#endif

namespace tgraph {
namespace {

enum class Shape { kChain, kTree };

// A graph and the request to plan on it.
struct PlanGraph {
  Shape shape = Shape::kChain;
  int64_t size = 0;
  std::unique_ptr<Graph> graph;
  Output x;     // the fed scalar placeholder
  Output last;  // the fetch
  int64_t num_operations = 0;
};

// Strings are moved in rather than assigned from literals: GCC 12 at -O3 reports a false
// -Werror=restrict inside std::string's assignment from a short literal.
NodeSpec Spec(std::string type, std::string name = {}) {
  NodeSpec spec;
  spec.type = std::move(type);
  spec.name = std::move(name);
  return spec;
}

StatusOr<Output> AddOp(Graph& g, const char* type, std::vector<Output> inputs) {
  NodeSpec spec = Spec(type);
  for (Output& in : inputs) spec.inputs.push_back({{in}, false});
  TG_ASSIGN_OR_RETURN(Operation * op, g.AddOperation(std::move(spec)));
  return op->output(0);
}

// Opens a new name scope every 1000 ops, as real graphs group their ops (and so that unique
// naming works on realistic, scoped names rather than a million "AddV2_k" in one scope).
Status NextScope(Graph& g, int64_t i, bool* open) {
  if (i % 1000 != 0) return Status();
  if (*open) TG_RETURN_IF_ERROR(g.PopNameScope());
  *open = true;
  return g.PushNameScope("block").status();
}

Status Build(PlanGraph* pg) {
  Graph& g = *pg->graph;
  {
    NodeSpec spec = Spec("Placeholder", "x");
    spec.attrs["dtype"] = AttrOfType(DT_FLOAT);
    spec.attrs["shape"] = AttrOfShape(PartialShape::Scalar());
    TG_ASSIGN_OR_RETURN(Operation * x, g.AddOperation(std::move(spec)));
    pg->x = x->output(0);
  }
  bool scope_open = false;
  int64_t made = 0;
  if (pg->shape == Shape::kChain) {
    TG_ASSIGN_OR_RETURN(Tensor one, Tensor::Allocate(DT_FLOAT, {}));
    *one.flat<float>() = 1.0f;
    NodeSpec spec = Spec("Const");
    spec.attrs["value"] = AttrOfTensor(one);
    spec.attrs["dtype"] = AttrOfType(DT_FLOAT);
    TG_ASSIGN_OR_RETURN(Operation * c, g.AddOperation(std::move(spec)));
    Output prev = pg->x;
    for (; made < pg->size; ++made) {
      TG_RETURN_IF_ERROR(NextScope(g, made, &scope_open));
      TG_ASSIGN_OR_RETURN(prev, AddOp(g, "AddV2", {prev, c->output(0)}));
    }
    pg->last = prev;
  } else {
    // size/2 leaves, then pairwise sums level by level: size - 1 ops in all.
    std::vector<Output> level;
    for (int64_t i = 0; i < pg->size / 2; ++i, ++made) {
      TG_RETURN_IF_ERROR(NextScope(g, made, &scope_open));
      TG_ASSIGN_OR_RETURN(Output leaf, AddOp(g, "Identity", {pg->x}));
      level.push_back(leaf);
    }
    while (level.size() > 1) {
      std::vector<Output> next;
      for (size_t i = 0; i + 1 < level.size(); i += 2, ++made) {
        TG_RETURN_IF_ERROR(NextScope(g, made, &scope_open));
        TG_ASSIGN_OR_RETURN(Output sum, AddOp(g, "AddV2", {level[i], level[i + 1]}));
        next.push_back(sum);
      }
      if (level.size() % 2 == 1) next.push_back(level.back());
      level = std::move(next);
    }
    pg->last = level.front();
  }
  if (scope_open) TG_RETURN_IF_ERROR(g.PopNameScope());
  pg->num_operations = g.num_operations();
  return Status();
}

// The graph of the benchmark running now. Only one is kept: the 1M-node graphs take
// hundreds of MB each, and benchmarks of one size run back to back.
StatusOr<PlanGraph*> GetGraph(Shape shape, int64_t size) {
  static std::unique_ptr<PlanGraph> cached;
  if (cached && cached->shape == shape && cached->size == size) return cached.get();
  cached.reset();
  auto pg = std::make_unique<PlanGraph>();
  pg->shape = shape;
  pg->size = size;
  pg->graph = std::make_unique<Graph>();
  TG_RETURN_IF_ERROR(Build(pg.get()));
  cached = std::move(pg);
  return cached.get();
}

// Per iteration: Session::Create, then Prepare (prune, order, place, create kernels, lay out
// slots). The session's teardown is excluded. Counters: create_ms and prepare_ms split the
// time; per_node is the whole iteration per operation of the fragment.
// With `rewrites`, the plan-time graph rewrites (core/rewrite) run too, as they do by default
// in a session; without, the plan is the pruned graph (what these figures measured before
// the rewrites existed).
void BM_PrunePlan(benchmark::State& state, Shape shape, bool rewrites) {
  StatusOr<PlanGraph*> got = GetGraph(shape, state.range(0));
  if (!got.ok()) {
    state.SkipWithError(got.status().ToString().c_str());
    return;
  }
  PlanGraph* pg = got.value();
  StatusOr<Tensor> x_value = Tensor::Allocate(DT_FLOAT, {});
  if (!x_value.ok()) {
    state.SkipWithError(x_value.status().ToString().c_str());
    return;
  }
  const std::vector<std::pair<Output, Tensor>> feeds = {{pg->x, x_value.value()}};
  const std::vector<Output> fetches = {pg->last};
  SessionOptions options;
  // One thread each: the pools' thread start-up is session cost, not planning cost.
  options.inter_op_threads = 1;
  options.intra_op_threads = 1;
  if (Status set = options.rewrites.Set("all", rewrites); !set.ok()) {
    state.SkipWithError(set.ToString().c_str());
    return;
  }

  using Clock = std::chrono::steady_clock;
  double create_ns = 0;
  double prepare_ns = 0;
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    StatusOr<std::unique_ptr<Session>> session = Session::Create(pg->graph.get(), options);
    if (!session.ok()) {
      state.SkipWithError(session.status().ToString().c_str());
      return;
    }
    const Clock::time_point t1 = Clock::now();
    Status s = session.value()->Prepare(feeds, fetches, {});
    const Clock::time_point t2 = Clock::now();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    create_ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    prepare_ns += std::chrono::duration<double, std::nano>(t2 - t1).count();
    state.PauseTiming();
    session.value().reset();
    state.ResumeTiming();
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["ops"] = static_cast<double>(pg->num_operations);
  state.counters["create_ms"] = create_ns / iterations / 1e6;
  state.counters["prepare_ms"] = prepare_ns / iterations / 1e6;
  state.counters["per_node_ns"] = (create_ns + prepare_ns) / iterations /
                                  static_cast<double>(pg->num_operations);
}

// Pruning and ordering alone (PruneAndOrder on Boost.Graph), the first step of Prepare: how
// much of the plan's time is the graph walk and topological sort, and how much the rest
// (placement, kernels, slots).
void BM_PruneOnly(benchmark::State& state, Shape shape) {
  StatusOr<PlanGraph*> got = GetGraph(shape, state.range(0));
  if (!got.ok()) {
    state.SkipWithError(got.status().ToString().c_str());
    return;
  }
  PlanGraph* pg = got.value();
  PruneRequest request;
  request.fed = {pg->x};
  request.fetches = {pg->last};
  // PruneAndOrder wants the graph unchanged during the call: hold its lock, as the session does.
  std::lock_guard<std::recursive_mutex> lock(pg->graph->mutex());
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    StatusOr<PrunedGraph> pruned = PruneAndOrder(*pg->graph, request);
    if (!pruned.ok()) {
      state.SkipWithError(pruned.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(pruned.value().ordered.data());
  }
  const double elapsed_ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  state.counters["ops"] = static_cast<double>(pg->num_operations);
  state.counters["per_node_ns"] = elapsed_ns / static_cast<double>(state.iterations()) /
                                  static_cast<double>(pg->num_operations);
}

// Ordered by graph, so that each graph is built once (GetGraph keeps only the last one).
void RegisterAll() {
  const std::pair<const char*, Shape> shapes[] = {{"chain", Shape::kChain},
                                                  {"tree", Shape::kTree}};
  for (const auto& [shape_name, shape] : shapes) {
    for (int64_t size : {10'000, 100'000, 1'000'000}) {
      const Shape s = shape;
      benchmark::internal::Benchmark* plan = benchmark::RegisterBenchmark(
          (std::string("BM_PrunePlan/") + shape_name).c_str(),
          [s](benchmark::State& state) { BM_PrunePlan(state, s, false); });
      benchmark::internal::Benchmark* rewritten = benchmark::RegisterBenchmark(
          (std::string("BM_PrunePlanRewrites/") + shape_name).c_str(),
          [s](benchmark::State& state) { BM_PrunePlan(state, s, true); });
      benchmark::internal::Benchmark* prune = benchmark::RegisterBenchmark(
          (std::string("BM_PruneOnly/") + shape_name).c_str(),
          [s](benchmark::State& state) { BM_PruneOnly(state, s); });
      for (benchmark::internal::Benchmark* b : {plan, rewritten, prune}) {
        b->ArgName("nodes")->Arg(size)->Unit(benchmark::kMillisecond)->UseRealTime();
      }
      // A 1M-node plan takes seconds: a few iterations say enough.
      if (size >= 1'000'000) {
        plan->Iterations(3);
        rewritten->Iterations(3);
      }
    }
  }
}

}  // namespace
}  // namespace tgraph

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // The plan chooses kernels and devices: both come from the CPU plugin.
  tgraph::StatusOr<const tgraph::LoadedPlugin*> plugin = tgraph::LoadPlugin(TGRAPH_CPU_PLUGIN_PATH);
  if (!plugin.ok()) {
    std::fprintf(stderr, "plan_bench: %s\n", plugin.status().ToString().c_str());
    return 1;
  }
  tgraph::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
