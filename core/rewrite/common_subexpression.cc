// Common-subexpression elimination: two stateless nodes with the same op type, inputs,
// control inputs, attrs and device request compute the same values, so the later one's
// readers can read the earlier one (which comes first in the order, so the order stays
// valid). TensorFlow's gradient graphs repeat shape computations and constants often.
#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// Constants above this are not compared (hashing a large value costs more than it saves).
constexpr size_t kMaxConstantBytes = 64 << 10;

void AppendBytes(std::string* key, const void* p, size_t n) {
  key->append(static_cast<const char*>(p), n);
}

// Every property that decides the node's values, as one string.
bool Signature(const RewriteGraph& g, int i, std::string* key) {
  const RewriteGraph::Node& n = g.node(i);
  const Operation& op = *n.op;
  if (op.num_outputs() == 0) return false;  // NoOps only order
  if (op.constant_value() != nullptr && op.constant_value()->ByteSize() > kMaxConstantBytes) return false;
  key->clear();
  key->append(op.type()).push_back('\0');
  key->append(op.device()).push_back('\0');
  for (const Output& in : n.inputs) {
    const Operation* p = in.op;
    AppendBytes(key, &p, sizeof(p));
    AppendBytes(key, &in.index, sizeof(in.index));
  }
  key->push_back('\0');
  std::vector<int> controls = n.controls;
  std::sort(controls.begin(), controls.end());
  for (int c : controls) AppendBytes(key, &c, sizeof(c));
  key->push_back('\0');
  for (const auto& [name, value] : op.attrs()) {
    key->append(name).push_back('=');
    std::string bytes;
    if (!value.SerializeToString(&bytes)) return false;
    key->append(std::to_string(bytes.size())).push_back(':');
    key->append(bytes);
  }
  return true;
}

}  // namespace

int EliminateCommonSubexpressions(RewriteGraph& g) {
  int count = 0;
  std::unordered_map<std::string, int> first;
  std::string key;
  for (int i = 0; i < g.size(); ++i) {
    // A fetched node may be the one that stays, never the one that goes.
    if (!g.Rewritable(i, RewriteGraph::kMayBeFetched) || !Signature(g, i, &key)) continue;
    auto [it, inserted] = first.emplace(key, i);
    if (inserted) continue;
    const int kept = it->second;
    if (g.node(kept).removed) {  // replaced meanwhile: this one takes its place
      it->second = i;
      continue;
    }
    if (!g.Rewritable(i)) continue;
    Operation* kept_op = g.node(kept).op;
    for (int k = 0; k < g.node(i).op->num_outputs(); ++k) g.Bypass(i, k, Output{kept_op, k});
    g.Remove(i);
    ++count;
  }
  return count;
}

}  // namespace tgraph
