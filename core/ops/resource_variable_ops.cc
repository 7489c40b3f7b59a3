// TensorFlow's resource variables (what tf.compat.v1 makes by default in TF 2.x): a
// VarHandleOp's DT_RESOURCE handle names the variable, and the ops below read and update it
// through the handle (core/exec/resource_variables.h). A handle is a scalar whatever the
// variable's shape, and shape inference here does not follow handles to their VarHandleOp,
// so the values read through one have unknown shapes until run.
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// Input `i` (a handle) must be a scalar.
Status ScalarHandle(InferenceContext& c, int i) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() != 0) {
    return c.Error("the resource handle (input ", i, ") must be a scalar, but has shape ", s.ToString());
  }
  return Status::OK();
}

Status NoOutputs(InferenceContext& c) { return ScalarHandle(c, 0); }

// The optimizer updates on resource variables: TF's ResourceApply* / ResourceSparseApply*
// signatures, each argument's role as in training_ops.cc (variables are handles, and there
// is no output).
enum class Role { kVar, kScalar, kGrad, kIndices };
struct Arg {
  const char* name;
  Role role;
};

OpDefBuilder ResourceApplyOp(const char* name, std::vector<Arg> args, std::vector<const char*> extra_attrs,
                             const char* doc) {
  OpDefBuilder b(name);
  bool sparse = false;
  for (const Arg& a : args) {
    switch (a.role) {
      case Role::kVar:
        b.Input(std::string(a.name) + ": resource");
        break;
      case Role::kIndices:
        b.Input(std::string(a.name) + ": Tindices");
        sparse = true;
        break;
      default:
        b.Input(std::string(a.name) + ": T");
    }
  }
  b.Attr("T: numbertype");
  if (sparse) b.Attr("Tindices: {int32, int64}");
  b.Attr("use_locking: bool = false");
  for (const char* attr : extra_attrs) b.Attr(attr);
  b.SetIsStateful();
  b.SetShapeFn([args](InferenceContext& c) -> Status {
    for (int i = 0; i < static_cast<int>(args.size()); ++i) {
      const Arg& a = args[static_cast<size_t>(i)];
      const PartialShape& s = c.input_shape(i);
      if ((a.role == Role::kVar || a.role == Role::kScalar) && s.known_rank() && s.rank() != 0) {
        return c.Error(a.name, " must be a scalar", a.role == Role::kVar ? " (a resource handle)" : "",
                       ", but has shape ", s.ToString());
      }
      if (a.role == Role::kIndices && s.known_rank() && s.rank() != 1) {
        return c.Error("indices must be a vector, but has shape ", s.ToString());
      }
    }
    return Status::OK();
  });
  b.Doc(doc);
  return b;
}

constexpr Role V = Role::kVar, S = Role::kScalar, G = Role::kGrad, I = Role::kIndices;

OpDefBuilder ResourceScatterOp(const char* name, const char* dtype, const char* doc) {
  return OpDefBuilder(name)
      .Input("resource: resource")
      .Input("indices: Tindices")
      .Input("updates: dtype")
      .Attr(dtype)
      .Attr("Tindices: {int32, int64}")
      .SetIsStateful()
      .SetShapeFn(NoOutputs)
      .Doc(doc);
}

}  // namespace

Status RegisterResourceVariableOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("VarHandleOp")
          .Output("resource: resource")
          .Attr("container: string = ''")
          .Attr("shared_name: string = ''")
          .Attr("debug_name: string = ''")
          .Attr("dtype: type")
          .Attr("shape: shape")
          .Attr("allowed_devices: list(string) = []")
          .SetIsStateful()
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("A handle to the resource variable keyed by container and shared_name (the node's "
               "name when empty)."),
      OpDefBuilder("ReadVariableOp")
          .Input("resource: resource")
          .Output("value: dtype")
          .Attr("dtype: type")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext& c) -> Status {
            TG_RETURN_IF_ERROR(ScalarHandle(c, 0));
            c.set_output(0, PartialShape::Unknown());
            return Status::OK();
          })
          .Doc("The variable's value (FAILED_PRECONDITION when it is uninitialized)."),
      OpDefBuilder("AssignVariableOp")
          .Input("resource: resource")
          .Input("value: dtype")
          .Attr("dtype: type")
          .Attr("validate_shape: bool = false")
          .SetIsStateful()
          .SetShapeFn(NoOutputs)
          .Doc("variable = value (with validate_shape, value must keep the variable's shape)."),
      OpDefBuilder("AssignAddVariableOp")
          .Input("resource: resource")
          .Input("value: dtype")
          .Attr("dtype: type")
          .SetIsStateful()
          .SetShapeFn(NoOutputs)
          .Doc("variable += value."),
      OpDefBuilder("AssignSubVariableOp")
          .Input("resource: resource")
          .Input("value: dtype")
          .Attr("dtype: type")
          .SetIsStateful()
          .SetShapeFn(NoOutputs)
          .Doc("variable -= value."),
      OpDefBuilder("VarIsInitializedOp")
          .Input("resource: resource")
          .Output("is_initialized: bool")
          .SetIsStateful()
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("Whether the variable has a value."),
      OpDefBuilder("DestroyResourceOp")
          .Input("resource: resource")
          .Attr("ignore_lookup_error: bool = true")
          .SetIsStateful()
          .SetShapeFn(NoOutputs)
          .Doc("Drops the variable's value (it reads as uninitialized again)."),
      OpDefBuilder("VariableShape")
          .Input("input: resource")
          .Output("output: out_type")
          .Attr("out_type: {int32, int64} = DT_INT32")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext& c) -> Status {
            TG_RETURN_IF_ERROR(ScalarHandle(c, 0));
            c.set_output(0, PartialShape({PartialShape::kUnknownDim}));
            return Status::OK();
          })
          .Doc("The variable's shape."),
      OpDefBuilder("ResourceGather")
          .Input("resource: resource")
          .Input("indices: Tindices")
          .Output("output: dtype")
          .Attr("batch_dims: int = 0")
          .Attr("validate_indices: bool = true")
          .Attr("dtype: type")
          .Attr("Tindices: {int32, int64}")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext& c) -> Status {
            TG_RETURN_IF_ERROR(ScalarHandle(c, 0));
            c.set_output(0, PartialShape::Unknown());
            return Status::OK();
          })
          .Doc("The variable's rows `indices` (batch_dims 0): indices.shape + var.shape[1:]."),
      ResourceScatterOp("ResourceScatterUpdate", "dtype: type",
                        "var[indices, ...] = updates (a scalar: for every addressed element)."),
      ResourceScatterOp("ResourceScatterAdd", "dtype: numbertype",
                        "var[indices, ...] += updates (duplicate indices accumulate)."),
      ResourceScatterOp("ResourceScatterSub", "dtype: numbertype",
                        "var[indices, ...] -= updates (duplicate indices accumulate)."),
      ResourceApplyOp("ResourceApplyGradientDescent", {{"var", V}, {"alpha", S}, {"delta", G}}, {},
                      "var -= alpha * delta."),
      ResourceApplyOp("ResourceApplyMomentum", {{"var", V}, {"accum", V}, {"lr", S}, {"grad", G}, {"momentum", S}},
                      {"use_nesterov: bool = false"}, "ApplyMomentum on resource variables."),
      ResourceApplyOp("ResourceApplyKerasMomentum",
                      {{"var", V}, {"accum", V}, {"lr", S}, {"grad", G}, {"momentum", S}},
                      {"use_nesterov: bool = false"},
                      "accum = accum * momentum - lr * grad; var += accum (Nesterov: var += accum * "
                      "momentum - lr * grad)."),
      ResourceApplyOp("ResourceApplyAdam",
                      {{"var", V}, {"m", V}, {"v", V}, {"beta1_power", S}, {"beta2_power", S}, {"lr", S},
                       {"beta1", S}, {"beta2", S}, {"epsilon", S}, {"grad", G}},
                      {"use_nesterov: bool = false"}, "ApplyAdam on resource variables."),
      ResourceApplyOp("ResourceApplyRMSProp",
                      {{"var", V}, {"ms", V}, {"mom", V}, {"lr", S}, {"rho", S}, {"momentum", S},
                       {"epsilon", S}, {"grad", G}},
                      {}, "ApplyRMSProp on resource variables."),
      ResourceApplyOp("ResourceApplyCenteredRMSProp",
                      {{"var", V}, {"mg", V}, {"ms", V}, {"mom", V}, {"lr", S}, {"rho", S}, {"momentum", S},
                       {"epsilon", S}, {"grad", G}},
                      {}, "ApplyCenteredRMSProp on resource variables."),
      ResourceApplyOp("ResourceApplyAdagrad", {{"var", V}, {"accum", V}, {"lr", S}, {"grad", G}},
                      {"update_slots: bool = true"}, "ApplyAdagrad on resource variables."),
      ResourceApplyOp("ResourceApplyAdagradV2", {{"var", V}, {"accum", V}, {"lr", S}, {"epsilon", S}, {"grad", G}},
                      {"update_slots: bool = true"},
                      "accum += grad^2 (when update_slots); var -= lr * grad / (sqrt(accum) + epsilon)."),
      ResourceApplyOp("ResourceApplyAdadelta",
                      {{"var", V}, {"accum", V}, {"accum_update", V}, {"lr", S}, {"rho", S}, {"epsilon", S},
                       {"grad", G}},
                      {},
                      "accum = rho * accum + (1 - rho) * grad^2; update = sqrt(accum_update + epsilon) / "
                      "sqrt(accum + epsilon) * grad; var -= lr * update; accum_update = rho * accum_update + "
                      "(1 - rho) * update^2."),
      ResourceApplyOp("ResourceSparseApplyAdadelta",
                      {{"var", V}, {"accum", V}, {"accum_update", V}, {"lr", S}, {"rho", S}, {"epsilon", S},
                       {"grad", G}, {"indices", I}},
                      {}, "ResourceApplyAdadelta on the rows that indices address."),
      ResourceApplyOp("ResourceSparseApplyMomentum",
                      {{"var", V}, {"accum", V}, {"lr", S}, {"grad", G}, {"indices", I}, {"momentum", S}},
                      {"use_nesterov: bool = false"},
                      "ResourceApplyMomentum on the rows of var and accum that indices address."),
      ResourceApplyOp("ResourceSparseApplyKerasMomentum",
                      {{"var", V}, {"accum", V}, {"lr", S}, {"grad", G}, {"indices", I}, {"momentum", S}},
                      {"use_nesterov: bool = false"},
                      "ResourceApplyKerasMomentum on the rows of var and accum that indices address."),
      ResourceApplyOp("ResourceSparseApplyRMSProp",
                      {{"var", V}, {"ms", V}, {"mom", V}, {"lr", S}, {"rho", S}, {"momentum", S},
                       {"epsilon", S}, {"grad", G}, {"indices", I}},
                      {}, "ResourceApplyRMSProp on the rows that indices address."),
      ResourceApplyOp("ResourceSparseApplyCenteredRMSProp",
                      {{"var", V}, {"mg", V}, {"ms", V}, {"mom", V}, {"lr", S}, {"rho", S}, {"momentum", S},
                       {"epsilon", S}, {"grad", G}, {"indices", I}},
                      {}, "ResourceApplyCenteredRMSProp on the rows that indices address."),
      ResourceApplyOp("ResourceSparseApplyAdagrad",
                      {{"var", V}, {"accum", V}, {"lr", S}, {"grad", G}, {"indices", I}},
                      {"update_slots: bool = true"},
                      "ResourceApplyAdagrad on the rows of var and accum that indices address."),
      ResourceApplyOp("ResourceSparseApplyAdagradV2",
                      {{"var", V}, {"accum", V}, {"lr", S}, {"epsilon", S}, {"grad", G}, {"indices", I}},
                      {"update_slots: bool = true"},
                      "ResourceApplyAdagradV2 on the rows of var and accum that indices address."),
  });
}

}  // namespace tgraph
