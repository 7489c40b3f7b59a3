// Dependency optimization: work that only feeds control edges into NoOps is not needed.
// TensorFlow's gradient tuples (tf.tuple / group_deps) make a NoOp wait for every gradient
// of an op, then hand each gradient on through an Identity that waits for the NoOp; when one
// of those gradients is not needed (the gradient with respect to a fed input `x`), the NoOp
// still makes it run. A control edge from a stateless node into a NoOp orders nothing with
// an effect: the node has none, and the NoOp has none of its own. So a stateless node that
// nothing reads and that only NoOps wait for (NoOps that are not targets or fetched) is
// dropped with those edges; what it alone needed goes with it.
#include "core/rewrite/passes.h"

namespace tgraph {

int OptimizeDependencies(RewriteGraph& g) {
  int count = 0;
  // Reverse order: dropping a node may leave its producers (earlier) in the same position.
  for (int i = g.size() - 1; i >= 0; --i) {
    if (!g.Rewritable(i, RewriteGraph::kMayBeColocated)) continue;
    RewriteGraph::Node& n = g.node(i);
    if (n.num_readers != 0 || n.num_control_readers == 0 || n.op->type() == "NoOp") continue;
    bool only_noops = true;
    for (int w : g.ControlReaders(i)) {
      const RewriteGraph::Node& waiter = g.node(w);
      only_noops = only_noops && waiter.op->type() == "NoOp" && !waiter.fetched;
    }
    if (!only_noops) continue;
    for (int w : std::vector<int>(g.ControlReaders(i))) g.RemoveControl(w, i);
    g.Remove(i);
    ++count;
  }
  return count;  // what only the dropped nodes needed is dead now (RewriteFragment removes it)
}

}  // namespace tgraph
