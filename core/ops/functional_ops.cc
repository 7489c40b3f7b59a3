// Functional ops: calls of functions from the graph's library (GraphDef.library) —
// PartitionedCall, and TF2's control flow as graphs keep it when not lowered to Switch /
// Merge: If, While and Case, each with a stateless twin. TensorFlow's OpDefs; the kernels
// are the core's own (core/exec/function_kernels.cc), which run the function bodies as
// sub-plans.
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// The `output_shapes` attr when it gives one shape per output (If, While and Case write
// it), else `fallback`.
Status OutputShapesOr(InferenceContext& c, const char* attr, const std::function<void()>& fallback) {
  auto it = c.attrs().find(attr);
  if (it != c.attrs().end() && it->second.has_list() &&
      it->second.list().shape_size() == c.num_outputs() && c.num_outputs() > 0) {
    for (int i = 0; i < c.num_outputs(); ++i) {
      const tf::TensorShapeProto& p = it->second.list().shape(i);
      if (p.unknown_rank()) {
        c.set_output(i, PartialShape::Unknown());
        continue;
      }
      std::vector<int64_t> dims;
      for (const auto& d : p.dim()) dims.push_back(d.size() < 0 ? PartialShape::kUnknownDim : d.size());
      c.set_output(i, PartialShape(std::move(dims)));
    }
    return Status::OK();
  }
  fallback();
  return Status::OK();
}

Status CallShape(InferenceContext& c) {
  return OutputShapesOr(c, "_output_shapes", [] {});  // unknown unless the writer said
}

Status BranchShape(InferenceContext& c) { return OutputShapesOr(c, "output_shapes", [] {}); }

// A loop's outputs have its inputs' shapes unless output_shapes (the shape invariants)
// says otherwise.
Status WhileShape(InferenceContext& c) {
  return OutputShapesOr(c, "output_shapes", [&c] {
    static_cast<void>(shape_fns::UnchangedShapes(c));  // (it does not fail)
  });
}

OpDefBuilder CallOp(const char* name, bool stateful) {
  OpDefBuilder b(name);
  b.Input("args: Tin")
      .Output("output: Tout")
      .Attr("Tin: list(type) >= 0")
      .Attr("Tout: list(type) >= 0")
      .Attr("f: func")
      .Attr("config: string = ''")
      .Attr("config_proto: string = ''")
      .Attr("executor_type: string = ''")
      .SetShapeFn(CallShape)
      .Doc("Calls function f with args; its results are the outputs.");
  if (stateful) b.SetIsStateful();
  return b;
}

OpDefBuilder IfOp(const char* name, bool stateful) {
  OpDefBuilder b(name);
  b.Input("cond: Tcond")
      .Input("input: Tin")
      .Output("output: Tout")
      .Attr("Tcond: type")
      .Attr("Tin: list(type) >= 0")
      .Attr("Tout: list(type) >= 0")
      .Attr("then_branch: func")
      .Attr("else_branch: func")
      .Attr("output_shapes: list(shape) = []")
      .SetShapeFn(BranchShape)
      .Doc("Calls then_branch(input) when cond is true (a non-zero scalar, or a non-empty "
           "tensor), else else_branch(input).");
  if (stateful) b.SetIsStateful();
  return b;
}

OpDefBuilder CaseOp(const char* name, bool stateful) {
  OpDefBuilder b(name);
  b.Input("branch_index: int32")
      .Input("input: Tin")
      .Output("output: Tout")
      .Attr("Tin: list(type) >= 0")
      .Attr("Tout: list(type) >= 0")
      .Attr("branches: list(func) >= 1")
      .Attr("output_shapes: list(shape) = []")
      .SetShapeFn(BranchShape)
      .Doc("Calls branches[branch_index](input); an index out of range calls the last branch.");
  if (stateful) b.SetIsStateful();
  return b;
}

OpDefBuilder WhileOp(const char* name, bool stateful) {
  OpDefBuilder b(name);
  b.Input("input: T")
      .Output("output: T")
      .Attr("T: list(type) >= 0")
      .Attr("cond: func")
      .Attr("body: func")
      .Attr("output_shapes: list(shape) = []")
      .Attr("parallel_iterations: int = 10")
      .SetShapeFn(WhileShape)
      .Doc("input = body(input) while cond(input); the outputs are the last values.");
  if (stateful) b.SetIsStateful();
  return b;
}

// TensorFlow's SymbolicGradient: f's gradient, called. Its inputs are f's inputs then one
// gradient per f output; its outputs one gradient per input, shaped like it.
OpDefBuilder SymbolicGradientOp() {
  OpDefBuilder b("SymbolicGradient");
  b.Input("input: Tin")
      .Output("output: Tout")
      .Attr("Tin: list(type) >= 1")
      .Attr("Tout: list(type) >= 1")
      .Attr("f: func")
      .SetShapeFn(shape_fns::UnchangedShapes)
      .Doc("The gradient of f: (f's inputs, a gradient per f output) -> a gradient per input.");
  return b;
}

}  // namespace

Status RegisterFunctionalOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      CallOp("PartitionedCall", false),
      CallOp("StatefulPartitionedCall", true),
      IfOp("If", true),
      IfOp("StatelessIf", false),
      CaseOp("Case", true),
      CaseOp("StatelessCase", false),
      WhileOp("While", true),
      WhileOp("StatelessWhile", false),
      SymbolicGradientOp(),
  });
}

}  // namespace tgraph
