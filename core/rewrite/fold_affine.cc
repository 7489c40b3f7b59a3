// Arithmetic optimization, part two: a constant scale or offset per output channel after a
// contraction whose weights are constants goes into those constants. A frozen inference
// graph's batch normalization leaves exactly that after every convolution or dense layer
// (Keras: conv -> BiasAdd -> Mul(scale) -> AddV2(offset) -> Relu, the scale and the offset
// folded from the moving statistics); once folded, the fusion pass turns the chain into one
// _FusedConv2D / _FusedMatMul with its activation, instead of two more passes over the
// activations per layer. TensorFlow's grappler folds the same way (its constant folding's
// MulConvPushDown, its arithmetic optimizer's FoldMultiplyIntoConv).
//   Mul(C(x, W), s)             -> C(x, W * s)
//   Mul(BiasAdd(C(x, W), b), s) -> BiasAdd(C(x, W * s), b * s)
//   Add / AddV2(BiasAdd(y, b), c), either order, and Sub(BiasAdd(y, b), c)
//                               -> BiasAdd(y, b + c), BiasAdd(y, b - c)
//   Add / AddV2(C(x, W), c), Sub(C(x, W), c)
//                               -> BiasAdd(C(x, W), c), BiasAdd(C(x, W), -c)
//     (a batch norm without a bias before it: Keras's InceptionV3 and MobileNetV2 convolve
//     without one, and their offsets are [1, 1, 1, N] Consts, which the fusion's bias-
//     semantic add, a vector, does not take)
// C a Conv2D or DepthwiseConv2dNative (NHWC: a MobileNet's depthwise layers, each followed
// by a batch norm) or a MatMul; W, b, s and c float Consts without control inputs (W only
// where it is scaled); s and c
// a scalar or one value per output channel ([N], or [1, ..., 1, N] of no higher rank than
// the value: nothing else broadcasts). Every value in the chain has the next op as its only
// reader, and every op of it may be rewritten (so none is fetched) and runs on one device.
// The folded weights are new Consts: the old ones stay for any other reader.
//
// The products round differently: x.(W s) against (x.W) s, a few ulps apart, as in
// TensorFlow.
#include "core/rewrite/passes.h"

namespace tgraph {

// The value of node i's input k when a float Const without control inputs produces it,
// directly or through Identities without any (a frozen graph's ReadVariableOp: constant
// folding leaves an Identity of a large Const, such as Xception's last 1536x2048 filter,
// and Identity removal runs after this pass).
const Tensor* FloatConstant(const RewriteGraph& g, int i, int k) {
  int p = g.Producer(g.node(i).inputs[static_cast<size_t>(k)]);
  while (p >= 0 && g.node(p).controls.empty() && g.node(p).op->type() == "Identity") {
    p = g.Producer(g.node(p).inputs[0]);
  }
  if (p < 0 || !g.node(p).controls.empty()) return nullptr;
  const Operation& op = *g.node(p).op;
  if (op.type() != "Const" || op.constant_value() == nullptr) return nullptr;
  if (op.constant_value()->dtype() != DT_FLOAT) return nullptr;
  return op.constant_value();
}

// Is `c` one value per channel of a value `y` with `channels` channels last: a scalar, or
// [1, ..., 1, channels] of no higher rank than y?
bool PerChannel(const Tensor& c, const Output& y, int64_t channels) {
  const std::vector<int64_t>& dims = c.dims();
  if (dims.empty()) return true;
  const PartialShape& shape = y.shape();
  if (!shape.known_rank() || static_cast<int64_t>(dims.size()) > shape.rank()) return false;
  for (size_t d = 0; d + 1 < dims.size(); ++d) {
    if (dims[d] != 1) return false;
  }
  return dims.back() == channels;
}

// c's value for channel j (a scalar's for every channel).
float Channel(const Tensor& c, int64_t j) {
  const float* v = static_cast<const float*>(c.data());
  return c.dims().empty() ? v[0] : v[j];
}

// A new float Const of `dims` and `values`, run right before node `anchor`; its output.
StatusOr<Output> InsertFloatConstant(RewriteGraph& g, int anchor, const std::string& name,
                             std::vector<int64_t> dims, const std::vector<float>& values) {
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::AllocateUninitialized(DT_FLOAT, std::move(dims)));
  std::copy(values.begin(), values.end(), static_cast<float*>(t.data()));
  return g.InsertConstant(name, t, anchor);
}

namespace {

// A Conv2D or DepthwiseConv2dNative (NHWC) or a MatMul: their output's channels are its
// last dim.
bool Contraction(const Operation& op) {
  return op.type() == "MatMul" ||
         ((op.type() == "Conv2D" || op.type() == "DepthwiseConv2dNative") && IsNhwc(op));
}

// Does `reader` alone read node p's value (and nobody wait for p), on p's device, with p
// rewritable?
bool OnlyReader(RewriteGraph& g, int p, int reader) {
  if (p < 0 || !g.Rewritable(p) || g.Device(p) != g.Device(reader)) return false;
  const RewriteGraph::Node& n = g.node(p);
  if (n.num_control_readers != 0 || n.op->num_outputs() != 1 || n.num_readers != 1) return false;
  return g.Readers(p).front().first == reader;
}

// Mul node i: folds its scale into the contraction (and bias) before it. Whether it did.
bool FoldScale(RewriteGraph& g, int i) {
  for (int k = 0; k < 2; ++k) {
    const Tensor* s = FloatConstant(g, i, k);
    const Output y = g.node(i).inputs[static_cast<size_t>(1 - k)];
    if (s == nullptr || y.dtype() != DT_FLOAT) continue;
    int bias_add = g.Producer(y), contraction = bias_add;
    if (bias_add >= 0 && g.node(bias_add).op->type() == "BiasAdd") {
      if (!IsNhwc(*g.node(bias_add).op) || !OnlyReader(g, bias_add, i)) continue;
      contraction = g.Producer(g.node(bias_add).inputs[0]);
      if (!OnlyReader(g, contraction, bias_add)) continue;
    } else {
      bias_add = -1;
      if (!OnlyReader(g, contraction, i)) continue;
    }
    const Operation& c = *g.node(contraction).op;
    if (!Contraction(c)) continue;
    const bool conv = c.type() != "MatMul";
    const Tensor* w = FloatConstant(g, contraction, 1);
    const Tensor* b = bias_add >= 0 ? FloatConstant(g, bias_add, 1) : nullptr;
    if (w == nullptr || (bias_add >= 0 && b == nullptr)) continue;
    const std::vector<int64_t>& wd = w->dims();
    if (wd.size() != (conv ? 4u : 2u)) continue;
    const tf::AttrValue* tb = c.FindAttr("transpose_b");
    const bool rows = !conv && tb != nullptr && tb->b();  // W is [N, K]: a channel per row
    // A depthwise filter [KH, KW, C, M] feeds output channel c * M + m from its last two
    // dims, in the order they are stored: channel e % (C * M) of element e, as Conv2D's
    // e % OC.
    const int64_t channels = rows                                   ? wd[0]
                             : c.type() == "DepthwiseConv2dNative" ? wd[2] * wd[3]
                                                                   : wd.back();
    if (!PerChannel(*s, y, channels) || (b != nullptr && b->NumElements() != channels)) continue;

    const float* wv = static_cast<const float*>(w->data());
    std::vector<float> scaled(static_cast<size_t>(w->NumElements()));
    const int64_t per_row = rows ? wd[1] : 1;
    for (int64_t e = 0; e < w->NumElements(); ++e) {
      const int64_t j = rows ? e / per_row : e % channels;
      scaled[static_cast<size_t>(e)] = wv[e] * Channel(*s, j);
    }
    const std::string prefix = StrCat("ArithmeticOptimizer/", g.node(i).op->name());
    auto filter = InsertFloatConstant(g, contraction, prefix + "/weights", wd, scaled);
    if (!filter.ok()) continue;
    if (b != nullptr) {
      std::vector<float> bias(static_cast<size_t>(channels));
      const float* bv = static_cast<const float*>(b->data());
      for (int64_t j = 0; j < channels; ++j) bias[static_cast<size_t>(j)] = bv[j] * Channel(*s, j);
      auto folded = InsertFloatConstant(g, bias_add, prefix + "/bias", {channels}, bias);
      if (!folded.ok()) continue;  // (the unread filter Const goes with the dead nodes)
      g.SetInput(bias_add, 1, *folded);
    }
    g.SetInput(contraction, 1, *filter);
    g.Bypass(i, 0, y);
    g.Remove(i);
    return true;
  }
  return false;
}

// Add / AddV2 / Sub node i: folds its constant into the BiasAdd before it. Whether it did.
bool FoldOffset(RewriteGraph& g, int i) {
  const bool sub = g.node(i).op->type() == "Sub";
  for (int k = 1; k >= (sub ? 1 : 0); --k) {
    const Tensor* c = FloatConstant(g, i, k);
    const Output y = g.node(i).inputs[static_cast<size_t>(1 - k)];
    const int producer = g.Producer(y);
    if (c == nullptr || y.dtype() != DT_FLOAT || producer < 0) continue;
    const Operation& p = *g.node(producer).op;
    const bool biased = p.type() == "BiasAdd";
    if (biased ? !IsNhwc(p) : !Contraction(p)) continue;
    if (!OnlyReader(g, producer, i)) continue;
    // The bias so far: the BiasAdd's, or none (zeros) after a bare contraction.
    const Tensor* b = biased ? FloatConstant(g, producer, 1) : nullptr;
    if (biased && (b == nullptr || b->dims().size() != 1)) continue;
    const PartialShape& shape = y.shape();
    const int64_t channels = biased ? b->NumElements()
                             : shape.known_rank() && shape.rank() >= 1 ? shape.dim(shape.rank() - 1)
                                                                       : -1;
    if (channels < 0 || !PerChannel(*c, y, channels)) continue;
    std::vector<float> bias(static_cast<size_t>(channels));
    const float* bv = biased ? static_cast<const float*>(b->data()) : nullptr;
    for (int64_t j = 0; j < channels; ++j) {
      const float before = bv != nullptr ? bv[j] : 0.0f;
      bias[static_cast<size_t>(j)] = sub ? before - Channel(*c, j) : before + Channel(*c, j);
    }
    const std::string name = StrCat("ArithmeticOptimizer/", g.node(i).op->name(), "/bias");
    if (biased) {
      auto folded = InsertFloatConstant(g, producer, name, {channels}, bias);
      if (!folded.ok()) continue;
      g.SetInput(producer, 1, *folded);
      g.Bypass(i, 0, y);
      g.Remove(i);
      return true;
    }
    // After a bare contraction the add becomes a BiasAdd of the vector, which the fusion
    // then takes with the contraction.
    auto folded = InsertFloatConstant(g, i, name, {channels}, bias);
    if (!folded.ok()) continue;
    NodeSpec spec;
    spec.type = "BiasAdd";
    spec.name = StrCat(g.node(i).op->name(), "/bias_add");
    spec.device = g.node(i).op->device();
    spec.attrs["T"].set_type(tf::DT_FLOAT);
    spec.attrs["data_format"].set_s("NHWC");
    const std::vector<Output> inputs = {y, *folded};
    auto bias_add = g.NewOp(std::move(spec), inputs);
    if (!bias_add.ok()) continue;
    g.Replace(i, *bias_add, inputs, g.node(i).controls);
    return true;
  }
  return false;
}

}  // namespace

int FoldAffineIntoContractions(RewriteGraph& g) {
  int count = 0;
  for (int i = 0; i < g.size(); ++i) {
    if (!g.Rewritable(i)) continue;
    const std::string& type = g.node(i).op->type();
    if (type == "Mul") {
      count += FoldScale(g, i) ? 1 : 0;
    } else if (type == "Add" || type == "AddV2" || type == "Sub") {
      count += FoldOffset(g, i) ? 1 : 0;
    }
  }
  return count;
}

}  // namespace tgraph
