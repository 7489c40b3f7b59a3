#include "core/graph/variables.h"

#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/graph/graph_context_guard.h"

namespace tgraph {
namespace {

StatusOr<Output> MakeConst(Graph& graph, const Tensor& value, const std::string& name) {
  NodeSpec spec;
  spec.type = "Const";
  spec.name = name;
  spec.attrs["value"] = AttrOfTensor(value);
  spec.attrs["dtype"] = AttrOfType(value.dtype());
  TG_ASSIGN_OR_RETURN(Operation * op, graph.AddOperation(std::move(spec)));
  return op->output(0);
}

}  // namespace

StatusOr<Variable*> VariableStore::CreateVariable(const InitialValueFn& initial_value,
                                                  const VariableOptions& options) {
  Graph& g = *graph_;
  std::lock_guard lock(g.mutex());
  if (g.finalized()) return FailedPrecondition("Graph is finalized and cannot be modified (tried to create variable '", options.name, "')");
  if (!initial_value) return InvalidArgument("variable '", options.name, "' has no initial value");
  GraphContextGuard scope_guard(g);
  TG_ASSIGN_OR_RETURN(std::string scope, scope_guard.NameScope(options.name.empty() ? "Variable" : options.name));

  TG_ASSIGN_OR_RETURN(Output init, initial_value(g));
  if (init.op == nullptr || init.op->graph() != &g) {
    return InvalidArgument("initial value of variable '", scope, "' is not a tensor of this graph");
  }
  DataType dtype = BaseType(init.dtype());
  PartialShape shape = init.shape();
  if (options.validate_shape && !shape.IsFullyDefined()) {
    return InvalidArgument("initial value of variable '", scope, "' must have a fully defined shape, got ",
                           shape.ToString(), " (or create it with validate_shape=false)");
  }

  NodeSpec var_spec;
  var_spec.type = "VariableV2";
  var_spec.name = scope + "/";  // the variable op takes the scope's own name
  var_spec.attrs["dtype"] = AttrOfType(dtype);
  var_spec.attrs["shape"] = AttrOfShape(options.validate_shape ? shape : PartialShape::Unknown());
  TG_ASSIGN_OR_RETURN(Operation * var_op, g.AddOperation(std::move(var_spec)));

  NodeSpec assign;
  assign.type = "Assign";
  assign.name = "Assign";
  assign.inputs = {{{var_op->output(0)}, false}, {{init}, false}};
  assign.attrs["validate_shape"] = AttrOfBool(options.validate_shape);
  TG_ASSIGN_OR_RETURN(Operation * assign_op, g.AddOperation(std::move(assign)));

  NodeSpec read;
  read.type = "Identity";
  read.name = "read";
  read.inputs = {{{var_op->output(0)}, false}};
  read.colocate_with = {var_op};
  TG_ASSIGN_OR_RETURN(Operation * read_op, g.AddOperation(std::move(read)));

  auto var = std::make_unique<Variable>();
  var->name = var_op->name();
  var->op = var_op;
  var->initial_value = init;
  var->initializer = assign_op;
  var->snapshot = read_op->output(0);
  var->dtype = dtype;
  var->shape = options.validate_shape ? shape : PartialShape::Unknown();
  var->trainable = options.trainable;
  Variable* raw = var.get();
  variables_.push_back(std::move(var));

  std::vector<std::string> keys = options.base_collections;
  if (keys.empty()) keys.push_back(collection_keys::kGlobalVariables);
  if (options.trainable) keys.push_back(collection_keys::kTrainableVariables);
  for (const auto& k : options.collections) keys.push_back(k);
  for (const auto& k : keys) g.collections().AddUnique(k, CollectionItem::OfVariable(raw));
  return raw;
}

StatusOr<Variable*> VariableStore::CreateVariableFromTensor(const Tensor& value,
                                                            const VariableOptions& options) {
  if (value.dtype() == DT_INVALID) {
    return InvalidArgument("initial value of variable '", options.name, "' is an empty tensor handle");
  }
  return CreateVariable(
      [&](Graph& g) { return MakeConst(g, value, "initial_value"); }, options);
}

StatusOr<std::string> VariableStore::PushVariableScope(const std::string& name, VariableReuse reuse) {
  VariableScopeOptions options;
  options.reuse = reuse;
  return PushVariableScope(name, options);
}

StatusOr<std::string> VariableStore::PushVariableScope(const std::string& name,
                                                       const VariableScopeOptions& options) {
  const VariableReuse reuse = options.reuse;
  Graph& g = *graph_;
  std::lock_guard lock(g.mutex());
  if (name.empty()) return InvalidArgument("variable_scope needs a name");
  if (g.finalized()) return FailedPrecondition("Graph is finalized and cannot be modified (tried to open variable scope '", name, "')");
  std::string inner = name.back() == '/' ? name.substr(0, name.size() - 1) : name;
  std::string full = scope_.empty() ? inner : scope_ + "/" + inner;
  // reuse=True is sticky: sub-scopes of a reusing scope reuse too.
  VariableReuse effective = reuse == VariableReuse::kInherit ? reuse_ : reuse;
  if (reuse_ == VariableReuse::kTrue) effective = VariableReuse::kTrue;
  TG_ASSIGN_OR_RETURN(std::string name_scope, g.PushNameScope(name));
  stack_.push_back(ScopeFrame{scope_, reuse_, scope_initializer_, scope_dtype_, true});
  scope_ = full;
  reuse_ = effective;
  if (options.initializer) scope_initializer_ = options.initializer;
  if (options.dtype != DT_INVALID) scope_dtype_ = BaseType(options.dtype);
  return name_scope;
}

Status VariableStore::PopVariableScope() {
  Graph& g = *graph_;
  std::lock_guard lock(g.mutex());
  if (stack_.empty()) return FailedPrecondition("PopVariableScope without a matching push");
  ScopeFrame frame = stack_.back();
  stack_.pop_back();
  scope_ = frame.scope;
  reuse_ = frame.reuse;
  scope_initializer_ = std::move(frame.initializer);
  scope_dtype_ = frame.dtype;
  if (frame.opened_name_scope) TG_RETURN_IF_ERROR(g.PopNameScope());
  return Status::OK();
}

StatusOr<Variable*> VariableStore::GetVariable(const std::string& name, DataType dtype,
                                               const PartialShape& shape,
                                               const InitialValueFn& initializer,
                                               const VariableOptions& options) {
  Graph& g = *graph_;
  std::lock_guard lock(g.mutex());
  if (name.empty()) return InvalidArgument("get_variable needs a name");
  std::string full = scope_.empty() ? name : scope_ + "/" + name;
  Variable* existing = nullptr;
  for (Variable* v : get_variable_created_) {
    if (v->name == full) existing = v;
  }
  if (existing == nullptr && reuse_ == VariableReuse::kTrue) {
    return InvalidArgument("Variable ", full,
                           " does not exist, or was not created with get_variable(). Did you mean "
                           "to set reuse=AUTO_REUSE in the variable scope?");
  }
  if (existing != nullptr) {
    if (reuse_ == VariableReuse::kFalse) {
      return InvalidArgument("Variable ", full,
                             " already exists, disallowed. Did you mean to set reuse=True or "
                             "reuse=AUTO_REUSE in the variable scope?");
    }
    if (dtype != DT_INVALID && BaseType(dtype) != existing->dtype) {
      return InvalidArgument("Trying to share variable ", full, ", but specified dtype ",
                             DataTypeName(dtype), " and found dtype ", DataTypeName(existing->dtype));
    }
    if (!shape.IsCompatibleWith(existing->shape)) {
      return InvalidArgument("Trying to share variable ", full, ", but specified shape ",
                             shape.ToString(), " and found shape ", existing->shape.ToString());
    }
    return existing;
  }
  if (!shape.IsFullyDefined() && !(options.shape_from_initial_value && !shape.known_rank())) {
    return InvalidArgument("shape of a new variable (", full, ") must be fully defined, but instead was ",
                           shape.ToString());
  }
  if (!initializer) return InvalidArgument("variable ", full, " has no initializer");

  // Variable names depend on the variable scope only, never on the name scope.
  GraphContextGuard reset(g);
  TG_RETURN_IF_ERROR(reset.NameScope("").status());
  VariableOptions opts = options;
  opts.name = full;
  TG_ASSIGN_OR_RETURN(
      Variable * var,
      CreateVariable(
          [&](Graph& graph) -> StatusOr<Output> {
            GraphContextGuard init_scope(graph);
            TG_RETURN_IF_ERROR(init_scope.NameScope("Initializer").status());
            TG_ASSIGN_OR_RETURN(Output value, initializer(graph));
            if (dtype != DT_INVALID && BaseType(value.dtype()) != BaseType(dtype)) {
              return InvalidArgument("initializer of variable ", full, " produced ",
                                     DataTypeName(value.dtype()), ", expected ", DataTypeName(dtype));
            }
            if (!value.shape().IsCompatibleWith(shape)) {
              return InvalidArgument("initializer of variable ", full, " produced shape ",
                                     value.shape().ToString(), ", expected ", shape.ToString());
            }
            return value;
          },
          opts));
  get_variable_created_.push_back(var);
  return var;
}

StatusOr<Operation*> VariableStore::VariablesInitializer(const std::vector<Variable*>& vars,
                                                         const std::string& name) {
  NodeSpec spec;
  spec.type = "NoOp";
  spec.name = name;
  for (Variable* v : vars) spec.control_inputs.push_back(v->initializer);
  return graph_->AddOperation(std::move(spec));
}

std::vector<Variable*> VariableStore::VariablesInCollection(const std::string& key) const {
  std::vector<Variable*> vars;
  if (const auto* items = graph_->collections().Find(key)) {
    for (const auto& item : *items) {
      if (item.kind == CollectionItem::Kind::kVariable) vars.push_back(item.variable);
    }
  }
  return vars;
}

StatusOr<Operation*> VariableStore::GlobalVariablesInitializer(const std::string& name) {
  return VariablesInitializer(VariablesInCollection(collection_keys::kGlobalVariables), name);
}

StatusOr<Operation*> VariableStore::LocalVariablesInitializer(const std::string& name) {
  return VariablesInitializer(VariablesInCollection(collection_keys::kLocalVariables), name);
}

StatusOr<Output> VariableStore::InitializedValue(const Variable& var) {
  Graph& g = *graph_;
  std::lock_guard lock(g.mutex());
  GraphContextGuard context(g);
  TG_RETURN_IF_ERROR(context.ClearControlDependencies());
  TG_RETURN_IF_ERROR(context.ControlDependencies({var.initializer}));
  TG_RETURN_IF_ERROR(context.ColocateWith(var.snapshot.op));
  NodeSpec spec;
  spec.type = var.is_resource ? "ReadVariableOp" : "Identity";
  spec.name = "Identity";
  spec.inputs = {{{var.ref()}, false}};
  if (var.is_resource) spec.attrs["dtype"] = AttrOfType(var.dtype);
  TG_ASSIGN_OR_RETURN(Operation * op, g.AddOperation(std::move(spec)));
  return op->output(0);
}

StatusOr<Output> VariableStore::IsVariableInitialized(const Variable& var,
                                                      const std::string& name) {
  NodeSpec spec;
  spec.type = var.is_resource ? "VarIsInitializedOp" : "IsVariableInitialized";
  spec.name = name.empty() ? "IsVariableInitialized" : name;
  spec.inputs = {{{var.ref()}, false}};
  if (!var.is_resource) spec.attrs["dtype"] = AttrOfType(var.dtype);
  TG_ASSIGN_OR_RETURN(Operation * op, graph_->AddOperation(std::move(spec)));
  return op->output(0);
}

namespace {

// One op of report_uninitialized_variables' chain: `type` named `name` on `inputs`.
StatusOr<Output> AddOp(Graph& g, const std::string& type, const std::string& name,
                       std::vector<NodeSpec::InputGroup> inputs, AttrMap attrs = {}) {
  NodeSpec spec;
  spec.type = type;
  spec.name = name;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  TG_ASSIGN_OR_RETURN(Operation * op, g.AddOperation(std::move(spec)));
  return op->output(0);
}

// array_ops.boolean_mask(tensor, mask) for 1-D tensor and mask: gather(tensor,
// squeeze(where(mask), [1])) under "boolean_mask".
StatusOr<Output> BooleanMask1D(Graph& g, Output tensor, Output mask) {
  GraphContextGuard scope(g);
  TG_RETURN_IF_ERROR(scope.NameScope("boolean_mask").status());
  TG_ASSIGN_OR_RETURN(Output where, AddOp(g, "Where", "Where", {{{mask}, false}}));
  AttrMap squeeze_attrs;
  squeeze_attrs["squeeze_dims"] = AttrOfIntList({1});
  TG_ASSIGN_OR_RETURN(Output indices,
                      AddOp(g, "Squeeze", "Squeeze", {{{where}, false}}, squeeze_attrs));
  Tensor zero = Tensor::Allocate(DT_INT32, {}).value();
  *zero.flat<int32_t>() = 0;
  TG_ASSIGN_OR_RETURN(Output axis, MakeConst(g, zero, "GatherV2/axis"));
  return AddOp(g, "GatherV2", "GatherV2", {{{tensor}, false}, {{indices}, false}, {{axis}, false}});
}

}  // namespace

StatusOr<Output> VariableStore::ReportUninitializedVariables(const std::vector<Variable*>* vars,
                                                             const std::string& name) {
  Graph& g = *graph_;
  std::lock_guard lock(g.mutex());
  std::vector<Variable*> list;
  if (vars != nullptr) {
    list = *vars;
  } else {
    list = VariablesInCollection(collection_keys::kGlobalVariables);
    for (Variable* v : VariablesInCollection(collection_keys::kLocalVariables)) list.push_back(v);
  }
  GraphContextGuard scope(g);
  const std::string scope_name = name.empty() ? "report_uninitialized_variables" : name;
  TG_RETURN_IF_ERROR(scope.NameScope(scope_name).status());
  const auto count = static_cast<int64_t>(list.size());
  TG_ASSIGN_OR_RETURN(Tensor names, Tensor::Allocate(DT_STRING, {count}));
  if (list.empty()) return MakeConst(g, names, "Const");
  NodeSpec::InputGroup flags{{}, true};
  for (size_t i = 0; i < list.size(); ++i) {
    TG_ASSIGN_OR_RETURN(Output flag, IsVariableInitialized(*list[i]));
    flags.tensors.push_back(flag);
    names.strings()[i] = list[i]->name;
  }
  AttrMap pack_attrs;
  pack_attrs["axis"] = AttrOfInt(0);
  TG_ASSIGN_OR_RETURN(Output stacked, AddOp(g, "Pack", "stack", {flags}, pack_attrs));
  TG_ASSIGN_OR_RETURN(Output mask, AddOp(g, "LogicalNot", "LogicalNot", {{{stacked}, false}}));
  TG_ASSIGN_OR_RETURN(Output names_tensor, MakeConst(g, names, "Const"));
  return BooleanMask1D(g, names_tensor, mask);
}

Variable* VariableStore::AdoptVariable(std::unique_ptr<Variable> variable) {
  variables_.push_back(std::move(variable));
  return variables_.back().get();
}

Variable* VariableStore::FindByName(const std::string& name) const {
  for (const auto& v : variables_) {
    if (v->name == name) return v.get();
  }
  return nullptr;
}

}  // namespace tgraph
