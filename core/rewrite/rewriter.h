// Plan-time graph rewrites (docs/ARCHITECTURE.md, "Planning"): between pruning and
// placement, BuildPlan hands the pruned fragment to RewriteFragment, which applies the
// rewrites that SessionOptions::rewrites switches on, in TensorFlow grappler's spirit, to a
// plan-local view (rewrite_graph.h), never to the user's graph. The result is cached with
// the plan: the operations to run in order, each with the inputs and control inputs it
// reads now, and a scratch graph owning the operations the rewrites made.
//
// Fragments with control flow (Switch, Merge, Enter, ...) are left as they are: frames and
// dead values make "the same value" a question per iteration and branch.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"
#include "core/graph/graph.h"
#include "core/rewrite/rewrite_graph.h"

namespace tgraph {

class KernelCache;  // core/exec/execution_plan.h

struct RewrittenFragment {
  RewrittenFragment();
  ~RewrittenFragment();
  // Owns the fused ops, folded constants and their stand-in inputs.
  std::unique_ptr<Graph> scratch;
  // Kernels of the scratch ops (the session's cache is indexed by its graph's op ids).
  // Destroyed before the scratch graph.
  std::unique_ptr<KernelCache> kernels;
  std::vector<Operation*> ordered;                      // what runs, in order
  std::vector<std::vector<Output>> inputs;              // per ordered op
  std::vector<std::vector<Operation*>> control_inputs;  // per ordered op
  // How many of each rewrite's nodes went (for tests and logs).
  struct Counts {
    int constant_folding = 0, arithmetic_optimization = 0, common_subgraph_elimination = 0,
        dependency_optimization = 0, identity_removal = 0, remapping = 0,
        auto_mixed_precision = 0, dead = 0;
  } counts;
};

// Null when no rewrite is on or none changed anything: the plan then uses the fragment as
// pruned. The caller holds the graph's lock.
StatusOr<std::unique_ptr<RewrittenFragment>> RewriteFragment(const RewriteRequest& request);

}  // namespace tgraph
