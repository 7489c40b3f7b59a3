// Common-subexpression elimination: two stateless nodes with the same op type, inputs,
// control inputs, attrs and device request compute the same values, so the later one's
// readers can read the earlier one (which comes first in the order, so the order stays
// valid). TensorFlow's gradient graphs repeat shape computations and constants often.
//
// Nodes are bucketed by a hash of their type, device, inputs and control inputs; attrs are
// only compared (serialized) within a bucket, so a large graph of distinct nodes pays a
// hash per node and nothing more.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// Constants above this are not compared (comparing a large value costs more than it saves).
constexpr size_t kMaxConstantBytes = 64 << 10;

uint64_t Mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull + (h >> 29); }

bool Candidate(const RewriteGraph& g, int i) {
  const Operation& op = *g.node(i).op;
  if (op.num_outputs() == 0) return false;  // NoOps only order
  return op.constant_value() == nullptr || op.constant_value()->ByteSize() <= kMaxConstantBytes;
}

uint64_t Hash(const RewriteGraph& g, int i) {
  const RewriteGraph::Node& n = g.node(i);
  uint64_t h = Mix(0x9E3779B97F4A7C15ull, reinterpret_cast<uintptr_t>(&n.op->registration()));
  h = Mix(h, std::hash<std::string>()(n.op->device()));
  for (const Output& in : n.inputs) {
    h = Mix(h, reinterpret_cast<uintptr_t>(in.op));
    h = Mix(h, static_cast<uint64_t>(in.index));
  }
  std::vector<int> controls = n.controls;
  std::sort(controls.begin(), controls.end());
  for (int c : controls) h = Mix(h, static_cast<uint64_t>(c) + 1);
  return h;
}

bool SameAttrs(const Operation& a, const Operation& b) {
  if (a.attrs().size() != b.attrs().size()) return false;
  std::string x, y;
  for (auto ia = a.attrs().begin(), ib = b.attrs().begin(); ia != a.attrs().end(); ++ia, ++ib) {
    if (ia->first != ib->first) return false;
    if (!ia->second.SerializeToString(&x) || !ib->second.SerializeToString(&y) || x != y) return false;
  }
  return true;
}

bool Same(const RewriteGraph& g, int a, int b) {
  const RewriteGraph::Node& x = g.node(a);
  const RewriteGraph::Node& y = g.node(b);
  if (x.op->type() != y.op->type() || x.op->device() != y.op->device() || !(x.inputs == y.inputs)) {
    return false;
  }
  std::vector<int> cx = x.controls, cy = y.controls;
  std::sort(cx.begin(), cx.end());
  std::sort(cy.begin(), cy.end());
  return cx == cy && SameAttrs(*x.op, *y.op);
}

}  // namespace

int EliminateCommonSubexpressions(RewriteGraph& g) {
  int count = 0;
  // Buckets as chains through `next` (one allocation for the graph, not one per node).
  std::unordered_map<uint64_t, int> head;
  head.reserve(static_cast<size_t>(g.size()));
  std::vector<int> next(static_cast<size_t>(g.size()), -1);
  for (int i = 0; i < g.size(); ++i) {
    // A fetched node may be the one that stays, never the one that goes.
    if (!g.Rewritable(i, RewriteGraph::kMayBeFetched) || !Candidate(g, i)) continue;
    auto [it, inserted] = head.emplace(Hash(g, i), i);
    if (inserted) continue;
    int kept = -1;
    for (int b = it->second; b >= 0; b = next[static_cast<size_t>(b)]) {
      if (!g.node(b).removed && Same(g, b, i)) {
        kept = b;
        break;
      }
    }
    if (kept < 0 || !g.Rewritable(i)) {
      next[static_cast<size_t>(i)] = it->second;
      it->second = i;
      continue;
    }
    Operation* kept_op = g.node(kept).op;
    for (int k = 0; k < g.node(i).op->num_outputs(); ++k) g.Bypass(i, k, Output{kept_op, k});
    g.Remove(i);
    ++count;
  }
  return count;
}

}  // namespace tgraph
