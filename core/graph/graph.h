// The graph: operations in creation order, name lookup, and the builder context that
// TensorFlow 1.x keeps per graph (name scopes, control-dependency, device and colocation
// stacks). Everything that makes an operation goes through AddOperation, so the rules of
// docs/ARCHITECTURE.md "Graph building" live in one place.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"
#include "core/graph/attr_map.h"
#include "core/graph/collections.h"
#include "core/graph/device_spec.h"
#include "core/graph/operation.h"

namespace tgraph {

class FunctionLibrary;
class OpRegistry;
struct Variable;
class VariableStore;

// What a builder (C API, GraphDef import, variable helpers) asks the graph to create.
struct NodeSpec {
  // One argument's worth of inputs: a single tensor, or a list for list arguments
  // (`N * T` or `list(type)` in the OpDef).
  struct InputGroup {
    std::vector<Output> tensors;
    bool is_list = false;
  };

  std::string type;
  // Empty: the op type is the name. Scoped by the current name scope and made unique
  // ("Const", "Const_1", ...) unless exact_name. A name ending in '/' is taken exactly
  // (without the '/'), as TensorFlow does for re-entered scopes.
  std::string name;
  // Import and other exact builders: the name is final; a taken name is an error.
  bool exact_name = false;
  // Apply the graph's control-dependency, device and colocation stacks. Import turns it off.
  bool apply_context = true;
  // Builders give grouped inputs and let type/number attrs be inferred from them; import
  // gives one group per flat input with every type/number attr already in `attrs`.
  bool infer_attrs_from_inputs = true;
  std::vector<InputGroup> inputs;
  std::vector<Operation*> control_inputs;
  // Explicit device for this op; its fields win over the device stack's.
  std::string device;
  // Extra colocation with these ops (besides the colocation stack and ref inputs).
  std::vector<Operation*> colocate_with;
  AttrMap attrs;
};

// A device function: given the op being created, returns its device string ("" = no change
// to what inner entries chose). Called once per op.
using DeviceFunction = std::function<std::string(const Operation& op)>;

// An open control-flow construct being built (a while loop's condition or body, a cond's
// branch: core/graph/control_flow_builder.h). While one is open, AddOperation (for specs
// that apply the graph's context) lets it rewrite the new op's inputs first (a value from
// outside enters the loop or branch) and tells it about the op once added.
class BuildContext {
 public:
  virtual ~BuildContext() = default;
  virtual Status AdjustSpec(NodeSpec* spec) = 0;
  virtual void Added(Operation* op) = 0;
};

class Graph {
 public:
  // Uses the global op registry unless one is given (tests make private registries).
  explicit Graph(const OpRegistry* registry = nullptr);
  // A graph that uses `functions` (another graph's library, which must outlive it) instead
  // of a library of its own: a function's body graph (core/graph/function_library.h).
  Graph(const OpRegistry* registry, FunctionLibrary* functions);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  const OpRegistry& registry() const { return *registry_; }
  // The functions GraphDef import brought (GraphDef.library), which call ops name; export
  // writes them back.
  FunctionLibrary& functions() const { return *functions_; }

  // ---- building ----
  // Validates against the op's definition (attrs, input dtypes), infers output dtypes and
  // static shapes, and adds the op. Nothing is added when it fails.
  StatusOr<Operation*> AddOperation(NodeSpec spec);

  // Makes `new_input` input `index` of `op` (TF_UpdateEdge): how a loop is closed, since a
  // Merge is created before the NextIteration that feeds it. The dtype must be the input's.
  // A Merge's output shape becomes the most general of its inputs' shapes (a loop variable
  // may change shape); other ops keep theirs. Plans built before the change do not see it.
  Status UpdateInput(Operation* op, int index, Output new_input);

  // The innermost open control-flow construct, or null (see BuildContext).
  BuildContext* build_context() const { return build_context_; }
  void set_build_context(BuildContext* context) { build_context_ = context; }

  // Merges `shape` into the static shape of `output` (TF_GraphSetTensorShape).
  Status SetOutputShape(Output output, const PartialShape& shape);

  // Read-only from now on: AddOperation and stack pushes fail with FAILED_PRECONDITION.
  void Finalize() { finalized_ = true; }
  bool finalized() const { return finalized_; }

  // ---- lookup and iteration ----
  int num_operations() const { return static_cast<int>(operations_.size()); }
  Operation* operation(int id) const { return operations_[static_cast<size_t>(id)].get(); }
  const std::vector<std::unique_ptr<Operation>>& operations() const { return operations_; }
  Operation* FindOperation(std::string_view name) const;
  // "name" (output 0) or "name:k"; NOT_FOUND / INVALID_ARGUMENT naming the tensor.
  StatusOr<Output> FindOutput(std::string_view tensor_name) const;

  // ---- names and name scopes ----
  // TensorFlow's unique_name: prefixes the current scope, then appends _1, _2, ... if the
  // name (case-insensitively) is in use. With mark_used the result is reserved.
  std::string UniqueName(const std::string& name, bool mark_used = true);
  // name_scope(name): "" resets to the top level; "a/b/" re-enters "a/b" as is; anything else
  // opens a new, uniquified scope under the current one. Returns the new scope ("" or
  // "outer/inner", no trailing '/').
  StatusOr<std::string> PushNameScope(const std::string& name);
  Status PopNameScope();
  const std::string& name_scope() const { return name_scope_; }

  // ---- control dependencies ----
  // Ops created until the matching pop get these as control inputs (union with enclosing
  // frames). PushClearControlDependencies is `control_dependencies(None)`.
  Status PushControlDependencies(std::vector<Operation*> ops);
  Status PushClearControlDependencies();
  Status PopControlDependencies();

  // ---- devices ----
  // A device string, canonicalised (e.g. "/gpu:1" -> "/device:GPU:1"); inner fields win.
  Status PushDevice(const std::string& device);
  Status PushDeviceFunction(DeviceFunction fn);
  // `device(None)`: ops inside ignore enclosing device entries.
  Status PushClearDevice();
  Status PopDevice();

  // ---- colocation ----
  // Ops created inside get `_class = [loc:@...]` of `op`'s groups and `op`'s device.
  // ignore_existing drops enclosing colocation entries.
  Status PushColocateWith(Operation* op, bool ignore_existing = false);
  Status PopColocateWith();

  // ---- collections and variables ----
  // Adds to a collection; FAILED_PRECONDITION once the graph is finalized.
  Status AddToCollection(const std::string& key, CollectionItem item);
  Collections& collections() { return collections_; }
  const Collections& collections() const { return collections_; }
  VariableStore& variables() { return *variables_; }

  // tf.set_random_seed: the graph-level seed random ops derive their seeds from (unset:
  // nullopt). Not part of the GraphDef, as in TensorFlow.
  void set_random_seed(std::optional<int64_t> seed) { random_seed_ = seed; }
  std::optional<int64_t> random_seed() const { return random_seed_; }

  // Serialises building: the C API takes it around every graph call.
  std::recursive_mutex& mutex() const { return mutex_; }

 private:
  struct ControlFrame {
    std::vector<Operation*> ops;
    bool clears = false;
    int first_op_id = 0;  // ops with id >= this were created inside the frame
  };
  struct DeviceEntry {
    enum Kind { kSpec, kFunction, kClear } kind = kSpec;
    DeviceSpec spec;
    DeviceFunction function;
  };
  struct ColocationEntry {
    Operation* op = nullptr;
    bool ignore_existing = false;
    // colocate_with hides the device entries pushed before it (colocation is stronger).
    size_t device_floor = 0;
  };

  BuildContext* build_context_ = nullptr;
  Status CheckNotFinalized(const char* what) const;
  StatusOr<std::string> ResolveName(const NodeSpec& spec);
  std::vector<Operation*> ControlInputsFromStack(const std::vector<Output>& inputs) const;
  Status ApplyDevices(Operation* op, const std::string& explicit_device);
  void ApplyColocation(Operation* op, const std::vector<Operation*>& innermost);

  const OpRegistry* registry_;
  std::unique_ptr<FunctionLibrary> own_functions_;
  FunctionLibrary* functions_;
  std::vector<std::unique_ptr<Operation>> operations_;
  std::unordered_map<std::string, Operation*> by_name_;
  std::unordered_map<std::string, int> names_in_use_;  // lower-cased, as TF does
  std::string name_scope_;
  std::vector<std::string> name_scope_stack_;
  std::vector<ControlFrame> control_stack_;
  std::vector<DeviceEntry> device_stack_;
  std::vector<ColocationEntry> colocation_stack_;
  Collections collections_;
  std::unique_ptr<VariableStore> variables_;
  bool finalized_ = false;
  bool in_device_function_ = false;
  std::optional<int64_t> random_seed_;
  mutable std::recursive_mutex mutex_;
};

}  // namespace tgraph
