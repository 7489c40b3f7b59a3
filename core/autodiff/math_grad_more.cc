// Gradients of the element-wise math beyond the basic set (core/ops/math_more_ops.cc), with
// TensorFlow 1.x's formulas (math_grad.py / nn_grad.py): the trigonometric and hyperbolic
// functions, Softsign, the special functions, Inv, Atan2, the "no NaN" and x*log(y)
// binaries (AccumulateNV2's is AddN's, math_grad_cwise.cc). Rounding ops have none (TF's None); classifiers, integer
// division and the bitwise ops are not differentiable.
#include <utility>

#include "core/autodiff/math_grad_util.h"

namespace tgraph::math_grad {
namespace {

// Reduces both sides for broadcasting and sets them as inputs 0 and 1's gradients.
void SetBroadcastGrads(GradientContext& ctx, Output g0, Output g1) {
  auto [r0, r1] = ctx.ReduceForBroadcast(g0, ctx.input(0), g1, ctx.input(1));
  ctx.SetInputGrad(0, r0);
  ctx.SetInputGrad(1, r1);
}

// Sets input 0's gradient to grad * d, d built from the (conjugated) input x.
template <typename D>
Status ChainFromInput(GradientContext& ctx, D derivative) {
  Output x = Conj(ctx, ctx.input(0));
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), derivative(x)));
  return ctx.status();
}

// The same, d built from the (conjugated) output y.
template <typename D>
Status ChainFromOutput(GradientContext& ctx, D derivative) {
  Output y = Conj(ctx, ctx.output(0));
  ctx.SetInputGrad(0, ctx.Mul(ctx.grad(0), derivative(y)));
  return ctx.status();
}

Status SinGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) { return ctx.Op("Cos", {x}); });
}

Status CosGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) { return ctx.Neg(ctx.Op("Sin", {x})); });
}

// d tan(x) = sec(x)^2 = 1 / cos(x)^2.
Status TanGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) {
    return ctx.Square(ctx.Op("Reciprocal", {ctx.Op("Cos", {x})}));
  });
}

// 1 - x^2 (asin, acos, atanh) or 1 + x^2 (atan).
Output OneMinusSquare(GradientContext& ctx, Output x) {
  return ctx.Sub(ctx.ScalarLike(x, 1.0), ctx.Square(x));
}

// d asin(x) = 1 / sqrt(1 - x^2); d acos(x) is its negative.
Status AsinGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) { return ctx.Op("Rsqrt", {OneMinusSquare(ctx, x)}); });
}

Status AcosGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) {
    return ctx.Neg(ctx.Op("Rsqrt", {OneMinusSquare(ctx, x)}));
  });
}

Status AtanGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) {
    return ctx.Op("Reciprocal", {ctx.Add(ctx.ScalarLike(x, 1.0), ctx.Square(x))});
  });
}

Status AtanhGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) {
    return ctx.Op("Reciprocal", {OneMinusSquare(ctx, x)});
  });
}

Status SinhGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) { return ctx.Op("Cosh", {x}); });
}

Status CoshGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) { return ctx.Op("Sinh", {x}); });
}

// d asinh(x) = 1 / cosh(y) and d acosh(x) = 1 / sinh(y), from the output y.
Status AsinhGrad(GradientContext& ctx) {
  Output y = Conj(ctx, ctx.output(0));
  ctx.SetInputGrad(0, ctx.Div(ctx.grad(0), ctx.Op("Cosh", {y})));
  return ctx.status();
}

Status AcoshGrad(GradientContext& ctx) {
  Output y = Conj(ctx, ctx.output(0));
  ctx.SetInputGrad(0, ctx.Div(ctx.grad(0), ctx.Op("Sinh", {y})));
  return ctx.status();
}

// TF returns None for the rounding ops: nothing flows back through them.
Status NoGrad(GradientContext& ctx) { return ctx.status(); }

Status SoftsignGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("SoftsignGrad", {ctx.grad(0), ctx.input(0)}));
  return ctx.status();
}

Status InvGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("InvGrad", {Conj(ctx, ctx.output(0)), ctx.grad(0)}));
  return ctx.status();
}

Status LgammaGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) { return ctx.Op("Digamma", {x}); });
}

// d digamma(x) = polygamma(1, x).
Status DigammaGrad(GradientContext& ctx) {
  return ChainFromInput(ctx, [&](Output x) {
    return ctx.Op("Polygamma", {ctx.ScalarLike(x, 1.0), x});
  });
}

// d polygamma(a, x) / dx = polygamma(a + 1, x); a (an order) gets none, as in TF.
Status PolygammaGrad(GradientContext& ctx) {
  Output a = ctx.input(0), x = ctx.input(1);
  Output d = ctx.Op("Polygamma", {ctx.Add(a, ctx.ScalarLike(a, 1.0)), x});
  Output gx = ctx.Mul(ctx.grad(0), d);
  ctx.SetInputGrad(1, ctx.ReduceForBroadcast(gx, x, gx, ctx.output(0)).first);
  return ctx.status();
}

// d erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x)^2).
Status ErfinvGrad(GradientContext& ctx) {
  return ChainFromOutput(ctx, [&](Output y) {
    return ctx.Mul(ctx.ScalarLike(y, 0.88622692545275801365), ctx.Op("Exp", {ctx.Square(y)}));
  });
}

// d ndtri(x) = sqrt(2 pi) * exp(ndtri(x)^2 / 2).
Status NdtriGrad(GradientContext& ctx) {
  return ChainFromOutput(ctx, [&](Output y) {
    Output half_y2 = ctx.Div(ctx.Square(y), ctx.ScalarLike(y, 2.0));
    return ctx.Mul(ctx.ScalarLike(y, 2.50662827463100050242), ctx.Op("Exp", {half_y2}));
  });
}

// z = atan2(y, x): dz/dy = x / (x^2 + y^2), dz/dx = -y / (x^2 + y^2).
Status Atan2Grad(GradientContext& ctx) {
  Output y = ctx.input(0), x = ctx.input(1);
  Output g_inv = ctx.Div(ctx.grad(0), ctx.Add(ctx.Square(x), ctx.Square(y)));
  SetBroadcastGrads(ctx, ctx.Mul(x, g_inv), ctx.Mul(ctx.Neg(y), g_inv));
  return ctx.status();
}

// z = x / y (0 where y = 0): dz/dx = div_no_nan(g, y), dz/dy = g * div_no_nan(-x / y, y).
Status DivNoNanGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  Output x = Conj(ctx, ctx.input(0)), y = Conj(ctx, ctx.input(1));
  Output gx = ctx.Op("DivNoNan", {g, y});
  Output gy = ctx.Mul(g, ctx.Op("DivNoNan", {ctx.Op("DivNoNan", {ctx.Neg(x), y}), y}));
  SetBroadcastGrads(ctx, gx, gy);
  return ctx.status();
}

// z = x * y (0 where y = 0): TF's mul_no_nan(g, y) and mul_no_nan(x, g).
Status MulNoNanGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  Output x = ctx.input(0), y = ctx.input(1);
  SetBroadcastGrads(ctx, ctx.Op("MulNoNan", {g, y}), ctx.Op("MulNoNan", {x, g}));
  return ctx.status();
}

// 1 where x != 0, else 0, in x's type: the x-partials of Xlogy, Xdivy and Xlog1py are zero
// where x is (TF's rule, so log(0) at x = 0 does not poison the gradient).
Output NotZero(GradientContext& ctx, Output x) {
  return ctx.Cast(ctx.Op("NotEqual", {x, ctx.ZerosLike(x)}), BaseType(x.dtype()));
}

// z = x log(y): dz/dx = xlogy(x != 0, y), dz/dy = xdivy(x, y).
Status XlogyGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  Output x = ctx.input(0), y = ctx.input(1);
  Output gx = ctx.Mul(ctx.Op("Xlogy", {NotZero(ctx, x), y}), g);
  Output gy = ctx.Mul(ctx.Op("Xdivy", {x, y}), g);
  SetBroadcastGrads(ctx, gx, gy);
  return ctx.status();
}

// z = x / y: dz/dx = xdivy(x != 0, y), dz/dy = xdivy(-x, y^2).
Status XdivyGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  Output x = ctx.input(0), y = ctx.input(1);
  Output gx = ctx.Mul(ctx.Op("Xdivy", {NotZero(ctx, x), y}), g);
  Output gy = ctx.Mul(ctx.Op("Xdivy", {ctx.Neg(x), ctx.Square(y)}), g);
  SetBroadcastGrads(ctx, gx, gy);
  return ctx.status();
}

// z = x log1p(y): dz/dx = xlog1py(x != 0, y), dz/dy = xdivy(x, y + 1).
Status Xlog1pyGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  Output x = ctx.input(0), y = ctx.input(1);
  Output gx = ctx.Mul(ctx.Op("Xlog1py", {NotZero(ctx, x), y}), g);
  Output gy = ctx.Mul(ctx.Op("Xdivy", {x, ctx.Add(y, ctx.ScalarLike(y, 1.0))}), g);
  SetBroadcastGrads(ctx, gx, gy);
  return ctx.status();
}

}  // namespace

Status RegisterCwiseMoreGradients(GradientFunctionRegistry& registry) {
  const std::pair<const char*, GradientFunction> functions[] = {
      {"Sin", SinGrad},         {"Cos", CosGrad},         {"Tan", TanGrad},
      {"Asin", AsinGrad},       {"Acos", AcosGrad},       {"Atan", AtanGrad},
      {"Sinh", SinhGrad},       {"Cosh", CoshGrad},       {"Asinh", AsinhGrad},
      {"Acosh", AcoshGrad},     {"Atanh", AtanhGrad},     {"Ceil", NoGrad},
      {"Rint", NoGrad},         {"Softsign", SoftsignGrad}, {"Inv", InvGrad},
      {"Lgamma", LgammaGrad},   {"Digamma", DigammaGrad}, {"Polygamma", PolygammaGrad},
      {"Erfinv", ErfinvGrad},   {"Ndtri", NdtriGrad},     {"Atan2", Atan2Grad},
      {"DivNoNan", DivNoNanGrad}, {"MulNoNan", MulNoNanGrad}, {"Xlogy", XlogyGrad},
      {"Xdivy", XdivyGrad},     {"Xlog1py", Xlog1pyGrad},
  };
  Status first;  // every entry is tried; the first clash is reported
  for (const auto& [type, fn] : functions) {
    Status s = registry.Register(type, fn);
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  // Boolean and integer results, and integer arithmetic: backprop stops there.
  for (const char* type : {"IsNan", "IsInf", "IsFinite", "ApproximateEqual", "Mod",
                           "TruncateMod", "TruncateDiv", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
                           "LeftShift", "RightShift", "Invert", "PopulationCount"}) {
    Status s = registry.RegisterNotDifferentiable(type);
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first;
}

}  // namespace tgraph::math_grad
