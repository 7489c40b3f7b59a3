// Variables as TensorFlow 1.x builds them: a subgraph V/initial_value (when the initial
// value is made inside), V (VariableV2), V/Assign and V/read, collected in
// GLOBAL_VARIABLES and, if trainable, TRAINABLE_VARIABLES; plus variable scopes and
// get_variable with reuse rules.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/graph/operation.h"

namespace tgraph {

class Graph;

struct Variable {
  std::string name;          // the VariableV2 op's name, e.g. "scope/W"
  Operation* op = nullptr;   // VariableV2
  Output initial_value;
  Operation* initializer = nullptr;  // the Assign
  Output snapshot;                   // V/read:0
  DataType dtype = DT_INVALID;       // base type
  PartialShape shape;
  bool trainable = true;
  // VariableDef's synchronization and aggregation (TF's enum values): tgraph does not use
  // them but keeps them through MetaGraph import and export (TF sets them on global_step).
  int synchronization = 0;
  int aggregation = 0;
  // A resource variable (a TF MetaGraph's VariableDef with is_resource): `op` is its
  // VarHandleOp, ref() its DT_RESOURCE handle, `snapshot` a ReadVariableOp's value, and it
  // is read with ReadVariableOp and written with AssignVariableOp (core/exec/resource_variables.h).
  bool is_resource = false;

  Output ref() const { return Output{op, 0}; }
  std::string TensorName() const { return name + ":0"; }
};

// Builds the initial value; called inside the variable's name scope, so ops it makes are
// named "V/..." (e.g. "V/initial_value" or "V/Initializer/zeros").
using InitialValueFn = std::function<StatusOr<Output>(Graph& graph)>;

struct VariableOptions {
  std::string name = "Variable";
  bool trainable = true;
  bool validate_shape = true;
  // Extra collections besides GLOBAL_VARIABLES (and TRAINABLE_VARIABLES when trainable).
  std::vector<std::string> collections;
  // Replaces the default {GLOBAL_VARIABLES} when non-empty (e.g. LOCAL_VARIABLES).
  std::vector<std::string> base_collections;
  // get_variable without a shape whose initial value the caller builds (a tensor or a
  // no-argument function, TF's "initializing from value"): the variable takes the value's
  // shape instead of needing a fully defined one.
  bool shape_from_initial_value = false;
};

enum class VariableReuse { kInherit = -1, kFalse = 0, kTrue = 1, kAuto = 2 };

// Builds the initial value of a get_variable variable of `dtype` and (fully defined) `dims`;
// called inside "V/Initializer". What variable_scope(initializer=...) holds.
using VariableInitializer =
    std::function<StatusOr<Output>(Graph& graph, DataType dtype, const std::vector<int64_t>& dims)>;

// tf.variable_scope(name, reuse=..., initializer=..., dtype=...): unset fields (kInherit,
// null, DT_INVALID) keep the enclosing scope's.
struct VariableScopeOptions {
  VariableReuse reuse = VariableReuse::kInherit;
  VariableInitializer initializer;
  DataType dtype = DT_INVALID;
};

class VariableStore {
 public:
  explicit VariableStore(Graph* graph) : graph_(graph) {}

  // tf.Variable(initial_value, name=...): a new variable with a unique name.
  StatusOr<Variable*> CreateVariable(const InitialValueFn& initial_value,
                                     const VariableOptions& options);
  // Convenience: the initial value is a constant named "V/initial_value".
  StatusOr<Variable*> CreateVariableFromTensor(const Tensor& value, const VariableOptions& options);

  // tf.variable_scope(name, reuse): affects get_variable names and opens a name scope of the
  // same name (uniquified, as name_scope does). kInherit keeps the enclosing reuse.
  StatusOr<std::string> PushVariableScope(const std::string& name, VariableReuse reuse);
  StatusOr<std::string> PushVariableScope(const std::string& name,
                                          const VariableScopeOptions& options);
  Status PopVariableScope();
  const std::string& variable_scope() const { return scope_; }
  VariableReuse reuse() const { return reuse_; }
  // VariableScope.reuse_variables(): the current scope (and scopes opened inside it) reuses
  // from now on; the enclosing scope's mode comes back when it is popped.
  void ReuseVariables() { reuse_ = VariableReuse::kTrue; }
  // The scope's default initializer (null: none) and dtype (DT_INVALID: none) for
  // get_variable calls that give none (see DefaultGetVariableInitializer in
  // core/autodiff/initializers.h).
  const VariableInitializer& scope_initializer() const { return scope_initializer_; }
  DataType scope_dtype() const { return scope_dtype_; }

  // tf.get_variable(name, shape, dtype, initializer): "scope/name", created or reused per the
  // scope's reuse mode; the ops are named by the full name whatever the name scope is.
  // `initializer` builds the value for `shape` (called only when creating).
  StatusOr<Variable*> GetVariable(const std::string& name, DataType dtype,
                                  const PartialShape& shape, const InitialValueFn& initializer,
                                  const VariableOptions& options);

  // global_variables_initializer(): a NoOp named "init" (uniquified) with a control input on
  // every global variable's initializer.
  StatusOr<Operation*> GlobalVariablesInitializer(const std::string& name = "init");
  // local_variables_initializer(): the same over LOCAL_VARIABLES.
  StatusOr<Operation*> LocalVariablesInitializer(const std::string& name = "init");
  // variables_initializer(list, name): a NoOp with a control input on each initializer (an
  // empty list gives a bare NoOp, as TF's no_op).
  StatusOr<Operation*> VariablesInitializer(const std::vector<Variable*>& vars,
                                            const std::string& name);
  // The variables of a collection, in collection order.
  std::vector<Variable*> VariablesInCollection(const std::string& key) const;

  // Variable.initialized_value() as TF 1.0-1.2 defined it: "Identity" (under the current
  // name scope) of the variable's ref, with a control input on its initializer and no outer
  // control dependencies, colocated with V/read. Reading it runs the initializer first, so
  // `Variable(w1.initialized_value() * 2)` initializes in one run of the initializers
  // whatever their order. TF >= 1.3 returns cond(is_variable_initialized(v), v.read, initial
  // value) instead, which reads without re-assigning; tgraph has no control flow yet, so it
  // keeps the early form (each read re-runs the Assign of the initial value).
  StatusOr<Output> InitializedValue(const Variable& var);
  // tf.is_variable_initialized(v): an IsVariableInitialized op (bool scalar) named `name`
  // ("IsVariableInitialized" when empty) under the current name scope.
  StatusOr<Output> IsVariableInitialized(const Variable& var, const std::string& name = "");
  // tf.report_uninitialized_variables(var_list): a 1-D string tensor of the names (op names)
  // of the uninitialized variables, in list order. Under the name scope `name`: one
  // IsVariableInitialized per variable, "stack" (Pack), "LogicalNot", "Const" (the names)
  // and boolean_mask's "boolean_mask/Where", "boolean_mask/Squeeze" and
  // "boolean_mask/GatherV2" (TF's reshapes around them are identities for a 1-D mask and are
  // left out). `vars` null: GLOBAL_VARIABLES then LOCAL_VARIABLES. No variables: an empty
  // string Const "<name>/Const".
  StatusOr<Output> ReportUninitializedVariables(const std::vector<Variable*>* vars,
                                                const std::string& name =
                                                    "report_uninitialized_variables");

  // A variable whose ops already exist in the graph (MetaGraph import rebuilds them from
  // VariableDefs): the store owns it from now on. Joining collections is the caller's part.
  Variable* AdoptVariable(std::unique_ptr<Variable> variable);

  Variable* FindByName(const std::string& name) const;
  const std::vector<std::unique_ptr<Variable>>& all() const { return variables_; }

 private:
  struct ScopeFrame {
    std::string scope;
    VariableReuse reuse;
    VariableInitializer initializer;
    DataType dtype;
    bool opened_name_scope;
  };

  Graph* graph_;
  std::vector<std::unique_ptr<Variable>> variables_;
  std::vector<Variable*> get_variable_created_;  // what reuse may hand back
  std::string scope_;
  VariableReuse reuse_ = VariableReuse::kFalse;
  VariableInitializer scope_initializer_;
  DataType scope_dtype_ = DT_INVALID;
  std::vector<ScopeFrame> stack_;
};

}  // namespace tgraph
