// Gradients of the matrix-structure ops and the segment reductions, as TensorFlow's
// array_grad.py and math_grad.py define them: a diagonal op's gradient is its inverse
// (MatrixDiag <-> MatrixDiagPart, MatrixSetDiag splits the gradient between the matrix and
// the diagonal), a segment reduction's gradient gathers the output gradient back to the rows
// that fed each segment (weighted by 1 / count for means, routed to the selected elements for
// max and min, by the product of the others for prod).
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"

namespace tgraph {
namespace {

Output Gather0(GraphBuilder& b, Output params, Output ids) {
  return b.Op("GatherV2", {params, ids, b.ScalarInt32(0)});
}

// The V1/V2 ops have no `align` attr and pack LEFT_LEFT; V3's is read.
GradAttrs AlignOf(GradientContext& ctx) {
  std::string align = "LEFT_LEFT";
  if (ctx.FindAttr("align") != nullptr) align = ctx.AttrString("align");
  return {{"align", AttrOfString(align)}};
}

// ---- matrix structure ----

Status MatrixBandPartGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("MatrixBandPart", {ctx.grad(0), ctx.input(1), ctx.input(2)}));
  return ctx.status();
}

Status MatrixDiagGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("MatrixDiagPart", {ctx.grad(0)}));
  return ctx.status();
}

// MatrixDiagV2/V3: the diagonals k of the gradient, packed as the forward op read them.
Status MatrixDiagV3Grad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.Op("MatrixDiagPartV3", {g, ctx.input(1), ctx.ScalarLike(g, 0)},
                             AlignOf(ctx)));
  return ctx.status();
}

Status MatrixDiagPartGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("MatrixSetDiag", {ctx.ZerosLike(ctx.input(0)), ctx.grad(0)}));
  return ctx.status();
}

Status MatrixDiagPartV3Grad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("MatrixSetDiagV3",
                             {ctx.ZerosLike(ctx.input(0)), ctx.grad(0), ctx.input(1)},
                             AlignOf(ctx)));
  return ctx.status();
}

Status MatrixSetDiagGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, ctx.Op("MatrixSetDiag", {g, ctx.ZerosLike(ctx.input(1))}));
  ctx.SetInputGrad(1, ctx.Op("MatrixDiagPart", {g}));
  return ctx.status();
}

Status MatrixSetDiagV3Grad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  const GradAttrs align = AlignOf(ctx);
  ctx.SetInputGrad(0, ctx.Op("MatrixSetDiagV3", {g, ctx.ZerosLike(ctx.input(1)), ctx.input(2)},
                             align));
  ctx.SetInputGrad(1, ctx.Op("MatrixDiagPartV3", {g, ctx.input(2), ctx.ScalarLike(g, 0)}, align));
  return ctx.status();
}

Status DiagGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("DiagPart", {ctx.grad(0)}));
  return ctx.status();
}

Status DiagPartGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ctx.Op("Diag", {ctx.grad(0)}));
  return ctx.status();
}

// ---- sorted segment reductions ----

Status SegmentSumGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, Gather0(ctx, ctx.grad(0), ctx.input(1)));
  return ctx.status();
}

Status SegmentMeanGrad(GradientContext& ctx) {
  Output ids = ctx.input(1);
  Output counts = ctx.Op("SegmentSum", {ctx.OnesLike(ctx.input(0)), ids});
  ctx.SetInputGrad(0, Gather0(ctx, ctx.Div(ctx.grad(0), counts), ids));
  return ctx.status();
}

// Max / Min: the gradient goes to the elements equal to their segment's result, split evenly
// among ties.
Status SegmentMinOrMaxGrad(GradientContext& ctx) {
  Output data = ctx.input(0), ids = ctx.input(1);
  Output is_selected = ctx.Op("Equal", {data, Gather0(ctx, ctx.output(0), ids)});
  Output num_selected =
      ctx.Op("SegmentSum", {ctx.Cast(is_selected, BaseType(data.dtype())), ids});
  Output gathered = Gather0(ctx, ctx.Div(ctx.grad(0), num_selected), ids);
  ctx.SetInputGrad(0, ctx.Op("SelectV2", {is_selected, gathered, ctx.ZerosLike(data)}));
  return ctx.status();
}

// Prod: d/dx_i = product of the segment's other elements; with one zero in a segment only
// the zero gets a gradient (the product of the non-zeros), with two or more none does.
// `segment_sum`/`segment_prod`/`gather` differ between the sorted and unsorted forms.
struct ProdParts {
  Output grad, is_zero, non_zero_data;
};
ProdParts ProdPrologue(GradientContext& ctx, const std::vector<GradInput>& seg_args_tail,
                       const char* sum_op) {
  Output data = ctx.input(0);
  ProdParts p;
  p.is_zero = ctx.Op("Equal", {data, ctx.ScalarLike(data, 0)});
  std::vector<GradInput> sum_in{ctx.Cast(p.is_zero, DT_INT32)};
  sum_in.insert(sum_in.end(), seg_args_tail.begin(), seg_args_tail.end());
  Output num_zeros = ctx.Op(sum_op, sum_in);
  Output g = ctx.grad(0);
  p.grad = ctx.Op("SelectV2", {ctx.Op("Greater", {num_zeros, ctx.ScalarInt32(1)}),
                               ctx.ZerosLike(g), g});
  p.non_zero_data = ctx.Op("SelectV2", {p.is_zero, ctx.OnesLike(data), data});
  return p;
}

Status SegmentProdGrad(GradientContext& ctx) {
  Output ids = ctx.input(1);
  ProdParts p = ProdPrologue(ctx, {ids}, "SegmentSum");
  Output non_zero_prod = ctx.Op("SegmentProd", {p.non_zero_data, ids});
  Output gathered_prod = Gather0(ctx, ctx.output(0), ids);
  Output gathered_non_zero_prod = Gather0(ctx, non_zero_prod, ids);
  Output partial = ctx.Op("SelectV2", {p.is_zero, gathered_non_zero_prod,
                                       ctx.Div(gathered_prod, p.non_zero_data)});
  ctx.SetInputGrad(0, ctx.Mul(Gather0(ctx, p.grad, ids), partial));
  return ctx.status();
}

// ---- unsorted segment reductions ----

// params gathered at max(ids, 0), zero where an id is negative (TensorFlow's
// _GatherDropNegatives); *mask gets the ids >= 0 test shaped to broadcast over the rows.
Output GatherDropNegatives(GradientContext& ctx, Output params, Output ids, Output* mask) {
  Output clipped = ctx.Op("Maximum", {ids, ctx.ZerosLike(ids)});
  Output gathered = Gather0(ctx, params, clipped);
  Output positive = ctx.Op("GreaterEqual", {ids, ctx.ZerosLike(ids)});
  // [ids dims] + [1] * (rank(gathered) - rank(ids)), so SelectV2 broadcasts the mask.
  Output extra = ctx.Sub(ctx.Rank(gathered), ctx.Rank(ids));
  Output ones = ctx.Fill(ctx.Reshape(extra, ctx.ConstInt32({1})), ctx.ScalarInt32(1));
  Output shape = ctx.Op("ConcatV2", {GradInput::List({ctx.Shape(ids), ones}), ctx.ScalarInt32(0)});
  *mask = ctx.Reshape(positive, shape);
  return ctx.Op("SelectV2", {*mask, gathered, ctx.ZerosLike(gathered)});
}

Status UnsortedSegmentSumGrad(GradientContext& ctx) {
  Output mask;
  ctx.SetInputGrad(0, GatherDropNegatives(ctx, ctx.grad(0), ctx.input(1), &mask));
  return ctx.status();
}

Status UnsortedSegmentMinOrMaxGrad(GradientContext& ctx) {
  Output data = ctx.input(0), ids = ctx.input(1), num = ctx.input(2);
  Output mask;
  Output gathered_out = GatherDropNegatives(ctx, ctx.output(0), ids, &mask);
  Output is_selected =
      ctx.Op("LogicalAnd", {ctx.Op("Equal", {data, gathered_out}), mask});
  Output num_selected = ctx.Op("UnsortedSegmentSum",
                               {ctx.Cast(is_selected, BaseType(data.dtype())), ids, num});
  Output weighted = ctx.Div(ctx.grad(0), num_selected);
  Output unused;
  Output gathered = GatherDropNegatives(ctx, weighted, ids, &unused);
  ctx.SetInputGrad(0, ctx.Op("SelectV2", {is_selected, gathered, ctx.ZerosLike(data)}));
  return ctx.status();
}

Status UnsortedSegmentProdGrad(GradientContext& ctx) {
  Output ids = ctx.input(1), num = ctx.input(2);
  ProdParts p = ProdPrologue(ctx, {ids, num}, "UnsortedSegmentSum");
  Output non_zero_prod = ctx.Op("UnsortedSegmentProd", {p.non_zero_data, ids, num});
  Output clipped = ctx.Op("Maximum", {ids, ctx.ZerosLike(ids)});
  Output gathered_prod = Gather0(ctx, ctx.output(0), clipped);
  Output gathered_non_zero_prod = Gather0(ctx, non_zero_prod, clipped);
  Output partial = ctx.Op("SelectV2", {p.is_zero, gathered_non_zero_prod,
                                       ctx.Div(gathered_prod, p.non_zero_data)});
  Output mask;
  ctx.SetInputGrad(0, ctx.Mul(GatherDropNegatives(ctx, p.grad, ids, &mask), partial));
  return ctx.status();
}

// ---- sparse segment reductions ----

// SparseSegment{Sum,Mean,SqrtN}[WithNumSegments]: the matching *Grad op scatters the output
// gradient back to data's rows.
GradientFunction SparseSegmentGrad(const char* grad_op) {
  return [grad_op](GradientContext& ctx) {
    Output rows = Gather0(ctx, ctx.Shape(ctx.input(0)), ctx.ScalarInt32(0));
    ctx.SetInputGrad(0, ctx.Op(grad_op, {ctx.grad(0), ctx.input(1), ctx.input(2), rows}));
    return ctx.status();
  };
}

}  // namespace

Status RegisterMatrixSegmentGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(registry.Register("MatrixBandPart", MatrixBandPartGrad));
  keep(registry.Register("MatrixDiag", MatrixDiagGrad));
  keep(registry.Register("MatrixDiagV2", MatrixDiagV3Grad));
  keep(registry.Register("MatrixDiagV3", MatrixDiagV3Grad));
  keep(registry.Register("MatrixDiagPart", MatrixDiagPartGrad));
  keep(registry.Register("MatrixDiagPartV2", MatrixDiagPartV3Grad));
  keep(registry.Register("MatrixDiagPartV3", MatrixDiagPartV3Grad));
  keep(registry.Register("MatrixSetDiag", MatrixSetDiagGrad));
  keep(registry.Register("MatrixSetDiagV2", MatrixSetDiagV3Grad));
  keep(registry.Register("MatrixSetDiagV3", MatrixSetDiagV3Grad));
  keep(registry.Register("Diag", DiagGrad));
  keep(registry.Register("DiagPart", DiagPartGrad));
  keep(registry.Register("SegmentSum", SegmentSumGrad));
  keep(registry.Register("SegmentMean", SegmentMeanGrad));
  keep(registry.Register("SegmentMax", SegmentMinOrMaxGrad));
  keep(registry.Register("SegmentMin", SegmentMinOrMaxGrad));
  keep(registry.Register("SegmentProd", SegmentProdGrad));
  keep(registry.Register("UnsortedSegmentSum", UnsortedSegmentSumGrad));
  keep(registry.Register("UnsortedSegmentMax", UnsortedSegmentMinOrMaxGrad));
  keep(registry.Register("UnsortedSegmentMin", UnsortedSegmentMinOrMaxGrad));
  keep(registry.Register("UnsortedSegmentProd", UnsortedSegmentProdGrad));
  for (const char* suffix : {"", "WithNumSegments"}) {
    keep(registry.Register(std::string("SparseSegmentSum") + suffix,
                           SparseSegmentGrad("SparseSegmentSumGrad")));
    keep(registry.Register(std::string("SparseSegmentMean") + suffix,
                           SparseSegmentGrad("SparseSegmentMeanGrad")));
    keep(registry.Register(std::string("SparseSegmentSqrtN") + suffix,
                           SparseSegmentGrad("SparseSegmentSqrtNGrad")));
  }
  return first;
}

}  // namespace tgraph
