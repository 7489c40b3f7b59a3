// Fusion (TensorFlow's remapper): MatMul, Conv2D or DepthwiseConv2dNative + BiasAdd (+ an
// activation) become one _FusedMatMul / _FusedConv2D / _FusedDepthwiseConv2dNative with
// fused_ops ["BiasAdd"] or ["BiasAdd", A], A one of Relu, Relu6, Elu, LeakyRelu (its alpha
// as leakyrelu_alpha) or swish, Mul(y, Sigmoid(y)) in either order (TF's oneDNN build's
// "_MklSwish": EfficientNet's activation, which Keras writes so) or GELU as tf.nn.gelu writes
// it, 0.5 * y * Erfc(-y * 1/sqrt(2)) (TF's oneDNN build's "GeluExact": ConvNeXt's and
// Transformers' activation);
// Conv2D + BiasAdd + Add (+ A), the Add's other operand a float tensor of the convolution's
// fully known shape (a residual connection), becomes _FusedConv2D ["BiasAdd", "Add"(, A)]
// with that operand as its second arg, as TensorFlow's oneDNN build fuses it
// (core/ops/fused_ops.cc; kernels in plugins/cpu/fused_contraction_ops.cc and, with the
// bias and activation inside the product's primitive, plugins/onednn), which writes the
// product once, biased and activated.
//
// The bias may also be added by Add / AddV2 (TensorFlow's remapper calls it a bias-semantic
// add: `tf.matmul(x, w) + b`, as TF1 scripts write a dense layer): the product on one side
// and, on the other, a vector whose static shape is [N], N the product's known last dim, the
// sum's static shape the product's (so nothing else broadcasts); x + b is then BiasAdd(x, b)
// element for element.
//
// A MatMul whose product is reshaped before its bias (a Dense layer over a tensor of rank >
// 2: Tensordot's Reshape -> MatMul -> Reshape back -> BiasAdd) fuses too when the Reshape
// keeps the product's last dim N (so each row of N values stays one row, and the bias lines
// up): the fused op computes the product, biased and activated, in its [M, N] shape, and a
// Reshape to the old shape takes the last op's place.
//
// A chain fuses when every intermediate value has exactly one reader (the next op of the
// chain) besides Shape ops (autodiff's gradient of an Add reads the shape of its inputs;
// they read the fused op's output instead, which has the same shape, when they run after
// it) and nobody waits for it, no member is fetched or otherwise kept (Rewritable), all
// share one device request, the layout is NHWC, and the CPU has a kernel for the fused op
// with those attrs whose priority is not below that of the contraction's own kernel. The
// fused node takes the last op's place and name, reads the contraction's inputs and the
// bias, and waits for what any member waited for.
#include "core/plugin/registry.h"
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// The readers (node, input index) of node i's single output that are not Shape ops on its
// device, which go to `shapes`; none when something waits for i or it has other outputs.
std::vector<std::pair<int, int>> ValueReaders(RewriteGraph& g, int i,
                                              std::vector<std::pair<int, int>>* shapes) {
  const RewriteGraph::Node& n = g.node(i);
  if (n.num_control_readers != 0 || n.op->num_outputs() != 1) return {};
  std::vector<std::pair<int, int>> readers;
  for (const auto& [reader, input] : g.Readers(i)) {
    if (g.node(reader).op->type() == "Shape" && g.Device(reader) == g.Device(i)) {
      shapes->emplace_back(reader, input);
    } else {
      readers.emplace_back(reader, input);
    }
  }
  return readers;
}

}  // namespace

int SoleValueReader(RewriteGraph& g, int i, const std::vector<const char*>& types, int* k,
                    std::vector<std::pair<int, int>>* shapes) {
  const std::vector<std::pair<int, int>> readers = ValueReaders(g, i, shapes);
  if (readers.size() != 1) return -1;
  const auto [found, input] = readers.front();
  if (!g.Rewritable(found) || g.Device(found) != g.Device(i)) return -1;
  const std::string& type = g.node(found).op->type();
  for (const char* t : types) {
    if (type == t) {
      *k = input;
      return found;
    }
  }
  return -1;
}

namespace {

// Is `sum` (an Add / AddV2 reading the product `product` as its input `k`) a bias-semantic
// add: its other input a vector of the product's known last dim, its static shape the
// product's? The bias, or an empty Output.
Output BiasOfAdd(const RewriteGraph& g, int sum, int k, const Operation& product) {
  const Output& bias = g.node(sum).inputs[static_cast<size_t>(1 - k)];
  const PartialShape& p = product.output_shape(0);
  const PartialShape& b = bias.shape();
  if (!p.known_rank() || p.rank() < 1 || !b.known_rank() || b.rank() != 1) return Output{};
  const int64_t n = p.dim(p.rank() - 1);
  if (n < 0 || b.dim(0) != n) return Output{};
  if (!(g.node(sum).op->output_shape(0) == p)) return Output{};
  return bias;
}

// The activations a fused op may end with (fused_epilogue.h in plugins/cpu).
const std::vector<const char*> kActivations = {"Relu", "Relu6", "Elu", "LeakyRelu"};

// Swish of node i's value y: a Mul of y and Sigmoid(y) (either order), when y has just those
// two readers besides Shape ops (which go to `shapes`) and the Sigmoid only the Mul, nobody
// waits for either, both rewritable and on i's device. The Mul's index (*sigmoid the
// Sigmoid's), or -1.
int SwishReader(RewriteGraph& g, int i, int* sigmoid, std::vector<std::pair<int, int>>* shapes) {
  std::vector<std::pair<int, int>> own_shapes;
  const std::vector<std::pair<int, int>> readers = ValueReaders(g, i, &own_shapes);
  if (readers.size() != 2) return -1;
  for (int first = 0; first < 2; ++first) {
    const int s = readers[static_cast<size_t>(first)].first;
    const int m = readers[static_cast<size_t>(1 - first)].first;
    if (g.node(s).op->type() != "Sigmoid" || g.node(m).op->type() != "Mul") continue;
    const RewriteGraph::Node& sn = g.node(s);
    if (sn.num_control_readers != 0 || sn.num_readers != 1 || g.Readers(s).front().first != m) continue;
    const std::vector<Output>& in = g.node(m).inputs;
    const bool pair = (g.Producer(in[0]) == i && g.Producer(in[1]) == s) ||
                      (g.Producer(in[0]) == s && g.Producer(in[1]) == i);
    if (!pair) continue;
    bool ok = true;
    for (int member : {s, m}) ok = ok && g.Rewritable(member) && g.Device(member) == g.Device(i);
    if (!ok) continue;
    *sigmoid = s;
    shapes->insert(shapes->end(), own_shapes.begin(), own_shapes.end());
    return m;
  }
  return -1;
}

// Is input k of node i a float constant holding the one value v (a scalar, or one element)?
bool ScalarConstantIs(const RewriteGraph& g, int i, int k, float v) {
  const Tensor* c = FloatConstant(g, i, k);
  return c != nullptr && c->NumElements() == 1 && static_cast<const float*>(c->data())[0] == v;
}

// The sole reader of node j's value when it is a rewritable `type` on node i's device that
// nobody waits for, and j itself has no control readers, else -1. *k: the input it reads j at.
int OnlyReader(RewriteGraph& g, int j, int i, const char* type, int* k) {
  const RewriteGraph::Node& n = g.node(j);
  if (n.num_control_readers != 0 || n.num_readers != 1) return -1;
  const auto [r, input] = g.Readers(j).front();
  if (g.node(r).op->type() != type || !g.Rewritable(r) || g.Device(r) != g.Device(i)) return -1;
  *k = input;
  return r;
}

// GELU of node i's value y as tf.nn.gelu (approximate=False) writes it: y read by a Mul with
// 0.5 and a Neg (besides Shape ops, which go to `shapes`); Mul(Neg(y), 1/sqrt(2)) -> Erfc ->
// Mul(half, erfc), the constants either side of their Muls; each member read only by the
// next, nobody waiting for any, all rewritable on i's device. The last Mul's index (the
// others in *members), or -1.
int GeluReader(RewriteGraph& g, int i, std::vector<int>* members,
               std::vector<std::pair<int, int>>* shapes) {
  std::vector<std::pair<int, int>> own_shapes;
  const std::vector<std::pair<int, int>> readers = ValueReaders(g, i, &own_shapes);
  if (readers.size() != 2) return -1;
  for (int first = 0; first < 2; ++first) {
    const auto [half, half_k] = readers[static_cast<size_t>(first)];
    const int neg = readers[static_cast<size_t>(1 - first)].first;
    if (g.node(half).op->type() != "Mul" || g.node(neg).op->type() != "Neg") continue;
    if (!g.Rewritable(half) || g.Device(half) != g.Device(i) || !g.Rewritable(neg) ||
        g.Device(neg) != g.Device(i) || !ScalarConstantIs(g, half, 1 - half_k, 0.5f)) {
      continue;
    }
    int k = 0;
    const int scaled = OnlyReader(g, neg, i, "Mul", &k);
    if (scaled < 0 || !ScalarConstantIs(g, scaled, 1 - k, 0.70710677f)) continue;
    const int erfc = OnlyReader(g, scaled, i, "Erfc", &k);
    if (erfc < 0) continue;
    const int product = OnlyReader(g, erfc, i, "Mul", &k);
    int k_half = 0;
    if (product < 0 || OnlyReader(g, half, i, "Mul", &k_half) != product || k_half == k) continue;
    *members = {half, neg, scaled, erfc};
    shapes->insert(shapes->end(), own_shapes.begin(), own_shapes.end());
    return product;
  }
  return -1;
}

// Does the Reshape r of a MatMul's product [M, N] keep N as its last dim (statically known)?
bool KeepsLastDim(const RewriteGraph& g, int r, const Operation& product) {
  const PartialShape& p = product.output_shape(0);
  const PartialShape& out = g.node(r).op->output_shape(0);
  if (!p.known_rank() || p.rank() != 2 || p.dim(1) < 1) return false;
  return out.known_rank() && out.rank() >= 1 && out.dim(out.rank() - 1) == p.dim(1);
}

// Does `other` (an operand of the Add reading the biased product) have the product's fully
// known shape and float dtype, and the sum that shape too (nothing broadcasts)?
bool ResidualOperand(const RewriteGraph& g, int sum, const Output& other, const Operation& product) {
  const PartialShape& p = product.output_shape(0);
  if (!p.IsFullyDefined() || product.output_type(0) != DT_FLOAT) return false;
  if (BaseType(other.dtype()) != DT_FLOAT || !(other.shape() == p)) return false;
  return g.node(sum).op->output_shape(0) == p;
}

// The fused op's attrs, from the contraction's and the activation's (`activation` its
// fused_ops name, empty for none; `alpha` LeakyRelu's attr); `add`: a residual Add after the
// bias (_FusedConv2D only).
AttrMap FusedAttrs(const Operation& contraction, const std::string& activation,
                   const tf::AttrValue* alpha, bool add) {
  AttrMap attrs;
  const std::string& type = contraction.type();
  const std::vector<const char*> copied =
      type == "MatMul" ? std::vector<const char*>{"T", "transpose_a", "transpose_b"}
      : type == "Conv2D"
          ? std::vector<const char*>{"T", "strides", "padding", "explicit_paddings",
                                     "data_format", "dilations", "use_cudnn_on_gpu"}
          : std::vector<const char*>{"T", "strides", "padding", "explicit_paddings",
                                     "data_format", "dilations"};
  for (const char* name : copied) {
    if (const tf::AttrValue* v = contraction.FindAttr(name)) attrs[name] = *v;
  }
  if (type == "Conv2D") {
    attrs["TArgs"].mutable_list()->add_type(attrs["T"].type());
    if (add) attrs["TArgs"].mutable_list()->add_type(attrs["T"].type());
  }
  attrs["num_args"].set_i(add ? 2 : 1);
  auto* ops = attrs["fused_ops"].mutable_list();
  ops->add_s("BiasAdd");
  if (add) ops->add_s("Add");
  if (!activation.empty()) {
    ops->add_s(activation);
    if (alpha != nullptr) attrs["leakyrelu_alpha"] = *alpha;  // LeakyRelu's slope
  }
  return attrs;
}

}  // namespace

std::string StringAttr(const Operation& op, const char* name, const char* fallback) {
  const tf::AttrValue* v = op.FindAttr(name);
  return v == nullptr ? std::string(fallback) : v->s();
}

bool IsNhwc(const Operation& op) { return StringAttr(op, "data_format", "NHWC") == "NHWC"; }

int FuseContractions(RewriteGraph& g) {
  int count = 0;
  for (int i = 0; i < g.size(); ++i) {
    if (!g.Rewritable(i)) continue;
    const Operation& contraction = *g.node(i).op;
    const bool conv = contraction.type() == "Conv2D";
    const bool depthwise = contraction.type() == "DepthwiseConv2dNative";
    if (!conv && !depthwise && contraction.type() != "MatMul") continue;
    if ((conv || depthwise) && !IsNhwc(contraction)) continue;
    // Shape ops reading the product or the biased value: (node, input index).
    std::vector<std::pair<int, int>> shapes;
    int k = 0;
    int bias_add = SoleValueReader(g, i, {"BiasAdd", "Add", "AddV2"}, &k, &shapes);
    // MatMul -> Reshape (keeping N last) -> the bias: `reshape` (-1: none).
    int reshape = -1;
    if (bias_add < 0 && contraction.type() == "MatMul" && shapes.empty()) {
      int k_reshape = 0;
      const int r = SoleValueReader(g, i, {"Reshape"}, &k_reshape, &shapes);
      if (r >= 0 && k_reshape == 0 && shapes.empty() && KeepsLastDim(g, r, contraction)) {
        bias_add = SoleValueReader(g, r, {"BiasAdd", "Add", "AddV2"}, &k, &shapes);
        if (bias_add >= 0) reshape = r;
      }
      if (reshape < 0) {
        bias_add = -1;
        shapes.clear();
      }
    }
    // What the bias is added to: the product, or its reshaped value.
    const Operation& biased = *g.node(reshape >= 0 ? reshape : i).op;
    Output bias;
    // No bias: a Relu or Relu6 reading the product itself fuses with a bias of zeros (x + 0
    // is x, and both map -0 and +0 alike): a convolution whose batch normalization had zero
    // offsets (folded away), or one without a bias.
    int unbiased = -1;
    int64_t zero_bias = 0;  // its length
    if (bias_add < 0 && reshape < 0) {
      std::vector<std::pair<int, int>> act_shapes;
      int k_act = 0;
      unbiased = SoleValueReader(g, i, {"Relu", "Relu6"}, &k_act, &act_shapes);
      const PartialShape& p = contraction.output_shape(0);
      if (unbiased < 0 || !act_shapes.empty() || contraction.output_type(0) != DT_FLOAT ||
          !p.known_rank() || p.rank() < 1 || p.dim(p.rank() - 1) < 0) {
        continue;
      }
      zero_bias = p.dim(p.rank() - 1);
    } else if (g.node(bias_add).op->type() == "BiasAdd") {
      if (k != 0) continue;
      if (!IsNhwc(*g.node(bias_add).op)) continue;
      bias = g.node(bias_add).inputs[1];
    } else {
      bias = BiasOfAdd(g, bias_add, k, biased);
      if (bias.op == nullptr) continue;
    }
    // A residual connection after a convolution's BiasAdd: an Add of the biased value and a
    // tensor of its shape (a ResNet block's shortcut), summed by the fused op after the bias.
    int add = -1;
    Output addend;
    if (conv && bias_add >= 0 && g.node(bias_add).op->type() == "BiasAdd") {
      std::vector<std::pair<int, int>> add_shapes;
      int k_add = 0;
      const int sum = SoleValueReader(g, bias_add, {"Add", "AddV2"}, &k_add, &add_shapes);
      if (sum >= 0 && add_shapes.empty()) {
        const Output other = g.node(sum).inputs[static_cast<size_t>(1 - k_add)];
        if (ResidualOperand(g, sum, other, contraction)) {
          add = sum;
          addend = other;
        }
      }
    }
    // The activation, if any; Shape readers of the biased value count only when it fuses.
    std::vector<std::pair<int, int>> more;
    int k_act = 0;
    const int before_activation = add >= 0 ? add : bias_add;
    int relu =
        unbiased >= 0 ? unbiased : SoleValueReader(g, before_activation, kActivations, &k_act, &more);
    int sigmoid = -1;  // swish's Sigmoid, when the activation is swish (relu its Mul)
    if (relu < 0 && bias_add >= 0) {
      more.clear();  // (SwishReader collects the same Shape readers again)
      relu = SwishReader(g, before_activation, &sigmoid, &more);
    }
    std::vector<int> gelu;  // GELU's members but its last Mul (relu then)
    if (relu < 0 && bias_add >= 0) {
      more.clear();
      relu = GeluReader(g, before_activation, &gelu, &more);
    }
    if (relu >= 0) shapes.insert(shapes.end(), more.begin(), more.end());
    const int last = relu >= 0 ? relu : before_activation;
    // A Shape reader then reads the fused op's output: it must run after it.
    bool shapes_after = true;
    for (const auto& [reader, input] : shapes) shapes_after = shapes_after && reader > last;
    if (!shapes_after) continue;

    NodeSpec spec;
    spec.type = conv ? "_FusedConv2D" : depthwise ? "_FusedDepthwiseConv2dNative" : "_FusedMatMul";
    spec.name = g.node(last).op->name();
    // With a Reshape after it, the fused op is a node of its own and the Reshape takes the
    // last op's name.
    if (reshape >= 0) spec.name += "/fused_matmul";
    // An op an earlier rewrite made (mixed precision's bf16 Relu) holds that name in the
    // scratch graph already.
    if (g.scratch().FindOperation(spec.name) != nullptr) spec.name += "/fused";
    spec.device = contraction.device();
    const std::string activation = sigmoid >= 0    ? "_MklSwish"
                                   : !gelu.empty() ? "GeluExact"
                                   : relu >= 0     ? g.node(relu).op->type()
                                                   : "";
    spec.attrs = FusedAttrs(contraction, activation, relu >= 0 ? g.node(relu).op->FindAttr("alpha") : nullptr,
                            add >= 0);
    std::vector<Output> inputs = {g.node(i).inputs[0], g.node(i).inputs[1], bias};
    if (add >= 0) inputs.push_back(addend);
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
    if (unbiased >= 0) {
      auto zeros = Tensor::Allocate(DT_FLOAT, {zero_bias});
      if (!zeros.ok()) continue;
      auto z = g.InsertConstant(StrCat(contraction.name(), "/zero_bias"), *zeros, unbiased);
      if (!z.ok()) continue;
      inputs[2] = *z;
    }
    auto fused = g.NewOp(std::move(spec), inputs);
    if (!fused.ok()) continue;
    // The value the last op's readers get: the fused op's, or its Reshape's.
    Operation* result = *fused;
    std::vector<Output> result_inputs = inputs;
    if (reshape >= 0) {
      NodeSpec back;
      back.type = "Reshape";
      back.name = g.node(last).op->name();
      back.device = g.node(reshape).op->device();
      back.attrs = g.node(reshape).op->attrs();
      result_inputs = {(*fused)->output(0), g.node(reshape).inputs[1]};
      auto made = g.NewOp(std::move(back), result_inputs);
      if (!made.ok()) continue;
      result = *made;
    }
    std::vector<int> controls = g.node(i).controls;
    std::vector<int> members = {bias_add, add, sigmoid, relu, reshape};
    members.insert(members.end(), gelu.begin(), gelu.end());
    for (int member : members) {
      if (member < 0) continue;
      for (int c : g.node(member).controls) controls.push_back(c);
    }
    // Readers of the last op read the fused op (or its Reshape); the members before it go.
    members.push_back(i);
    for (int member : members) {
      if (member < 0 || member == last) continue;
      for (int c : std::vector<int>(g.node(member).controls)) g.RemoveControl(member, c);
    }
    if (reshape >= 0) {
      g.Insert(*fused, inputs, last, /*after=*/false);
      g.Replace(last, result, result_inputs, controls);
    } else {
      g.Replace(last, *fused, inputs, controls);
    }
    for (const auto& [reader, input] : shapes) g.SetInput(reader, input, result->output(0));
    // Each member once its readers are gone: GELU's from its end back.
    for (auto it = gelu.rbegin(); it != gelu.rend(); ++it) g.Remove(*it);
    if (sigmoid >= 0) g.Remove(sigmoid);
    if (add >= 0 && add != last) g.Remove(add);
    if (bias_add >= 0 && bias_add != last) g.Remove(bias_add);
    if (reshape >= 0) g.Remove(reshape);
    g.Remove(i);
    ++count;
  }
  return count;
}

}  // namespace tgraph
