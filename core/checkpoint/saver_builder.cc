#include "core/checkpoint/saver_builder.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/graph/attr_value_util.h"
#include "core/graph/device_spec.h"
#include "core/graph/graph_context_guard.h"
#include "core/graph/proto_convert.h"

namespace tgraph {
namespace {

StatusOr<Tensor> StringVector(const std::vector<std::string>& values) {
  TG_ASSIGN_OR_RETURN(Tensor t,
                      Tensor::Allocate(DT_STRING, {static_cast<int64_t>(values.size())}));
  t.strings() = values;
  return t;
}

StatusOr<Operation*> AddConst(Graph& g, const std::string& name, const Tensor& value,
                              const std::string& device = "") {
  NodeSpec spec;
  spec.type = "Const";
  spec.name = name;
  spec.device = device;
  spec.attrs["value"] = AttrOfTensor(value);
  spec.attrs["dtype"] = AttrOfType(value.dtype());
  return g.AddOperation(std::move(spec));
}

StatusOr<Operation*> AddPlaceholderWithDefault(Graph& g, const std::string& name, Output input) {
  NodeSpec spec;
  spec.type = "PlaceholderWithDefault";
  spec.name = name;
  spec.inputs = {{{input}, false}};
  spec.attrs["shape"] = AttrOfShape(PartialShape::Scalar());
  return g.AddOperation(std::move(spec));
}

// tensor_names and shape_and_slices constants "<scope>/<op>/tensor_names", ... (TF makes
// them inside the op's own name scope). Returns the name the op then takes exactly
// ("<scope>/<op>/": a NodeSpec name ending in '/').
StatusOr<std::string> AddNameConsts(Graph& g, const std::string& op_name,
                                    const std::vector<std::string>& keys, const std::string& device,
                                    Operation** names, Operation** slices) {
  GraphContextGuard guard(g);
  TG_ASSIGN_OR_RETURN(std::string op_scope, guard.NameScope(op_name));
  TG_ASSIGN_OR_RETURN(Tensor names_value, StringVector(keys));
  TG_ASSIGN_OR_RETURN(*names, AddConst(g, "tensor_names", names_value, device));
  TG_ASSIGN_OR_RETURN(Tensor slices_value,
                      StringVector(std::vector<std::string>(keys.size(), "")));
  TG_ASSIGN_OR_RETURN(*slices, AddConst(g, "shape_and_slices", slices_value, device));
  return op_scope + "/";
}

Status CheckEntries(const Graph& graph, const std::vector<SaveEntry>& entries) {
  if (entries.empty()) return InvalidArgument("Saver: no variables to save");
  std::set<std::string> keys;
  for (const SaveEntry& e : entries) {
    if (e.variable == nullptr || e.variable->op == nullptr) {
      return InvalidArgument("Saver: the variable saved as '", e.key, "' is NULL");
    }
    if (e.variable->op->graph() != &graph) {
      return InvalidArgument("Saver: variable '", e.variable->name, "' belongs to another graph");
    }
    if (e.key.empty()) return InvalidArgument("Saver: variable '", e.variable->name, "' has an empty name");
    if (!keys.insert(e.key).second) {
      return InvalidArgument("Saver: at least two variables have the same name: ", e.key);
    }
  }
  return Status::OK();
}

StatusOr<Tensor> Int32Scalar(int32_t value) {
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DT_INT32, {}));
  *t.flat<int32_t>() = value;
  return t;
}

// TF's saveable_object_util.set_cpu0: the device with its type and index replaced by CPU:0
// (job, replica and task kept), where a shard's save and restore ops run.
StatusOr<std::string> CpuZeroOf(const std::string& device) {
  TG_ASSIGN_OR_RETURN(DeviceSpec spec, DeviceSpec::Parse(device));
  spec.type = "CPU";
  spec.id = 0;
  return spec.ToString();
}

// SaveV2 of `entries` to `prefix`, and the Identity of `prefix` that runs after it (TF's
// "control_dependency": what the save tensor or the merge waits for).
StatusOr<Operation*> AddSaveOps(Graph& graph, Output prefix, const std::vector<SaveEntry>& entries,
                                const std::string& device) {
  std::vector<std::string> keys;
  for (const SaveEntry& e : entries) keys.push_back(e.key);
  Operation* names = nullptr;
  Operation* slices = nullptr;
  TG_ASSIGN_OR_RETURN(std::string save_name, AddNameConsts(graph, "SaveV2", keys, device, &names, &slices));
  NodeSpec save;
  save.type = "SaveV2";
  save.name = save_name;
  save.device = device;
  save.inputs = {{{prefix}, false},
                 {{names->output(0)}, false},
                 {{slices->output(0)}, false},
                 {{}, true}};
  for (const SaveEntry& e : entries) {
    if (!e.variable->is_resource) {
      save.inputs[3].tensors.push_back(e.variable->ref());
      continue;
    }
    // A resource variable saves the value a ReadVariableOp of its handle reads (as TF's).
    NodeSpec read;
    read.type = "ReadVariableOp";
    read.name = "Read/ReadVariableOp";
    read.device = device;
    read.inputs = {{{e.variable->ref()}, false}};
    read.attrs["dtype"] = AttrOfType(e.variable->dtype);
    TG_ASSIGN_OR_RETURN(Operation * read_op, graph.AddOperation(std::move(read)));
    save.inputs[3].tensors.push_back(read_op->output(0));
  }
  TG_ASSIGN_OR_RETURN(Operation * save_op, graph.AddOperation(std::move(save)));
  NodeSpec done;
  done.type = "Identity";
  done.name = "control_dependency";
  done.device = device;
  done.inputs = {{{prefix}, false}};
  done.control_inputs = {save_op};
  done.colocate_with = {prefix.op};
  return graph.AddOperation(std::move(done));
}

// One RestoreV2 of `entries` from `filename`, an Assign per variable, and a NoOp named
// `group_name` after them all.
StatusOr<Operation*> AddRestoreOps(Graph& graph, Output filename,
                                   const std::vector<SaveEntry>& entries,
                                   const std::string& restore_device,
                                   const std::string& assign_device,
                                   const std::string& group_name) {
  std::vector<std::string> keys;
  std::vector<DataType> dtypes;
  for (const SaveEntry& e : entries) {
    keys.push_back(e.key);
    dtypes.push_back(e.variable->dtype);
  }
  Operation* names = nullptr;
  Operation* slices = nullptr;
  TG_ASSIGN_OR_RETURN(std::string restore_name,
                      AddNameConsts(graph, "RestoreV2", keys, restore_device, &names, &slices));
  NodeSpec restore;
  restore.type = "RestoreV2";
  restore.name = restore_name;
  restore.device = restore_device;
  restore.inputs = {{{filename}, false}, {{names->output(0)}, false}, {{slices->output(0)}, false}};
  restore.attrs["dtypes"] = AttrOfTypeList(dtypes);
  TG_ASSIGN_OR_RETURN(Operation * restore_op, graph.AddOperation(std::move(restore)));
  std::vector<Operation*> assigns;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Variable& v = *entries[i].variable;
    NodeSpec assign;
    assign.type = v.is_resource ? "AssignVariableOp" : "Assign";
    assign.name = assign.type;
    assign.device = assign_device;
    assign.inputs = {{{v.ref()}, false}, {{restore_op->output(static_cast<int>(i))}, false}};
    if (v.is_resource) {
      assign.attrs["dtype"] = AttrOfType(v.dtype);
    } else {
      assign.attrs["validate_shape"] = AttrOfBool(v.shape.IsFullyDefined());
    }
    TG_ASSIGN_OR_RETURN(Operation * a, graph.AddOperation(std::move(assign)));
    assigns.push_back(a);
  }
  NodeSpec group;
  group.type = "NoOp";
  group.name = group_name;
  group.device = assign_device;
  group.control_inputs = assigns;
  return graph.AddOperation(std::move(group));
}

// The entries grouped by their variables' requested devices, in device order (TF's
// _GroupByDevices: "" is a device of its own).
std::vector<std::pair<std::string, std::vector<SaveEntry>>> GroupByDevice(
    const std::vector<SaveEntry>& entries) {
  std::map<std::string, std::vector<SaveEntry>> by_device;
  for (const SaveEntry& e : entries) by_device[e.variable->op->device()].push_back(e);
  return {by_device.begin(), by_device.end()};
}

// TF's sharded save (_AddShardedSaveOpsForV2): every device's variables to
// "<prefix>_temp/part-0000i-of-0000n" (".part" for s3:// paths), merged into <prefix> by
// MergeV2Checkpoints, whose directory of parts it then deletes. Returns the save tensor's op.
StatusOr<Operation*> AddShardedSaveOps(
    Graph& graph, Output prefix,
    const std::vector<std::pair<std::string, std::vector<SaveEntry>>>& shards) {
  const std::string any_cpu = "/device:CPU:*";
  Operation* temp_prefix = nullptr;
  {
    NodeSpec is_s3;
    is_s3.device = any_cpu;
    is_s3.type = "StaticRegexFullMatch";
    is_s3.inputs = {{{prefix}, false}};
    is_s3.attrs["pattern"] = AttrOfString("^s3://.*");
    TG_ASSIGN_OR_RETURN(Operation * is_s3_op, graph.AddOperation(std::move(is_s3)));
    TG_ASSIGN_OR_RETURN(Tensor part_value, StringScalar(".part"));
    TG_ASSIGN_OR_RETURN(Operation * s3_suffix, AddConst(graph, "Const", part_value, any_cpu));
    TG_ASSIGN_OR_RETURN(Tensor temp_value, StringScalar("_temp/part"));
    TG_ASSIGN_OR_RETURN(Operation * temp_suffix, AddConst(graph, "Const", temp_value, any_cpu));
    NodeSpec select;
    select.type = "Select";
    select.device = any_cpu;
    select.inputs = {{{is_s3_op->output(0)}, false},
                     {{s3_suffix->output(0)}, false},
                     {{temp_suffix->output(0)}, false}};
    TG_ASSIGN_OR_RETURN(Operation * suffix, graph.AddOperation(std::move(select)));
    NodeSpec join;
    join.type = "StringJoin";
    join.device = any_cpu;
    join.inputs = {{{prefix, suffix->output(0)}, true}};
    join.attrs["separator"] = AttrOfString("");
    TG_ASSIGN_OR_RETURN(temp_prefix, graph.AddOperation(std::move(join)));
  }
  TG_ASSIGN_OR_RETURN(Tensor count_value, Int32Scalar(static_cast<int32_t>(shards.size())));
  TG_ASSIGN_OR_RETURN(Operation * num_shards, AddConst(graph, "num_shards", count_value));

  std::vector<Output> part_prefixes;
  std::vector<Operation*> saved;
  std::string last_device;
  for (size_t i = 0; i < shards.size(); ++i) {
    TG_ASSIGN_OR_RETURN(last_device, CpuZeroOf(shards[i].first));
    Operation* part = nullptr;
    {
      GraphContextGuard inner(graph);
      TG_ASSIGN_OR_RETURN(std::string part_scope, inner.NameScope("ShardedFilename"));
      TG_ASSIGN_OR_RETURN(Tensor shard_value, Int32Scalar(static_cast<int32_t>(i)));
      TG_ASSIGN_OR_RETURN(Operation * shard, AddConst(graph, "shard", shard_value, last_device));
      NodeSpec name;
      name.type = "ShardedFilename";
      name.name = part_scope + "/";
      name.device = last_device;
      name.inputs = {{{temp_prefix->output(0)}, false},
                     {{shard->output(0)}, false},
                     {{num_shards->output(0)}, false}};
      TG_ASSIGN_OR_RETURN(part, graph.AddOperation(std::move(name)));
    }
    part_prefixes.push_back(part->output(0));
    TG_ASSIGN_OR_RETURN(Operation * done, AddSaveOps(graph, part->output(0), shards[i].second,
                                                     last_device));
    saved.push_back(done);
  }

  Operation* merge = nullptr;
  {
    GraphContextGuard inner(graph);
    TG_ASSIGN_OR_RETURN(std::string merge_scope, inner.NameScope("MergeV2Checkpoints"));
    NodeSpec pack;
    pack.type = "Pack";
    pack.name = "checkpoint_prefixes";
    pack.device = last_device;
    pack.inputs = {{part_prefixes, true}};
    pack.control_inputs = saved;
    pack.attrs["axis"] = AttrOfInt(0);
    TG_ASSIGN_OR_RETURN(Operation * prefixes, graph.AddOperation(std::move(pack)));
    NodeSpec merge_spec;
    merge_spec.type = "MergeV2Checkpoints";
    merge_spec.name = merge_scope + "/";
    merge_spec.device = last_device;
    merge_spec.inputs = {{{prefixes->output(0)}, false}, {{prefix}, false}};
    merge_spec.attrs["delete_old_dirs"] = AttrOfBool(true);
    TG_ASSIGN_OR_RETURN(merge, graph.AddOperation(std::move(merge_spec)));
  }
  NodeSpec result;
  result.type = "Identity";
  result.name = "Identity";
  result.device = last_device;
  result.inputs = {{{prefix}, false}};
  result.control_inputs = saved;
  result.control_inputs.push_back(merge);
  return graph.AddOperation(std::move(result));
}

// TF's _AddShardedRestoreOps: a RestoreV2 per device (on its CPU:0) whose Assigns run on the
// device, grouped by "restore_shard" NoOps; restore_all groups those (through a NoOp per
// device when there are several, as control_flow_ops.group does).
StatusOr<Operation*> AddShardedRestoreOps(
    Graph& graph, Output filename,
    const std::vector<std::pair<std::string, std::vector<SaveEntry>>>& shards) {
  std::map<std::string, std::vector<Operation*>> shard_groups;  // by device
  for (const auto& [device, entries] : shards) {
    TG_ASSIGN_OR_RETURN(std::string cpu0, CpuZeroOf(device));
    TG_ASSIGN_OR_RETURN(Operation * group,
                        AddRestoreOps(graph, filename, entries, cpu0, device, "restore_shard"));
    shard_groups[device].push_back(group);
  }
  NodeSpec restore_all;
  restore_all.type = "NoOp";
  if (shard_groups.size() == 1) {
    restore_all.name = "restore_all";
    restore_all.device = shard_groups.begin()->first;
    restore_all.control_inputs = shard_groups.begin()->second;
    return graph.AddOperation(std::move(restore_all));
  }
  GraphContextGuard inner(graph);
  TG_ASSIGN_OR_RETURN(std::string scope, inner.NameScope("restore_all"));
  for (const auto& [device, groups] : shard_groups) {
    NodeSpec per_device;
    per_device.type = "NoOp";
    per_device.device = device;
    per_device.control_inputs = groups;
    TG_ASSIGN_OR_RETURN(Operation * op, graph.AddOperation(std::move(per_device)));
    restore_all.control_inputs.push_back(op);
  }
  restore_all.name = scope + "/";
  return graph.AddOperation(std::move(restore_all));
}

}  // namespace

StatusOr<Tensor> StringScalar(const std::string& value) {
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DT_STRING, {}));
  t.strings()[0] = value;
  return t;
}

StatusOr<tf::SaverDef> BuildSaverGraph(Graph& graph, std::vector<SaveEntry> entries,
                                       const SaverBuildOptions& options) {
  if (options.max_to_keep < 0) {
    return InvalidArgument("Saver: max_to_keep must be >= 0, got ", options.max_to_keep);
  }
  std::lock_guard lock(graph.mutex());
  if (graph.finalized()) {
    return FailedPrecondition("Graph is finalized and cannot be modified (tried to add a Saver)");
  }
  TG_RETURN_IF_ERROR(CheckEntries(graph, entries));
  std::sort(entries.begin(), entries.end(),
            [](const SaveEntry& a, const SaveEntry& b) { return a.key < b.key; });

  GraphContextGuard scope_guard(graph);
  TG_ASSIGN_OR_RETURN(std::string scope,
                      scope_guard.NameScope(options.name.empty() ? "save" : options.name));

  // The filename: a default the caller may feed (save/Const:0 is what SaverDef names).
  TG_ASSIGN_OR_RETURN(Tensor filename_value, StringScalar(options.filename));
  // As TF's op wrappers do: the input is made inside the op's own name scope
  // ("save/filename/input"), and the op takes the scope's name ("save/filename").
  Operation* filename = nullptr;
  {
    GraphContextGuard inner(graph);
    TG_ASSIGN_OR_RETURN(std::string filename_scope, inner.NameScope("filename"));
    TG_ASSIGN_OR_RETURN(Operation * filename_input, AddConst(graph, "input", filename_value));
    TG_ASSIGN_OR_RETURN(filename, AddPlaceholderWithDefault(graph, filename_scope + "/",
                                                            filename_input->output(0)));
  }
  TG_ASSIGN_OR_RETURN(Operation * filename_tensor,
                      AddPlaceholderWithDefault(graph, "Const", filename->output(0)));

  Operation* save_tensor = nullptr;
  Operation* restore_all = nullptr;
  if (options.sharded) {
    const auto shards = GroupByDevice(entries);
    TG_ASSIGN_OR_RETURN(save_tensor, AddShardedSaveOps(graph, filename_tensor->output(0), shards));
    TG_ASSIGN_OR_RETURN(restore_all,
                        AddShardedRestoreOps(graph, filename_tensor->output(0), shards));
  } else {
    TG_ASSIGN_OR_RETURN(save_tensor, AddSaveOps(graph, filename_tensor->output(0), entries, ""));
    TG_ASSIGN_OR_RETURN(restore_all, AddRestoreOps(graph, filename_tensor->output(0), entries,
                                                   "", "", "restore_all"));
  }

  tf::SaverDef def;
  def.set_filename_tensor_name(filename_tensor->output(0).Name());
  def.set_save_tensor_name(save_tensor->output(0).Name());
  def.set_restore_op_name(restore_all->name());
  def.set_max_to_keep(options.max_to_keep);
  def.set_sharded(options.sharded);
  def.set_keep_checkpoint_every_n_hours(options.keep_checkpoint_every_n_hours);
  def.set_version(tf::SaverDef::V2);
  return def;
}

namespace {

// The string vector a Const holds (RestoreV2's tensor_names).
StatusOr<std::vector<std::string>> ConstStrings(const Operation& op, const std::string& what) {
  const Tensor* value = op.constant_value();
  if (op.type() != "Const" || value == nullptr || value->dtype() != DT_STRING) {
    return InvalidArgument(what, " '", op.name(), "' is not a string constant (", op.type(), ")");
  }
  return value->strings();
}

}  // namespace

StatusOr<std::vector<RestoreTarget>> FindRestoreTargets(const Graph& graph,
                                                        const tf::SaverDef& def) {
  const Operation* restore_all = graph.FindOperation(def.restore_op_name());
  if (restore_all == nullptr) {
    return NotFound("the SaverDef's restore op '", def.restore_op_name(), "' is not in the graph");
  }
  std::vector<RestoreTarget> targets;
  std::map<const Operation*, std::vector<std::string>> names_of;  // per RestoreV2 op
  // TF groups many assigns through nested NoOps (restore_shard, ...): walk control inputs.
  std::vector<const Operation*> stack(restore_all->control_inputs().begin(),
                                      restore_all->control_inputs().end());
  std::set<const Operation*> seen;
  while (!stack.empty()) {
    const Operation* op = stack.back();
    stack.pop_back();
    if (!seen.insert(op).second) continue;
    if (op->type() == "NoOp") {
      stack.insert(stack.end(), op->control_inputs().begin(), op->control_inputs().end());
      continue;
    }
    // Assign of a reference variable, AssignVariableOp of a resource variable's handle.
    const bool resource = op->type() == "AssignVariableOp";
    if ((op->type() != "Assign" && !resource) || op->num_inputs() != 2) continue;
    const Output value = op->input(1);
    if (value.op == nullptr || value.op->type() != "RestoreV2") continue;
    auto it = names_of.find(value.op);
    if (it == names_of.end()) {
      const Output names = value.op->input(1);
      TG_ASSIGN_OR_RETURN(std::vector<std::string> keys,
                          ConstStrings(*names.op, StrCat("the tensor_names of '", value.op->name(), "'")));
      it = names_of.emplace(value.op, std::move(keys)).first;
    }
    if (value.index >= static_cast<int>(it->second.size())) {
      return InvalidArgument("'", value.op->name(), "' has ", it->second.size(),
                             " tensor names but output ", value.index, " is restored");
    }
    RestoreTarget t;
    t.key = it->second[static_cast<size_t>(value.index)];
    t.variable = op->input(0).op;
    t.dtype = BaseType(value.op->output_type(value.index));
    t.shape = op->input(0).shape();
    if (resource) {
      // The handle is a scalar: the variable's shape is its VarHandleOp's attr.
      const tf::AttrValue* shape = t.variable != nullptr ? t.variable->FindAttr("shape") : nullptr;
      StatusOr<PartialShape> declared =
          shape != nullptr && t.variable->type() == "VarHandleOp" ? ShapeFromProto(shape->shape())
                                                                  : StatusOr<PartialShape>(PartialShape::Unknown());
      t.shape = declared.ok() ? declared.value() : PartialShape::Unknown();
    }
    bool validate = !resource;  // AssignVariableOp's validate_shape defaults to false
    if (const tf::AttrValue* a = op->FindAttr("validate_shape")) validate = a->b();
    t.validate_shape = validate;
    targets.push_back(std::move(t));
  }
  std::sort(targets.begin(), targets.end(),
            [](const RestoreTarget& a, const RestoreTarget& b) { return a.key < b.key; });
  return targets;
}

}  // namespace tgraph
