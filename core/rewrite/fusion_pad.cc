// Fusion: a Pad of zeros over the height and width of a Conv2D's or DepthwiseConv2dNative's
// input becomes the convolution's own padding (EXPLICIT, the Pad's plus the convolution's),
// so the padded copy of the input is never written. Keras writes every strided convolution
// of its applications that way (ZeroPadding2D, then a VALID convolution: ResNet50's first
// layer, MobileNetV2's strided depthwise layers).
//
// Needs: the Pad op (its zeros; not PadV2 or MirrorPad) with constant paddings that leave
// the batch and channel dims alone, the padded value read by the convolution alone (its input 0,
// NHWC, padding VALID or EXPLICIT), both rewritable and on one device. The convolution keeps
// its name and attrs but for the padding; the result is the same element for element.
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

// The constant paddings [4, 2] (int32 or int64) of Pad node p, or false.
bool ConstantPaddings(const RewriteGraph& g, int p, std::vector<int64_t>* pads) {
  const int c = g.Producer(g.node(p).inputs[1]);
  if (c < 0 || !g.node(c).controls.empty() || g.node(c).op->type() != "Const") return false;
  const Tensor* t = g.node(c).op->constant_value();
  if (t == nullptr || t->dims() != std::vector<int64_t>{4, 2}) return false;
  pads->clear();
  for (int64_t e = 0; e < 8; ++e) {
    if (t->dtype() == DT_INT32) {
      pads->push_back(static_cast<const int32_t*>(t->data())[e]);
    } else if (t->dtype() == DT_INT64) {
      pads->push_back(static_cast<const int64_t*>(t->data())[e]);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int FoldPadsIntoConvolutions(RewriteGraph& g) {
  int count = 0;
  for (int i = 0; i < g.size(); ++i) {
    if (!g.Rewritable(i)) continue;
    const Operation& conv = *g.node(i).op;
    if (conv.type() != "Conv2D" && conv.type() != "DepthwiseConv2dNative") continue;
    if (!IsNhwc(conv)) continue;
    const std::string padding = StringAttr(conv, "padding", "");
    if (padding != "VALID" && padding != "EXPLICIT") continue;
    const int p = g.Producer(g.node(i).inputs[0]);
    if (p < 0 || !g.Rewritable(p) || g.node(p).op->type() != "Pad" || g.Device(p) != g.Device(i)) continue;
    const RewriteGraph::Node& pad = g.node(p);
    if (pad.num_control_readers != 0 || pad.num_readers != 1) continue;
    std::vector<int64_t> pads;
    if (!ConstantPaddings(g, p, &pads) || pads[0] != 0 || pads[1] != 0 || pads[6] != 0 || pads[7] != 0) continue;
    // The convolution's own explicit padding, added to the Pad's.
    if (padding == "EXPLICIT") {
      const tf::AttrValue* own = conv.FindAttr("explicit_paddings");
      if (own == nullptr || own->list().i_size() != 8) continue;
      for (int e = 0; e < 8; ++e) pads[static_cast<size_t>(e)] += own->list().i(e);
    }

    NodeSpec spec;
    spec.type = conv.type();
    spec.name = conv.name();
    if (g.scratch().FindOperation(spec.name) != nullptr) spec.name += "/padded";
    spec.device = conv.device();
    spec.attrs = conv.attrs();
    spec.attrs["padding"].set_s("EXPLICIT");
    auto* list = spec.attrs["explicit_paddings"].mutable_list();
    list->clear_i();
    for (int64_t v : pads) list->add_i(v);
    const std::vector<Output> inputs = {pad.inputs[0], g.node(i).inputs[1]};
    auto folded = g.NewOp(std::move(spec), inputs);
    if (!folded.ok()) continue;
    std::vector<int> controls = g.node(i).controls;
    for (int c : pad.controls) controls.push_back(c);
    g.Replace(i, *folded, inputs, controls);
    for (int c : std::vector<int>(g.node(p).controls)) g.RemoveControl(p, c);
    g.Remove(p);
    ++count;
  }
  return count;
}

}  // namespace tgraph
