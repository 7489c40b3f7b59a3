// TensorFlow's fused contraction ops, _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative:
// a MatMul, Conv2D or DepthwiseConv2dNative whose
// output goes through the ops named in `fused_ops` (["BiasAdd"], ["BiasAdd", "Relu"], ...)
// with their extra operands in `args`. TensorFlow's grappler (the remapper) makes them; the
// plan-time rewrites do too (core/rewrite/fusion.cc), and frozen TF graphs may contain them,
// so the definitions are TensorFlow's (names, attrs, defaults, allowed types) and import as is;
// but _FusedConv2D also allows bfloat16, which TF's definition leaves to its oneDNN twin
// (_MklNativeFusedConv2D): mixed precision's bf16 Conv2D + BiasAdd + Relu fuse here too
// (only the plan-time fusion makes such a node; every TF graph still imports).
// _FusedDepthwiseConv2dNative (DepthwiseConv2dNative + BiasAdd (+ an activation), which TF's
// remapper makes on the CPU) has TF's definition plus the EXPLICIT padding and
// explicit_paddings of DepthwiseConv2dNative itself, so that a Pad folded into the
// convolution (core/rewrite/fusion_pad.cc) still fuses; both default as TF's graphs expect.
// Their shapes are those of the contraction: a bias and an element-wise activation keep them.
//
// _FusedMaxPoolGrad is tgraph's own (TensorFlow has no such op; only the plan-time fusion
// makes it): the gradient of Conv2D -> BiasAdd -> Relu -> MaxPool with respect to the
// convolution's output, MaxPoolGrad -> ReluGrad in one pass over the activations, with
// BiasAddGrad of the result as a second output (the sum per channel, taken while the
// result is written), so the large tensors are read and written once instead of three times.
// ReluGrad's features are an input of their own (num_features 1) unless they are orig_input
// itself (num_features 0, the usual case: Relu's output is what MaxPool pooled), so that the
// kernel may write the result over orig_input's buffer when nothing else holds it.
//
// _FusedChannelAffine is tgraph's own (only the plan-time fusion makes it,
// core/rewrite/fusion_affine.cc): activation(x * scale + offset) per channel, the Mul ->
// Add (-> Relu / Relu6) a frozen graph's batch normalization leaves where no contraction
// comes before it to fold into (DenseNet's and pre-activation ResNets' normalizations after
// a concatenation or an add), in one pass over the activations instead of two or three.
//
// _MaxPoolWithIndex and _FusedMaxPoolGradWithIndex are tgraph's own too (made by the same
// pass, core/rewrite/fusion_pool_index.cc): a MaxPool that also writes, per output element,
// a uint8 code of its window's winner (bits 0-6: the window-local index, over the window's
// pixels inside the image, rows then columns, of the element MaxPoolGrad routes the gradient
// to — the first maximum, a NaN only when it comes first; bit 7: that element is > 0, the
// mask ReluGrad over the pool's input applies), and the _FusedMaxPoolGrad (num_features 0)
// that reads the codes instead of the pool's input, so the large activations are read once
// by the pool and never again: the gradient pass reads a quarter of a byte per pooled value.
// Windows of at most 128 pixels.
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// The window attrs of the max-pool ops the remapping makes (NHWC only, as its kernels).
OpDefBuilder WithNhwcPoolWindow(OpDefBuilder b) {
  b.Attr("ksize: list(int) >= 4")
      .Attr("strides: list(int) >= 4")
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
      .Attr("explicit_paddings: list(int) = []")
      .Attr("data_format: {'NHWC'} = 'NHWC'");
  return b;
}

// orig_input, orig_output, grad (, features) (all 4-D; features of orig_input's shape) ->
// backprop of orig_input's shape and bias_backprop [channels].
Status FusedMaxPoolGradShape(InferenceContext& c) {
  PartialShape orig_input, orig_output, grad, merged;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &orig_input));
  TG_RETURN_IF_ERROR(c.WithRank(1, 4, &orig_output));
  TG_RETURN_IF_ERROR(c.WithRank(2, 4, &grad));
  if (!orig_output.Merge(grad, &merged).ok()) {
    return c.Error("orig_output and grad must have the same shape, but have ",
                   orig_output.ToString(), " and ", grad.ToString());
  }
  merged = orig_input;
  for (int i = 3; i < c.num_inputs(); ++i) {
    PartialShape features;
    TG_RETURN_IF_ERROR(c.WithRank(i, 4, &features));
    if (!orig_input.Merge(features, &merged).ok()) {
      return c.Error("orig_input and features must have the same shape, but have ",
                     orig_input.ToString(), " and ", features.ToString());
    }
  }
  c.set_output(0, merged);
  c.set_output(1, PartialShape{merged.dim(3)});
  return Status::OK();
}

// index has the pooled shape; output 0 has orig_input_shape's value, output 1 its depth.
Status FusedMaxPoolGradWithIndexShape(InferenceContext& c) {
  PartialShape index, grad, merged;
  TG_RETURN_IF_ERROR(c.WithRank(1, 4, &index));
  TG_RETURN_IF_ERROR(c.WithRank(2, 4, &grad));
  if (!index.Merge(grad, &merged).ok()) {
    return c.Error("index and grad must have the same shape, but have ", index.ToString(),
                   " and ", grad.ToString());
  }
  TG_RETURN_IF_ERROR(Rank4FromShapeInput(c, 0, "orig_input_shape"));
  const PartialShape out = c.output_shapes()[0];
  c.set_output(1, PartialShape{out.known_rank() ? out.dim(3) : merged.dim(3)});
  return Status::OK();
}

// The pooled shape, twice.
Status MaxPoolWithIndexShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(MaxPoolShape(c));
  c.set_output(1, c.output_shapes()[0]);
  return Status::OK();
}

}  // namespace

Status RegisterFusedOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("_FusedMatMul")
          .Input("a: T").Input("b: T").Input("args: num_args * T").Output("product: T")
          .Attr("transpose_a: bool = false")
          .Attr("transpose_b: bool = false")
          .Attr("T: {bfloat16, half, float}")
          .Attr("num_args: int >= 0")
          .Attr("fused_ops: list(string) = []")
          .Attr("epsilon: float = 0.0001")
          .Attr("leakyrelu_alpha: float = 0.2")
          .SetShapeFn(MatMulShape)
          .Doc("MatMul followed by the ops in fused_ops (e.g. BiasAdd, Relu), as one kernel."),
      OpDefBuilder("_FusedConv2D")
          .Input("input: T").Input("filter: T").Input("args: TArgs")
          .Input("host_args: num_host_args * float")
          .Output("output: T")
          .Attr("T: {bfloat16, half, float, double, int8, qint8}")
          .Attr("TArgs: list(type) >= 1")
          .Attr("num_args: int >= 0")
          .Attr("num_host_args: int >= 0 = 0")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
          .Attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr("fused_ops: list(string) = []")
          .Attr("epsilon: float = 0.0001")
          .Attr("leakyrelu_alpha: float = 0.2")
          .SetShapeFn(Conv2DShape)
          .Doc("Conv2D followed by the ops in fused_ops (e.g. BiasAdd, Relu), as one kernel."),
      OpDefBuilder("_FusedDepthwiseConv2dNative")
          .Input("input: T").Input("filter: T").Input("args: num_args * T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("num_args: int >= 0")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .Attr("fused_ops: list(string) = []")
          .Attr("epsilon: float = 0.0001")
          .Attr("leakyrelu_alpha: float = 0.2")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(DepthwiseConv2dShape)
          .Doc("DepthwiseConv2dNative followed by the ops in fused_ops (e.g. BiasAdd, Relu6), "
               "as one kernel."),
      OpDefBuilder("_FusedChannelAffine")
          .Input("x: T").Input("scale: T").Input("offset: T")
          .Output("y: T")
          .Attr("T: {float, double}")
          .Attr("activation: {'None', 'Relu', 'Relu6'} = 'None'")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("activation(x * scale + offset), scale and offset vectors along x's last "
               "dimension (a batch normalization not after a contraction, as one pass)."),
      WithNhwcPoolWindow(OpDefBuilder("_FusedMaxPoolGrad"))
          .Input("orig_input: T").Input("orig_output: T").Input("grad: T")
          .Input("features: num_features * T")
          .Output("backprop: T").Output("bias_backprop: T")
          .Attr("num_features: int >= 0 = 0")
          .Attr("T: {bfloat16, float, double}")
          .SetShapeFn(FusedMaxPoolGradShape)
          .Doc("ReluGrad(MaxPoolGrad(orig_input, orig_output, grad), features) (features: "
               "orig_input when num_features is 0), and its BiasAddGrad, as one kernel."),
      WithNhwcPoolWindow(OpDefBuilder("_MaxPoolWithIndex"))
          .Input("input: T")
          .Output("output: T").Output("index: uint8")
          .Attr("T: {float, double}")
          .SetShapeFn(MaxPoolWithIndexShape)
          .Doc("MaxPool, and per output element the code of its window's winner (bits 0-6: "
               "window-local index; bit 7: the winner is > 0)."),
      WithNhwcPoolWindow(OpDefBuilder("_FusedMaxPoolGradWithIndex"))
          .Input("orig_input_shape: int32").Input("index: uint8").Input("grad: T")
          .Output("backprop: T").Output("bias_backprop: T")
          .Attr("T: {float, double}")
          .SetShapeFn(FusedMaxPoolGradWithIndexShape)
          .Doc("_FusedMaxPoolGrad (num_features 0) from _MaxPoolWithIndex's index instead of "
               "the pool's input and output."),
  });
}

}  // namespace tgraph
