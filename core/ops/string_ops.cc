// String ops with TensorFlow's signatures: StringJoin and the regex matches. tf.train.Saver
// builds a sharded save's temporary prefix with them (StringJoin(prefix, Select(
// StaticRegexFullMatch(prefix, "^s3://.*"), ".part", "_temp/part"))), so a sharded
// MetaGraph written by TensorFlow saves here too.
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// Scalars broadcast; every other input must have the same shape, which is the output's.
Status StringJoinShape(InferenceContext& c) {
  PartialShape out = PartialShape::Scalar();
  bool all_scalars = true;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.rank() == 0) continue;
    if (all_scalars) {
      out = s;
      all_scalars = false;
      continue;
    }
    PartialShape merged;
    if (!out.Merge(s, &merged).ok()) {
      return c.Error("input ", i, " has shape ", s.ToString(), " but an earlier input has ",
                     out.ToString(), " (inputs must be scalars or all of one shape)");
    }
    out = std::move(merged);
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

Status RegexFullMatchShape(InferenceContext& c) {
  if (c.num_inputs() > 1 && c.input_shape(1).known_rank() && c.input_shape(1).rank() != 0) {
    return c.Error("pattern must be a scalar, but has shape ", c.input_shape(1).ToString());
  }
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

}  // namespace

Status RegisterStringOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("StringJoin")
          .Input("inputs: N * string")
          .Output("output: string")
          .Attr("N: int >= 0")
          .Attr("separator: string = ''")
          .SetShapeFn(StringJoinShape)
          .Doc("Joins the strings of the inputs element by element, with separator between "
               "them; scalar inputs broadcast."),
      OpDefBuilder("StaticRegexFullMatch")
          .Input("input: string")
          .Output("output: bool")
          .Attr("pattern: string")
          .SetShapeFn(RegexFullMatchShape)
          .Doc("Whether each string matches the pattern attr entirely (ECMAScript syntax, "
               "which agrees with RE2 on the common subset)."),
      OpDefBuilder("RegexFullMatch")
          .Input("input: string")
          .Input("pattern: string")
          .Output("output: bool")
          .SetShapeFn(RegexFullMatchShape)
          .Doc("Whether each string matches the scalar pattern entirely."),
  });
}

}  // namespace tgraph
