// The gradient of Einsum, as TensorFlow's: each input's gradient is itself an Einsum, of the
// output gradient with the other input ("ij,jk->ik" gives "ik,jk->ij" and "ij,ik->jk").
// Labels an input sums away on its own (in no other term) come back by broadcasting; dims
// of an ellipsis that broadcast are summed back down to the input's shape.
#include <algorithm>
#include <string>
#include <vector>

#include "common/einsum.h"
#include "core/autodiff/math_grad_util.h"

namespace tgraph::math_grad {
namespace {

// A term's text from its axes, optionally without some labels.
std::string Term(const einsum::Equation& eq, const std::vector<int>& axes,
                 const std::vector<int>& drop = {}) {
  std::string s;
  for (int id : axes) {
    if (id == einsum::kEllipsis) {
      s += "...";
    } else if (std::find(drop.begin(), drop.end(), id) == drop.end()) {
      s += eq.letters[static_cast<size_t>(id)];
    }
  }
  return s;
}

bool Has(const std::vector<int>& axes, int id) {
  return std::find(axes.begin(), axes.end(), id) != axes.end();
}

// The gradient of input `i`: Einsum(grad, other input) to input i's labels, then broadcast
// along the labels only input i has, then summed down over broadcast ellipsis dims.
Output InputGrad(GradientContext& ctx, const einsum::Equation& eq, int i, Status* error) {
  const std::vector<int>& term = eq.inputs[static_cast<size_t>(i)];
  const bool two = eq.inputs.size() == 2;
  const std::vector<int>* other = two ? &eq.inputs[static_cast<size_t>(1 - i)] : nullptr;
  std::vector<int> own_only;  // labels summed away by this input alone
  for (size_t k = 0; k < term.size(); ++k) {
    const int id = term[k];
    if (id == einsum::kEllipsis) continue;
    if (std::count(term.begin(), term.end(), id) > 1) {
      *error = Unimplemented("the gradient of Einsum '", ctx.op()->name(),
                             "' with a label repeated in one input (a diagonal) is not "
                             "implemented");
      return Output{};
    }
    if (!Has(eq.output, id) && (other == nullptr || !Has(*other, id))) own_only.push_back(id);
  }
  const bool ellipsis = Has(term, einsum::kEllipsis);
  if (ellipsis && !Has(eq.output, einsum::kEllipsis)) {
    *error = Unimplemented("the gradient of Einsum '", ctx.op()->name(),
                           "' whose output drops the ellipsis is not implemented");
    return Output{};
  }
  std::string equation = Term(eq, eq.output);
  std::vector<Output> operands = {ctx.grad(0)};
  if (two) {
    equation.append(",").append(Term(eq, *other));
    operands.push_back(ctx.input(1 - i));
  }
  equation.append("->").append(Term(eq, term, own_only));
  Output g = ctx.Op("Einsum", {GradInput::List(std::move(operands))},
                    {{"equation", AttrOfString(equation)}});
  // Axes for the labels summed away here, as size-1 axes: those before the ellipsis (or all,
  // without one) counted from the front, left to right; those after it from the back, right
  // to left (the ellipsis of g may be wider than x's).
  const auto ell = std::find(term.begin(), term.end(), einsum::kEllipsis);
  int32_t front = 0;
  for (auto it = term.begin(); it != ell; ++it, ++front) {
    if (Has(own_only, *it)) g = ctx.Op("ExpandDims", {g, ctx.ScalarInt32(front)});
  }
  if (ell != term.end()) {
    int32_t back = -1;
    for (auto it = term.end(); it-- != ell + 1; --back) {
      if (Has(own_only, *it)) g = ctx.Op("ExpandDims", {g, ctx.ScalarInt32(back)});
    }
  }
  Output x = ctx.input(i);
  if (!own_only.empty()) g = ctx.Mul(g, ctx.OnesLike(x));  // broadcast along them
  if (ellipsis) g = ctx.ReduceForBroadcast(g, x, g, g).first;
  return g;
}

Status EinsumGrad(GradientContext& ctx) {
  const std::string equation = ctx.AttrString("equation");
  if (!ctx.ok()) return ctx.status();
  einsum::Equation eq;
  const std::string error = einsum::Parse(equation, ctx.num_inputs(), &eq);
  if (!error.empty()) return InvalidArgument("Einsum '", ctx.op()->name(), "': ", error);
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    Status s;
    Output g = InputGrad(ctx, eq, i, &s);
    if (!s.ok()) return s;
    ctx.SetInputGrad(i, g);
  }
  return ctx.status();
}

}  // namespace

Status RegisterEinsumGradients(GradientFunctionRegistry& registry) {
  return registry.Register("Einsum", EinsumGrad);
}

}  // namespace tgraph::math_grad
