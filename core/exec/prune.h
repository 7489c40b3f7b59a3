// Pruning: which operations a run needs, and in what order they can run.
//
// The core graph is adapted as a Boost.Graph incidence graph whose out-edges lead from an
// operation to the producers it depends on (data inputs, then control inputs), so reverse
// reachability from the fetched tensors and target operations is a plain breadth-first
// visit; a data edge whose tensor is fed is filtered out, which is how feeds cut the graph.
// The needed fragment is then copied into a compact Boost.Graph of its own, and
// boost::topological_sort orders it (and finds cycles). Cost: linear in the fragment, plus
// zero-filling a colour byte and a local index per graph operation (a memset, ~1 ms for
// a million operations).
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/graph/graph.h"
#include "core/graph/operation.h"

namespace tgraph {

struct PruneRequest {
  // Tensors whose values come from the run's feeds (their producers are not needed for them).
  std::vector<Output> fed;
  std::vector<Output> fetches;
  std::vector<Operation*> targets;
};

struct PrunedGraph {
  // The needed operations in a topological order (producers before consumers; ties follow
  // creation order, so the order depends on the graph alone).
  std::vector<Operation*> ordered;
  // The fragment holds control-flow operations (Switch, Merge, Enter, ...): `ordered` then
  // leaves out the NextIteration -> Merge back edges, and the run needs the frame executor.
  bool control_flow = false;
};

// Placeholder and PlaceholderV2: operations that exist only to be fed.
bool IsPlaceholder(const Operation& op);

// INVALID_ARGUMENT naming the operations of a cycle when the fragment has one (loops closed
// by NextIteration -> Merge edges are not cycles here). The graph must not
// change during the call (callers hold its lock).
StatusOr<PrunedGraph> PruneAndOrder(const Graph& graph, const PruneRequest& request);

}  // namespace tgraph
