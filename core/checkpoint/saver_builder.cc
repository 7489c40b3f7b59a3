#include "core/checkpoint/saver_builder.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/graph/attr_value_util.h"
#include "core/graph/graph_context_guard.h"

namespace tgraph {
namespace {

StatusOr<Tensor> StringVector(const std::vector<std::string>& values) {
  TG_ASSIGN_OR_RETURN(Tensor t,
                      Tensor::Allocate(DT_STRING, {static_cast<int64_t>(values.size())}));
  t.strings() = values;
  return t;
}

StatusOr<Operation*> AddConst(Graph& g, const std::string& name, const Tensor& value) {
  NodeSpec spec;
  spec.type = "Const";
  spec.name = name;
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
                                    const std::vector<std::string>& keys, Operation** names,
                                    Operation** slices) {
  GraphContextGuard guard(g);
  TG_ASSIGN_OR_RETURN(std::string op_scope, guard.NameScope(op_name));
  TG_ASSIGN_OR_RETURN(Tensor names_value, StringVector(keys));
  TG_ASSIGN_OR_RETURN(*names, AddConst(g, "tensor_names", names_value));
  TG_ASSIGN_OR_RETURN(Tensor slices_value,
                      StringVector(std::vector<std::string>(keys.size(), "")));
  TG_ASSIGN_OR_RETURN(*slices, AddConst(g, "shape_and_slices", slices_value));
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

}  // namespace

StatusOr<tf::SaverDef> BuildSaverGraph(Graph& graph, std::vector<SaveEntry> entries,
                                       const SaverBuildOptions& options) {
  if (options.sharded) {
    return Unimplemented("Saver: sharded=True is not supported yet; save unsharded (one data "
                         "file; the format is the same)");
  }
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
  std::vector<std::string> keys;
  std::vector<DataType> dtypes;
  for (const SaveEntry& e : entries) {
    keys.push_back(e.key);
    dtypes.push_back(e.variable->dtype);
  }

  GraphContextGuard scope_guard(graph);
  TG_ASSIGN_OR_RETURN(std::string scope,
                      scope_guard.NameScope(options.name.empty() ? "save" : options.name));

  // The filename: a default the caller may feed (save/Const:0 is what SaverDef names).
  TG_ASSIGN_OR_RETURN(Tensor filename_value, Tensor::Allocate(DT_STRING, {}));
  filename_value.strings()[0] = options.filename;
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

  // Save.
  Operation* save_names = nullptr;
  Operation* save_slices = nullptr;
  TG_ASSIGN_OR_RETURN(std::string save_name,
                      AddNameConsts(graph, "SaveV2", keys, &save_names, &save_slices));
  NodeSpec save;
  save.type = "SaveV2";
  save.name = save_name;
  save.inputs = {{{filename_tensor->output(0)}, false},
                 {{save_names->output(0)}, false},
                 {{save_slices->output(0)}, false},
                 {{}, true}};
  for (const SaveEntry& e : entries) save.inputs[3].tensors.push_back(e.variable->ref());
  TG_ASSIGN_OR_RETURN(Operation * save_op, graph.AddOperation(std::move(save)));
  NodeSpec save_dep;
  save_dep.type = "Identity";
  save_dep.name = "control_dependency";
  save_dep.inputs = {{{filename_tensor->output(0)}, false}};
  save_dep.control_inputs = {save_op};
  save_dep.colocate_with = {filename_tensor};
  TG_ASSIGN_OR_RETURN(Operation * save_tensor, graph.AddOperation(std::move(save_dep)));

  // Restore: one RestoreV2 for every tensor, then an Assign per variable.
  Operation* restore_names = nullptr;
  Operation* restore_slices = nullptr;
  TG_ASSIGN_OR_RETURN(std::string restore_name,
                      AddNameConsts(graph, "RestoreV2", keys, &restore_names, &restore_slices));
  NodeSpec restore;
  restore.type = "RestoreV2";
  restore.name = restore_name;
  restore.inputs = {{{filename_tensor->output(0)}, false},
                    {{restore_names->output(0)}, false},
                    {{restore_slices->output(0)}, false}};
  restore.attrs["dtypes"] = AttrOfTypeList(dtypes);
  TG_ASSIGN_OR_RETURN(Operation * restore_op, graph.AddOperation(std::move(restore)));
  std::vector<Operation*> assigns;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Variable& v = *entries[i].variable;
    NodeSpec assign;
    assign.type = "Assign";
    assign.name = "Assign";
    assign.inputs = {{{v.ref()}, false}, {{restore_op->output(static_cast<int>(i))}, false}};
    assign.attrs["validate_shape"] = AttrOfBool(v.shape.IsFullyDefined());
    TG_ASSIGN_OR_RETURN(Operation * a, graph.AddOperation(std::move(assign)));
    assigns.push_back(a);
  }
  NodeSpec restore_all;
  restore_all.type = "NoOp";
  restore_all.name = "restore_all";
  restore_all.control_inputs = assigns;
  TG_ASSIGN_OR_RETURN(Operation * restore_all_op, graph.AddOperation(std::move(restore_all)));

  tf::SaverDef def;
  def.set_filename_tensor_name(filename_tensor->output(0).Name());
  def.set_save_tensor_name(save_tensor->output(0).Name());
  def.set_restore_op_name(restore_all_op->name());
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
    if (op->type() != "Assign" || op->num_inputs() != 2) continue;
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
    bool validate = true;
    if (const tf::AttrValue* a = op->FindAttr("validate_shape")) validate = a->b();
    t.validate_shape = validate;
    targets.push_back(std::move(t));
  }
  std::sort(targets.begin(), targets.end(),
            [](const RestoreTarget& a, const RestoreTarget& b) { return a.key < b.key; });
  return targets;
}

}  // namespace tgraph
