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
};

enum class VariableReuse { kInherit = -1, kFalse = 0, kTrue = 1, kAuto = 2 };

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
  Status PopVariableScope();
  const std::string& variable_scope() const { return scope_; }
  VariableReuse reuse() const { return reuse_; }

  // tf.get_variable(name, shape, dtype, initializer): "scope/name", created or reused per the
  // scope's reuse mode; the ops are named by the full name whatever the name scope is.
  // `initializer` builds the value for `shape` (called only when creating).
  StatusOr<Variable*> GetVariable(const std::string& name, DataType dtype,
                                  const PartialShape& shape, const InitialValueFn& initializer,
                                  const VariableOptions& options);

  // global_variables_initializer(): a NoOp named "init" (uniquified) with a control input on
  // every global variable's initializer.
  StatusOr<Operation*> GlobalVariablesInitializer(const std::string& name = "init");
  // variables_initializer(list).
  StatusOr<Operation*> VariablesInitializer(const std::vector<Variable*>& vars,
                                            const std::string& name);

  // A variable whose ops already exist in the graph (MetaGraph import rebuilds them from
  // VariableDefs): the store owns it from now on. Joining collections is the caller's part.
  Variable* AdoptVariable(std::unique_ptr<Variable> variable);

  Variable* FindByName(const std::string& name) const;
  const std::vector<std::unique_ptr<Variable>>& all() const { return variables_; }

 private:
  struct ScopeFrame {
    std::string scope;
    VariableReuse reuse;
    bool opened_name_scope;
  };

  Graph* graph_;
  std::vector<std::unique_ptr<Variable>> variables_;
  std::vector<Variable*> get_variable_created_;  // what reuse may hand back
  std::string scope_;
  VariableReuse reuse_ = VariableReuse::kFalse;
  std::vector<ScopeFrame> stack_;
};

}  // namespace tgraph
