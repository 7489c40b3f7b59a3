// The plan-local view of a run's fragment that the rewrites edit (the user's graph is shared
// and append-only, so nothing of it may change): one node per needed operation, in the
// pruned topological order, each with its own copy of the data inputs and control inputs
// and the readers of its outputs. A rewrite bypasses, removes or replaces nodes; new
// operations (fused ops, folded constants) are made in a private scratch graph, where
// stand-in Placeholders take the place of their inputs so that the graph's own validation
// and shape inference apply. The real inputs are the node's.
//
// Every rewrite keeps the order valid without re-sorting: a node is replaced only by one
// whose inputs come before it, and readers are only redirected to earlier values. A rewrite
// that adds nodes (automatic mixed precision's Casts) anchors each to a node of the
// fragment, to run right before or right after it (Insert); RunOrder lists the nodes with
// the inserted ones in their places.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/graph/graph.h"
#include "core/graph/operation.h"
#include "core/rewrite/rewrite_options.h"

namespace tgraph {

// What RewriteFragment did, for tests and logs: work it paid for, whether or not anything
// changed.
struct RewriteStats {
  int64_t scanned_nodes = 0;  // operations looked at by the scan (fragment_scan.h)
  int64_t view_nodes = 0;     // nodes copied into the plan-local view (0: none was built)
  RewriteOptions ran = NoRewrites();  // the passes that ran over the view

  static RewriteOptions NoRewrites() {
    RewriteOptions o;
    o.constant_folding = o.common_subgraph_elimination = o.identity_removal = false;
    o.arithmetic_optimization = o.dependency_optimization = o.remapping = false;
    o.auto_mixed_precision = false;
    return o;
  }
};

struct RewriteRequest {
  const Graph* graph = nullptr;
  const std::vector<Operation*>* ordered = nullptr;  // the pruned fragment, in order
  std::vector<Output> fed;
  std::vector<Output> fetches;
  std::vector<Operation*> targets;
  std::string default_device_type = "CPU";  // where ops without a request go
  RewriteOptions options;
  RewriteStats* stats = nullptr;  // filled in when given
};

class RewriteGraph {
 public:
  struct Node {
    Operation* op = nullptr;  // a graph op, or one of the scratch graph
    std::vector<Output> inputs;
    std::vector<int> controls;                // nodes this one waits for
    // Who reads an output ((node, input index)) and who waits for this node. Entries are
    // dropped lazily (a node with half a million readers must not pay a search per edit):
    // use RewriteGraph::Readers / ControlReaders, which return the live ones; the counts
    // are always exact.
    std::vector<std::pair<int, int>> readers;
    std::vector<int> control_readers;
    int num_readers = 0;
    int num_control_readers = 0;
    bool removed = false;
    bool fetched = false;     // an output is fetched, or the op is a target
    bool fed_output = false;  // an output is fed: its readers read the feed
    // What Rewritable checks that no rewrite changes, worked out once per node.
    bool eligible = false;    // stateless, no refs or resources, on the CPU, not control flow
    bool colocated = false;   // has a _class attr
    // Inserted nodes: the fragment's node this one runs next to (-1: a node of the
    // fragment itself). Fragment nodes list the nodes inserted before and after them.
    int anchor = -1;
    std::vector<int> run_before, run_after;
  };

  explicit RewriteGraph(const RewriteRequest& request);

  int size() const { return static_cast<int>(nodes_.size()); }
  Node& node(int i) { return nodes_[static_cast<size_t>(i)]; }
  const Node& node(int i) const { return nodes_[static_cast<size_t>(i)]; }
  const RewriteRequest& request() const { return request_; }
  Graph& scratch() { return *scratch_; }
  std::unique_ptr<Graph> TakeScratch() { return std::move(scratch_); }

  // The node producing `o` in the fragment; -1 when `o` is fed or comes from outside.
  int Producer(const Output& o) const;
  bool IsFed(const Output& o) const;

  // May node i be removed or replaced? Not when fetched, a target, with a fed output,
  // stateful, reading or making refs or resources, or placed anywhere but the CPU (its own
  // request, or the session's default device); nor, unless `flags` allow:
  //   kMayBeFetched: a fetched node passes (one that is read instead of another, a common
  //     subexpression's first instance, is not itself changed);
  //   kMayBeColocated: a node with a colocation attr (_class) passes. Rewrites that only
  //     bypass or drop nodes allow it; those that make new ops (which would not inherit the
  //     colocation) do not.
  enum Flags : unsigned { kMayBeFetched = 1, kMayBeColocated = 2 };
  bool Rewritable(int i, unsigned flags = 0) const;
  // The device request of a node's op ("" = none): rewrites that join or bypass nodes need
  // them equal.
  const std::string& Device(int i) const { return node(i).op->device(); }

  // The live readers of node i's outputs and the nodes waiting for it (compacted here).
  const std::vector<std::pair<int, int>>& Readers(int i);
  const std::vector<int>& ControlReaders(int i);

  // ---- edits ----
  void SetInput(int reader, int k, const Output& to);
  // Adds a control edge producer -> node (not a duplicate, not a self edge, not one
  // implied by a data input from the producer).
  void AddControl(int node, int producer);
  void RemoveControl(int node, int producer);
  // Every reader of `i`'s output `index` reads `to` instead and also waits for `i`'s control
  // inputs (the value it read had waited for them); nodes waiting for `i` wait for `to`'s
  // producer and `i`'s control inputs. Afterwards nothing reads or waits for `i` through
  // that output (when it is the only one, `i` is dead).
  void Bypass(int i, int index, const Output& to);
  // Moves `i`'s control readers to wait for `producer` (may be -1: for nothing) and `i`'s own
  // control inputs.
  void MoveControlReaders(int i, int producer);
  // Node i becomes `op` (made in the scratch graph, with outputs like the old op's), reading
  // `inputs` and waiting for `controls`; readers of the old op's outputs read the new one's.
  void Replace(int i, Operation* op, std::vector<Output> inputs, const std::vector<int>& controls);
  // A new node running `op` (made in the scratch graph) over `inputs`, right before node
  // `anchor` (a node of the fragment, not an inserted one) or, when `after`, right after
  // it; its index. Its inputs must come before that place, its readers after it.
  int Insert(Operation* op, std::vector<Output> inputs, int anchor, bool after);
  // Every live node's index in the order the nodes run: the fragment's order with the
  // inserted nodes next to their anchors.
  std::vector<int> RunOrder() const;
  // Removes a node nobody reads or waits for.
  void Remove(int i);
  // Removes nodes that nobody reads or waits for, and are not fetched or stateful, repeatedly.
  int RemoveDead();

  // ---- scratch ops ----
  // A Placeholder of the scratch graph with `real`'s dtype and static shape, to build a new
  // op over (one per real tensor); a small integer Const stands in as a copy of itself, so
  // that shape functions reading values (a Reshape's shape) see them.
  StatusOr<Output> StandIn(const Output& real);
  // Adds `spec` (inputs given as real tensors) to the scratch graph over stand-ins.
  StatusOr<Operation*> NewOp(NodeSpec spec, const std::vector<Output>& real_inputs);
  // A Const `name` of `value` on `device`, in the scratch graph.
  StatusOr<Operation*> NewConstant(const std::string& name, const Tensor& value,
                                   const std::string& device);
  // Such a Const on node `anchor`'s device, inserted to run right before `anchor` (a node of
  // the fragment); its output.
  StatusOr<Output> InsertConstant(const std::string& name, const Tensor& value, int anchor);

  // Did any rewrite change the fragment?
  bool changed() const { return changed_; }
  void set_changed() { changed_ = true; }

 private:
  int& IndexSlot(const Operation* op);

  const RewriteRequest& request_;
  std::vector<Node> nodes_;
  std::vector<int> index_of_id_;  // graph op id -> node, or -1
  std::unordered_map<const Operation*, int> index_of_scratch_;
  std::unordered_set<uint64_t> fed_;  // (graph op id << 32 | index) of fed tensors
  std::unique_ptr<Graph> scratch_;
  std::map<std::pair<const Operation*, int>, Output> stand_ins_;  // real tensor -> stand-in
  std::unordered_map<std::string, bool> cpu_device_;  // device string -> on the CPU
  bool Eligible(const Node& n);
  bool changed_ = false;
  bool inserted_ = false;  // some node was inserted (RemoveDead then repeats)
};

}  // namespace tgraph
