#include "core/graph/graph.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/base/buffer_versions.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/function_library.h"
#include "core/graph/proto_convert.h"
#include "core/graph/variables.h"
#include "core/ops/op_registry.h"
#include "core/ops/op_signature.h"
#include "core/ops/shape_inference.h"

namespace tgraph {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// TensorFlow's op-name rule: [A-Za-z0-9.][A-Za-z0-9_.\-/>]* (scopes may also start with '_'
// or '-' after the first '/', so each '/'-separated part is checked like a scope part).
bool IsValidOpName(const std::string& name) {
  if (name.empty()) return false;
  auto first_ok = [](unsigned char c) { return std::isalnum(c) || c == '.'; };
  auto rest_ok = [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '/' || c == '>';
  };
  if (!first_ok(static_cast<unsigned char>(name[0]))) return false;
  if (name.back() == '/') return false;
  if (name.find("//") != std::string::npos) return false;
  return std::all_of(name.begin() + 1, name.end(), [&](char c) { return rest_ok(static_cast<unsigned char>(c)); });
}

bool IsValidScopeName(const std::string& name) {
  return std::all_of(name.begin(), name.end(), [](char ch) {
    unsigned char c = static_cast<unsigned char>(ch);
    return std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '/' || c == '>';
  });
}

}  // namespace

Graph::Graph(const OpRegistry* registry)
    : registry_(registry ? registry : OpRegistry::Global()),
      own_functions_(std::make_unique<FunctionLibrary>(registry_)),
      functions_(own_functions_.get()),
      variables_(std::make_unique<VariableStore>(this)) {}

Graph::Graph(const OpRegistry* registry, FunctionLibrary* functions)
    : registry_(registry ? registry : OpRegistry::Global()),
      functions_(functions),
      variables_(std::make_unique<VariableStore>(this)) {}

Graph::~Graph() {
  // Variables, then operations (as the members' own order would): the constants' buffers die
  // with them, and then the numbers input_version gave those buffers go too
  // (core/base/buffer_versions.h), instead of waiting in the table for a later purge.
  variables_.reset();
  operations_.clear();
  BufferVersions::ForgetDead();
}

Status Graph::CheckNotFinalized(const char* what) const {
  if (finalized_) {
    return FailedPrecondition("Graph is finalized and cannot be modified (tried to ", what, ")");
  }
  return Status::OK();
}

std::string Graph::UniqueName(const std::string& name, bool mark_used) {
  std::lock_guard lock(mutex_);
  std::string full = name_scope_.empty() ? name : name_scope_ + "/" + name;
  std::string key = Lower(full);
  auto found = names_in_use_.find(key);
  int i = found == names_in_use_.end() ? 0 : found->second;
  if (mark_used) names_in_use_[key] = i + 1;
  if (i == 0) return full;
  std::string base_key = key;
  while (names_in_use_.count(key)) {
    key = base_key + "_" + std::to_string(i);
    ++i;
  }
  if (mark_used) names_in_use_[key] = 1;
  return full + "_" + std::to_string(i - 1);
}

StatusOr<std::string> Graph::PushNameScope(const std::string& name) {
  std::lock_guard lock(mutex_);
  TG_RETURN_IF_ERROR(CheckNotFinalized("open a name scope"));
  std::string scope;
  if (name.empty()) {
    scope = "";
  } else if (name.back() == '/') {
    scope = name.substr(0, name.size() - 1);
    if (!scope.empty() && !IsValidOpName(scope)) {
      return InvalidArgument("'", name, "' is not a valid scope name");
    }
  } else {
    if (!IsValidScopeName(name) || (name_scope_.empty() && !IsValidOpName(name))) {
      return InvalidArgument("'", name, "' is not a valid scope name");
    }
    scope = UniqueName(name, /*mark_used=*/true);
  }
  name_scope_stack_.push_back(name_scope_);
  name_scope_ = scope;
  return scope;
}

Status Graph::PopNameScope() {
  std::lock_guard lock(mutex_);
  if (name_scope_stack_.empty()) return FailedPrecondition("PopNameScope without a matching push");
  name_scope_ = name_scope_stack_.back();
  name_scope_stack_.pop_back();
  return Status::OK();
}

Status Graph::PushControlDependencies(std::vector<Operation*> ops) {
  std::lock_guard lock(mutex_);
  TG_RETURN_IF_ERROR(CheckNotFinalized("push onto a graph context stack"));
  for (Operation* op : ops) {
    if (op == nullptr) return InvalidArgument("control dependency on a null operation");
    if (op->graph() != this) {
      return InvalidArgument("control dependency on '", op->name(), "', which is in another graph");
    }
  }
  control_stack_.push_back(ControlFrame{std::move(ops), false, num_operations()});
  return Status::OK();
}

Status Graph::PushClearControlDependencies() {
  std::lock_guard lock(mutex_);
  TG_RETURN_IF_ERROR(CheckNotFinalized("push onto a graph context stack"));
  control_stack_.push_back(ControlFrame{{}, true, num_operations()});
  return Status::OK();
}

Status Graph::PopControlDependencies() {
  std::lock_guard lock(mutex_);
  if (control_stack_.empty()) return FailedPrecondition("PopControlDependencies without a matching push");
  control_stack_.pop_back();
  return Status::OK();
}

Status Graph::PushDevice(const std::string& device) {
  std::lock_guard lock(mutex_);
  TG_RETURN_IF_ERROR(CheckNotFinalized("push onto a graph context stack"));
  TG_ASSIGN_OR_RETURN(DeviceSpec spec, DeviceSpec::Parse(device));
  DeviceEntry entry;
  entry.kind = DeviceEntry::kSpec;
  entry.spec = std::move(spec);
  device_stack_.push_back(std::move(entry));
  return Status::OK();
}

Status Graph::PushDeviceFunction(DeviceFunction fn) {
  std::lock_guard lock(mutex_);
  TG_RETURN_IF_ERROR(CheckNotFinalized("push onto a graph context stack"));
  if (!fn) return InvalidArgument("device function is empty");
  DeviceEntry entry;
  entry.kind = DeviceEntry::kFunction;
  entry.function = std::move(fn);
  device_stack_.push_back(std::move(entry));
  return Status::OK();
}

Status Graph::PushClearDevice() {
  std::lock_guard lock(mutex_);
  TG_RETURN_IF_ERROR(CheckNotFinalized("push onto a graph context stack"));
  DeviceEntry entry;
  entry.kind = DeviceEntry::kClear;
  device_stack_.push_back(std::move(entry));
  return Status::OK();
}

Status Graph::PopDevice() {
  std::lock_guard lock(mutex_);
  if (device_stack_.empty()) return FailedPrecondition("PopDevice without a matching push");
  device_stack_.pop_back();
  return Status::OK();
}

Status Graph::PushColocateWith(Operation* op, bool ignore_existing) {
  std::lock_guard lock(mutex_);
  TG_RETURN_IF_ERROR(CheckNotFinalized("push onto a graph context stack"));
  if (op == nullptr) return InvalidArgument("colocate_with a null operation");
  if (op->graph() != this) {
    return InvalidArgument("colocate_with '", op->name(), "', which is in another graph");
  }
  colocation_stack_.push_back(ColocationEntry{op, ignore_existing, device_stack_.size()});
  return Status::OK();
}

Status Graph::PopColocateWith() {
  std::lock_guard lock(mutex_);
  if (colocation_stack_.empty()) return FailedPrecondition("PopColocateWith without a matching push");
  colocation_stack_.pop_back();
  return Status::OK();
}

Status Graph::AddToCollection(const std::string& key, CollectionItem item) {
  std::lock_guard lock(mutex_);
  TG_RETURN_IF_ERROR(CheckNotFinalized("add to a collection"));
  collections_.Add(key, std::move(item));
  return Status::OK();
}

Operation* Graph::FindOperation(std::string_view name) const {
  std::lock_guard lock(mutex_);
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

StatusOr<Output> Graph::FindOutput(std::string_view tensor_name) const {
  std::string name(tensor_name);
  int index = 0;
  size_t colon = name.rfind(':');
  if (colon != std::string::npos) {
    std::string digits = name.substr(colon + 1);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return InvalidArgument("'", tensor_name, "' is not a tensor name (expected 'op' or 'op:index')");
    }
    index = std::stoi(digits);
    name = name.substr(0, colon);
  }
  Operation* op = FindOperation(name);
  if (op == nullptr) return NotFound("tensor '", tensor_name, "': no operation named '", name, "' in the graph");
  if (index >= op->num_outputs()) {
    return OutOfRange("tensor '", tensor_name, "': operation '", name, "' has ", op->num_outputs(),
                      " output(s)");
  }
  return Output{op, index};
}

Status Graph::UpdateInput(Operation* op, int index, Output new_input) {
  std::lock_guard lock(mutex_);
  if (finalized_) TG_RETURN_IF_ERROR(CheckNotFinalized("update an input"));
  if (op == nullptr || op->graph() != this) return InvalidArgument("UpdateInput: the operation is not in this graph");
  if (index < 0 || index >= op->num_inputs()) {
    return OutOfRange("UpdateInput: node '", op->name(), "' has no input ", index);
  }
  if (new_input.op == nullptr || new_input.op->graph() != this || new_input.index < 0 ||
      new_input.index >= new_input.op->num_outputs()) {
    return InvalidArgument("UpdateInput: the new input of node '", op->name(), "' is not a tensor of this graph");
  }
  const Output old = op->inputs_[static_cast<size_t>(index)];
  if (new_input.dtype() != old.dtype()) {
    return InvalidArgument("UpdateInput: input ", index, " of node '", op->name(), "' has dtype ",
                           DataTypeName(old.dtype()), ", but '", new_input.Name(), "' is ",
                           DataTypeName(new_input.dtype()));
  }
  auto& consumers = old.op->outputs_[static_cast<size_t>(old.index)].consumers;
  consumers.erase(std::find(consumers.begin(), consumers.end(), Input{op, index}));
  new_input.op->outputs_[static_cast<size_t>(new_input.index)].consumers.push_back(Input{op, index});
  op->inputs_[static_cast<size_t>(index)] = new_input;
  if (op->type_ == "Merge" || op->type_ == "RefMerge") {
    PartialShape& out = op->outputs_[0].shape;
    const PartialShape& in = new_input.shape();
    if (!out.known_rank() || !in.known_rank() || out.rank() != in.rank()) {
      out = PartialShape::Unknown();
    } else {
      std::vector<int64_t> dims = out.dims();
      for (int i = 0; i < in.rank(); ++i) {
        if (dims[static_cast<size_t>(i)] != in.dim(i)) dims[static_cast<size_t>(i)] = PartialShape::kUnknownDim;
      }
      out = PartialShape(std::move(dims));
    }
  }
  return Status::OK();
}

Status Graph::SetOutputShape(Output output, const PartialShape& shape) {
  std::lock_guard lock(mutex_);
  if (output.op == nullptr || output.op->graph() != this) {
    return InvalidArgument("SetOutputShape: the tensor is not in this graph");
  }
  if (output.index < 0 || output.index >= output.op->num_outputs()) {
    return OutOfRange("SetOutputShape: operation '", output.op->name(), "' has no output ", output.index);
  }
  TG_RETURN_IF_ERROR(ValidatePartialShapeDims(shape.dims()));
  auto& slot = output.op->outputs_[static_cast<size_t>(output.index)];
  PartialShape merged;
  Status s = slot.shape.Merge(shape, &merged);
  if (!s.ok()) {
    return InvalidArgument("cannot set the shape of '", output.Name(), "' to ", shape.ToString(),
                           ": it is already ", slot.shape.ToString());
  }
  slot.shape = std::move(merged);
  return Status::OK();
}

StatusOr<std::string> Graph::ResolveName(const NodeSpec& spec) {
  if (spec.exact_name) {
    if (!IsValidOpName(spec.name)) return InvalidArgument("'", spec.name, "' is not a valid node name");
    if (by_name_.count(spec.name)) return AlreadyExists("a node named '", spec.name, "' already exists");
    return spec.name;
  }
  std::string base = spec.name.empty() ? spec.type : spec.name;
  if (base.back() == '/') {
    std::string exact = base.substr(0, base.size() - 1);
    if (!IsValidOpName(exact)) return InvalidArgument("'", base, "' is not a valid node name");
    if (by_name_.count(exact)) return AlreadyExists("a node named '", exact, "' already exists");
    return exact;
  }
  std::string name = UniqueName(base, /*mark_used=*/false);
  if (!IsValidOpName(name)) return InvalidArgument("'", name, "' is not a valid node name");
  return name;
}

std::vector<Operation*> Graph::ControlInputsFromStack(const std::vector<Output>& inputs) const {
  std::vector<Operation*> result;
  size_t first = 0;
  for (size_t i = control_stack_.size(); i-- > 0;) {
    if (control_stack_[i].clears) {
      first = i + 1;
      break;
    }
  }
  for (size_t i = first; i < control_stack_.size(); ++i) {
    const ControlFrame& frame = control_stack_[i];
    // A data input made inside this frame already depends on the frame's ops.
    bool dominated = std::any_of(inputs.begin(), inputs.end(),
                                 [&](const Output& in) { return in.op->id() >= frame.first_op_id; });
    if (dominated) continue;
    for (Operation* op : frame.ops) {
      bool is_data_input = std::any_of(inputs.begin(), inputs.end(),
                                       [&](const Output& in) { return in.op == op; });
      if (!is_data_input) result.push_back(op);
    }
  }
  return result;
}

Status Graph::ApplyDevices(Operation* op, const std::string& explicit_device) {
  TG_ASSIGN_OR_RETURN(DeviceSpec current, DeviceSpec::Parse(explicit_device));
  size_t floor = colocation_stack_.empty() ? 0 : colocation_stack_.back().device_floor;
  // Innermost first: an inner entry's fields win over the outer ones.
  for (size_t i = device_stack_.size(); i-- > floor;) {
    const DeviceEntry& entry = device_stack_[i];
    if (entry.kind == DeviceEntry::kClear) break;
    if (entry.kind == DeviceEntry::kSpec) {
      current = entry.spec.MergedWith(current);
      continue;
    }
    op->device_ = current.ToString();
    // The function sees the op but may not build: the op is not in the graph yet.
    in_device_function_ = true;
    std::string chosen;
    try {
      chosen = entry.function(*op);
    } catch (...) {
      in_device_function_ = false;
      throw;
    }
    in_device_function_ = false;
    if (chosen.empty()) continue;
    auto parsed = DeviceSpec::Parse(chosen);
    if (!parsed.ok()) {
      return parsed.status().Prepend(StrCat("device function for node '", op->name(), "': "));
    }
    current = std::move(parsed).value();
  }
  op->device_ = current.ToString();
  return Status::OK();
}

void Graph::ApplyColocation(Operation* op, const std::vector<Operation*>& innermost) {
  std::vector<Operation*> colocated = innermost;
  for (size_t i = colocation_stack_.size(); i-- > 0;) {
    colocated.push_back(colocation_stack_[i].op);
    if (colocation_stack_[i].ignore_existing) break;
  }
  if (colocated.empty()) return;
  std::set<std::string> groups;
  bool device_set = false;
  for (Operation* other : colocated) {
    for (auto& g : other->ColocationGroups()) groups.insert(g);
    if (!device_set && !other->device().empty()) {
      op->device_ = other->device();
      device_set = true;
    }
  }
  op->attrs_["_class"] = AttrOfStringList(std::vector<std::string>(groups.begin(), groups.end()));
}

StatusOr<Operation*> Graph::AddOperation(NodeSpec spec) {
  std::lock_guard lock(mutex_);
  if (finalized_) TG_RETURN_IF_ERROR(CheckNotFinalized(StrCat("add node '", spec.name, "'").c_str()));
  if (in_device_function_) {
    return FailedPrecondition("cannot add node '", spec.name, "' from inside a device function");
  }
  if (spec.type.empty()) return InvalidArgument("node '", spec.name, "' has no op type");
  TG_ASSIGN_OR_RETURN(const OpRegistration* reg, registry_->Lookup(spec.type, spec.name));
  BuildContext* const context = spec.apply_context ? build_context_ : nullptr;
  if (context != nullptr) TG_RETURN_IF_ERROR(context->AdjustSpec(&spec));
  TG_ASSIGN_OR_RETURN(std::string name, ResolveName(spec));
  const tf::OpDef& op_def = reg->op_def;

  // Inputs must be live tensors of this graph.
  std::vector<Output> flat_inputs;
  std::vector<std::vector<DataType>> group_types;
  std::vector<bool> group_is_list;
  for (size_t g = 0; g < spec.inputs.size(); ++g) {
    std::vector<DataType> types;
    for (const Output& in : spec.inputs[g].tensors) {
      if (in.op == nullptr || in.op->graph() != this) {
        return InvalidArgument("input ", flat_inputs.size(), " of node '", name, "' (", spec.type,
                               ") is not a tensor of this graph");
      }
      if (in.index < 0 || in.index >= in.op->num_outputs()) {
        return OutOfRange("input ", flat_inputs.size(), " of node '", name, "' refers to output ",
                          in.index, " of '", in.op->name(), "', which has ", in.op->num_outputs(),
                          " output(s)");
      }
      flat_inputs.push_back(in);
      types.push_back(in.dtype());
    }
    group_types.push_back(std::move(types));
    group_is_list.push_back(spec.inputs[g].is_list);
  }
  for (Operation* c : spec.colocate_with) {
    if (c == nullptr || c->graph() != this) {
      return InvalidArgument("node '", name, "' is to be colocated with an operation not in this graph");
    }
  }
  for (Operation* c : spec.control_inputs) {
    if (c == nullptr || c->graph() != this) {
      return InvalidArgument("a control input of node '", name, "' is not an operation of this graph");
    }
  }

  AttrMap attrs = std::move(spec.attrs);
  if (spec.infer_attrs_from_inputs) {
    TG_RETURN_IF_ERROR(InferAttrsFromInputs(op_def, name, group_types, group_is_list, &attrs));
  }
  ResolvedSignature sig;
  TG_RETURN_IF_ERROR(ResolveSignature(op_def, name, &attrs, &sig));
  if (flat_inputs.size() != sig.input_types.size()) {
    return InvalidArgument("node '", name, "' (", spec.type, ") has ", flat_inputs.size(),
                           " inputs, but its op definition wants ", sig.input_types.size());
  }
  std::vector<DataType> actual_types;
  for (const Output& in : flat_inputs) actual_types.push_back(in.dtype());
  TG_RETURN_IF_ERROR(CheckInputTypes(op_def, name, sig, actual_types));

  auto op = std::unique_ptr<Operation>(new Operation());
  op->graph_ = this;
  op->id_ = num_operations();
  op->name_ = name;
  op->type_ = spec.type;
  op->registration_ = reg;
  op->attrs_ = std::move(attrs);
  op->inputs_ = flat_inputs;
  op->input_types_ = sig.input_types;
  op->input_args_ = sig.input_args;
  op->output_args_ = sig.output_args;
  op->outputs_.resize(sig.output_types.size());
  for (size_t i = 0; i < sig.output_types.size(); ++i) op->outputs_[i].dtype = sig.output_types[i];

  if (op->type_ == "Const") {
    const tf::AttrValue* value = op->FindAttr("value");
    if (value == nullptr || value->value_case() != tf::AttrValue::kTensor) {
      return InvalidArgument("Const node '", name, "' has no tensor 'value' attr");
    }
    auto parsed = TensorFromProto(value->tensor());
    if (!parsed.ok()) return parsed.status().Prepend(StrCat("Const node '", name, "': "));
    op->constant_value_ = std::make_shared<const Tensor>(std::move(parsed).value());
  }

  // Control inputs: explicit ones, then the enclosing control_dependencies frames.
  std::vector<Operation*> controls = spec.control_inputs;
  if (spec.apply_context) {
    for (Operation* c : ControlInputsFromStack(flat_inputs)) controls.push_back(c);
  }
  for (Operation* c : controls) {
    if (std::find(op->control_inputs_.begin(), op->control_inputs_.end(), c) == op->control_inputs_.end()) {
      op->control_inputs_.push_back(c);
    }
  }

  // Device and colocation.
  if (spec.apply_context) {
    TG_RETURN_IF_ERROR(ApplyDevices(op.get(), spec.device));
    std::vector<Operation*> innermost = spec.colocate_with;
    // An op that writes through a ref input lives with the ref's owner (TF colocates them).
    for (int a = 0; a < op_def.input_arg_size(); ++a) {
      if (!op_def.input_arg(a).is_ref()) continue;
      const ArgRange& range = sig.input_args[static_cast<size_t>(a)];
      for (int k = 0; k < range.count; ++k) innermost.push_back(flat_inputs[static_cast<size_t>(range.start + k)].op);
    }
    ApplyColocation(op.get(), innermost);
  } else {
    auto canonical = CanonicalDeviceString(spec.device);
    if (!canonical.ok()) return canonical.status().Prepend(StrCat("node '", name, "': "));
    op->device_ = canonical.value();
    if (!spec.colocate_with.empty()) ApplyColocation(op.get(), spec.colocate_with);
  }

  // Static shapes.
  if (reg->shape_fn) {
    std::vector<PartialShape> shapes;
    std::vector<const Tensor*> values;
    for (const Output& in : flat_inputs) {
      shapes.push_back(in.shape());
      values.push_back(in.op->constant_value());
    }
    InferenceContext context(name, op->type_, op->attrs_, actual_types, std::move(shapes),
                             std::move(values), op->num_outputs());
    TG_RETURN_IF_ERROR(reg->shape_fn(context));
    for (int i = 0; i < op->num_outputs(); ++i) {
      op->outputs_[static_cast<size_t>(i)].shape = context.output_shapes()[static_cast<size_t>(i)];
    }
  }

  // Commit: nothing above touched the graph.
  Operation* raw = op.get();
  if (spec.exact_name || (!spec.name.empty() && spec.name.back() == '/')) {
    int& used = names_in_use_[Lower(name)];
    used = std::max(used, 1);
  } else {
    std::string reserved = UniqueName(spec.name.empty() ? spec.type : spec.name, /*mark_used=*/true);
    if (reserved != name) return Internal("name reservation changed for node '", name, "'");
  }
  for (size_t i = 0; i < flat_inputs.size(); ++i) {
    const Output& in = flat_inputs[i];
    in.op->outputs_[static_cast<size_t>(in.index)].consumers.push_back(Input{raw, static_cast<int>(i)});
  }
  for (Operation* c : raw->control_inputs_) c->control_outputs_.push_back(raw);
  by_name_[name] = raw;
  operations_.push_back(std::move(op));
  if (context != nullptr) context->Added(raw);
  return raw;
}

}  // namespace tgraph
