// Gradients of resource variables (core/exec/resource_variables.h), as TensorFlow's
// resource_variable_ops.py: a read passes its gradient to the variable's handle, a gather
// gives the handle IndexedSlices of the variable's shape, so gradients(loss, [handle]) is the
// gradient with respect to the variable's value. Handles carry gradients only out of these
// two ops (add_gradients.cc, CarriesGradient); the writes carry none.
#include "core/autodiff/gradient_registry.h"

#include "core/autodiff/gradient_context.h"
#include "core/graph/attr_value_util.h"

namespace tgraph {
namespace {

Status ReadVariableGrad(GradientContext& ctx) {
  if (ctx.has_grad(0)) ctx.SetInputGrad(0, ctx.grad(0));
  return ctx.status();
}

// ResourceGather (batch_dims 0): one row of values per index, of the variable's shape.
Status ResourceGatherGrad(GradientContext& ctx) {
  const tf::AttrValue* batch_dims = ctx.op()->FindAttr("batch_dims");
  if (batch_dims != nullptr && batch_dims->i() != 0) {
    return Unimplemented("the gradient of ResourceGather with batch_dims = ", batch_dims->i());
  }
  Output indices = ctx.input(1);
  Output params_shape = ctx.Op("VariableShape", {ctx.input(0)}, {{"out_type", AttrOfType(DT_INT32)}});
  Output num_indices = ctx.Op("ExpandDims", {ctx.Size(indices), ctx.ScalarInt32(0)});
  Output tail = ctx.Op("Slice", {params_shape, ctx.ConstInt32({1}), ctx.ConstInt32({-1})});
  Output values_shape = ctx.Op("ConcatV2", {GradInput::List({num_indices, tail}), ctx.ScalarInt32(0)});
  ctx.SetInputGrad(0, GradValue::Sparse(ctx.Reshape(ctx.grad(0), values_shape),
                                        ctx.Reshape(indices, num_indices), params_shape));
  return ctx.status();
}

}  // namespace

Status RegisterResourceVariableGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (!s.ok() && first.ok()) first = s;
  };
  keep(registry.Register("ReadVariableOp", ReadVariableGrad));
  keep(registry.Register("ResourceGather", ResourceGatherGrad));
  // TensorFlow's NotDifferentiable list for the handle, its state and its updates.
  for (const char* op : {"VarHandleOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                         "VarIsInitializedOp", "DestroyResourceOp", "VariableShape", "ResourceScatterUpdate",
                         "ResourceScatterAdd", "ResourceScatterSub",
                         // the optimizer updates: no outputs, nothing to differentiate
                         "ResourceApplyGradientDescent", "ResourceApplyMomentum", "ResourceApplyKerasMomentum",
                         "ResourceApplyAdam", "ResourceApplyRMSProp", "ResourceApplyCenteredRMSProp",
                         "ResourceApplyAdagrad", "ResourceApplyAdagradV2", "ResourceSparseApplyMomentum",
                         "ResourceSparseApplyKerasMomentum", "ResourceSparseApplyRMSProp",
                         "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyAdagrad",
                         "ResourceSparseApplyAdagradV2", "ResourceApplyAdadelta", "ResourceSparseApplyAdadelta"}) {
    keep(registry.RegisterNotDifferentiable(op));
  }
  return first;
}

}  // namespace tgraph
