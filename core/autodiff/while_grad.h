// Gradients through TF1 while loops, built as TensorFlow's control_flow_state.py builds them:
//   - a counter added to the forward loop (f_count) counts its iterations;
//   - a backward loop in a frame of its own runs that many times (b_count, counting down);
//   - each loop variable's gradient is a loop variable of the backward loop, entering with
//     the gradient of the loop's Exit and leaving as the gradient of its Enter's input;
//   - the body's ops get their gradient functions inside the backward loop; a forward value
//     they use is pushed on a stack (StackPushV2) in every forward iteration and popped
//     (StackPopV2) in the matching backward one, a loop invariant is brought in as is;
//   - a loop invariant's gradient is summed over the iterations by an accumulator loop
//     variable.
// The pushes of an iteration happen before the forward counter moves on, and the pops of a
// backward iteration before the backward counter does, so values come back in order.
// A cond in the body is differentiated by its Merges' and Switches' gradient functions,
// inside the backward loop; a forward value made in one of its branches is pushed only in
// the iterations that took the branch, so its pop is gated by the popped predicate (the
// pivot of the same branch in the backward frame). A nested loop's backward loop is built
// inside its parent's, with stacks made outside every loop and entered through all the
// enclosing frames (forward and backward visit the inner iterations in reverse orders).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "core/autodiff/gradient_context.h"
#include "core/graph/graph.h"

namespace tgraph {

class WhileGradients {
 public:
  explicit WhileGradients(Graph& graph);
  ~WhileGradients();

  // Finds the loops whose Exits lie among `between` (ops indexed by id). Errors for loops
  // this cannot differentiate, before anything is built.
  Status Analyze(const std::vector<char>& between);
  // A loop's plumbing (Enter, Exit, NextIteration, Merge, Switch, LoopCond, the body's
  // input Identities): handled here, not by gradient functions.
  bool IsPlumbing(const Operation* op) const;

  using TakeGrads = std::function<std::vector<GradValue>(const Operation* op)>;
  using Receive = std::function<void(Output t, GradValue g)>;
  // Called by the sweep for each op it reaches, in decreasing id order, before the op's
  // gradient function: finishes loops the sweep has left, starts one it enters (at its
  // first Exit reached), and handles plumbing (true: the sweep skips the op).
  StatusOr<bool> Visit(Operation* op, const std::vector<GradValue>& grads, GraphBuilder& builder,
                       const TakeGrads& take, const Receive& receive);
  // Finishes the loops the sweep has left, before an op below them gets its gradients summed.
  Status Leave(const Operation* op);
  // Finishes every loop still open (the end of the sweep).
  Status FinishAll();

  struct Loop;

 private:
  Status Start(Loop& loop, const Operation* first, const std::vector<GradValue>& first_grads,
               const TakeGrads& take, const Receive& receive);
  Status Finish(Loop& loop);
  StatusOr<Output> BringIn(Loop& loop, Output t);
  StatusOr<Operation*> AddForward(Loop& loop, NodeSpec spec);
  StatusOr<Output> EnterFrames(Loop& loop, Output h, bool backward);
  // The conds of the loop's body that enclose a forward value, outermost first:
  // (predicate, branch) pairs.
  using CondPath = std::vector<std::pair<Output, int>>;
  CondPath CondPathOf(Loop& loop, Output t);
  StatusOr<Operation*> BranchPivot(Loop& loop, const std::pair<Output, int>& branch);
  static bool IsLoopPlumbing(const Loop& loop, const Operation* op);
  friend class GradLoopContext;

  Graph& graph_;
  std::vector<std::unique_ptr<Loop>> loops_;
  std::map<const Operation*, Loop*> owner_;  // every op of every analysed loop (and body)
  Loop* active_ = nullptr;
};

}  // namespace tgraph
