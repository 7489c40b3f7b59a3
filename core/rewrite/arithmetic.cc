// Arithmetic simplification: ops that return one of their inputs unchanged are bypassed.
//   Mul(x, 1), Mul(1, x), Add/AddV2(x, 0), Add/AddV2(0, x), Sub(x, 0) -> x, when the constant
//     is all ones / zeros and does not broadcast x to another shape (a scalar, or the op's
//     static shape is x's and fully known);
//   Neg(Neg(x)) -> x;
//   Transpose(Transpose(x, p), q) -> x when both permutations are constants and q∘p is the
//     identity;
// then constant scales and offsets per channel go into the contraction before them
// (fold_affine.cc).
// (x + 0 turns -0 into +0 where x is -0; TensorFlow's arithmetic optimizer makes the same trade.)
#include <cstring>

#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// The Const value behind input k of node i, or null.
const Tensor* ConstantInput(const RewriteGraph& g, int i, int k) {
  const int p = g.Producer(g.node(i).inputs[static_cast<size_t>(k)]);
  if (p < 0) return nullptr;
  const Operation& op = *g.node(p).op;
  return op.type() == "Const" ? op.constant_value() : nullptr;
}

template <typename T>
bool AllEqual(const Tensor& t, T v) {
  const T* p = static_cast<const T*>(t.data());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (!(p[i] == v)) return false;
  }
  return true;
}

}  // namespace

bool AllElementsEqual(const Tensor& t, int v) {
  if (t.NumElements() == 0) return false;
  switch (t.dtype()) {
    case DT_FLOAT: return AllEqual<float>(t, static_cast<float>(v));
    case DT_DOUBLE: return AllEqual<double>(t, static_cast<double>(v));
    case DT_INT32: return AllEqual<int32_t>(t, v);
    case DT_INT64: return AllEqual<int64_t>(t, v);
    default: return false;
  }
}

namespace {

// The permutation a constant int32/int64 tensor holds.
bool Permutation(const Tensor& t, std::vector<int64_t>* perm) {
  perm->clear();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (t.dtype() == DT_INT32) {
      perm->push_back(static_cast<const int32_t*>(t.data())[i]);
    } else if (t.dtype() == DT_INT64) {
      perm->push_back(static_cast<const int64_t*>(t.data())[i]);
    } else {
      return false;
    }
  }
  return true;
}

// Is x (input `keep` of node i) what the op returns, shape included, when the other input
// is the neutral constant?
bool SameShapeAsResult(const RewriteGraph& g, int i, int keep, const Tensor& constant) {
  const Operation& op = *g.node(i).op;
  const Output& x = g.node(i).inputs[static_cast<size_t>(keep)];
  if (BaseType(x.dtype()) != BaseType(op.output_type(0))) return false;
  if (constant.dims().empty()) return true;  // a scalar never broadcasts x
  const PartialShape& out = op.output_shape(0);
  return out.IsFullyDefined() && x.shape().IsFullyDefined() && out.dims() == x.shape().dims();
}

// The input that node i returns unchanged, or -1.
int NeutralOperand(const RewriteGraph& g, int i) {
  const std::string& type = g.node(i).op->type();
  int neutral = -1;
  bool commutes = true;
  if (type == "Mul") {
    neutral = 1;
  } else if (type == "Add" || type == "AddV2") {
    neutral = 0;
  } else if (type == "Sub") {
    neutral = 0;
    commutes = false;
  } else {
    return -1;
  }
  for (int c = 1; c >= (commutes ? 0 : 1); --c) {
    const Tensor* constant = ConstantInput(g, i, c);
    if (constant != nullptr && AllElementsEqual(*constant, neutral) && SameShapeAsResult(g, i, 1 - c, *constant)) {
      return 1 - c;
    }
  }
  return -1;
}

// Node i's input as it reaches through a node of type `type` (its input 0), or -1.
int InnerOfType(const RewriteGraph& g, int i, const char* type) {
  const int p = g.Producer(g.node(i).inputs[0]);
  if (p < 0 || g.node(p).op->type() != type || g.node(p).removed) return -1;
  if (g.Device(p) != g.Device(i)) return -1;
  return p;
}

bool TransposesCancel(const RewriteGraph& g, int outer, int inner) {
  const Tensor* p = ConstantInput(g, inner, 1);
  const Tensor* q = ConstantInput(g, outer, 1);
  std::vector<int64_t> pp, qq;
  if (p == nullptr || q == nullptr || !Permutation(*p, &pp) || !Permutation(*q, &qq) ||
      pp.size() != qq.size()) {
    return false;
  }
  // y = transpose(x, p): y[d] = x[p[d]]; z = transpose(y, q): z[d] = y[q[d]] = x[p[q[d]]].
  for (size_t d = 0; d < qq.size(); ++d) {
    if (qq[d] < 0 || qq[d] >= static_cast<int64_t>(pp.size())) return false;
    if (pp[static_cast<size_t>(qq[d])] != static_cast<int64_t>(d)) return false;
  }
  return true;
}

}  // namespace

int SimplifyArithmetic(RewriteGraph& g) {
  int count = 0;
  for (int i = 0; i < g.size(); ++i) {
    if (!g.Rewritable(i, RewriteGraph::kMayBeColocated)) continue;
    const std::string& type = g.node(i).op->type();
    Output replacement{nullptr, 0};
    if (const int keep = NeutralOperand(g, i); keep >= 0) {
      replacement = g.node(i).inputs[static_cast<size_t>(keep)];
    } else if (type == "Neg") {
      const int inner = InnerOfType(g, i, "Neg");
      if (inner >= 0) replacement = g.node(inner).inputs[0];
    } else if (type == "Transpose") {
      const int inner = InnerOfType(g, i, "Transpose");
      if (inner >= 0 && TransposesCancel(g, i, inner)) replacement = g.node(inner).inputs[0];
    }
    if (replacement.op == nullptr) continue;
    const int producer = g.Producer(replacement);
    if (producer >= 0 && g.Device(producer) != g.Device(i)) continue;
    // The bypassed inner op's control inputs ordered the value too.
    if (type == "Neg" || type == "Transpose") {
      const int inner = g.Producer(g.node(i).inputs[0]);
      for (int c : std::vector<int>(g.node(inner).controls)) g.AddControl(i, c);
    }
    g.Bypass(i, 0, replacement);
    g.Remove(i);
    ++count;
  }
  return count + FoldAffineIntoContractions(g);
}

}  // namespace tgraph
