// Gradients of MatMul and BatchMatMulV2 (TensorFlow 1.x's math_grad.py). For C = op(A) op(B)
// with dC = G: dA = G op(B)^T and dB = op(A)^T G, rearranged for each transpose combination
// so that no explicit Transpose node is needed.
#include "core/autodiff/math_grad_util.h"

namespace tgraph::math_grad {
namespace {

// One product of the gradient formulas: which operands, and whether each is transposed.
struct Product {
  bool grad_first;  // G is the left operand
  bool t_left;
  bool t_right;
};

// The two products for (transpose_a, transpose_b): {dA, dB}, with `a`, `b` the other operand.
//   (F, F): dA = G B^T,     dB = A^T G
//   (F, T): dA = G B,       dB = G^T A
//   (T, F): dA = B G^T,     dB = A G
//   (T, T): dA = B^T G^T,   dB = G^T A^T
std::pair<Product, Product> Products(bool ta, bool tb) {
  if (!ta && !tb) return {{true, false, true}, {false, true, false}};
  if (!ta && tb) return {{true, false, false}, {true, true, false}};
  if (ta && !tb) return {{false, false, true}, {false, false, false}};
  return {{false, true, true}, {true, true, true}};
}

// Builds `left x right` with the op `type` and its transpose attrs named `attr_l`/`attr_r`.
Output Multiply(GradientContext& ctx, const char* type, const char* attr_l, const char* attr_r,
                Output grad, Output other, const Product& p) {
  Output left = p.grad_first ? grad : other;
  Output right = p.grad_first ? other : grad;
  return ctx.Op(type, {left, right},
                {{attr_l, AttrOfBool(p.t_left)}, {attr_r, AttrOfBool(p.t_right)}});
}

Status MatMulGrad(GradientContext& ctx) {
  const bool ta = ctx.AttrBool("transpose_a");
  const bool tb = ctx.AttrBool("transpose_b");
  Output g = ctx.grad(0);
  Output a = Conj(ctx, ctx.input(0)), b = Conj(ctx, ctx.input(1));
  auto [pa, pb] = Products(ta, tb);
  // dA pairs G with B; dB pairs G with A.
  ctx.SetInputGrad(0, Multiply(ctx, "MatMul", "transpose_a", "transpose_b", g, b, pa));
  ctx.SetInputGrad(1, Multiply(ctx, "MatMul", "transpose_a", "transpose_b", g, a, pb));
  return ctx.status();
}

// Do x and y have the same, fully known batch dims (nothing was broadcast)?
bool SameStaticBatch(const PartialShape& x, const PartialShape& y) {
  if (!x.IsFullyDefined() || !y.IsFullyDefined() || x.rank() != y.rank()) return false;
  for (int d = 0; d + 2 < x.rank(); ++d) {
    if (x.dim(d) != y.dim(d)) return false;
  }
  return true;
}

// The gradients have the broadcast batch dims; each is summed over the batch dims its input
// was broadcast along, then reshaped to the input's shape.
Status BatchMatMulV2Grad(GradientContext& ctx) {
  const bool adj_x = ctx.AttrBool("adj_x");
  const bool adj_y = ctx.AttrBool("adj_y");
  Output g = ctx.grad(0);
  Output x = ctx.input(0), y = ctx.input(1);
  auto [px, py] = Products(adj_x, adj_y);
  Output gx = Multiply(ctx, "BatchMatMulV2", "adj_x", "adj_y", g, Conj(ctx, y), px);
  Output gy = Multiply(ctx, "BatchMatMulV2", "adj_x", "adj_y", g, Conj(ctx, x), py);
  if (ctx.ok() && !SameStaticBatch(x.shape(), y.shape())) {
    Output sx = ctx.Shape(x), sy = ctx.Shape(y);
    auto batch = [&](Output shape) {  // shape[:-2]
      return ctx.Op("StridedSlice", {shape, ctx.ConstInt32({0}), ctx.ConstInt32({-2}),
                                     ctx.ConstInt32({1})});
    };
    std::vector<Output> r = ctx.OpOutputs("BroadcastGradientArgs", {batch(sx), batch(sy)});
    if (r.size() == 2) {
      gx = ctx.Reshape(ctx.Sum(gx, r[0]), sx);
      gy = ctx.Reshape(ctx.Sum(gy, r[1]), sy);
    }
  }
  ctx.SetInputGrad(0, gx);
  ctx.SetInputGrad(1, gy);
  return ctx.status();
}

}  // namespace

Status RegisterMatMulGradients(GradientFunctionRegistry& registry) {
  Status first = registry.Register("MatMul", MatMulGrad);
  Status second = registry.Register("BatchMatMulV2", BatchMatMulV2Grad);
  // BatchMatMul (v1) never broadcasts; V3's gradients are V2 products of the same types
  // (the only V3 kernels tgraph has take Ta == Tb == Tout).
  for (const char* op : {"BatchMatMul", "BatchMatMulV3"}) {
    Status s = registry.Register(op, BatchMatMulV2Grad);
    if (second.ok()) second = s;
  }
  return first.ok() ? second : first;
}

}  // namespace tgraph::math_grad
