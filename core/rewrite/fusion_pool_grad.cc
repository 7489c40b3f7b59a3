// Fusion of the max-pool gradient through a ReLU (the backward pass of Conv2D -> BiasAdd ->
// Relu -> MaxPool, as tf.gradients writes it): MaxPoolGrad -> ReluGrad becomes one
// _FusedMaxPoolGrad (core/ops/fused_ops.cc; CPU kernel in plugins/cpu/nn_backprop_pool.cc, for
// float, double and bfloat16 — mixed precision's bf16 gradients fuse too)
// that routes each window's gradient and applies the ReLU mask in one pass, and the
// BiasAddGrads of the ReluGrad's result read the fused op's second output (the per-channel
// sums it takes while writing) instead of reading the whole result again. On the CNN step
// of bench/compare that is two full passes over each layer's activations fewer.
//
// It fuses when the MaxPoolGrad's result has exactly one reader, the ReluGrad's gradients
// input, and nobody waits for it; neither is fetched or otherwise kept (Rewritable); all
// share one device request; the layout is NHWC; and the CPU has a _FusedMaxPoolGrad kernel
// for the dtype whose priority is not below either op's own kernel. The fused node takes the
// ReluGrad's place and name. A BiasAddGrad (NHWC) of the ReluGrad's result that is itself
// rewritable, on the same device, is bypassed: its readers read output 1.
#include "core/plugin/registry.h"
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// The kernel registered for `op` as it is, or null.
const KernelRegistration* OwnKernel(const Operation& op) {
  return KernelRegistry::Global()->FindOrNull(op.type(), op.attrs(), "CPU");
}

}  // namespace

int FuseMaxPoolGradients(RewriteGraph& g) {
  int count = 0;
  for (int i = 0; i < g.size(); ++i) {
    const RewriteGraph::Node& pool = g.node(i);
    if (pool.removed || pool.op->type() != "MaxPoolGrad" || !g.Rewritable(i)) continue;
    if (!IsNhwc(*pool.op)) continue;
    if (pool.num_readers != 1 || pool.num_control_readers != 0) continue;
    const auto& readers = g.Readers(i);
    if (readers.size() != 1) continue;
    const auto [relu, k] = readers.front();
    if (k != 0 || g.node(relu).op->type() != "ReluGrad" || !g.Rewritable(relu) ||
        g.Device(relu) != g.Device(i)) {
      continue;
    }
    NodeSpec spec;
    spec.type = "_FusedMaxPoolGrad";
    spec.name = g.node(relu).op->name();
    // A ReluGrad that mixed precision made (in bf16) holds that name in the scratch graph.
    if (g.scratch().FindOperation(spec.name) != nullptr) spec.name += "/fused";
    spec.device = pool.op->device();
    for (const char* name : {"T", "ksize", "strides", "padding", "explicit_paddings", "data_format"}) {
      if (const tf::AttrValue* v = pool.op->FindAttr(name)) spec.attrs[name] = *v;
    }
    // ReluGrad's features are usually MaxPoolGrad's orig_input (both Relu's output): then
    // one input, whose buffer the result may take.
    std::vector<Output> inputs = {pool.inputs[0], pool.inputs[1], pool.inputs[2]};
    const Output& features = g.node(relu).inputs[1];
    if (!(features.op == inputs[0].op && features.index == inputs[0].index)) {
      inputs.push_back(features);
    }
    spec.attrs["num_features"].set_i(static_cast<int64_t>(inputs.size()) - 3);
    const KernelRegistration* fused_kernel =
        KernelRegistry::Global()->FindOrNull(spec.type, spec.attrs, "CPU");
    if (fused_kernel == nullptr) continue;
    bool outranked = false;
    for (const KernelRegistration* own : {OwnKernel(*pool.op), OwnKernel(*g.node(relu).op)}) {
      outranked |= own != nullptr && own->priority > fused_kernel->priority;
    }
    if (outranked) continue;
    auto fused = g.NewOp(std::move(spec), inputs);
    if (!fused.ok()) continue;
    // The BiasAddGrads to bypass, found before the ReluGrad's node changes.
    std::vector<int> bias_grads;
    for (const auto& [reader, input] : g.Readers(relu)) {
      const RewriteGraph::Node& r = g.node(reader);
      if (input == 0 && r.op->type() == "BiasAddGrad" && IsNhwc(*r.op) &&
          g.Rewritable(reader) && g.Device(reader) == g.Device(relu)) {
        bias_grads.push_back(reader);
      }
    }
    std::vector<int> controls = g.node(i).controls;
    for (int c : g.node(relu).controls) controls.push_back(c);
    for (int c : std::vector<int>(g.node(i).controls)) g.RemoveControl(i, c);
    g.Replace(relu, *fused, inputs, controls);
    g.Remove(i);
    for (int b : bias_grads) g.Bypass(b, 0, Output{*fused, 1});
    ++count;
  }
  return count;
}

// The pool-index rewrite after the gradient fusion, whose _FusedMaxPoolGrad it looks for.
int Remap(RewriteGraph& g) {
  // Pads first: the fused convolution then takes the padding with the rest.
  return FoldPadsIntoConvolutions(g) + FuseContractions(g) + FuseChannelAffine(g) +
         FuseMaxPoolGradients(g) + UseMaxPoolIndices(g);
}

}  // namespace tgraph
