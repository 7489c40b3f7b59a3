// Gradients of the 3-D pooling and detection ops, as TensorFlow's nn_grad.py and
// image_ops.py define them: MaxPool3D and AvgPool3D through their gradient ops (the forward
// op's attrs, so windows and padding are read by one piece of code), AvgPool3DGrad's own
// gradient (AvgPool3D of the incoming gradient), and the non-maximum suppressions registered
// as not differentiable (TensorFlow has no gradient for them either).
#include <initializer_list>
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"

namespace tgraph {
namespace {

GradAttrs PoolAttrs(GradientContext& ctx) {
  GradAttrs attrs;
  for (const char* name : {"ksize", "strides", "padding", "data_format"}) {
    if (const tf::AttrValue* v = ctx.FindAttr(name)) attrs.emplace_back(name, *v);
  }
  return attrs;
}

// x's shape as an int32 vector, a constant when statically known (so the gradient op's
// output gets a static shape).
Output ShapeOf(GraphBuilder& b, Output x) {
  const PartialShape& shape = x.shape();
  if (!shape.IsFullyDefined()) return b.Shape(x);
  std::vector<int32_t> dims;
  for (int64_t d : shape.dims()) dims.push_back(static_cast<int32_t>(d));
  return b.ConstInt32(dims);
}

Status MaxPool3DGradient(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("MaxPool3DGrad", {ctx.input(0), ctx.output(0), ctx.grad(0)},
                             PoolAttrs(ctx)));
  return ctx.status();
}

Status AvgPool3DGradient(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("AvgPool3DGrad", {ShapeOf(ctx, ctx.input(0)), ctx.grad(0)},
                             PoolAttrs(ctx)));
  return ctx.status();
}

// AvgPool3DGrad is linear in its gradient input; the shape input gets none.
Status AvgPool3DGradGradient(GradientContext& ctx) {
  ctx.SetInputGrad(1, ctx.Op("AvgPool3D", {ctx.grad(0)}, PoolAttrs(ctx)));
  return ctx.status();
}

// MaxPool3DGrad and MaxPool3DGradGrad: linear in their grad input (the windows' winners are
// fixed by orig_input and orig_output, which get zeros), each the other's transpose.
Status MaxPool3DGradGradient(GradientContext& ctx, const char* transpose) {
  ctx.SetInputGrad(0, ctx.Op("ZerosLike", {ctx.input(0)}));
  ctx.SetInputGrad(1, ctx.Op("ZerosLike", {ctx.input(1)}));
  ctx.SetInputGrad(2, ctx.Op(transpose, {ctx.input(0), ctx.input(1), ctx.grad(0)}, PoolAttrs(ctx)));
  return ctx.status();
}

// CropAndResize: the image's gradient (float, half and double images only, as TF's) and
// the boxes' (of bilinear sampling, for either method, as TF approximates nearest's);
// box_ind and crop_size get none.
Status CropAndResizeGradient(GradientContext& ctx) {
  Output image = ctx.input(0), boxes = ctx.input(1), box_ind = ctx.input(2), g = ctx.grad(0);
  const DataType t = BaseType(image.dtype());
  if (t == DT_FLOAT || t == DT_HALF || t == DT_DOUBLE) {
    GradAttrs attrs;
    for (const char* name : {"T", "method"}) {
      if (const tf::AttrValue* v = ctx.FindAttr(name)) attrs.emplace_back(name, *v);
    }
    ctx.SetInputGrad(0, ctx.Op("CropAndResizeGradImage", {g, boxes, box_ind, ShapeOf(ctx, image)},
                               attrs));
  }
  ctx.SetInputGrad(1, ctx.Op("CropAndResizeGradBoxes", {g, image, boxes, box_ind}));
  return ctx.status();
}

}  // namespace

Status RegisterDetectionPool3DGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(registry.Register("MaxPool3D", MaxPool3DGradient));
  keep(registry.Register("AvgPool3D", AvgPool3DGradient));
  keep(registry.Register("AvgPool3DGrad", AvgPool3DGradGradient));
  keep(registry.Register("CropAndResize", CropAndResizeGradient));
  keep(registry.Register("MaxPool3DGrad", [](GradientContext& ctx) {
    return MaxPool3DGradGradient(ctx, "MaxPool3DGradGrad");
  }));
  keep(registry.Register("MaxPool3DGradGrad", [](GradientContext& ctx) {
    return MaxPool3DGradGradient(ctx, "MaxPool3DGrad");
  }));
  for (const char* op : {"NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3",
                         "NonMaxSuppressionV4", "NonMaxSuppressionV5",
                         "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression"}) {
    keep(registry.RegisterNotDifferentiable(op));
  }
  return first;
}

}  // namespace tgraph
