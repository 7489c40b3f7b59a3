#include "core/rewrite/rewriter.h"

#include "core/exec/execution_plan.h"
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
  RewriteGraph g(request);
  auto out = std::make_unique<RewrittenFragment>();
  RewrittenFragment::Counts& counts = out->counts;
  // TensorFlow's order: values first (folding, simplification, merging), then what only
  // orders, then fusion over what is left.
  // After each pass, what only the nodes it removed had needed goes.
  auto pass = [&](bool on, int (*run)(RewriteGraph&), int* count) {
    if (!on) return;
    *count = run(g);
    counts.dead += g.RemoveDead();
  };
  pass(o.constant_folding, &FoldConstants, &counts.constant_folding);
  pass(o.arithmetic_optimization, &SimplifyArithmetic, &counts.arithmetic_optimization);
  pass(o.common_subgraph_elimination, &EliminateCommonSubexpressions, &counts.common_subgraph_elimination);
  pass(o.dependency_optimization, &OptimizeDependencies, &counts.dependency_optimization);
  pass(o.identity_removal, &RemoveIdentities, &counts.identity_removal);
  pass(o.remapping, &FuseContractions, &counts.remapping);
  if (!g.changed()) return std::unique_ptr<RewrittenFragment>();

  out->scratch = g.TakeScratch();
  out->kernels = std::make_unique<KernelCache>();
  for (int i = 0; i < g.size(); ++i) {
    const RewriteGraph::Node& n = g.node(i);
    if (n.removed) continue;
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
