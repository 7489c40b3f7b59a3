// Fusion: a constant scale and offset per channel, Mul(x, s) -> Add / AddV2(_, c), either
// operand order, and a Relu or Relu6 after it if there is one, become one
// _FusedChannelAffine(x, s, c) (core/ops/fused_ops.cc): one pass over the activations
// instead of two or three. A frozen inference graph's batch normalization leaves exactly
// that wherever no contraction comes before it to fold into (fold_affine.cc): DenseNet
// normalizes each concatenation, pre-activation ResNets each sum, before the Relu and the
// convolution.
//
// Needs: s and c float Consts without control inputs (through Identities), each a scalar or
// one value per channel of x ([C] or [1, ..., 1, C], C x's known last dim); x float; the
// Mul's and the Add's outputs of x's static shape (nothing else broadcasts); each value of
// the chain read by the next op alone, nobody waiting for it; every op rewritable and on one
// device; a CPU kernel for the fused op. The fused node takes the last op's place and name,
// reads x and new [C] Consts, and waits for what any member waited for. Its kernel rounds
// as the Mul and the Add do: the values are the unfused graph's exactly.
#include "core/plugin/registry.h"
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// The one reader of node i's output (nobody waiting for i, no Shape op reading it either)
// when it is rewritable, on i's device and of one of `types`, reading i as its input `*k`;
// else -1.
int OnlyReaderOfType(RewriteGraph& g, int i, const std::vector<const char*>& types, int* k) {
  std::vector<std::pair<int, int>> shapes;
  const int reader = SoleValueReader(g, i, types, k, &shapes);
  return shapes.empty() ? reader : -1;
}

// `c` (per channel of x, PerChannel) as a vector of `channels` values.
std::vector<float> PerChannelValues(const Tensor& c, int64_t channels) {
  std::vector<float> values(static_cast<size_t>(channels));
  for (int64_t j = 0; j < channels; ++j) values[static_cast<size_t>(j)] = Channel(c, j);
  return values;
}

}  // namespace

int FuseChannelAffine(RewriteGraph& g) {
  int count = 0;
  for (int mul = 0; mul < g.size(); ++mul) {
    if (!g.Rewritable(mul) || g.node(mul).op->type() != "Mul") continue;
    for (int k = 0; k < 2; ++k) {
      const Tensor* s = FloatConstant(g, mul, k);
      const Output x = g.node(mul).inputs[static_cast<size_t>(1 - k)];
      const PartialShape& shape = x.shape();
      if (s == nullptr || x.dtype() != DT_FLOAT || !shape.known_rank() || shape.rank() < 1) continue;
      const int64_t channels = shape.dim(shape.rank() - 1);
      if (channels < 0 || !PerChannel(*s, x, channels)) continue;
      if (!(g.node(mul).op->output_shape(0) == shape)) continue;
      int k_add = 0;
      const int add = OnlyReaderOfType(g, mul, {"Add", "AddV2"}, &k_add);
      if (add < 0) continue;
      const Tensor* c = FloatConstant(g, add, 1 - k_add);
      if (c == nullptr || !PerChannel(*c, x, channels)) continue;
      if (!(g.node(add).op->output_shape(0) == shape)) continue;
      int k_act = 0;
      const int act = OnlyReaderOfType(g, add, {"Relu", "Relu6"}, &k_act);
      const int last = act >= 0 ? act : add;

      NodeSpec spec;
      spec.type = "_FusedChannelAffine";
      spec.name = g.node(last).op->name();
      if (g.scratch().FindOperation(spec.name) != nullptr) spec.name += "/fused";
      spec.device = g.node(mul).op->device();
      spec.attrs["T"].set_type(tf::DT_FLOAT);
      spec.attrs["activation"].set_s(act >= 0 ? g.node(act).op->type() : "None");
      if (KernelRegistry::Global()->FindOrNull(spec.type, spec.attrs, "CPU") == nullptr) continue;
      const std::string prefix = StrCat(spec.name, "/channel_affine");
      auto scale = InsertFloatConstant(g, mul, prefix + "/scale", {channels}, PerChannelValues(*s, channels));
      if (!scale.ok()) continue;
      auto offset = InsertFloatConstant(g, mul, prefix + "/offset", {channels}, PerChannelValues(*c, channels));
      if (!offset.ok()) continue;  // (an unread Const goes with the dead nodes)
      const std::vector<Output> inputs = {x, *scale, *offset};
      auto fused = g.NewOp(std::move(spec), inputs);
      if (!fused.ok()) continue;
      std::vector<int> controls;
      for (int member : {mul, add, act}) {
        if (member < 0) continue;
        for (int w : g.node(member).controls) controls.push_back(w);
      }
      for (int member : {mul, add}) {
        if (member == last) continue;
        for (int w : std::vector<int>(g.node(member).controls)) g.RemoveControl(member, w);
      }
      g.Replace(last, *fused, inputs, controls);
      if (add != last) g.Remove(add);
      g.Remove(mul);
      ++count;
      break;
    }
  }
  return count;
}

}  // namespace tgraph
