// A cheap look at the pruned fragment before any rewrite: which passes could change it at
// all. Most large fragments give no rewrite anything to do (a chain of distinct arithmetic,
// a model already rewritten when it was exported), and building the plan-local view
// (RewriteGraph: a copy of every node's inputs, readers and control edges) costs about as
// much as the rest of planning. The scan reads the user's graph as it is, one pass over the
// ordered operations comparing registration pointers (no strings, no allocation per node),
// and answers with necessary conditions: `false` for a pass means that pass would leave the
// fragment unchanged; `true` only that it might.
//
// The answers hold for the fragment as pruned. Once a pass has changed it, later passes may
// find work the scan could not see (a folded constant may be neutral for arithmetic, a
// removed Identity may leave MatMul feeding BiasAdd), so each pass also has a `has_*` flag
// for the op types it looks at; no rewrite makes ops of those types, so they stay valid.
#pragma once

#include <cstdint>

#include "core/rewrite/rewrite_graph.h"

namespace tgraph {

struct FragmentScan {
  // Could the pass change the fragment as pruned?
  bool constant_folding = false;
  bool arithmetic_optimization = false;
  bool common_subgraph_elimination = false;
  bool dependency_optimization = false;
  bool identity_removal = false;
  bool remapping = false;
  // Does the fragment hold ops of the types the pass rewrites?
  bool has_arithmetic = false;     // Mul, Add, AddV2, Sub, Neg, Transpose (Mul -> Add fuses too)
  bool has_noops = false;          // NoOp (dependency optimization looks at what they wait for)
  bool has_identities = false;     // Identity or NoOp
  bool has_fusable = false;        // MatMul, Conv2D or MaxPoolGrad

  bool Any(const RewriteOptions& o) const {
    return (o.constant_folding && constant_folding) ||
           (o.arithmetic_optimization && arithmetic_optimization) ||
           (o.common_subgraph_elimination && common_subgraph_elimination) ||
           (o.dependency_optimization && dependency_optimization) ||
           (o.identity_removal && identity_removal) || (o.remapping && remapping) ||
           (o.auto_mixed_precision && has_fusable);
  }
};

// One pass over request.ordered. The caller holds the graph's lock.
FragmentScan ScanFragment(const RewriteRequest& request);

}  // namespace tgraph
