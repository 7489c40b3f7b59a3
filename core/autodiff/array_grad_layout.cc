// Gradients of the layout, index, image and logging ops frozen models use, as TensorFlow's
// array_grad.py / image_grad.py / logging_ops.py define them: each rearrangement's gradient
// is its inverse (SpaceToDepth <-> DepthToSpace, SpaceToBatchND <-> BatchToSpaceND,
// ReverseV2 of itself), a gather's is a scatter and back; MirrorPad and the resize ops take
// TF's fused *Grad ops.
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"

namespace tgraph {
namespace {

GradAttrs CopyAttrs(GradientContext& ctx, std::initializer_list<const char*> names) {
  GradAttrs attrs;
  for (const char* name : names) {
    if (const tf::AttrValue* v = ctx.FindAttr(name)) attrs.emplace_back(name, *v);
  }
  return attrs;
}

// x's shape in the dtype of `like` (int32 or int64), for index ops' shape inputs.
Output ShapeAs(GradientContext& ctx, Output x, Output like) {
  return ctx.Op("Shape", {x}, {{"out_type", AttrOfType(BaseType(like.dtype()))}});
}

// PadV2: the input sits at paddings[:, 0] of the gradient; constant_values gets the sum of
// the padding's gradient (everything minus the input's part), as in TF.
Status PadV2Grad(GradientContext& ctx) {
  Output x = ctx.input(0), g = ctx.grad(0);
  Output pads = ctx.input(1);
  if (BaseType(pads.dtype()) != DT_INT32) pads = ctx.Cast(pads, DT_INT32);
  Output before = ctx.Op("Slice", {pads, ctx.ConstInt32({0, 0}), ctx.ConstInt32({-1, 1})});
  Output begin = ctx.Reshape(before, ctx.ConstInt32({-1}));
  Output gx = ctx.Op("Slice", {g, begin, ctx.Shape(x)});
  ctx.SetInputGrad(0, gx);
  auto all = [&](Output t) {
    return ctx.Sum(t, ctx.Op("Range", {ctx.ScalarInt32(0), ctx.Rank(t), ctx.ScalarInt32(1)}));
  };
  ctx.SetInputGrad(2, ctx.Sub(all(g), all(gx)));
  return ctx.status();
}

// ReverseSequence is its own inverse for the same lengths; the lengths get none.
Status ReverseSequenceGrad(GradientContext& ctx) {
  GradAttrs attrs;
  for (const char* name : {"seq_dim", "batch_dim"}) {
    if (const tf::AttrValue* v = ctx.FindAttr(name)) attrs.emplace_back(name, *v);
  }
  ctx.SetInputGrad(0, ctx.Op("ReverseSequence", {ctx.grad(0), ctx.input(1)}, attrs));
  return ctx.status();
}

Status ReverseV2Grad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("ReverseV2", {ctx.grad(0), ctx.input(1)}));
  return ctx.status();
}

GradientFunction InverseOf(const char* type) {
  return [type](GradientContext& ctx) {
    ctx.SetInputGrad(0, ctx.Op(type, {ctx.grad(0)}, CopyAttrs(ctx, {"block_size", "data_format"})));
    return ctx.status();
  };
}

// SpaceToBatchND <-> BatchToSpaceND with the same block_shape and paddings / crops.
GradientFunction InverseWithBlocks(const char* type) {
  return [type](GradientContext& ctx) {
    ctx.SetInputGrad(0, ctx.Op(type, {ctx.grad(0), ctx.input(1), ctx.input(2)}));
    return ctx.status();
  };
}

// GatherNd: the gradient scattered back into params' shape (duplicates add up).
Status GatherNdGrad(GradientContext& ctx) {
  Output indices = ctx.input(1);
  ctx.SetInputGrad(0, ctx.Op("ScatterNd", {indices, ctx.grad(0), ShapeAs(ctx, ctx.input(0), indices)}));
  return ctx.status();
}

// ScatterNd: each update's gradient is the output gradient where it landed.
Status ScatterNdGrad(GradientContext& ctx) {
  ctx.SetInputGrad(1, ctx.Op("GatherNd", {ctx.grad(0), ctx.input(0)}));
  return ctx.status();
}

// TensorScatterUpdate: the replaced slices pass nothing to tensor; updates get them.
Status TensorScatterUpdateGrad(GradientContext& ctx) {
  Output g = ctx.grad(0), indices = ctx.input(1);
  ctx.SetInputGrad(0, ctx.Op("TensorScatterUpdate",
                             {g, indices, ctx.ZerosLike(ctx.input(2))}));
  ctx.SetInputGrad(2, ctx.Op("GatherNd", {g, indices}));
  return ctx.status();
}

// SparseToDense: sparse_values get the gradient at their indices (summed when one scalar
// value was broadcast); default_value gets the rest.
Status SparseToDenseGrad(GradientContext& ctx) {
  Output g = ctx.grad(0), indices = ctx.input(0), values = ctx.input(2);
  const PartialShape& is = indices.shape();
  if (!is.known_rank() || is.rank() != 2) {
    return Unimplemented("the gradient of SparseToDense '", ctx.op()->name(),
                         "' needs sparse_indices of rank 2 (a matrix)");
  }
  Output picked = ctx.Op("GatherNd", {g, indices});
  auto all = [&](Output t) {
    return ctx.Sum(t, ctx.Op("Range", {ctx.ScalarInt32(0), ctx.Rank(t), ctx.ScalarInt32(1)}));
  };
  const bool scalar_values = values.shape().known_rank() && values.shape().rank() == 0;
  ctx.SetInputGrad(2, scalar_values ? all(picked) : picked);
  ctx.SetInputGrad(3, ctx.Sub(all(g), all(picked)));
  return ctx.status();
}

// TopKV2: each value's gradient goes back to the input position it came from:
// sum over k of onehot(indices, n) * grad, with n the input's (static) last dimension.
Status TopKV2Grad(GradientContext& ctx) {
  const PartialShape& in = ctx.input(0).shape();
  if (!in.known_rank() || in.rank() < 1 || in.dim(in.rank() - 1) < 0) {
    return Unimplemented("the gradient of TopKV2 '", ctx.op()->name(),
                         "' needs the input's last dimension to be known");
  }
  const int64_t n = in.dim(in.rank() - 1);
  const DataType t = BaseType(ctx.input(0).dtype());
  Output one_hot = ctx.Op("OneHot", {ctx.output(1), ctx.ScalarInt32(static_cast<int32_t>(n)),
                                     ctx.Scalar(t, 1.0), ctx.Scalar(t, 0.0)});
  Output g = ctx.Op("ExpandDims", {ctx.grad(0), ctx.ScalarInt32(-1)});
  ctx.SetInputGrad(0, ctx.Sum(ctx.Mul(one_hot, g), ctx.ScalarInt32(-2)));
  return ctx.status();
}

// Print passes its input through; the printed data get nothing.
Status PrintGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.grad(0));
  return ctx.status();
}

Status MirrorPadGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("MirrorPadGrad", {ctx.grad(0), ctx.input(1)}, CopyAttrs(ctx, {"mode"})));
  return ctx.status();
}

// ResizeBilinear: TF's gradient is for floating-point images only.
Status ResizeBilinearGrad(GradientContext& ctx) {
  const DataType t = BaseType(ctx.input(0).dtype());
  if (t != DT_FLOAT && t != DT_DOUBLE && t != DT_HALF && t != DT_BFLOAT16) return ctx.status();
  ctx.SetInputGrad(0, ctx.Op("ResizeBilinearGrad", {ctx.grad(0), ctx.input(0)},
                             CopyAttrs(ctx, {"align_corners", "half_pixel_centers"})));
  return ctx.status();
}

// ResizeBicubic: as TF, for float and double images only.
Status ResizeBicubicGrad(GradientContext& ctx) {
  const DataType t = BaseType(ctx.input(0).dtype());
  if (t != DT_FLOAT && t != DT_DOUBLE) return ctx.status();
  ctx.SetInputGrad(0, ctx.Op("ResizeBicubicGrad", {ctx.grad(0), ctx.input(0)},
                             CopyAttrs(ctx, {"align_corners", "half_pixel_centers"})));
  return ctx.status();
}

// ResizeNearestNeighbor: the gradient summed back to the images' height and width.
Status ResizeNearestNeighborGrad(GradientContext& ctx) {
  Output size = ctx.Op("Slice", {ctx.Shape(ctx.input(0)), ctx.ConstInt32({1}), ctx.ConstInt32({2})});
  ctx.SetInputGrad(0, ctx.Op("ResizeNearestNeighborGrad", {ctx.grad(0), size},
                             CopyAttrs(ctx, {"align_corners", "half_pixel_centers"})));
  return ctx.status();
}

}  // namespace

Status RegisterArrayLayoutGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(registry.Register("PadV2", PadV2Grad));
  keep(registry.Register("ReverseV2", ReverseV2Grad));
  keep(registry.Register("ReverseSequence", ReverseSequenceGrad));
  keep(registry.Register("SpaceToDepth", InverseOf("DepthToSpace")));
  keep(registry.Register("DepthToSpace", InverseOf("SpaceToDepth")));
  keep(registry.Register("SpaceToBatchND", InverseWithBlocks("BatchToSpaceND")));
  keep(registry.Register("BatchToSpaceND", InverseWithBlocks("SpaceToBatchND")));
  keep(registry.Register("GatherNd", GatherNdGrad));
  keep(registry.Register("ScatterNd", ScatterNdGrad));
  keep(registry.Register("TensorScatterUpdate", TensorScatterUpdateGrad));
  keep(registry.Register("SparseToDense", SparseToDenseGrad));
  keep(registry.Register("TopKV2", TopKV2Grad));
  keep(registry.Register("TopK", TopKV2Grad));  // v1: k an attr, the same outputs
  keep(registry.Register("Print", PrintGrad));
  keep(registry.Register("MirrorPad", MirrorPadGrad));
  keep(registry.Register("ResizeBilinear", ResizeBilinearGrad));
  keep(registry.Register("ResizeNearestNeighbor", ResizeNearestNeighborGrad));
  keep(registry.Register("ResizeBicubic", ResizeBicubicGrad));
  keep(registry.RegisterNotDifferentiable("Assert"));
  return first;
}

}  // namespace tgraph
