// Gradients of the miscellaneous array ops (core/ops/array_misc_ops.cc), as TensorFlow's
// array_grad.py / math_grad.py define them, and the ones through which no gradient flows.
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"

namespace tgraph {
namespace {

// The gradient goes to t where it lies inside [min, max], to a bound where t is beyond it
// (summed over the elements a scalar bound covered).
Status ClipByValueGrad(GradientContext& ctx) {
  Output x = ctx.input(0), lo = ctx.input(1), hi = ctx.input(2);
  Output g = ctx.grad(0);
  Output zeros = ctx.ZerosLike(g);
  Output below = ctx.Op("Less", {x, lo});
  Output above = ctx.Op("Greater", {x, hi});
  ctx.SetInputGrad(0, ctx.Op("SelectV2", {ctx.Op("LogicalOr", {below, above}), zeros, g}));
  Output g_lo = ctx.Op("SelectV2", {below, g, zeros});
  Output g_hi = ctx.Op("SelectV2", {above, g, zeros});
  ctx.SetInputGrad(1, ctx.ReduceForBroadcast(g, x, g_lo, lo).second);
  ctx.SetInputGrad(2, ctx.ReduceForBroadcast(g, x, g_hi, hi).second);
  return ctx.status();
}

Status EnsureShapeGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.grad_value(0));
  return ctx.status();
}

// The gradient is checked in turn, naming the forward op's message.
Status CheckNumericsGrad(GradientContext& ctx) {
  const std::string message =
      "Not a number (NaN) or infinity (Inf) values detected in gradient. " +
      ctx.AttrString("message");
  ctx.SetInputGrad(0, ctx.Op(ctx.op()->type(), {ctx.grad(0)},
                             {{"message", AttrOfString(message)}}));
  return ctx.status();
}

Status RollGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("Roll", {ctx.grad(0), ctx.Neg(ctx.input(1)), ctx.input(2)}));
  return ctx.status();
}

// d(a x b)/da . g = b x g, d/db = g x a.
Status CrossGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.Op("Cross", {ctx.input(1), g}));
  ctx.SetInputGrad(1, ctx.Op("Cross", {g, ctx.input(0)}));
  return ctx.status();
}

// Concat (v1): each value gets its slice of the gradient (ConcatOffset over their shapes).
Status ConcatV1Grad(GradientContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  std::vector<Output> values;
  for (int i = 0; i < n; ++i) values.push_back(ctx.input(1 + i));
  Output axis = ctx.Op("FloorMod", {ctx.input(0), ctx.Rank(values[0])});
  std::vector<Output> shapes = ctx.OpOutputs("ShapeN", {GradInput::List(values)});
  std::vector<Output> offsets = ctx.OpOutputs("ConcatOffset", {axis, GradInput::List(shapes)});
  if (static_cast<int>(offsets.size()) != n || static_cast<int>(shapes.size()) != n) {
    return ctx.status();
  }
  for (int i = 0; i < n; ++i) {
    ctx.SetInputGrad(1 + i, ctx.Op("Slice", {ctx.grad(0), offsets[static_cast<size_t>(i)],
                                             shapes[static_cast<size_t>(i)]}));
  }
  return ctx.status();
}

}  // namespace

Status RegisterArrayMiscGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(registry.Register("ClipByValue", ClipByValueGrad));
  keep(registry.Register("EnsureShape", EnsureShapeGrad));
  keep(registry.Register("CheckNumerics", CheckNumericsGrad));
  keep(registry.Register("CheckNumericsV2", CheckNumericsGrad));
  keep(registry.Register("Roll", RollGrad));
  keep(registry.Register("Cross", CrossGrad));
  keep(registry.Register("Concat", ConcatV1Grad));
  // TensorFlow's NotDifferentiable ops among them (indices, buckets, comparisons, a fresh
  // tensor).
  for (const char* op : {"LinSpace", "Bucketize", "LowerBound", "UpperBound", "InTopKV2",
                         "Empty", "Bincount", "DenseBincount"}) {
    keep(registry.RegisterNotDifferentiable(op));
  }
  return first;
}

}  // namespace tgraph
