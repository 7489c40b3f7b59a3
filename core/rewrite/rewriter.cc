#include "core/rewrite/rewriter.h"

#include "core/exec/execution_plan.h"
#include "core/rewrite/fragment_scan.h"
#include "core/rewrite/passes.h"

namespace tgraph {

RewrittenFragment::RewrittenFragment() = default;
RewrittenFragment::~RewrittenFragment() {
  kernels.reset();  // kernels name scratch ops
  scratch.reset();
}

StatusOr<std::unique_ptr<RewrittenFragment>> RewriteFragment(const RewriteRequest& request) {
  const RewriteOptions& o = request.options;
  if (!o.any() || request.ordered == nullptr || request.ordered->empty()) {
    return std::unique_ptr<RewrittenFragment>();
  }
  // Most fragments give no pass anything to do: a scan of the graph as it is says which
  // could, and when none can, no view is built (fragment_scan.h).
  const FragmentScan scan = ScanFragment(request);
  RewriteStats* stats = request.stats;
  if (stats != nullptr) stats->scanned_nodes += static_cast<int64_t>(request.ordered->size());
  if (!scan.Any(o)) return std::unique_ptr<RewrittenFragment>();
  RewriteGraph g(request);
  if (stats != nullptr) stats->view_nodes += g.size();
  auto out = std::make_unique<RewrittenFragment>();
  RewrittenFragment::Counts& counts = out->counts;
  // TensorFlow's order: values first (folding, simplification, merging), then what only
  // orders, then fusion over what is left.
  // A pass runs when the scan found work for it in the fragment as pruned, or, once an
  // earlier pass has changed the fragment, when it holds ops of the types the pass rewrites.
  // After each pass, what only the nodes it removed had needed goes.
  auto pass = [&](bool on, bool may_match, bool has_types, int (*run)(RewriteGraph&), int* count,
                  bool RewriteOptions::*ran) {
    if (!on || !(g.changed() ? has_types : may_match)) return;
    if (stats != nullptr) stats->ran.*ran = true;
    *count = run(g);
    counts.dead += g.RemoveDead();
  };
  pass(o.constant_folding, scan.constant_folding, true, &FoldConstants, &counts.constant_folding,
       &RewriteOptions::constant_folding);
  pass(o.arithmetic_optimization, scan.arithmetic_optimization, scan.has_arithmetic, &SimplifyArithmetic,
       &counts.arithmetic_optimization, &RewriteOptions::arithmetic_optimization);
  pass(o.common_subgraph_elimination, scan.common_subgraph_elimination, true, &EliminateCommonSubexpressions,
       &counts.common_subgraph_elimination, &RewriteOptions::common_subgraph_elimination);
  pass(o.dependency_optimization, scan.dependency_optimization, scan.has_noops, &OptimizeDependencies,
       &counts.dependency_optimization, &RewriteOptions::dependency_optimization);
  pass(o.identity_removal, scan.identity_removal, scan.has_identities, &RemoveIdentities,
       &counts.identity_removal, &RewriteOptions::identity_removal);
  // Mixed precision before fusion, as in TensorFlow: a bf16 MatMul + BiasAdd + Relu then
  // fuses into a bf16 _FusedMatMul, a bf16 Conv2D's chain into a bf16 _FusedConv2D (TF's
  // oneDNN build does that too), and MaxPoolGrad -> ReluGrad into a bf16 _FusedMaxPoolGrad.
  pass(o.auto_mixed_precision, scan.has_fusable, scan.has_fusable, &AutoMixedPrecision,
       &counts.auto_mixed_precision, &RewriteOptions::auto_mixed_precision);
  pass(o.remapping, scan.remapping, scan.has_fusable || scan.has_arithmetic, &Remap, &counts.remapping,
       &RewriteOptions::remapping);
  if (!g.changed()) return std::unique_ptr<RewrittenFragment>();

  out->scratch = g.TakeScratch();
  out->kernels = std::make_unique<KernelCache>();
  for (int i : g.RunOrder()) {
    const RewriteGraph::Node& n = g.node(i);
    out->ordered.push_back(n.op);
    out->inputs.push_back(n.inputs);
    std::vector<Operation*> controls;
    controls.reserve(n.controls.size());
    for (int c : n.controls) controls.push_back(g.node(c).op);
    out->control_inputs.push_back(std::move(controls));
  }
  return out;
}

}  // namespace tgraph
