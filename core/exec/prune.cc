#include "core/exec/prune.h"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/graph_traits.hpp>
#include <boost/graph/topological_sort.hpp>
#include <boost/iterator/iterator_facade.hpp>
#include <boost/pending/queue.hpp>
#include <boost/property_map/property_map.hpp>
#include <cstdint>
#include <unordered_set>
#include <utility>

#include "core/exec/control_flow.h"

namespace tgraph {
namespace exec_graph {

// The core graph seen from the consumer side: an edge leads from an operation to an
// operation it depends on. Fed data edges are left out.
struct DependencyGraph {
  const Graph* graph = nullptr;
  const std::unordered_set<uint64_t>* fed = nullptr;  // keys of fed tensors
  // Per operation id: does any of its outputs appear in `fed`? Most edges are answered
  // here without hashing.
  const std::vector<char>* has_fed_output = nullptr;

  static uint64_t Key(int op_id, int index) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(op_id)) << 32) | static_cast<uint32_t>(index);
  }
  static uint64_t Key(const Output& o) { return Key(o.op->id(), o.index); }
  bool IsFed(const Output& o) const {
    return !fed->empty() && (*has_fed_output)[static_cast<size_t>(o.op->id())] &&
           fed->count(Key(o)) != 0;
  }
  // As in TensorFlow, feeding a placeholder also satisfies the control edges out of it: it
  // exists only to be fed, so it never runs.
  bool IsFedPlaceholder(const Operation* op) const {
    return !fed->empty() && (*has_fed_output)[static_cast<size_t>(op->id())] &&
           IsPlaceholder(*op) &&
           fed->count(Key(op->id(), 0)) != 0;
  }
};

// (consumer, k): k < num_inputs is data input k, else control input k - num_inputs.
struct DependencyEdge {
  int consumer = -1;
  int k = 0;
  int producer = -1;
  bool operator==(const DependencyEdge& o) const { return consumer == o.consumer && k == o.k; }
  bool operator!=(const DependencyEdge& o) const { return !(*this == o); }
};

class DependencyEdgeIterator
    : public boost::iterator_facade<DependencyEdgeIterator, DependencyEdge,
                                    boost::forward_traversal_tag, DependencyEdge> {
 public:
  DependencyEdgeIterator() = default;
  DependencyEdgeIterator(const DependencyGraph* g, const Operation* op, int k)
      : g_(g), op_(op), k_(k) {
    SkipFed();
  }

 private:
  friend class boost::iterator_core_access;
  int End() const { return op_->num_inputs() + static_cast<int>(op_->control_inputs().size()); }
  void SkipFed() {
    const int n = op_->num_inputs();
    const int end = End();
    while (k_ < end && (k_ < n ? g_->IsFed(op_->input(k_))
                               : g_->IsFedPlaceholder(op_->control_inputs()[static_cast<size_t>(k_ - n)]))) {
      ++k_;
    }
  }
  void increment() {
    ++k_;
    SkipFed();
  }
  bool equal(const DependencyEdgeIterator& o) const { return op_ == o.op_ && k_ == o.k_; }
  DependencyEdge dereference() const {
    const int n = op_->num_inputs();
    const Operation* producer =
        k_ < n ? op_->input(k_).op : op_->control_inputs()[static_cast<size_t>(k_ - n)];
    return DependencyEdge{op_->id(), k_, producer->id()};
  }

  const DependencyGraph* g_ = nullptr;
  const Operation* op_ = nullptr;
  int k_ = 0;
};

}  // namespace exec_graph
}  // namespace tgraph

namespace boost {
template <>
struct graph_traits<tgraph::exec_graph::DependencyGraph> {
  using vertex_descriptor = int;
  using edge_descriptor = tgraph::exec_graph::DependencyEdge;
  using directed_category = directed_tag;
  using edge_parallel_category = allow_parallel_edge_tag;
  using traversal_category = incidence_graph_tag;
  using out_edge_iterator = tgraph::exec_graph::DependencyEdgeIterator;
  using degree_size_type = int;
  using vertices_size_type = int;
  using edges_size_type = int;
  static vertex_descriptor null_vertex() { return -1; }
};
}  // namespace boost

namespace tgraph {
namespace exec_graph {

std::pair<DependencyEdgeIterator, DependencyEdgeIterator> out_edges(int v, const DependencyGraph& g) {
  const Operation* op = g.graph->operation(v);
  const int end = op->num_inputs() + static_cast<int>(op->control_inputs().size());
  return {DependencyEdgeIterator(&g, op, 0), DependencyEdgeIterator(&g, op, end)};
}
int source(const DependencyEdge& e, const DependencyGraph&) { return e.consumer; }
int target(const DependencyEdge& e, const DependencyGraph&) { return e.producer; }
int out_degree(int v, const DependencyGraph& g) {
  auto [b, e] = out_edges(v, g);
  return static_cast<int>(std::distance(b, e));
}

// Collects every operation the visit reaches and every edge it follows (consumer id,
// producer id), so the fragment is read from the graph once.
class CollectVisitor : public boost::default_bfs_visitor {
 public:
  CollectVisitor(std::vector<int>* found, std::vector<std::pair<int, int>>* edges)
      : found_(found), edges_(edges) {}
  void discover_vertex(int v, const DependencyGraph&) const { found_->push_back(v); }
  void examine_edge(const DependencyEdge& e, const DependencyGraph&) const {
    edges_->emplace_back(e.consumer, e.producer);
  }

 private:
  std::vector<int>* found_;
  std::vector<std::pair<int, int>>* edges_;
};

// INVALID_ARGUMENT naming the operations of one cycle of the fragment, in dependency order
// ("'a' -> 'b' -> 'a'": each needs the next), found with a depth-first search.
Status CycleError(const Graph& graph, const std::vector<int>& needed,
                  const boost::compressed_sparse_row_graph<boost::directedS>& fragment) {
  using Fragment = boost::compressed_sparse_row_graph<boost::directedS>;
  using Edge = boost::graph_traits<Fragment>::edge_descriptor;
  struct State {
    std::vector<int> parent;
    int from = -1, to = -1;
  } state;
  state.parent.assign(needed.size(), -1);
  struct Visitor : boost::default_dfs_visitor {
    State* state;
    explicit Visitor(State* s) : state(s) {}
    void tree_edge(Edge e, const Fragment& g) const {
      state->parent[boost::target(e, g)] = static_cast<int>(boost::source(e, g));
    }
    void back_edge(Edge e, const Fragment& g) const {
      if (state->from < 0) {
        state->from = static_cast<int>(boost::source(e, g));
        state->to = static_cast<int>(boost::target(e, g));
      }
    }
  };
  boost::depth_first_search(fragment, boost::visitor(Visitor(&state)));
  if (state.from < 0) return InvalidArgument("the operations this run needs contain a cycle");
  // Back edge from -> to: `to` is an ancestor of `from`, so to -> ... -> from -> to.
  std::vector<int> cycle;
  for (int x = state.from; x != state.to && x >= 0; x = state.parent[static_cast<size_t>(x)]) {
    cycle.push_back(x);
  }
  cycle.push_back(state.to);
  std::reverse(cycle.begin(), cycle.end());
  std::string path;
  const size_t shown = std::min<size_t>(cycle.size(), 16);
  for (size_t k = 0; k < shown; ++k) {
    path.append("'").append(graph.operation(needed[static_cast<size_t>(cycle[k])])->name()).append("' -> ");
  }
  if (shown < cycle.size()) path.append("... -> ");
  const Operation* first = graph.operation(needed[static_cast<size_t>(cycle[0])]);
  path.append("'").append(first->name()).append("'");
  return InvalidArgument("the operations this run needs contain a cycle through node '",
                         first->name(), "' (", first->type(), "): ", path,
                         " (each needs the next; only NextIteration -> Merge edges may close a loop)");
}

}  // namespace exec_graph

bool IsPlaceholder(const Operation& op) {
  return op.type() == "Placeholder" || op.type() == "PlaceholderV2";
}

StatusOr<PrunedGraph> PruneAndOrder(const Graph& graph, const PruneRequest& request) {
  using namespace exec_graph;
  std::unordered_set<uint64_t> fed;
  fed.reserve(request.fed.size() * 2);
  std::vector<char> has_fed_output;
  if (!request.fed.empty()) has_fed_output.assign(static_cast<size_t>(graph.num_operations()), 0);
  for (const Output& o : request.fed) {
    fed.insert(DependencyGraph::Key(o));
    has_fed_output[static_cast<size_t>(o.op->id())] = 1;
  }
  const DependencyGraph deps{&graph, &fed, &has_fed_output};

  // Where the walk starts: producers of fetched tensors that are not fed, and targets.
  std::vector<int> sources;
  sources.reserve(request.fetches.size() + request.targets.size());
  for (const Output& o : request.fetches) {
    if (!deps.IsFed(o)) sources.push_back(o.op->id());
  }
  for (const Operation* op : request.targets) sources.push_back(op->id());

  std::vector<boost::default_color_type> colors(static_cast<size_t>(graph.num_operations()),
                                                boost::white_color);
  auto color_map = boost::make_iterator_property_map(colors.begin(), boost::identity_property_map());
  std::vector<int> needed;
  std::vector<std::pair<int, int>> edges;
  boost::queue<int> queue;
  for (int s : sources) {
    if (colors[static_cast<size_t>(s)] != boost::white_color) continue;
    boost::breadth_first_visit(deps, s, queue, CollectVisitor(&needed, &edges), color_map);
  }

  // Creation order: a scan of the colour bytes (the visit marked what it reached) beats
  // sorting the ids it collected.
  const size_t found = needed.size();
  needed.clear();
  needed.reserve(found);
  for (size_t id = 0; id < colors.size(); ++id) {
    if (colors[id] != boost::white_color) needed.push_back(static_cast<int>(id));
  }

  // The fragment as its own graph: local vertex i is needed[i], in creation order; edges
  // run consumer -> producer. A depth-first topological sort of that graph started from
  // the vertices in creation order finishes producers first and otherwise keeps creation
  // order, which is the order deterministic mode promises.
  const int n = static_cast<int>(needed.size());
  std::vector<int> local(static_cast<size_t>(graph.num_operations()), -1);
  for (int i = 0; i < n; ++i) local[static_cast<size_t>(needed[static_cast<size_t>(i)])] = i;
  for (auto& [consumer, producer] : edges) {
    consumer = local[static_cast<size_t>(consumer)];
    producer = local[static_cast<size_t>(producer)];
  }
  // Control flow: NextIteration -> Merge edges close loops. They stay in the fragment (the
  // loop body is needed) but not in the ordering, which must still be acyclic without them.
  PrunedGraph out;
  std::vector<ControlFlowKind> kinds(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    kinds[static_cast<size_t>(i)] = ControlFlowKindOf(*graph.operation(needed[static_cast<size_t>(i)]));
    out.control_flow = out.control_flow || kinds[static_cast<size_t>(i)] != ControlFlowKind::kNone;
  }
  if (out.control_flow) {
    std::erase_if(edges, [&](const std::pair<int, int>& e) {
      return kinds[static_cast<size_t>(e.second)] == ControlFlowKind::kNextIteration &&
             kinds[static_cast<size_t>(e.first)] == ControlFlowKind::kMerge;
    });
  }
  using Fragment = boost::compressed_sparse_row_graph<boost::directedS>;
  Fragment fragment(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(),
                    static_cast<size_t>(n));
  std::vector<int> order;
  order.reserve(static_cast<size_t>(n));
  try {
    boost::topological_sort(fragment, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    return CycleError(graph, needed, fragment);
  }
  out.ordered.reserve(static_cast<size_t>(n));
  for (int v : order) out.ordered.push_back(graph.operation(needed[static_cast<size_t>(v)]));
  return out;
}

}  // namespace tgraph
