// TensorFlow 1.x's random seeds (tf.set_random_seed / random_seed.get_seed): a random op's
// (seed, seed2) attrs come from the graph-level seed and the op-level seed, so a graph built
// with either seed set draws the same numbers in every fresh session.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/base/status.h"

namespace tgraph {

class Graph;

// Used when only the op-level seed is set (TF's DEFAULT_GRAPH_SEED).
inline constexpr int64_t kDefaultGraphSeed = 87654321;

// tf.set_random_seed(seed) / graph.seed (Graph::random_seed).
Status SetGraphSeed(Graph& graph, int64_t seed);
std::optional<int64_t> GraphSeed(const Graph& graph);

// get_seed(op_seed): with a graph seed, (graph seed, op seed or the number of ops made so far);
// with only an op seed, (kDefaultGraphSeed, op seed); with neither, (0, 0) = nondeterministic.
// Seeds are reduced modulo 2^31 - 1, and (0, 0) from set seeds becomes (0, 2^31 - 1).
std::pair<int64_t, int64_t> GetSeed(const Graph& graph, std::optional<int64_t> op_seed);

}  // namespace tgraph
