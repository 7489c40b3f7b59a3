// Gradients through TF1 conds (TensorFlow's control_flow_grad.py, for CondContext):
//   Merge: the output's gradient goes back to the branch that was taken:
//          Switch(grad, pred) gives input 0 (the false branch) and input 1 (the true branch).
//   Switch: the two outputs' gradients meet again: Merge(grad_false, grad_true). A branch
//          that did not use the value contributes zeros gated by the Switch's own output on
//          that side, so exactly one input of the Merge is live in any run.
// Graphs carry no cond context, so a Merge finds its predicate in the graph: the nearest
// predicate of a Switch reached from its true input through output 1 and from its false
// input through output 0 (a cond nested in a branch is reached from one side only). While loops (Enter, Exit,
// NextIteration, LoopCond, and their Merges and Switches) are differentiated as a whole by
// while_grad.cc, not op by op.
#include <deque>
#include <map>
#include <set>
#include <vector>

#include "core/autodiff/gradient_registry.h"
#include "core/autodiff/list_grad.h"
#include "core/exec/control_flow.h"

namespace tgraph {
namespace {

// The predicates (a Switch's input 1) of Switches reached backwards from `start` through
// their output `branch`, in breadth-first order (nearest first). The ops of a branch all
// hang off Switches (values) or the branch's pivot (constants), so the nearest are the
// branch's own conds'; the walk stops at a loop's Switches.
std::vector<Output> PredicatesReached(Output start, int branch) {
  std::vector<Output> preds;
  std::set<const Operation*> seen;
  std::deque<Output> queue{start};
  auto visit = [&](Output o) {
    if (ControlFlowKindOf(*o.op) == ControlFlowKind::kSwitch) {
      if (o.index == branch) preds.push_back(o.op->input(1));
      // A cond nested in the branch hides the Merge's own Switches behind its Switches: the
      // walk goes on through a cond's Switch (not a loop's, whose predicate is a LoopCond),
      // so the Merge's predicate is found after the nested conds' ones.
      if (seen.insert(o.op).second && o.op->input(1).op->type() != "LoopCond") queue.push_back(o.op->input(0));
      return;
    }
    if (!seen.insert(o.op).second) return;
    for (const Output& in : o.op->inputs()) queue.push_back(in);
    for (Operation* c : o.op->control_inputs()) {
      // A control input from an Identity of a Switch output (the pivot) counts as that output.
      if (c->type() == "Identity" && c->num_inputs() == 1 &&
          ControlFlowKindOf(*c->input(0).op) == ControlFlowKind::kSwitch) {
        queue.push_back(c->input(0));
      } else if (c->num_outputs() > 0) {
        queue.push_back(c->output(0));
      } else {
        for (const Output& in : c->inputs()) queue.push_back(in);
      }
    }
  };
  while (!queue.empty()) {
    Output o = queue.front();
    queue.pop_front();
    visit(o);
  }
  return preds;
}

// The same predicate whether a Switch takes it directly or through cond/pred_id.
const Operation* PredicateSource(Output pred) {
  while (pred.op->type() == "Identity" && pred.op->num_inputs() == 1) pred = pred.op->input(0);
  return pred.op;
}

Status MergeGrad(GradientContext& ctx) {
  if (ctx.num_inputs() != 2) {
    return ctx.Fail(Unimplemented("the gradient of Merge '", ctx.op()->name(), "' with ",
                                  ctx.num_inputs(), " inputs (only a cond's two-way Merge has one)"));
  }
  if (!ctx.has_grad(0)) return ctx.status();
  const std::vector<Output> from_true = PredicatesReached(ctx.input(1), 1);
  const std::vector<Output> from_false = PredicatesReached(ctx.input(0), 0);
  std::set<const Operation*> false_sources;
  for (const Output& p : from_false) false_sources.insert(PredicateSource(p));
  for (const Output& pred : from_true) {
    if (!false_sources.count(PredicateSource(pred))) continue;
    std::vector<Output> sides = ctx.OpOutputs("Switch", {ctx.grad(0), pred}, {}, "cond_grad");
    if (sides.size() == 2) {
      ctx.SetInputGrad(0, sides[0]);
      ctx.SetInputGrad(1, sides[1]);
    }
    return ctx.status();
  }
  return ctx.Fail(Unimplemented("the gradient of Merge '", ctx.op()->name(),
                                "': no cond predicate found for it (a while loop's Merge has no "
                                "gradient yet)"));
}

Status SwitchGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0) && !ctx.has_grad(1)) return ctx.status();
  // The side without a gradient gives zeros, live only when that side was taken.
  Output g0 = ctx.has_grad(0) ? ctx.grad(0) : ctx.ZerosLike(ctx.output(0));
  Output g1 = ctx.has_grad(1) ? ctx.grad(1) : ctx.ZerosLike(ctx.output(1));
  ctx.SetInputGrad(0, ctx.Op("Merge", {GradInput::List({g0, g1})}, {}, "cond_grad"));
  return ctx.status();
}

}  // namespace

Status RegisterControlFlowGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(registry.Register("Merge", MergeGrad));
  keep(registry.Register("Switch", SwitchGrad));
  keep(registry.Register("RefMerge", MergeGrad));
  keep(registry.Register("RefSwitch", SwitchGrad));
  keep(registry.RegisterNotDifferentiable("ControlTrigger"));
  keep(RegisterListGradients(registry));  // TensorArray and Stack ops
  return first;
}

}  // namespace tgraph
