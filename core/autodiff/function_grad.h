// Gradients of the call ops (core/ops/functional_ops.cc), and the pieces they are built from.
//
//   PartitionedCall / StatefulPartitionedCall: a SymbolicGradient node (TensorFlow's op) of
//       the callee: inputs the call's inputs then one gradient per call output, outputs one
//       gradient per input. Its kernel runs the callee's symbolic gradient, a function body
//       built from the callee's (SymbolicGradientBody): the body inlined into a graph of its
//       own, differentiated there with AddGradients.
//   If / StatelessIf: an If of the branches' gradients: each branch's gradient is a
//       FunctionDef added to the graph's library ("<branch>_grad_<hash>", one SymbolicGradient
//       node), so the gradient runs only the branch the forward If took.
//   Case / StatelessCase: likewise, a Case of the branches' gradients.
//   While / StatelessWhile: the loop lowered to TF1 dataflow control flow (cond and body
//       inlined between Enter/Merge/Switch/NextIteration/Exit, beside the While) and that
//       copy differentiated by the dataflow loop gradient (while_grad.h): the forward
//       iterations run again, once, in the copy, whose values the backward loop stacks.
//
// Every gradient body is built when the gradient is (AddGradients), so a callee whose ops
// have no gradient fails there, naming the call, not when the graph runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"
#include "core/graph/attr_map.h"
#include "core/graph/operation.h"

namespace tgraph {

class FunctionLibrary;
struct FunctionBody;
class Graph;

// `body` inlined into `graph` (nodes under a new name scope named after the function),
// its args replaced by `args`; returns its results. Input-less nodes get `control` (when
// not null) as a control input, which puts them in a loop's frame.
StatusOr<std::vector<Output>> InlineFunction(Graph& graph, const FunctionBody& body,
                                             const std::vector<Output>& args,
                                             Operation* control = nullptr);

// The symbolic gradient of function `name` instantiated with `attrs`: a body taking the
// function's args then one gradient per result, giving one gradient per arg (zeros where a
// result does not depend on an arg, or the arg is not floating-point). Built once, kept in
// the library (FunctionLibrary::Derived).
StatusOr<const FunctionBody*> SymbolicGradientBody(FunctionLibrary& library, const std::string& name,
                                                   const AttrMap& attrs);

Status RegisterFunctionGradients(GradientFunctionRegistry& registry);

}  // namespace tgraph
