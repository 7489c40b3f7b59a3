// Control-flow ops: NoOp, the anchor for control dependencies (e.g. `init`), and TF1's
// dataflow control flow (Switch, Merge, Enter, Exit, NextIteration, LoopCond and their Ref
// variants, ControlTrigger). The executor runs the latter itself (core/exec/control_flow.h):
// they move values and deadness between branches, frames and iterations, and need no
// plugin kernel on any device.
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// The most general shape of two: dims that differ become unknown, ranks that differ make
// the rank unknown (a loop variable may change shape between iterations).
PartialShape Generalize(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank() || a.rank() != b.rank()) return PartialShape::Unknown();
  std::vector<int64_t> dims(static_cast<size_t>(a.rank()));
  for (int i = 0; i < a.rank(); ++i) {
    dims[static_cast<size_t>(i)] = a.dim(i) == b.dim(i) ? a.dim(i) : PartialShape::kUnknownDim;
  }
  return PartialShape(std::move(dims));
}

Status MergeShape(InferenceContext& c) {
  PartialShape out = c.input_shape(0);
  for (int i = 1; i < c.num_inputs(); ++i) out = Generalize(out, c.input_shape(i));
  c.set_output(0, std::move(out));
  c.set_output(1, PartialShape::Scalar());
  return Status::OK();
}

Status SwitchShape(InferenceContext& c) {
  PartialShape pred;
  TG_RETURN_IF_ERROR(c.WithRank(1, 0, &pred));
  c.set_output(0, c.input_shape(0));
  c.set_output(1, c.input_shape(0));
  return Status::OK();
}

Status LoopCondShape(InferenceContext& c) {
  PartialShape pred;
  TG_RETURN_IF_ERROR(c.WithRank(0, 0, &pred));
  c.set_output(0, PartialShape::Scalar());
  return Status::OK();
}

OpDefBuilder SwitchOp(const char* name, bool ref) {
  return OpDefBuilder(name)
      .Input(ref ? "data: Ref(T)" : "data: T")
      .Input("pred: bool")
      .Output(ref ? "output_false: Ref(T)" : "output_false: T")
      .Output(ref ? "output_true: Ref(T)" : "output_true: T")
      .Attr("T: type")
      .SetShapeFn(SwitchShape)
      .Doc("Forwards data to output_true if pred, else to output_false; the other output is dead.");
}

OpDefBuilder MergeOp(const char* name, bool ref) {
  return OpDefBuilder(name)
      .Input(ref ? "inputs: Ref(N * T)" : "inputs: N * T")
      .Output(ref ? "output: Ref(T)" : "output: T")
      .Output("value_index: int32")
      .Attr("T: type")
      .Attr("N: int >= 1")
      .SetShapeFn(MergeShape)
      .Doc("Forwards the first live input and its index; dead only when every input is dead.");
}

OpDefBuilder EnterOp(const char* name, bool ref) {
  return OpDefBuilder(name)
      .Input(ref ? "data: Ref(T)" : "data: T")
      .Output(ref ? "output: Ref(T)" : "output: T")
      .Attr("T: type")
      .Attr("frame_name: string")
      .Attr("is_constant: bool = false")
      .Attr("parallel_iterations: int = 10")
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc("Makes data available in the child frame frame_name (every iteration when is_constant).");
}

OpDefBuilder ForwardOp(const char* name, bool ref, const char* doc) {
  return OpDefBuilder(name)
      .Input(ref ? "data: Ref(T)" : "data: T")
      .Output(ref ? "output: Ref(T)" : "output: T")
      .Attr("T: type")
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc(doc);
}

}  // namespace

Status RegisterControlFlowOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("NoOp").SetShapeFn(shape_fns::UnknownShape).Doc("Does nothing."),
      SwitchOp("Switch", false),
      SwitchOp("RefSwitch", true).SetAllowsUninitializedInput(),
      MergeOp("Merge", false),
      MergeOp("RefMerge", true),
      EnterOp("Enter", false),
      EnterOp("RefEnter", true),
      ForwardOp("Exit", false, "Makes data available in the parent frame."),
      ForwardOp("RefExit", true, "Makes data available in the parent frame."),
      ForwardOp("NextIteration", false, "Makes data available to the next iteration."),
      ForwardOp("RefNextIteration", true, "Makes data available to the next iteration."),
      OpDefBuilder("LoopCond")
          .Input("input: bool")
          .Output("output: bool")
          .SetShapeFn(LoopCondShape)
          .Doc("Forwards the loop's predicate; marks the loop's termination condition."),
      OpDefBuilder("ControlTrigger")
          .SetShapeFn(shape_fns::UnknownShape)
          .Doc("Does nothing; runs even when its inputs are dead."),
  });
}

}  // namespace tgraph
