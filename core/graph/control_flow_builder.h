// Builds TF1 dataflow control flow into a graph the way tf.cond and tf.while_loop (control
// flow v1) do, with TensorFlow's node names:
//
//   while loop "while":  while/Enter, while/Merge, (condition ops), while/LoopCond,
//                        while/Switch, while/Identity, (body ops), while/NextIteration,
//                        while/Exit — one Enter/Merge/Switch/Identity/NextIteration/Exit per
//                        loop variable (_1, _2, ...), frame_name "while/while_context";
//                        a value from outside enters as "<consumer>/Enter" (is_constant).
//   cond "cond":         cond/Switch (pred, pred), cond/switch_t, cond/switch_f, cond/pred_id,
//                        (branch ops), cond/Merge per output (false value first); a value
//                        from outside comes in as "<consumer>/Switch".
//
// Between Start and Finish a builder is the graph's BuildContext: ops created meanwhile are
// inside the loop or branch. A value from outside used inside is brought in as TF does (a
// loop: Enter with is_constant; a branch: Switch on the predicate, the branch's output),
// once per value; an op without inputs gets the pivot as a control input, so constants in
// a loop body run once per iteration and constants in an untaken branch are dead.
// Constructs nest (a loop in a branch, a cond in a loop body); they must be closed in
// reverse order of opening. On failure the ops already added stay in the graph (unused).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/base/status.h"
#include "core/graph/graph.h"

namespace tgraph {

// The state shared by loops and branches: which ops are inside, the pivot, the parent.
class ControlFlowContext : public BuildContext {
 public:
  ControlFlowContext(Graph& graph, BuildContext* parent) : graph_(graph), parent_(parent) {}
  Status AdjustSpec(NodeSpec* spec) override;
  void Added(Operation* op) override { Mark(op); }
  bool Contains(const Operation* op) const { return inside_.count(op) != 0; }
  void Mark(Operation* op);
  // `t` as a value inside this context (itself when made inside, else brought in once).
  // `consumer`: the name of the op that wants it ("" for a result): TensorFlow names the
  // Enter or Switch that brings a value in "<consumer>/Enter", "<consumer>/Switch".
  // Virtual: a backward loop of a gradient brings values in its own way (while_grad.cc).
  virtual StatusOr<Output> Inside(Output t, const std::string& consumer = "");
  Operation* pivot() const { return pivot_; }

 protected:
  // A value from outside, brought in (Enter, or the branch's Switch output).
  virtual StatusOr<Output> BringIn(Output t, const std::string& consumer) = 0;
  // Drops control inputs from outside (a loop's frame cannot see them).
  virtual bool KeepsExternalControlInputs() const = 0;
  // Adds an op as part of the enclosing context (the graph's context is the parent while
  // it is made), then counts it as inside this one.
  StatusOr<Operation*> AddInParent(NodeSpec spec);

  Graph& graph_;
  BuildContext* parent_;
  Operation* pivot_ = nullptr;

 private:
  std::unordered_set<const Operation*> inside_;
  std::map<Output, Output> brought_in_;
};

class WhileLoopBuilder : public ControlFlowContext {
 public:
  // Adds the Enter and Merge nodes under name scope `name` ("" = "while") and opens the
  // condition. parallel_iterations < 1 is INVALID_ARGUMENT.
  static StatusOr<std::unique_ptr<WhileLoopBuilder>> Start(Graph& graph, const std::vector<Output>& inputs,
                                                           const std::string& name,
                                                           int parallel_iterations);
  ~WhileLoopBuilder() override;

  const std::vector<Output>& cond_inputs() const { return merges_; }
  const std::vector<Output>& body_inputs() const { return identities_; }
  const std::string& frame_name() const { return frame_name_; }

  // Closes the condition with `pred` (bool scalar): LoopCond, Switch, Identity; opens the body.
  Status SetCondition(Output pred);
  // Closes the body: NextIteration (closing each Merge) and Exit. The Exit outputs.
  StatusOr<std::vector<Output>> Finish(const std::vector<Output>& body_outputs);
  // Closes whatever is open without finishing (the ops made so far stay, unused).
  void Abort();

 protected:
  StatusOr<Output> BringIn(Output t, const std::string& consumer) override;
  bool KeepsExternalControlInputs() const override { return false; }

 private:
  WhileLoopBuilder(Graph& graph, BuildContext* parent) : ControlFlowContext(graph, parent) {}
  Status CheckOpen(const char* what) const;
  void Close();

  std::string frame_name_;
  int parallel_iterations_ = 10;
  bool open_ = false;
  bool in_body_ = false;
  std::vector<Output> merges_, switches_false_, identities_;
};

// One branch of a cond: values from outside come in through Switch(value, pred)[branch].
class CondBranch : public ControlFlowContext {
 public:
  CondBranch(Graph& graph, BuildContext* parent, Output pred, int branch, Operation* pivot)
      : ControlFlowContext(graph, parent), pred_(pred), branch_(branch) {
    pivot_ = pivot;
  }

 protected:
  StatusOr<Output> BringIn(Output t, const std::string& consumer) override;
  bool KeepsExternalControlInputs() const override { return true; }

 private:
  Output pred_;
  int branch_;
};

class CondBuilder {
 public:
  // Adds cond/Switch, switch_t, switch_f and pred_id under name scope `name` ("" = "cond")
  // and opens the true branch.
  static StatusOr<std::unique_ptr<CondBuilder>> Start(Graph& graph, Output pred, const std::string& name);
  ~CondBuilder();
  // Closes the true branch with its results; opens the false branch.
  Status Else(const std::vector<Output>& true_outputs);
  // Closes the false branch; one Merge per result pair. The Merge outputs.
  StatusOr<std::vector<Output>> Finish(const std::vector<Output>& false_outputs);
  // Closes whatever is open without finishing (the ops made so far stay, unused).
  void Abort();

 private:
  explicit CondBuilder(Graph& graph) : graph_(graph) {}
  Status CheckOpen(const char* what, const CondBranch* branch) const;
  void Close();

  Graph& graph_;
  BuildContext* parent_ = nullptr;
  bool open_ = false;
  Output pred_id_;
  std::unique_ptr<CondBranch> true_, false_;
  std::vector<Output> true_outputs_;
};

}  // namespace tgraph
