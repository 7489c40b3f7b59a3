// Fusion (TensorFlow's remapper): MatMul + BiasAdd (+ an activation) and Conv2D + BiasAdd
// (+ an activation) become one _FusedMatMul / _FusedConv2D with fused_ops ["BiasAdd"] or
// ["BiasAdd", A], A one of Relu, Relu6, Elu, LeakyRelu (its alpha as leakyrelu_alpha)
// (core/ops/fused_ops.cc; kernels in plugins/cpu/fused_contraction_ops.cc and, with the
// bias and activation inside the product's primitive, plugins/onednn), which writes the
// product once, biased and activated.
//
// A chain fuses when every intermediate value has exactly one reader (the next op of the
// chain) and nobody waits for it, no member is fetched or otherwise kept (Rewritable), all
// share one device request, the layout is NHWC, and the CPU has a kernel for the fused op
// with those attrs whose priority is not below that of the contraction's own kernel. The
// fused node takes the last op's place and name, reads the contraction's inputs and the
// bias, and waits for what any member waited for.
#include "core/plugin/registry.h"
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// The only reader of node i's output 0, when it is input 0 of a node of type `type` and
// nothing waits for i; else -1.
int SoleReader(RewriteGraph& g, int i, const char* type) {
  const RewriteGraph::Node& n = g.node(i);
  if (n.num_readers != 1 || n.num_control_readers != 0) return -1;
  const auto& readers = g.Readers(i);
  if (readers.size() != 1) return -1;
  const auto [reader, k] = readers.front();
  if (k != 0 || g.node(reader).op->type() != type || !g.Rewritable(reader)) return -1;
  if (g.Device(reader) != g.Device(i)) return -1;
  return reader;
}

std::string StringAttr(const Operation& op, const char* name, const char* fallback) {
  const tf::AttrValue* v = op.FindAttr(name);
  return v == nullptr ? std::string(fallback) : v->s();
}

// The activations a fused op may end with (fused_epilogue.h in plugins/cpu).
constexpr const char* kActivations[] = {"Relu", "Relu6", "Elu", "LeakyRelu"};

// The fused op's attrs, from the contraction's and the activation's (null: none).
AttrMap FusedAttrs(const Operation& contraction, const Operation* activation) {
  AttrMap attrs;
  const bool conv = contraction.type() == "Conv2D";
  const char* copied_matmul[] = {"T", "transpose_a", "transpose_b"};
  const char* copied_conv[] = {"T", "strides", "padding", "explicit_paddings", "data_format",
                               "dilations", "use_cudnn_on_gpu"};
  if (conv) {
    for (const char* name : copied_conv) {
      if (const tf::AttrValue* v = contraction.FindAttr(name)) attrs[name] = *v;
    }
    attrs["TArgs"].mutable_list()->add_type(attrs["T"].type());
  } else {
    for (const char* name : copied_matmul) {
      if (const tf::AttrValue* v = contraction.FindAttr(name)) attrs[name] = *v;
    }
  }
  attrs["num_args"].set_i(1);
  auto* ops = attrs["fused_ops"].mutable_list();
  ops->add_s("BiasAdd");
  if (activation != nullptr) {
    ops->add_s(activation->type());
    if (const tf::AttrValue* alpha = activation->FindAttr("alpha")) {
      attrs["leakyrelu_alpha"] = *alpha;  // LeakyRelu's slope
    }
  }
  return attrs;
}

}  // namespace

int FuseContractions(RewriteGraph& g) {
  int count = 0;
  for (int i = 0; i < g.size(); ++i) {
    if (!g.Rewritable(i)) continue;
    const Operation& contraction = *g.node(i).op;
    const bool conv = contraction.type() == "Conv2D";
    if (!conv && contraction.type() != "MatMul") continue;
    if (conv && StringAttr(contraction, "data_format", "NHWC") != "NHWC") continue;
    const int bias_add = SoleReader(g, i, "BiasAdd");
    if (bias_add < 0) continue;
    if (StringAttr(*g.node(bias_add).op, "data_format", "NHWC") != "NHWC") continue;
    int relu = -1;  // the activation, if any
    for (const char* type : kActivations) {
      if (relu < 0) relu = SoleReader(g, bias_add, type);
    }
    const int last = relu >= 0 ? relu : bias_add;

    NodeSpec spec;
    spec.type = conv ? "_FusedConv2D" : "_FusedMatMul";
    spec.name = g.node(last).op->name();
    // An op an earlier rewrite made (mixed precision's bf16 Relu) holds that name in the
    // scratch graph already.
    if (g.scratch().FindOperation(spec.name) != nullptr) spec.name += "/fused";
    spec.device = contraction.device();
    spec.attrs = FusedAttrs(contraction, relu >= 0 ? g.node(relu).op : nullptr);
    const std::vector<Output> inputs = {g.node(i).inputs[0], g.node(i).inputs[1],
                                        g.node(bias_add).inputs[1]};
    // The attrs must be valid for the op (T among its types) and have a CPU kernel, one at
    // least as preferred as the contraction's own: a plugin that registers a faster MatMul
    // (a higher priority) and no fused kernel keeps its MatMul.
    const KernelRegistration* fused_kernel =
        KernelRegistry::Global()->FindOrNull(spec.type, spec.attrs, "CPU");
    const KernelRegistration* own_kernel =
        KernelRegistry::Global()->FindOrNull(contraction.type(), contraction.attrs(), "CPU");
    if (fused_kernel == nullptr || (own_kernel != nullptr && own_kernel->priority > fused_kernel->priority)) {
      continue;
    }
    auto fused = g.NewOp(std::move(spec), inputs);
    if (!fused.ok()) continue;
    std::vector<int> controls = g.node(i).controls;
    for (int member : {bias_add, relu}) {
      if (member < 0) continue;
      for (int c : g.node(member).controls) controls.push_back(c);
    }
    // Readers of the last op read the fused op; the members before it go.
    for (int member : {i, bias_add}) {
      if (member == last) continue;
      for (int c : std::vector<int>(g.node(member).controls)) g.RemoveControl(member, c);
    }
    g.Replace(last, *fused, inputs, controls);
    if (bias_add != last) g.Remove(bias_add);
    g.Remove(i);
    ++count;
  }
  return count;
}

}  // namespace tgraph
