// Array ops: constants, placeholders and identity.
#include "core/graph/proto_convert.h"
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// Output shape from the `value` tensor, which must agree with `dtype` and be decodable:
// a malformed constant fails when the node is made, not when it first runs.
Status ConstShape(InferenceContext& c) {
  auto it = c.attrs().find("value");
  if (it == c.attrs().end() || it->second.value_case() != tf::AttrValue::kTensor) {
    return c.Error("attr 'value' must be a tensor");
  }
  const tf::TensorProto& value = it->second.tensor();
  DataType dtype;
  TG_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
  if (static_cast<int>(value.dtype()) != static_cast<int>(dtype)) {
    return c.Error("attr 'value' holds a tensor of dtype ",
                   DataTypeName(static_cast<DataType>(value.dtype())), " but attr 'dtype' is ",
                   DataTypeName(dtype));
  }
  Status valid = ValidateTensorProto(value);
  if (!valid.ok()) return c.Error("attr 'value': ", valid.message());
  TG_ASSIGN_OR_RETURN(PartialShape shape, ShapeFromProto(value.tensor_shape()));
  c.set_output(0, std::move(shape));
  return Status::OK();
}

// The default must fit the declared shape; the output has the declared shape, which may be
// less specific than the default's (a feed may use another size).
Status PlaceholderWithDefaultShape(InferenceContext& c) {
  PartialShape declared;
  TG_RETURN_IF_ERROR(c.GetAttr("shape", &declared));
  if (!c.input_shape(0).IsCompatibleWith(declared)) {
    return c.Error("default value of shape ", c.input_shape(0).ToString(),
                   " is not compatible with the declared shape ", declared.ToString());
  }
  c.set_output(0, std::move(declared));
  return Status::OK();
}

}  // namespace

Status RegisterArrayOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("Const")
          .Output("output: dtype")
          .Attr("value: tensor")
          .Attr("dtype: type")
          .SetShapeFn(ConstShape)
          .Doc("A constant tensor."),
      OpDefBuilder("Placeholder")
          .Output("output: dtype")
          .Attr("dtype: type")
          .Attr("shape: shape = { unknown_rank: true }")
          .SetShapeFn(shape_fns::ShapeFromAttr)
          .Doc("A tensor that must be fed."),
      OpDefBuilder("PlaceholderWithDefault")
          .Input("input: dtype")
          .Output("output: dtype")
          .Attr("dtype: type")
          .Attr("shape: shape")
          .SetShapeFn(PlaceholderWithDefaultShape)
          .Doc("Passes `input` through unless the output is fed."),
      OpDefBuilder("Identity")
          .Input("input: T")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Returns its input."),
  });
}

}  // namespace tgraph
