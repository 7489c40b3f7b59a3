// Identity and NoOp removal (TensorFlow's dependency optimizer does the same). An Identity
// only passes its input on: its readers can read the input directly, provided they also wait
// for what the Identity waited for; an IdentityN likewise, each output's readers its input's
// (one that nodes wait for stays: they wait for all its inputs). A NoOp only orders: its
// waiters can wait for its control inputs directly, which is done when it does not multiply
// edges (|in| * |out| <= |in| + |out|). Both keep devices: an Identity requested on another
// device than its input's producer may be there to move the value, and stays.
#include "core/rewrite/passes.h"

namespace tgraph {

int RemoveIdentities(RewriteGraph& g) {
  int count = 0;
  for (int i = 0; i < g.size(); ++i) {
    if (!g.Rewritable(i, RewriteGraph::kMayBeColocated)) continue;
    RewriteGraph::Node& n = g.node(i);
    const std::string& type = n.op->type();
    if (type == "Identity" || type == "IdentityN") {
      if (type == "IdentityN" && n.num_control_readers != 0) continue;
      bool same_device = true;
      for (const Output& source : n.inputs) {
        const int producer = g.Producer(source);
        same_device = same_device && (producer < 0 || g.Device(producer) == g.Device(i));
      }
      if (!same_device) continue;
      const std::vector<Output> sources = n.inputs;
      for (size_t k = 0; k < sources.size(); ++k) g.Bypass(i, static_cast<int>(k), sources[k]);
      g.Remove(i);
      ++count;
    } else if (type == "NoOp") {
      const size_t in = n.controls.size(), out = static_cast<size_t>(n.num_control_readers);
      if (in * out > in + out) continue;
      g.MoveControlReaders(i, -1);
      g.Remove(i);
      ++count;
    }
  }
  return count;
}

}  // namespace tgraph
