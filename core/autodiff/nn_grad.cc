// Gradients of the nn ops, as TensorFlow 1.x's nn_grad.py defines them. Activations use the
// fused *Grad kernels; convolutions and pooling use their backprop ops with the forward op's
// attrs, so padding, strides and dilations are interpreted by one piece of code.
#include <initializer_list>
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"

namespace tgraph {
namespace {

// The forward op's attrs named in `names` (those it has), for a backprop op sharing them.
GradAttrs CopyAttrs(GradientContext& ctx, std::initializer_list<const char*> names) {
  GradAttrs attrs;
  for (const char* name : names) {
    if (const tf::AttrValue* v = ctx.FindAttr(name)) attrs.emplace_back(name, *v);
  }
  return attrs;
}

// x with a trailing axis of size 1, so a per-row value broadcasts over the classes.
Output ExpandLast(GraphBuilder& b, Output x) {
  return b.Op("ExpandDims", {x, b.ScalarInt32(-1)});
}

// sum(x, axis = -1, keep_dims = true).
Output SumLast(GraphBuilder& b, Output x) { return b.Sum(x, b.ScalarInt32(-1), true); }

// The sum of the contributions made (none: no gradient).
Output SumParts(GraphBuilder& b, std::vector<Output> parts) {
  return parts.empty() ? Output{} : b.AddN(std::move(parts));
}

// dL/dlogits of softmax(logits) given dL/dsoftmax = g: (g - sum(g * s)) * s.
Output SoftmaxBackprop(GraphBuilder& b, Output g, Output softmax) {
  return b.Mul(b.Sub(g, SumLast(b, b.Mul(g, softmax))), softmax);
}

// ---- activations ----

Status ReluGrad(GradientContext& ctx) {
  // The output is positive exactly where the feature is, and keeps the input alive less.
  ctx.SetInputGrad(0, ctx.Op("ReluGrad", {ctx.grad(0), ctx.output(0)}));
  return ctx.status();
}

Status Relu6Grad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("Relu6Grad", {ctx.grad(0), ctx.input(0)}));
  return ctx.status();
}

Status EluGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("EluGrad", {ctx.grad(0), ctx.output(0)}));
  return ctx.status();
}

Status SoftplusGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("SoftplusGrad", {ctx.grad(0), ctx.input(0)}));
  return ctx.status();
}

// LeakyRelu: g where x > 0, else alpha * g (TF's LeakyReluGrad, built from Select).
Status LeakyReluGrad(GradientContext& ctx) {
  Output x = ctx.input(0), g = ctx.grad(0);
  Output positive = ctx.Op("Greater", {x, ctx.ZerosLike(x)});
  Output scaled = ctx.Mul(g, ctx.ScalarLike(x, ctx.AttrFloat("alpha")));
  ctx.SetInputGrad(0, ctx.Op("Select", {positive, g, scaled}));
  return ctx.status();
}

// Selu, from its output y (TF's SeluGrad): g * scale where y > 0, else g * (y + scale * alpha).
Status SeluGrad(GradientContext& ctx) {
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  Output y = ctx.output(0), g = ctx.grad(0);
  Output positive = ctx.Op("Greater", {y, ctx.ZerosLike(y)});
  Output pos = ctx.Mul(g, ctx.ScalarLike(y, kScale));
  Output neg = ctx.Mul(g, ctx.Add(y, ctx.ScalarLike(y, kScale * kAlpha)));
  ctx.SetInputGrad(0, ctx.Op("Select", {positive, pos, neg}));
  return ctx.status();
}

// ---- softmax and losses ----

Status SoftmaxGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, SoftmaxBackprop(ctx, ctx.grad(0), ctx.output(0)));
  return ctx.status();
}

Status LogSoftmaxGrad(GradientContext& ctx) {
  // y = x - logsumexp(x): dx = g - sum(g) * softmax(x), softmax = exp(y).
  Output g = ctx.grad(0);
  Output softmax = ctx.Op("Exp", {ctx.output(0)});
  ctx.SetInputGrad(0, ctx.Sub(g, ctx.Mul(SumLast(ctx, g), softmax)));
  return ctx.status();
}

// The logits' gradient shared by both cross-entropy ops: the op's own backprop output
// (softmax - labels) scaled per row by the loss gradient, plus, when the backprop output
// itself was used, the softmax Jacobian applied to that use.
Output CrossEntropyLogitsGrad(GradientContext& ctx) {
  std::vector<Output> parts;
  if (ctx.has_grad(0)) parts.push_back(ctx.Mul(ExpandLast(ctx, ctx.grad(0)), ctx.output(1)));
  if (ctx.has_grad(1)) {
    Output softmax = ctx.Op("Softmax", {ctx.input(0)});
    parts.push_back(SoftmaxBackprop(ctx, ctx.grad(1), softmax));
  }
  return SumParts(ctx, std::move(parts));
}

Status SoftmaxCrossEntropyWithLogitsGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, CrossEntropyLogitsGrad(ctx));
  // loss = -sum(labels * log_softmax(logits)); backprop = softmax - labels. TensorFlow's
  // labels gradient is the first term; the second only matters when backprop was used.
  std::vector<Output> labels_parts;
  if (ctx.has_grad(0)) {
    Output neg_log_softmax = ctx.Neg(ctx.Op("LogSoftmax", {ctx.input(0)}));
    labels_parts.push_back(ctx.Mul(ExpandLast(ctx, ctx.grad(0)), neg_log_softmax));
  }
  if (ctx.has_grad(1)) labels_parts.push_back(ctx.Neg(ctx.grad(1)));
  ctx.SetInputGrad(1, SumParts(ctx, std::move(labels_parts)));
  return ctx.status();
}

Status SparseSoftmaxCrossEntropyWithLogitsGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, CrossEntropyLogitsGrad(ctx));  // integer labels: no gradient
  return ctx.status();
}

Status L2LossGrad(GradientContext& ctx) {
  // sum(x^2) / 2 -> x * g.
  ctx.SetInputGrad(0, ctx.Mul(ctx.input(0), ctx.grad(0)));
  return ctx.status();
}

// ---- bias, convolution, pooling ----

Status BiasAddGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, g);
  ctx.SetInputGrad(1, ctx.Op("BiasAddGrad", {g}, CopyAttrs(ctx, {"data_format"})));
  return ctx.status();
}

// x's shape as an int32 vector: a constant when it is statically known, so the backprop
// op's output gets a static shape too (shape inference reads only constant shape inputs).
Output ShapeOf(GraphBuilder& b, Output x) {
  const PartialShape& shape = x.shape();
  if (!shape.IsFullyDefined()) return b.Shape(x);
  std::vector<int32_t> dims;
  for (int64_t d : shape.dims()) dims.push_back(static_cast<int32_t>(d));
  return b.ConstInt32(dims);
}

Status Conv2DGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"strides", "padding", "explicit_paddings",
                                          "use_cudnn_on_gpu", "data_format", "dilations"});
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.Op("Conv2DBackpropInput",
                             {ShapeOf(ctx, ctx.input(0)), ctx.input(1), g}, attrs));
  ctx.SetInputGrad(1, ctx.Op("Conv2DBackpropFilter",
                             {ctx.input(0), ShapeOf(ctx, ctx.input(1)), g}, attrs));
  return ctx.status();
}

// Conv2DBackpropInput(input_sizes, filter, out_backprop) is linear in filter and
// out_backprop (conv2d_transpose's op): the filter's gradient correlates the incoming
// gradient with out_backprop, out_backprop's convolves it with the filter (TensorFlow's
// formulas); the sizes get none.
Status Conv2DBackpropInputGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"strides", "padding", "explicit_paddings",
                                          "use_cudnn_on_gpu", "data_format", "dilations"});
  Output g = ctx.grad(0);
  ctx.SetInputGrad(1, ctx.Op("Conv2DBackpropFilter",
                             {g, ShapeOf(ctx, ctx.input(1)), ctx.input(2)}, attrs));
  ctx.SetInputGrad(2, ctx.Op("Conv2D", {g, ctx.input(1)}, attrs));
  return ctx.status();
}

// Conv2DBackpropFilter(input, filter_sizes, out_backprop), linear in input and out_backprop.
Status Conv2DBackpropFilterGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"strides", "padding", "explicit_paddings",
                                          "use_cudnn_on_gpu", "data_format", "dilations"});
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.Op("Conv2DBackpropInput",
                             {ShapeOf(ctx, ctx.input(0)), g, ctx.input(2)}, attrs));
  ctx.SetInputGrad(2, ctx.Op("Conv2D", {ctx.input(0), g}, attrs));
  return ctx.status();
}

// Conv3D and its two backprops, as for Conv2D (TensorFlow's nn_grad.py).
Status Conv3DGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"strides", "padding", "data_format", "dilations"});
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.Op("Conv3DBackpropInputV2", {ShapeOf(ctx, ctx.input(0)), ctx.input(1), g}, attrs));
  ctx.SetInputGrad(1, ctx.Op("Conv3DBackpropFilterV2", {ctx.input(0), ShapeOf(ctx, ctx.input(1)), g}, attrs));
  return ctx.status();
}

Status Conv3DBackpropInputGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"strides", "padding", "data_format", "dilations"});
  Output g = ctx.grad(0);
  ctx.SetInputGrad(1, ctx.Op("Conv3DBackpropFilterV2", {g, ShapeOf(ctx, ctx.input(1)), ctx.input(2)}, attrs));
  ctx.SetInputGrad(2, ctx.Op("Conv3D", {g, ctx.input(1)}, attrs));
  return ctx.status();
}

Status Conv3DBackpropFilterGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"strides", "padding", "data_format", "dilations"});
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.Op("Conv3DBackpropInputV2", {ShapeOf(ctx, ctx.input(0)), g, ctx.input(2)}, attrs));
  ctx.SetInputGrad(2, ctx.Op("Conv3D", {ctx.input(0), g}, attrs));
  return ctx.status();
}

Status MaxPoolGrad(GradientContext& ctx) {
  const GradAttrs attrs =
      CopyAttrs(ctx, {"ksize", "strides", "padding", "explicit_paddings", "data_format"});
  ctx.SetInputGrad(0, ctx.Op("MaxPoolGrad", {ctx.input(0), ctx.output(0), ctx.grad(0)}, attrs));
  return ctx.status();
}

Status AvgPoolGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"ksize", "strides", "padding", "data_format"});
  ctx.SetInputGrad(0, ctx.Op("AvgPoolGrad", {ShapeOf(ctx, ctx.input(0)), ctx.grad(0)}, attrs));
  return ctx.status();
}

// LRN: LRNGrad of the incoming gradient, the input and the output, with LRN's attrs.
Status LrnGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"depth_radius", "bias", "alpha", "beta"});
  ctx.SetInputGrad(0, ctx.Op("LRNGrad", {ctx.grad(0), ctx.input(0), ctx.output(0)}, attrs));
  return ctx.status();
}

// ExtractImagePatches: each patch element's gradient summed back into the image position it
// was read from (tgraph's _ExtractImagePatchesGrad; TensorFlow builds the same sum from a
// sparse matrix of patch indices).
Status ExtractImagePatchesGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"ksizes", "strides", "rates", "padding"});
  ctx.SetInputGrad(0, ctx.Op("_ExtractImagePatchesGrad", {ctx.grad(0), ShapeOf(ctx, ctx.input(0))}, attrs));
  return ctx.status();
}

// MaxPoolWithArgmax: the incoming gradient of the pooled values added at their argmax.
Status MaxPoolWithArgmaxGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"ksize", "strides", "padding", "include_batch_in_index"});
  ctx.SetInputGrad(0, ctx.Op("MaxPoolGradWithArgmax", {ctx.input(0), ctx.grad(0), ctx.output(1)}, attrs));
  return ctx.status();
}

// ---- batch normalization ----

// FusedBatchNorm{,V2,V3}: x, scale and offset get gradients (mean and variance none, as in
// TF). Built from element-wise ops and reductions over every axis but the channels, in the
// statistics' type U (x of type half is cast up and its gradient cast back):
//   inference: dx = g * scale * rsqrt(var + eps)
//   training:  dx = scale * rsqrt(var_b + eps) * (g - mean(g) - xhat * mean(g * xhat))
// with the batch's mean and (biased) variance, xhat the normalized x; in both modes
// doffset = sum(g) and dscale = sum(g * xhat).
Status FusedBatchNormGrad(GradientContext& ctx) {
  const std::string format = ctx.AttrString("data_format");
  const bool training = ctx.AttrBool("is_training");
  const float epsilon = ctx.AttrFloat("epsilon");
  if (!ctx.ok()) return ctx.status();
  const bool five_d = format == "NDHWC" || format == "NCDHW";
  const bool channels_first = format == "NCHW" || format == "NCDHW";
  const int rank = five_d ? 5 : 4;
  std::vector<int32_t> axes;
  for (int d = 0; d < rank; ++d) {
    if (d != (channels_first ? 1 : rank - 1)) axes.push_back(d);
  }
  Output scale = ctx.input(1);
  const DataType u = BaseType(scale.dtype());
  Output x = ctx.input(0), g = ctx.grad(0);
  const DataType t = BaseType(x.dtype());
  if (t != u) {
    x = ctx.Cast(x, u);
    g = ctx.Cast(g, u);
  }
  Output axes_t = ctx.ConstInt32(axes);
  // A [C] vector shaped to broadcast against x: [C, 1, 1(, 1)] when channels come first.
  auto per_channel = [&](Output v) {
    if (!channels_first) return v;
    for (int i = 0; i < rank - 2; ++i) v = ctx.Op("ExpandDims", {v, ctx.ScalarInt32(-1)});
    return v;
  };
  Output mean, variance;
  if (training) {
    mean = ctx.Op("Mean", {x, axes_t});
    variance = ctx.Op("Mean", {ctx.Square(ctx.Sub(x, per_channel(mean))), axes_t});
  } else {
    mean = ctx.input(3);
    variance = ctx.input(4);
  }
  Output inv = ctx.Op("Rsqrt", {ctx.Add(variance, ctx.Scalar(u, epsilon))});
  Output xhat = ctx.Mul(ctx.Sub(x, per_channel(mean)), per_channel(inv));
  Output doffset = ctx.Sum(g, axes_t);
  Output dscale = ctx.Sum(ctx.Mul(g, xhat), axes_t);
  Output dx;
  if (training) {
    // mean(g) and mean(g * xhat) per channel: the sums over the channel's element count.
    Output count = ctx.Div(ctx.Cast(ctx.Size(x), u), ctx.Cast(ctx.Size(scale), u));
    Output centered = ctx.Sub(ctx.Sub(g, per_channel(ctx.Div(doffset, count))),
                              ctx.Mul(xhat, per_channel(ctx.Div(dscale, count))));
    dx = ctx.Mul(per_channel(ctx.Mul(scale, inv)), centered);
  } else {
    dx = ctx.Mul(g, per_channel(ctx.Mul(scale, inv)));
  }
  if (t != u) dx = ctx.Cast(dx, t);
  ctx.SetInputGrad(0, dx);
  ctx.SetInputGrad(1, dscale);
  ctx.SetInputGrad(2, doffset);
  return ctx.status();
}

// As Conv2D's: the two backprop ops with the forward op's attrs.
Status DepthwiseConv2dNativeGrad(GradientContext& ctx) {
  const GradAttrs attrs = CopyAttrs(ctx, {"strides", "padding", "explicit_paddings",
                                          "data_format", "dilations"});
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.Op("DepthwiseConv2dNativeBackpropInput",
                             {ShapeOf(ctx, ctx.input(0)), ctx.input(1), g}, attrs));
  ctx.SetInputGrad(1, ctx.Op("DepthwiseConv2dNativeBackpropFilter",
                             {ctx.input(0), ShapeOf(ctx, ctx.input(1)), g}, attrs));
  return ctx.status();
}

}  // namespace

Status RegisterNnGradients(GradientFunctionRegistry& registry) {
  // Every entry is tried, so one clash (another family registering the same op) does not
  // drop the rest; the first error is reported.
  Status first;
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(registry.Register("Relu", ReluGrad));
  keep(registry.Register("Relu6", Relu6Grad));
  keep(registry.Register("Elu", EluGrad));
  keep(registry.Register("Softplus", SoftplusGrad));
  keep(registry.Register("Softmax", SoftmaxGrad));
  keep(registry.Register("LogSoftmax", LogSoftmaxGrad));
  keep(registry.Register("SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyWithLogitsGrad));
  keep(registry.Register("SparseSoftmaxCrossEntropyWithLogits",
                         SparseSoftmaxCrossEntropyWithLogitsGrad));
  keep(registry.Register("L2Loss", L2LossGrad));
  keep(registry.Register("LeakyRelu", LeakyReluGrad));
  keep(registry.Register("Selu", SeluGrad));
  keep(registry.Register("LRN", LrnGrad));
  keep(registry.Register("ExtractImagePatches", ExtractImagePatchesGrad));
  keep(registry.Register("MaxPoolWithArgmax", MaxPoolWithArgmaxGrad));
  keep(registry.Register("FusedBatchNorm", FusedBatchNormGrad));
  keep(registry.Register("FusedBatchNormV2", FusedBatchNormGrad));
  keep(registry.Register("FusedBatchNormV3", FusedBatchNormGrad));
  keep(registry.Register("DepthwiseConv2dNative", DepthwiseConv2dNativeGrad));
  keep(registry.Register("BiasAdd", BiasAddGrad));
  keep(registry.Register("Conv2D", Conv2DGrad));
  keep(registry.Register("Conv2DBackpropInput", Conv2DBackpropInputGrad));
  keep(registry.Register("Conv2DBackpropFilter", Conv2DBackpropFilterGrad));
  keep(registry.Register("Conv3D", Conv3DGrad));
  keep(registry.Register("Conv3DBackpropInputV2", Conv3DBackpropInputGrad));
  keep(registry.Register("Conv3DBackpropFilterV2", Conv3DBackpropFilterGrad));
  keep(registry.Register("MaxPool", MaxPoolGrad));
  keep(registry.Register("AvgPool", AvgPoolGrad));
  return first;
}

}  // namespace tgraph
