// MaxPool with its winners' indices (after fusion_pool_grad.cc, in the same remapping pass):
// a MaxPool whose input and output feed a _FusedMaxPoolGrad (num_features 0: the input is
// ReluGrad's features too, as in Conv2D -> BiasAdd -> Relu -> MaxPool and its gradient)
// becomes _MaxPoolWithIndex, which writes next to each pooled value a byte coding its
// window's winner and sign, and the gradient becomes _FusedMaxPoolGradWithIndex, which reads
// those bytes (and the input's shape, through a Shape node) instead of the pool's input and
// output (core/ops/fused_ops.cc; CPU kernels in plugins/cpu/nn_pool_index.cc). The pool's
// input, the large activations of the layer, is then read once, by the pool, and its buffer
// is free from the pool on instead of being held until the backward pass reads it again.
//
// It fires when both nodes are rewritable (not fetched, fed or stateful; no colocation) on
// one device request, the input is read by the pair only (and is no fetched or fed
// tensor), the pool's attrs are the gradient's, the layout is NHWC, windows have at most 128
// pixels (the code's 7 bits), and the CPU has both kernels for the dtype at a priority not
// below the pool's and the gradient's own kernels. Everything else keeps the old ops.
#include <string>

#include "core/plugin/registry.h"
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

constexpr const char* kWindowAttrs[] = {"ksize", "strides", "padding", "explicit_paddings",
                                        "data_format"};

// Both absent, or both present and serialising alike.
bool SameWindows(const Operation& a, const Operation& b) {
  std::string x, y;
  for (const char* name : kWindowAttrs) {
    const tf::AttrValue* va = a.FindAttr(name);
    const tf::AttrValue* vb = b.FindAttr(name);
    if (va == nullptr || vb == nullptr) {
      if (va != vb) return false;
      continue;
    }
    if (!va->SerializeToString(&x) || !vb->SerializeToString(&y) || x != y) return false;
  }
  return true;
}

// At most 128 pixels per window, NHWC.
bool Supported(const Operation& pool) {
  if (!IsNhwc(pool)) return false;
  const tf::AttrValue* ksize = pool.FindAttr("ksize");
  if (ksize == nullptr || ksize->list().i_size() != 4) return false;
  const int64_t kh = ksize->list().i(1), kw = ksize->list().i(2);
  return kh > 0 && kw > 0 && kh <= 128 && kw <= 128 && kh * kw <= 128;
}

// Does output `index` of node p have exactly the readers `a` and `b` (node, any input)?
bool ReadOnlyBy(RewriteGraph& g, int p, int index, int a, int b) {
  int seen = 0;
  for (const auto& [reader, k] : g.Readers(p)) {
    if (g.node(reader).inputs[static_cast<size_t>(k)].index != index) continue;
    if (reader != a && reader != b) return false;
    ++seen;
  }
  return seen == 2;
}

// A unique name in the scratch graph, from `base`.
std::string ScratchName(RewriteGraph& g, std::string base) {
  while (g.scratch().FindOperation(base) != nullptr) base += "/index";
  return base;
}

const KernelRegistration* CpuKernel(const std::string& type, const AttrMap& attrs) {
  return KernelRegistry::Global()->FindOrNull(type, attrs, "CPU");
}

}  // namespace

int UseMaxPoolIndices(RewriteGraph& g) {
  int count = 0;
  const int size = g.size();
  for (int i = 0; i < size; ++i) {
    const RewriteGraph::Node& grad = g.node(i);
    if (grad.removed || grad.op->type() != "_FusedMaxPoolGrad" || grad.inputs.size() != 3 ||
        !g.Rewritable(i)) {
      continue;
    }
    const Output x = grad.inputs[0], pooled = grad.inputs[1];
    const int pool = g.Producer(pooled);
    if (pool < 0 || pooled.index != 0 || g.IsFed(pooled)) continue;
    const RewriteGraph::Node& p = g.node(pool);
    if (p.removed || p.anchor >= 0 || p.op->type() != "MaxPool" || !g.Rewritable(pool) ||
        g.Device(pool) != g.Device(i) || !(p.inputs[0] == x)) {
      continue;
    }
    if (!SameWindows(*p.op, *grad.op) || !Supported(*p.op) || p.op->FindAttr("T") == nullptr) {
      continue;
    }
    const int producer = g.Producer(x);
    if (producer < 0 || g.IsFed(x) || g.node(producer).fetched ||
        !ReadOnlyBy(g, producer, x.index, pool, i)) {
      continue;
    }
    // The new ops and their kernels, none outranked by the old ops' own.
    NodeSpec pool_spec;
    pool_spec.type = "_MaxPoolWithIndex";
    pool_spec.name = ScratchName(g, p.op->name());
    pool_spec.device = p.op->device();
    pool_spec.attrs["T"] = *p.op->FindAttr("T");
    for (const char* name : kWindowAttrs) {
      if (const tf::AttrValue* v = p.op->FindAttr(name)) pool_spec.attrs[name] = *v;
    }
    NodeSpec grad_spec = pool_spec;
    grad_spec.type = "_FusedMaxPoolGradWithIndex";
    grad_spec.name = ScratchName(g, grad.op->name());
    grad_spec.device = grad.op->device();
    const KernelRegistration* new_pool = CpuKernel(pool_spec.type, pool_spec.attrs);
    const KernelRegistration* new_grad = CpuKernel(grad_spec.type, grad_spec.attrs);
    const KernelRegistration* old_pool = CpuKernel("MaxPool", p.op->attrs());
    const KernelRegistration* old_grad = CpuKernel(grad.op->type(), grad.op->attrs());
    if (new_pool == nullptr || new_grad == nullptr ||
        (old_pool != nullptr && old_pool->priority > new_pool->priority) ||
        (old_grad != nullptr && old_grad->priority > new_grad->priority)) {
      continue;
    }
    NodeSpec shape_spec;
    shape_spec.type = "Shape";
    shape_spec.name = ScratchName(g, p.op->name() + "/input_shape");
    shape_spec.device = p.op->device();
    shape_spec.attrs["T"] = *p.op->FindAttr("T");
    shape_spec.attrs["out_type"].set_type(tf::DT_INT32);
    auto shape_op = g.NewOp(std::move(shape_spec), {x});
    if (!shape_op.ok()) continue;
    auto pool_op = g.NewOp(std::move(pool_spec), {x});
    if (!pool_op.ok()) continue;
    const std::vector<Output> grad_inputs = {Output{*shape_op, 0}, Output{*pool_op, 1},
                                             grad.inputs[2]};
    auto grad_op = g.NewOp(std::move(grad_spec), grad_inputs);
    if (!grad_op.ok()) continue;
    // Copies: Insert adds a node, which may move the nodes `p` and `grad` refer to.
    const std::vector<int> pool_controls = p.controls, grad_controls = grad.controls;
    // The shape right before the pool (its input is ready then; its reader comes later).
    g.Insert(*shape_op, {x}, pool, /*after=*/false);
    g.Replace(pool, *pool_op, {x}, pool_controls);
    g.Replace(i, *grad_op, grad_inputs, grad_controls);
    ++count;
  }
  return count;
}

}  // namespace tgraph
