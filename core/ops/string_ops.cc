// String ops with TensorFlow's signatures: StringJoin and the regex matches, the feature
// preprocessing ops (StringToHashBucketFast, StringToNumber, AsString, StringLength, Substr,
// StringStrip) and ReduceJoin. None has a gradient, as in TensorFlow. tf.train.Saver
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

// Substr: pos and len of one shape, broadcast against the input (TensorFlow's rule).
Status SubstrShape(InferenceContext& c) {
  PartialShape pos_len;
  if (!c.input_shape(1).Merge(c.input_shape(2), &pos_len).ok()) {
    return c.Error("pos and len must have the same shape, but have ",
                   c.input_shape(1).ToString(), " and ", c.input_shape(2).ToString());
  }
  return shape_fns::BroadcastBinaryOpShape(c);
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
      OpDefBuilder("StringToHashBucketFast")
          .Input("input: string")
          .Output("output: int64")
          .Attr("num_buckets: int >= 1")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Fingerprint64 (FarmHash) of each string modulo num_buckets: TensorFlow's "
               "bucket ids."),
      OpDefBuilder("StringToNumber")
          .Input("string_tensor: string")
          .Output("output: out_type")
          .Attr("out_type: {float, double, int32, int64, uint32, uint64} = DT_FLOAT")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Each string parsed as a number of out_type; a string that is not one fails "
               "the node, naming it."),
      OpDefBuilder("AsString")
          .Input("input: T")
          .Output("output: string")
          .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                "uint32, uint64, complex64, complex128, bool, variant, string}")
          .Attr("precision: int = -1")
          .Attr("scientific: bool = false")
          .Attr("shortest: bool = false")
          .Attr("width: int = -1")
          .Attr("fill: string = ''")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Each element formatted as printf would with the attrs: fill (one of ' +-0#') "
               "and width, precision, and %e (scientific) or %g (shortest) for floats."),
      OpDefBuilder("StringLength")
          .Input("input: string")
          .Output("output: int32")
          .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("The length of each string in bytes or in UTF-8 characters."),
      OpDefBuilder("Substr")
          .Input("input: string")
          .Input("pos: T")
          .Input("len: T")
          .Output("output: string")
          .Attr("T: {int32, int64}")
          .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
          .SetShapeFn(SubstrShape)
          .Doc("len bytes (or UTF-8 characters) of each string from pos (negative: from the "
               "end), pos / len broadcast against the input; a pos outside the string fails "
               "the node."),
      OpDefBuilder("StringStrip")
          .Input("input: string")
          .Output("output: string")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Each string without leading and trailing whitespace."),
      OpDefBuilder("ReduceJoin")
          .Input("inputs: string")
          .Input("reduction_indices: int32")
          .Output("output: string")
          .Attr("keep_dims: bool = false")
          .Attr("separator: string = ''")
          .SetShapeFn(ReductionShape)
          .Doc("The strings joined with separator over the given axes, in row-major order."),
  });
}

}  // namespace tgraph
