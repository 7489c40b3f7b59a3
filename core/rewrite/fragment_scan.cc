#include "core/rewrite/fragment_scan.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <unordered_set>

#include "core/ops/op_registry.h"
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// The registrations of the op types the passes look at, found once per scan: comparing a
// node's registration pointer is the per-node test (registrations never move).
struct Types {
  explicit Types(const OpRegistry& r)
      : konst(r.Find("Const")), noop(r.Find("NoOp")), identity(r.Find("Identity")),
        identity_n(r.Find("IdentityN")),
        mul(r.Find("Mul")), add(r.Find("Add")), add_v2(r.Find("AddV2")), sub(r.Find("Sub")),
        neg(r.Find("Neg")), transpose(r.Find("Transpose")), matmul(r.Find("MatMul")),
        conv2d(r.Find("Conv2D")), depthwise(r.Find("DepthwiseConv2dNative")),
        bias_add(r.Find("BiasAdd")),
        max_pool_grad(r.Find("MaxPoolGrad")), relu_grad(r.Find("ReluGrad")), pad(r.Find("Pad")),
        relu(r.Find("Relu")), relu6(r.Find("Relu6")), reshape(r.Find("Reshape")) {}
  const OpRegistration *konst, *noop, *identity, *identity_n, *mul, *add, *add_v2, *sub, *neg, *transpose,
      *matmul, *conv2d, *depthwise, *bias_add, *max_pool_grad, *relu_grad, *pad, *relu, *relu6, *reshape;
};

// The same mixing as common_subexpression.cc: keys only need to collide when nodes are equal.
uint64_t Mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull + (h >> 29); }

const OpRegistration* ProducerType(const Output& o) { return &o.op->registration(); }

// A Const input holding `neutral` in every element (what arithmetic.cc bypasses).
bool NeutralConstant(const Types& t, const Output& in, int neutral) {
  if (ProducerType(in) != t.konst || in.op->constant_value() == nullptr) return false;
  return AllElementsEqual(*in.op->constant_value(), neutral);
}

bool MayFold(const Types& t, const Operation& op) {
  if (op.num_outputs() != 1 || op.inputs().empty() || &op.registration() == t.konst) return false;
  for (const Output& in : op.inputs()) {
    if (ProducerType(in) != t.konst) return false;
  }
  return true;
}

// A Const `constant` combined with the value `in` of one of `producers` (what fold_affine.cc
// folds into a contraction's weights or bias).
bool MayFoldInto(const Types& t, const Output& constant, const Output& in,
                 std::initializer_list<const OpRegistration*> producers) {
  if (ProducerType(constant) != t.konst) return false;
  for (const OpRegistration* p : producers) {
    if (ProducerType(in) == p) return true;
  }
  return false;
}

bool MaySimplify(const Types& t, const Operation& op, const OpRegistration* type) {
  const std::vector<Output>& in = op.inputs();
  if (in.empty()) return false;
  if (type == t.mul && in.size() == 2) {
    return NeutralConstant(t, in[0], 1) || NeutralConstant(t, in[1], 1) ||
           MayFoldInto(t, in[0], in[1], {t.bias_add, t.conv2d, t.depthwise, t.matmul}) ||
           MayFoldInto(t, in[1], in[0], {t.bias_add, t.conv2d, t.depthwise, t.matmul});
  }
  if ((type == t.add || type == t.add_v2) && in.size() == 2) {
    return NeutralConstant(t, in[0], 0) || NeutralConstant(t, in[1], 0) ||
           MayFoldInto(t, in[0], in[1], {t.bias_add, t.conv2d, t.depthwise, t.matmul}) ||
           MayFoldInto(t, in[1], in[0], {t.bias_add, t.conv2d, t.depthwise, t.matmul});
  }
  if (type == t.sub && in.size() == 2) {
    return NeutralConstant(t, in[1], 0) ||
           MayFoldInto(t, in[1], in[0], {t.bias_add, t.conv2d, t.depthwise, t.matmul});
  }
  if (type == t.neg || type == t.transpose) return ProducerType(in[0]) == type;
  return false;
}

// Does output 0 of `op` have a reader of type `next` (a contraction's BiasAdd or Add, a
// MaxPoolGrad's ReluGrad)?
bool MayFuse(const Operation& op, const OpRegistration* next) {
  if (op.num_outputs() == 0) return false;
  for (const Input& reader : op.consumers(0)) {
    if (&reader.op->registration() == next) return true;
  }
  return false;
}

// A key equal for any two nodes that common-subexpression elimination could merge, or 0 for
// a node that cannot have an equal: one reading a tensor that nothing else in the graph reads
// (a chain link) has none, and needs no hashing at all.
uint64_t MergeKey(const Operation& op) {
  if (op.num_outputs() == 0) return 0;  // NoOps are not merged
  uint64_t h = Mix(0x9E3779B97F4A7C15ull, reinterpret_cast<uintptr_t>(&op.registration()));
  if (op.inputs().empty()) {
    // Constants (and other source ops): their values tell them apart; a cheap prefix will do.
    if (const Tensor* value = op.constant_value()) {
      h = Mix(h, static_cast<uint64_t>(value->dtype()));
      h = Mix(h, static_cast<uint64_t>(value->NumElements()));
      if (value->dtype() != DT_STRING && value->data() != nullptr) {
        const size_t n = std::min<size_t>(value->ByteSize(), 256);
        h = Mix(h, std::hash<std::string_view>()(std::string_view(static_cast<const char*>(value->data()), n)));
      }
    }
    return h | 1;
  }
  for (const Output& in : op.inputs()) {
    if (in.op->consumers(in.index).size() < 2) return 0;
    h = Mix(h, reinterpret_cast<uintptr_t>(in.op));
    h = Mix(h, static_cast<uint64_t>(in.index));
  }
  return h | 1;
}

}  // namespace

FragmentScan ScanFragment(const RewriteRequest& request) {
  FragmentScan scan;
  const Types t(request.graph->registry());
  std::unordered_set<const Operation*> kept;  // fetched or targets: never removed
  for (const Output& o : request.fetches) kept.insert(o.op);
  for (const Operation* op : request.targets) kept.insert(op);
  std::unordered_set<uint64_t> merge_keys;
  for (const Operation* op : *request.ordered) {
    if (op->is_stateful()) continue;  // no pass rewrites a stateful node
    const OpRegistration* type = &op->registration();
    if (type == t.noop) {
      scan.has_noops = scan.has_identities = true;
      scan.dependency_optimization |= !op->control_inputs().empty();
      scan.identity_removal |= kept.count(op) == 0;
      continue;
    }
    if (type == t.identity || type == t.identity_n) {
      scan.has_identities = true;
      scan.identity_removal |= kept.count(op) == 0;
    } else if (type == t.mul || type == t.add || type == t.add_v2 || type == t.sub || type == t.neg ||
               type == t.transpose) {
      scan.has_arithmetic = true;
      scan.arithmetic_optimization |= !scan.arithmetic_optimization && MaySimplify(t, *op, type);
      // A constant scale, then an offset (fusion_affine.cc).
      scan.remapping |= !scan.remapping && type == t.mul && op->inputs().size() == 2 &&
                        (ProducerType(op->inputs()[0]) == t.konst || ProducerType(op->inputs()[1]) == t.konst) &&
                        (MayFuse(*op, t.add) || MayFuse(*op, t.add_v2));
    } else if (type == t.matmul || type == t.conv2d || type == t.depthwise) {
      scan.has_fusable = true;
      // Its bias added by BiasAdd, or by Add / AddV2 (fusion.cc: a bias-semantic add), or
      // no bias before a Relu(6), or a MatMul's product reshaped before its bias; its input
      // padded by a Pad (fusion_pad.cc).
      scan.remapping |= !scan.remapping && (MayFuse(*op, t.bias_add) || MayFuse(*op, t.add_v2) ||
                                            MayFuse(*op, t.add) || MayFuse(*op, t.relu) ||
                                            MayFuse(*op, t.relu6) ||
                                            (type == t.matmul && MayFuse(*op, t.reshape)) ||
                                            (type != t.matmul && ProducerType(op->inputs()[0]) == t.pad));
    } else if (type == t.max_pool_grad) {
      scan.has_fusable = true;
      scan.remapping |= !scan.remapping && MayFuse(*op, t.relu_grad);
    }
    if (!scan.constant_folding && MayFold(t, *op)) scan.constant_folding = true;
    if (!scan.common_subgraph_elimination) {
      if (const uint64_t key = MergeKey(*op); key != 0 && !merge_keys.insert(key).second) {
        scan.common_subgraph_elimination = true;
      }
    }
  }
  return scan;
}

}  // namespace tgraph
