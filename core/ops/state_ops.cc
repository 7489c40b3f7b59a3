// TF1 reference variables and the ops that update them in place.
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// With validate_shape the value must fit the variable; the variable then takes the
// value's shape (as in TF, where a non-validating Assign may change a variable's shape).
Status AssignShape(InferenceContext& c) {
  bool validate_shape = true;
  TG_RETURN_IF_ERROR(c.GetAttr("validate_shape", &validate_shape));
  if (!validate_shape) {
    c.set_output(0, c.input_shape(1));
    return Status::OK();
  }
  PartialShape merged;
  if (!c.input_shape(0).Merge(c.input_shape(1), &merged).ok()) {
    return c.Error("shape of the value ", c.input_shape(1).ToString(),
                   " does not match the variable's shape ", c.input_shape(0).ToString(),
                   " (set validate_shape=false to change the shape)");
  }
  c.set_output(0, std::move(merged));
  return Status::OK();
}

// AssignAdd / AssignSub: variable and value must have compatible shapes.
Status UpdateShape(InferenceContext& c) {
  PartialShape merged;
  if (!c.input_shape(0).Merge(c.input_shape(1), &merged).ok()) {
    return c.Error("shape of the value ", c.input_shape(1).ToString(),
                   " does not match the variable's shape ", c.input_shape(0).ToString());
  }
  c.set_output(0, std::move(merged));
  return Status::OK();
}

// ScatterUpdate / Add / Sub: updates.shape = indices.shape + ref.shape[1:], or a scalar
// (applied to every addressed row). The output is the variable.
Status ScatterShape(InferenceContext& c) {
  const PartialShape& ref = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  const PartialShape& updates = c.input_shape(2);
  if (ref.known_rank() && ref.rank() < 1) {
    return c.Error("the variable must be at least rank 1, but has shape ", ref.ToString());
  }
  if (ref.known_rank() && indices.known_rank() && updates.known_rank() && updates.rank() != 0) {
    std::vector<int64_t> want = indices.dims();
    want.insert(want.end(), ref.dims().begin() + 1, ref.dims().end());
    if (!updates.IsCompatibleWith(PartialShape(want))) {
      return c.Error("shape of updates ", updates.ToString(),
                     " must be indices.shape + ref.shape[1:] = ", PartialShape(want).ToString(), " (indices ", indices.ToString(), ", ref ",
                     ref.ToString(), ")");
    }
  }
  c.set_output(0, ref);
  return Status::OK();
}

}  // namespace

// As in TF, the Assign family is not marked stateful: taking a ref input is what makes an
// op mutate state, and TF's OpDefs (stripped_op_list in .meta files) say so.
Status RegisterStateOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("VariableV2")
          .Output("ref: Ref(dtype)")
          .Attr("shape: shape")
          .Attr("dtype: type")
          .Attr("container: string = ''")
          .Attr("shared_name: string = ''")
          .SetIsStateful()
          .SetShapeFn(shape_fns::ShapeFromAttr)
          .Doc("A mutable tensor that keeps its value across runs."),
      OpDefBuilder("Assign")
          .Input("ref: Ref(T)")
          .Input("value: T")
          .Output("output_ref: Ref(T)")
          .Attr("T: type")
          .Attr("validate_shape: bool = true")
          .Attr("use_locking: bool = true")
          .SetAllowsUninitializedInput()
          .SetShapeFn(AssignShape)
          .Doc("ref = value."),
      OpDefBuilder("IsVariableInitialized")
          .Input("ref: Ref(dtype)")
          .Output("is_initialized: bool")
          .Attr("dtype: type")
          .SetAllowsUninitializedInput()
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("Whether the variable has been initialized."),
      OpDefBuilder("AssignAdd")
          .Input("ref: Ref(T)")
          .Input("value: T")
          .Output("output_ref: Ref(T)")
          .Attr("T: numbertype")
          .Attr("use_locking: bool = false")
          .SetShapeFn(UpdateShape)
          .Doc("ref += value."),
      OpDefBuilder("AssignSub")
          .Input("ref: Ref(T)")
          .Input("value: T")
          .Output("output_ref: Ref(T)")
          .Attr("T: numbertype")
          .Attr("use_locking: bool = false")
          .SetShapeFn(UpdateShape)
          .Doc("ref -= value."),
      OpDefBuilder("ScatterUpdate")
          .Input("ref: Ref(T)")
          .Input("indices: Tindices")
          .Input("updates: T")
          .Output("output_ref: Ref(T)")
          .Attr("T: type")
          .Attr("Tindices: {int32, int64}")
          .Attr("use_locking: bool = true")
          .SetShapeFn(ScatterShape)
          .Doc("ref[indices, ...] = updates."),
      OpDefBuilder("ScatterAdd")
          .Input("ref: Ref(T)")
          .Input("indices: Tindices")
          .Input("updates: T")
          .Output("output_ref: Ref(T)")
          .Attr("T: numbertype")
          .Attr("Tindices: {int32, int64}")
          .Attr("use_locking: bool = false")
          .SetShapeFn(ScatterShape)
          .Doc("ref[indices, ...] += updates (duplicate indices accumulate)."),
      OpDefBuilder("ScatterSub")
          .Input("ref: Ref(T)")
          .Input("indices: Tindices")
          .Input("updates: T")
          .Output("output_ref: Ref(T)")
          .Attr("T: numbertype")
          .Attr("Tindices: {int32, int64}")
          .Attr("use_locking: bool = false")
          .SetShapeFn(ScatterShape)
          .Doc("ref[indices, ...] -= updates (duplicate indices accumulate)."),
  });
}

}  // namespace tgraph
