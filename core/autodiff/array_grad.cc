// Gradients of the array ops, as TensorFlow 1.x's array_grad.py defines them, and the list
// of ops (array, state, random, control) through which no gradient flows.
//
// Shape-like inputs (perm, begin, paddings, multiples) may be int32 or int64; they are cast
// to int32 where they meet shapes built here, which are always int32.
#include <optional>
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"

namespace tgraph {
namespace {

// The value of a Const integer tensor, if `t` is one (axes are usually constants, and a
// known axis lets the gradient be built without runtime index arithmetic).
std::optional<std::vector<int64_t>> ConstantInts(Output t) {
  const Tensor* value = t.op == nullptr ? nullptr : t.op->constant_value();
  if (value == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < value->NumElements(); ++i) {
    if (value->dtype() == DT_INT32) {
      out.push_back(value->flat<int32_t>()[i]);
    } else if (value->dtype() == DT_INT64) {
      out.push_back(value->flat<int64_t>()[i]);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

Output AsInt32(GraphBuilder& b, Output t) {
  return BaseType(t.dtype()) == DT_INT32 ? t : b.Cast(t, DT_INT32);
}

// x reshaped to the shape of `like` (TensorFlow's _ReshapeToInput).
Output ReshapeLike(GraphBuilder& b, Output grad, Output like) {
  return b.Reshape(grad, b.Shape(like));
}

// 0, 1, ..., n - 1 as an int32 constant.
std::vector<int32_t> Iota(int n, int start = 0) {
  std::vector<int32_t> v;
  for (int i = start; i < n; ++i) v.push_back(i);
  return v;
}

// ---- pass-through and reshapes ----

Status IdentityGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.grad_value(0));  // sparse gradients stay sparse
  return ctx.status();
}

// Each output's gradient is its input's (TensorFlow's: Keras's custom-gradient activations
// put an IdentityN in the forward graph and their own gradient in a function, which a
// frozen graph has lost; this one makes the graph differentiable as written).
Status IdentityNGrad(GradientContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.has_grad(i)) ctx.SetInputGrad(i, ctx.grad_value(i));
  }
  return ctx.status();
}

Status ReshapeToInputGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ReshapeLike(ctx, ctx.grad(0), ctx.input(0)));
  return ctx.status();
}

Status TransposeGrad(GradientContext& ctx) {
  Output inverse = ctx.Op("InvertPermutation", {ctx.input(1)});
  ctx.SetInputGrad(0, ctx.Op("Transpose", {ctx.grad(0), inverse}));
  return ctx.status();
}

// ---- joining and splitting ----

Status ConcatV2Grad(GradientContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  std::vector<Output> values;
  for (int i = 0; i < n; ++i) values.push_back(ctx.input(i));
  const Output axis = ctx.input(n);
  // ConcatOffset wants a non-negative int32 axis.
  Output axis32;
  const auto axis_value = ConstantInts(axis);
  const int rank = values[0].shape().rank();
  if (axis_value && axis_value->size() == 1 && ((*axis_value)[0] >= 0 || rank >= 0)) {
    const int64_t a = (*axis_value)[0];
    axis32 = ctx.ScalarInt32(static_cast<int32_t>(a < 0 ? a + rank : a));
  } else {
    axis32 = ctx.Op("FloorMod", {AsInt32(ctx, axis), ctx.Rank(values[0])});
  }
  std::vector<Output> shapes = ctx.OpOutputs("ShapeN", {GradInput::List(values)});
  std::vector<Output> offsets =
      ctx.OpOutputs("ConcatOffset", {axis32, GradInput::List(shapes)});
  if (static_cast<int>(offsets.size()) != n || static_cast<int>(shapes.size()) != n) {
    return ctx.status();
  }
  Output g = ctx.grad(0);
  for (int i = 0; i < n; ++i) {
    ctx.SetInputGrad(i, ctx.Op("Slice", {g, offsets[static_cast<size_t>(i)],
                                         shapes[static_cast<size_t>(i)]}));
  }
  return ctx.status();
}

Status PackGrad(GradientContext& ctx) {
  const int n = ctx.num_inputs();
  std::vector<Output> parts =
      ctx.OpOutputs("Unpack", {ctx.grad(0)},
                    {{"num", AttrOfInt(n)}, {"axis", AttrOfInt(ctx.AttrInt("axis"))}});
  if (static_cast<int>(parts.size()) != n) return ctx.status();
  for (int i = 0; i < n; ++i) ctx.SetInputGrad(i, parts[static_cast<size_t>(i)]);
  return ctx.status();
}

Status UnpackGrad(GradientContext& ctx) {
  // Outputs nobody differentiated contribute zeros (TensorFlow fills them in the same way).
  std::vector<Output> grads;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    grads.push_back(ctx.has_grad(i) ? ctx.grad(i) : ctx.ZerosLike(ctx.output(i)));
  }
  ctx.SetInputGrad(0, ctx.Op("Pack", {GradInput::List(std::move(grads))},
                             {{"axis", AttrOfInt(ctx.AttrInt("axis"))}}));
  return ctx.status();
}

// ---- slicing and padding ----

Status SliceGrad(GradientContext& ctx) {
  // Pad the gradient back: begin zeros before, shape(x) - size - begin after, per axis.
  Output x = ctx.input(0);
  Output begin = AsInt32(ctx, ctx.input(1));
  Output after = ctx.Sub(ctx.Sub(ctx.Shape(x), ctx.Shape(ctx.output(0))), begin);
  Output paddings = ctx.Op("Pack", {GradInput::List({begin, after})}, {{"axis", AttrOfInt(1)}});
  ctx.SetInputGrad(0, ctx.Op("Pad", {ctx.grad(0), paddings}));
  return ctx.status();
}

Status StridedSliceGrad(GradientContext& ctx) {
  const DataType index = BaseType(ctx.input(1).dtype());
  Output shape = ctx.Op("Shape", {ctx.input(0)}, {{"out_type", AttrOfType(index)}});
  GradAttrs attrs;
  for (const char* mask :
       {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    attrs.emplace_back(mask, AttrOfInt(ctx.AttrInt(mask)));
  }
  ctx.SetInputGrad(0, ctx.Op("StridedSliceGrad", {shape, ctx.input(1), ctx.input(2),
                                                  ctx.input(3), ctx.grad(0)},
                             attrs));
  return ctx.status();
}

Status TileGrad(GradientContext& ctx) {
  // The output is x repeated multiples[i] times on axis i: view the gradient as
  // [m0, s0, m1, s1, ...] and sum the m axes away.
  Output x = ctx.input(0);
  Output split_shape = ctx.Reshape(
      ctx.Op("Pack", {GradInput::List({AsInt32(ctx, ctx.input(1)), ctx.Shape(x)})},
             {{"axis", AttrOfInt(1)}}),
      ctx.ConstInt32({-1}));
  Output axes;
  if (const int rank = x.shape().rank(); rank >= 0) {
    std::vector<int32_t> even;
    for (int i = 0; i < rank; ++i) even.push_back(2 * i);
    axes = ctx.ConstInt32(even);
  } else {
    axes = ctx.Op("Range", {ctx.ScalarInt32(0), ctx.Size(split_shape), ctx.ScalarInt32(2)});
  }
  ctx.SetInputGrad(0, ctx.Sum(ctx.Reshape(ctx.grad(0), split_shape), axes));
  return ctx.status();
}

Status PadGrad(GradientContext& ctx) {
  // The input sits at paddings[:, 0] in the output.
  Output x = ctx.input(0);
  Output before = ctx.Op("Slice", {AsInt32(ctx, ctx.input(1)), ctx.ConstInt32({0, 0}),
                                   ctx.ConstInt32({-1, 1})});
  Output begin = ctx.Reshape(before, ctx.ConstInt32({-1}));
  ctx.SetInputGrad(0, ctx.Op("Slice", {ctx.grad(0), begin, ctx.Shape(x)}));
  return ctx.status();
}

Status FillGrad(GradientContext& ctx) {
  // Every element is the value: its gradient is the sum of all of them.
  Output g = ctx.grad(0);
  Output axes = ctx.Op("Range", {ctx.ScalarInt32(0), ctx.Rank(g), ctx.ScalarInt32(1)});
  ctx.SetInputGrad(1, ctx.Sum(g, axes));
  return ctx.status();
}

// ---- gathers ----

// The gradient of params[indices] along axis 0, as IndexedSlices: one row of values per
// index (TensorFlow's _GatherGrad). Embedding lookups stay sparse this way.
GradValue GatherAxis0Grad(GradientContext& ctx) {
  Output params = ctx.input(0);
  Output indices = ctx.input(1);
  if (BaseType(indices.dtype()) != DT_INT32 && BaseType(indices.dtype()) != DT_INT64) {
    indices = ctx.Cast(indices, DT_INT32);  // int16: segment ids are int32 or int64
  }
  Output params_shape = ctx.Shape(params);
  Output num_indices = ctx.Op("ExpandDims", {ctx.Size(indices), ctx.ScalarInt32(0)});
  Output tail = ctx.Op("Slice", {params_shape, ctx.ConstInt32({1}), ctx.ConstInt32({-1})});
  Output values_shape =
      ctx.Op("ConcatV2", {GradInput::List({num_indices, tail}), ctx.ScalarInt32(0)});
  return GradValue::Sparse(ctx.Reshape(ctx.grad(0), values_shape),
                           ctx.Reshape(indices, num_indices), params_shape);
}

// Along another axis the gradient is dense: move the gathered axis to the front, sum the
// rows into their indices, and move it back. Needs the axis and params' rank statically.
Status GatherOtherAxisGrad(GradientContext& ctx, int axis, int rank) {
  Output params = ctx.input(0);
  Output indices = ctx.input(1);
  if (BaseType(indices.dtype()) != DT_INT32 && BaseType(indices.dtype()) != DT_INT64) {
    indices = ctx.Cast(indices, DT_INT32);
  }
  Output params_shape = ctx.Shape(params);
  Output outer = ctx.Op("Slice", {params_shape, ctx.ConstInt32({0}), ctx.ConstInt32({axis})});
  Output inner =
      ctx.Op("Slice", {params_shape, ctx.ConstInt32({axis + 1}), ctx.ConstInt32({-1})});
  // grad is outer + indices.shape + inner; fold the index dims into one.
  Output values_shape = ctx.Op(
      "ConcatV2", {GradInput::List({outer, ctx.ConstInt32({-1}), inner}), ctx.ScalarInt32(0)});
  Output values = ctx.Reshape(ctx.grad(0), values_shape);
  std::vector<int32_t> to_front{axis};
  for (int i = 0; i < rank; ++i) {
    if (i != axis) to_front.push_back(i);
  }
  Output front = ctx.Op("Transpose", {values, ctx.ConstInt32(to_front)});
  Output rows = ctx.Reshape(ctx.Op("Slice", {params_shape, ctx.ConstInt32({axis}),
                                             ctx.ConstInt32({1})}),
                            ctx.ConstInt32({}));
  Output flat_indices = ctx.Reshape(indices, ctx.ConstInt32({-1}));
  Output summed = ctx.Op("UnsortedSegmentSum", {front, flat_indices, rows});
  std::vector<int32_t> back = Iota(axis + 1, 1);
  back.push_back(0);
  for (int i = axis + 1; i < rank; ++i) back.push_back(i);
  ctx.SetInputGrad(0, ctx.Op("Transpose", {summed, ctx.ConstInt32(back)}));
  return ctx.status();
}

Status GatherGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, GatherAxis0Grad(ctx));
  return ctx.status();
}

Status GatherV2Grad(GradientContext& ctx) {
  const int64_t batch_dims = ctx.AttrInt("batch_dims");
  if (!ctx.ok()) return ctx.status();
  const auto axis_value = ConstantInts(ctx.input(2));
  if (!axis_value || axis_value->size() != 1) {
    return Unimplemented("the gradient of GatherV2 needs a constant axis");
  }
  const int rank = ctx.input(0).shape().rank();
  int64_t axis = (*axis_value)[0];
  if (axis < 0 && rank >= 0) axis += rank;
  if (axis < 0) {
    return Unimplemented("the gradient of GatherV2 with negative axis ", (*axis_value)[0],
                         " needs params of known rank");
  }
  if (batch_dims != 0) {
    return Unimplemented("the gradient of GatherV2 with batch_dims = ", batch_dims,
                         " is not implemented (only batch_dims = 0)");
  }
  if (axis == 0) {
    ctx.SetInputGrad(0, GatherAxis0Grad(ctx));
    return ctx.status();
  }
  if (rank < 0) {
    return Unimplemented("the gradient of GatherV2 along axis ", axis,
                         " needs params of known rank");
  }
  return GatherOtherAxisGrad(ctx, static_cast<int>(axis), rank);
}

// ---- splitting and broadcasting ----

// Split / SplitV: the pieces' gradients concatenated back along the split axis; pieces nobody
// differentiated contribute zeros.
Status SplitGradAlong(GradientContext& ctx, int value_input, Output axis) {
  std::vector<Output> grads;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    grads.push_back(ctx.has_grad(i) ? ctx.grad(i) : ctx.ZerosLike(ctx.output(i)));
  }
  ctx.SetInputGrad(value_input, ctx.Op("ConcatV2", {GradInput::List(std::move(grads)), axis}));
  return ctx.status();
}

Status SplitGrad(GradientContext& ctx) { return SplitGradAlong(ctx, 1, ctx.input(0)); }
Status SplitVGrad(GradientContext& ctx) { return SplitGradAlong(ctx, 0, ctx.input(2)); }

// BroadcastTo: the gradient summed over the broadcast dimensions, back to input's shape.
Status BroadcastToGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.ReduceForBroadcast(g, ctx.input(0), g, ctx.output(0)).first);
  return ctx.status();
}

}  // namespace

Status RegisterArrayGradients(GradientFunctionRegistry& registry) {
  // Every entry is tried, so one clash (another family registering the same op) does not
  // drop the rest; the first error is reported.
  Status first;
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(registry.Register("Identity", IdentityGrad));
  keep(registry.Register("PlaceholderWithDefault", IdentityGrad));
  keep(registry.Register("IdentityN", IdentityNGrad));
  keep(registry.Register("Reshape", ReshapeToInputGrad));
  keep(registry.Register("Squeeze", ReshapeToInputGrad));
  keep(registry.Register("ExpandDims", ReshapeToInputGrad));
  keep(registry.Register("Transpose", TransposeGrad));
  keep(registry.Register("ConcatV2", ConcatV2Grad));
  keep(registry.Register("Pack", PackGrad));
  keep(registry.Register("Unpack", UnpackGrad));
  keep(registry.Register("Slice", SliceGrad));
  keep(registry.Register("StridedSlice", StridedSliceGrad));
  keep(registry.Register("Tile", TileGrad));
  keep(registry.Register("Pad", PadGrad));
  keep(registry.Register("Fill", FillGrad));
  keep(registry.Register("Gather", GatherGrad));
  keep(registry.Register("GatherV2", GatherV2Grad));
  keep(registry.Register("Split", SplitGrad));
  keep(registry.Register("SplitV", SplitVGrad));
  keep(registry.Register("BroadcastTo", BroadcastToGrad));

  // No gradient flows through these (TensorFlow's NotDifferentiable list, for the ops the
  // core defines): shapes and constants, index helpers, variables and their updates,
  // random sources and summaries.
  for (const char* op : {
           // array
           "Const", "Placeholder", "Shape", "ShapeN", "Size", "Rank", "OneHot",
           "ZerosLike", "OnesLike", "BroadcastGradientArgs", "ConcatOffset",
           "InvertPermutation", "Where", "StopGradient",
           // control
           "NoOp",
           // state
           "VariableV2", "Assign", "AssignAdd", "AssignSub", "ScatterUpdate", "ScatterAdd",
           "ScatterSub", "IsVariableInitialized",
           // random
           "RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomShuffle",
           "RandomUniformInt", "LogUniformCandidateSampler",
           // stateless random (a pure function of the seed, which is not differentiable)
           "StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
           "StatelessRandomUniformInt", "StatelessRandomUniformFullInt",
           "StatelessRandomGetKeyCounter", "StatelessRandomGetAlg",
           "StatelessRandomGetKeyCounterAlg", "StatelessRandomUniformV2",
           "StatelessRandomNormalV2", "StatelessTruncatedNormalV2", "StatelessRandomUniformIntV2",
           "StatelessRandomUniformFullIntV2", "StatelessShuffle",
           // summaries (strings for event files)
           "ScalarSummary", "HistogramSummary", "MergeSummary",
           // Checkpoint I/O.
           "SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename", "ShardedFilespec",
           // strings
           "StringJoin", "StaticRegexFullMatch", "RegexFullMatch", "StringToHashBucketFast",
           "StringToNumber", "AsString", "StringLength", "Substr", "StringStrip", "ReduceJoin"}) {
    keep(registry.RegisterNotDifferentiable(op));
  }
  return first;
}

}  // namespace tgraph
