// Einsum: the tensor contractions Keras' EinsumDense and MultiHeadAttention freeze into. The
// equation is parsed and resolved by common/einsum.h, which the CPU kernel uses too.
#include <string>
#include <vector>

#include "common/einsum.h"
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// The output's shape from the equation and the inputs' static shapes; unknown when an
// input's rank is unknown.
Status EinsumShape(InferenceContext& c) {
  std::string equation;
  TG_RETURN_IF_ERROR(c.GetAttr("equation", &equation));
  einsum::Equation eq;
  std::string error = einsum::Parse(equation, c.num_inputs(), &eq);
  if (!error.empty()) return c.Error(error);
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input_shape(i);
    if (!s.known_rank()) {
      c.set_output(0, PartialShape::Unknown());
      return Status::OK();
    }
    dims.push_back(s.dims());
  }
  einsum::Resolved r;
  error = einsum::Resolve(eq, dims, &r);
  if (!error.empty()) return c.Error("equation '", equation, "': ", error);
  c.set_output(0, PartialShape(std::move(r.output_dims)));
  return Status::OK();
}

}  // namespace

Status RegisterEinsumOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("Einsum")
          .Input("inputs: N * T")
          .Output("output: T")
          .Attr("equation: string")
          .Attr("N: int >= 1")
          .Attr("T: type")
          .SetShapeFn(EinsumShape)
          .Doc("The tensor contraction an Einstein-summation equation describes (one or two "
               "inputs)."),
  });
}

}  // namespace tgraph
