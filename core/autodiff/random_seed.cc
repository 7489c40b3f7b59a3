#include "core/autodiff/random_seed.h"

#include "core/graph/graph.h"

namespace tgraph {
namespace {

constexpr int64_t kMaxInt32 = 2147483647;

// Python's `seed % _MAXINT32` (never negative).
int64_t TruncateSeed(int64_t seed) {
  const int64_t r = seed % kMaxInt32;
  return r < 0 ? r + kMaxInt32 : r;
}

}  // namespace

Status SetGraphSeed(Graph& graph, int64_t seed) {
  std::lock_guard lock(graph.mutex());
  if (graph.finalized()) {
    return FailedPrecondition("Graph is finalized and cannot be modified (set_random_seed)");
  }
  graph.set_random_seed(seed);
  return Status::OK();
}

std::optional<int64_t> GraphSeed(const Graph& graph) {
  std::lock_guard lock(graph.mutex());
  return graph.random_seed();
}

std::pair<int64_t, int64_t> GetSeed(const Graph& graph, std::optional<int64_t> op_seed) {
  const std::optional<int64_t> graph_seed = GraphSeed(graph);
  std::pair<int64_t, int64_t> seeds;
  if (graph_seed) {
    // TF uses the graph's last op id, i.e. how many ops were made before this one.
    const int64_t op = op_seed ? *op_seed : static_cast<int64_t>(graph.num_operations());
    seeds = {TruncateSeed(*graph_seed), TruncateSeed(op)};
  } else if (op_seed) {
    seeds = {kDefaultGraphSeed, TruncateSeed(*op_seed)};
  } else {
    return {0, 0};
  }
  // (0, 0) means "nondeterministic" to the kernels, which a set seed must not mean.
  if (seeds.first == 0 && seeds.second == 0) seeds.second = kMaxInt32;
  return seeds;
}

}  // namespace tgraph
