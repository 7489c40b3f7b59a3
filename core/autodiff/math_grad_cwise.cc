// Gradients of the element-wise math ops (TensorFlow 1.x's math_grad.py): the broadcasting
// binary ops sum their gradients back down to each input's shape; the unary ops multiply by
// the derivative, through TF's fused *Grad ops where it has one.
#include <utility>

#include "core/autodiff/math_grad_util.h"

namespace tgraph::math_grad {
namespace {

// Reduces both sides for broadcasting and sets them as inputs 0 and 1's gradients.
void SetBroadcastGrads(GradientContext& ctx, Output gx, Output gy) {
  auto [rx, ry] = ctx.ReduceForBroadcast(gx, ctx.input(0), gy, ctx.input(1));
  ctx.SetInputGrad(0, rx);
  ctx.SetInputGrad(1, ry);
}

Status AddGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  SetBroadcastGrads(ctx, g, g);
  return ctx.status();
}

Status SubGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  SetBroadcastGrads(ctx, g, ctx.Neg(g));
  return ctx.status();
}

Status MulGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  Output x = ctx.input(0), y = ctx.input(1);
  SetBroadcastGrads(ctx, ctx.Mul(g, Conj(ctx, y)), ctx.Mul(Conj(ctx, x), g));
  return ctx.status();
}

// z = x / y: dz/dx = 1 / y, dz/dy = -x / y^2.
Status RealDivGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  Output x = Conj(ctx, ctx.input(0)), y = Conj(ctx, ctx.input(1));
  Output gx = ctx.Div(g, y);
  Output gy = ctx.Mul(g, ctx.Div(ctx.Div(ctx.Neg(x), y), y));
  SetBroadcastGrads(ctx, gx, gy);
  return ctx.status();
}

// The gradient goes to x where `selector(x, y)` holds, else to y (ties go to x, as in TF).
Status MaximumMinimumGrad(GradientContext& ctx, const char* selector) {
  Output g = ctx.grad(0);
  Output x = ctx.input(0), y = ctx.input(1);
  Output zeros = ctx.ZerosLike(g);
  Output x_mask = ctx.Op(selector, {x, y});
  Output gx = ctx.Op("Select", {x_mask, g, zeros});
  Output gy = ctx.Op("Select", {x_mask, zeros, g});
  SetBroadcastGrads(ctx, gx, gy);
  return ctx.status();
}

// z = x^y: dz/dx = y * x^(y-1), dz/dy = z * log(x), with log(x) taken as 0 where x <= 0
// (TF's guard against the false singularity at x = 0).
Status PowGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  Output x = ctx.input(0), y = ctx.input(1), z = ctx.output(0);
  Output y_minus_1 = ctx.Sub(y, ctx.ScalarLike(y, 1.0));
  Output gx = ctx.Mul(g, ctx.Mul(y, ctx.Op("Pow", {x, y_minus_1})));
  const DataType t = BaseType(x.dtype());
  const bool complex = t == DT_COMPLEX64 || t == DT_COMPLEX128;
  Output mask = complex ? ctx.Op("NotEqual", {x, ctx.ZerosLike(x)})
                        : ctx.Op("Greater", {x, ctx.ZerosLike(x)});
  Output safe_x = ctx.Op("Select", {mask, x, ctx.OnesLike(x)});
  Output log_x = ctx.Op("Select", {mask, ctx.Op("Log", {safe_x}), ctx.ZerosLike(x)});
  Output gy = ctx.Mul(g, ctx.Mul(z, log_x));
  SetBroadcastGrads(ctx, gx, gy);
  return ctx.status();
}

// ---- unary ----

Status NegGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Neg(ctx.grad(0)));
  return ctx.status();
}

Status AbsGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), ctx.Op("Sign", {ctx.input(0)})));
  return ctx.status();
}

Status SquareGrad(GradientContext& ctx) {
  Output x = ctx.input(0);
  Output two_x = ctx.Mul(Conj(ctx, x), ctx.ScalarLike(x, 2.0));
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), two_x));
  return ctx.status();
}

// Gradients TF computes from the op's output y with a fused op `type`(y, dy).
GradientFunction FromOutputGrad(const char* type) {
  return [type](GradientContext& ctx) {
    ctx.SetInputGrad(0, ctx.Op(type, {Conj(ctx, ctx.output(0)), ctx.grad(0)}));
    return ctx.status();
  };
}

Status ExpGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), Conj(ctx, ctx.output(0))));
  return ctx.status();
}

Status LogGrad(GradientContext& ctx) {
  Output x = Conj(ctx, ctx.input(0));
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), ctx.Op("Reciprocal", {x})));
  return ctx.status();
}

// Sign is piecewise constant: its gradient is zero (not "none", as in TF).
// d/dx log(1 + x) = 1 / (1 + x).
Status Log1pGrad(GradientContext& ctx) {
  Output x = Conj(ctx, ctx.input(0));
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), ctx.Op("Reciprocal", {ctx.Add(x, ctx.OnesLike(x))})));
  return ctx.status();
}

// d/dx (exp(x) - 1) = exp(x) = y + 1.
Status Expm1Grad(GradientContext& ctx) {
  Output y = Conj(ctx, ctx.output(0));
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), ctx.Add(y, ctx.OnesLike(y))));
  return ctx.status();
}

Status SignGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.ZerosLike(ctx.input(0)));
  return ctx.status();
}

// TF returns None for Floor: nothing flows back through it.
Status FloorGrad(GradientContext& ctx) { return ctx.status(); }

Status AddNGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  for (int i = 0; i < ctx.num_inputs(); ++i) ctx.SetInputGrad(i, g);
  return ctx.status();
}

bool IsFloatingOrComplex(DataType t) {
  switch (BaseType(t)) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
      return true;
    default:
      return false;
  }
}

// The gradient is cast back to the source type; casts to or from integers carry none.
Status CastGrad(GradientContext& ctx) {
  const DataType src = ctx.AttrType("SrcT");
  const DataType dst = ctx.AttrType("DstT");
  if (ctx.ok() && IsFloatingOrComplex(src) && IsFloatingOrComplex(dst)) {
    ctx.SetInputGrad(0, ctx.Cast(ctx.grad(0), src));
  }
  return ctx.status();
}

// The condition gets no gradient; t and e get the gradient where they were chosen.
Status SelectGrad(GradientContext& ctx) {
  Output c = ctx.input(0);
  Output g = ctx.grad(0);
  Output zeros = ctx.ZerosLike(ctx.input(1));
  ctx.SetInputGrad(1, ctx.Op("Select", {c, g, zeros}));
  ctx.SetInputGrad(2, ctx.Op("Select", {c, zeros, g}));
  return ctx.status();
}

// z = (x - y)^2: dz/dx = 2 (x - y), dz/dy = -2 (x - y).
Status SquaredDifferenceGrad(GradientContext& ctx) {
  Output x = ctx.input(0), y = ctx.input(1);
  Output gx = ctx.Mul(ctx.grad(0), ctx.Mul(ctx.ScalarLike(x, 2.0), Conj(ctx, ctx.Sub(x, y))));
  SetBroadcastGrads(ctx, gx, ctx.Neg(gx));
  return ctx.status();
}

// d erf(x)/dx = 2 / sqrt(pi) * exp(-x^2).
Status ErfGrad(GradientContext& ctx) {
  Output x = Conj(ctx, ctx.input(0));
  Output two_over_root_pi = ctx.ScalarLike(x, 1.1283791670955126);
  Output d = ctx.Mul(two_over_root_pi, ctx.Op("Exp", {ctx.Neg(ctx.Square(x))}));
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), d));
  return ctx.status();
}

// d erfc(x)/dx = -2 / sqrt(pi) * exp(-x^2).
Status ErfcGrad(GradientContext& ctx) {
  Output x = Conj(ctx, ctx.input(0));
  Output minus_two_over_root_pi = ctx.ScalarLike(x, -1.1283791670955126);
  Output d = ctx.Mul(minus_two_over_root_pi, ctx.Op("Exp", {ctx.Neg(ctx.Square(x))}));
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), d));
  return ctx.status();
}

// SelectV2 broadcasts condition, t and e: each of t and e gets the gradient where it was
// chosen, summed down to its own shape (the output has the shape of all three broadcast).
Status SelectV2Grad(GradientContext& ctx) {
  Output c = ctx.input(0);
  Output g = ctx.grad(0);
  Output zeros = ctx.ZerosLike(g);
  Output out = ctx.output(0);
  Output gt = ctx.Op("SelectV2", {c, g, zeros});
  Output ge = ctx.Op("SelectV2", {c, zeros, g});
  ctx.SetInputGrad(1, ctx.ReduceForBroadcast(gt, ctx.input(1), gt, out).first);
  ctx.SetInputGrad(2, ctx.ReduceForBroadcast(ge, ctx.input(2), ge, out).first);
  return ctx.status();
}

}  // namespace

Status RegisterCwiseGradients(GradientFunctionRegistry& registry) {
  const std::pair<const char*, GradientFunction> functions[] = {
      {"Add", AddGrad},
      {"AddV2", AddGrad},
      {"Sub", SubGrad},
      {"Mul", MulGrad},
      {"RealDiv", RealDivGrad},
      {"Maximum", [](GradientContext& ctx) { return MaximumMinimumGrad(ctx, "GreaterEqual"); }},
      {"Minimum", [](GradientContext& ctx) { return MaximumMinimumGrad(ctx, "LessEqual"); }},
      {"Pow", PowGrad},
      {"Neg", NegGrad},
      {"Abs", AbsGrad},
      {"Square", SquareGrad},
      {"Sqrt", FromOutputGrad("SqrtGrad")},
      {"Rsqrt", FromOutputGrad("RsqrtGrad")},
      {"Exp", ExpGrad},
      {"Log", LogGrad},
      {"Log1p", Log1pGrad},
      {"Expm1", Expm1Grad},
      {"Tanh", FromOutputGrad("TanhGrad")},
      {"Sigmoid", FromOutputGrad("SigmoidGrad")},
      {"Sign", SignGrad},
      {"Floor", FloorGrad},
      {"Reciprocal", FromOutputGrad("ReciprocalGrad")},
      {"AddN", AddNGrad},
      {"AccumulateNV2", AddNGrad},  // tf.math.accumulate_n: AddN with a shape attr
      {"Cast", CastGrad},
      {"Select", SelectGrad},
      {"SelectV2", SelectV2Grad},
      {"SquaredDifference", SquaredDifferenceGrad},
      {"Erf", ErfGrad},
      {"Erfc", ErfcGrad},
      // TF returns None for Round, as for Floor.
      {"Round", FloorGrad},
  };
  Status first;  // every entry is tried; the first clash is reported
  for (const auto& [type, fn] : functions) {
    Status s = registry.Register(type, fn);
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first;
}

}  // namespace tgraph::math_grad
