// MetaGraphDef export: MetaInfoDef, GraphDef (scoped), SaverDef and CollectionDefs.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <array>
#include <mutex>
#include <set>

#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "core/graph/meta_graph_io.h"
#include "core/graph/scoped_names.h"
#include "core/graph/variables.h"
#include "core/ops/op_registry.h"
#include "tgraph/proto/variable.pb.h"

namespace tgraph {

bool IsVariableCollectionKey(const std::string& key) {
  static constexpr std::array<std::string_view, 7> kKeys = {
      "variables",      "trainable_variables", "moving_average_variables", "local_variables",
      "model_variables", "global_step",        "metric_variables"};
  for (std::string_view k : kKeys) {
    if (k == key) return true;
  }
  return false;
}

Status SerializeMetaGraphDef(const tf::MetaGraphDef& def, std::string* out) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!def.SerializeToCodedStream(&coded) || coded.HadError()) {
      return Internal("MetaGraphDef serialization failed (", def.ByteSizeLong(),
                      " bytes; protobuf messages are limited to 2 GiB)");
    }
  }
  *out = std::move(bytes);
  return Status::OK();
}

namespace {

// Keeps the nodes under `scope` with names relative to it; inputs from outside become
// "$unbound_inputs_<name>" (collected in `unbound`), `_class` values outside are dropped.
void ScopeGraphDef(const std::string& scope, tf::GraphDef* def, std::vector<std::string>* unbound) {
  tf::GraphDef scoped;
  *scoped.mutable_versions() = def->versions();
  for (tf::NodeDef& node : *def->mutable_node()) {
    if (!IsInScope(node.name(), scope)) continue;
    node.set_name(StripScope(node.name(), scope));
    for (std::string& input : *node.mutable_input()) {
      if (IsInScope(input, scope)) {
        input = StripScope(input, scope);
        continue;
      }
      bool control = input.starts_with('^');
      std::string marked = control ? "^" : "";
      marked.append(kUnboundInputPrefix);
      marked.append(control ? input.substr(1) : input);
      input = marked;
      unbound->push_back(input);
    }
    auto cls = node.mutable_attr()->find("_class");
    if (cls != node.mutable_attr()->end() && cls->second.has_list()) {
      tf::AttrValue::ListValue kept;
      for (const std::string& s : cls->second.list().s()) {
        if (IsInScope(s, scope)) kept.add_s(StripScope(s, scope));
      }
      *cls->second.mutable_list() = std::move(kept);
    }
    *scoped.add_node() = std::move(node);
  }
  *def = std::move(scoped);
}

void StripDefaultAttrs(const Graph& g, tf::GraphDef* def) {
  for (tf::NodeDef& node : *def->mutable_node()) {
    const OpRegistration* reg = g.registry().Find(node.op());
    if (reg == nullptr) continue;
    auto* attrs = node.mutable_attr();
    for (auto it = attrs->begin(); it != attrs->end();) {
      if (IsDefaultAttrValue(reg->op_def, it->first, it->second)) {
        it = attrs->erase(it);
      } else {
        ++it;
      }
    }
  }
}

// The OpDefs of the op types `def` uses, sorted by name, without documentation (TF's
// stripped_op_list_for_graph).
void StrippedOpList(const Graph& g, const tf::GraphDef& def, tf::OpList* out) {
  std::set<std::string> types;
  for (const tf::NodeDef& node : def.node()) types.insert(node.op());
  for (const std::string& type : types) {
    const OpRegistration* reg = g.registry().Find(type);
    if (reg == nullptr) continue;
    tf::OpDef* op = out->add_op();
    *op = reg->op_def;
    op->clear_summary();
    op->clear_description();
    for (auto& arg : *op->mutable_input_arg()) arg.clear_description();
    for (auto& arg : *op->mutable_output_arg()) arg.clear_description();
    for (auto& attr : *op->mutable_attr()) attr.clear_description();
  }
}

// VariableDef of `v` with names relative to `scope`; false when v is outside the scope.
bool VariableToProto(const Variable& v, const std::string& scope, tf::VariableDef* out) {
  if (!IsInScope(v.name, scope)) return false;
  out->set_variable_name(StripScope(v.TensorName(), scope));
  if (v.initializer != nullptr) out->set_initializer_name(StripScope(v.initializer->name(), scope));
  if (v.snapshot.op != nullptr) out->set_snapshot_name(StripScope(v.snapshot.Name(), scope));
  if (v.initial_value.op != nullptr) {
    out->set_initial_value_name(StripScope(v.initial_value.Name(), scope));
  }
  out->set_is_resource(v.is_resource);
  out->set_trainable(v.trainable);
  out->set_synchronization(static_cast<tf::VariableSynchronization>(v.synchronization));
  out->set_aggregation(static_cast<tf::VariableAggregation>(v.aggregation));
  return true;
}

const char* KindName(CollectionItem::Kind kind) {
  switch (kind) {
    case CollectionItem::Kind::kOperation: return "an operation";
    case CollectionItem::Kind::kTensor: return "a tensor";
    case CollectionItem::Kind::kVariable: return "a variable";
    case CollectionItem::Kind::kBytes: return "bytes";
    case CollectionItem::Kind::kInt64: return "an int64";
    case CollectionItem::Kind::kFloat: return "a float";
  }
  return "an item";
}

bool IsNamed(CollectionItem::Kind kind) {
  return kind == CollectionItem::Kind::kOperation || kind == CollectionItem::Kind::kTensor ||
         kind == CollectionItem::Kind::kVariable;
}

// One collection as TF's add_collection_def writes it; an empty result is not written.
Status CollectionToProto(const std::string& key, const std::vector<CollectionItem>& items,
                         const std::string& scope, tf::CollectionDef* out) {
  if (items.empty()) return Status::OK();
  const CollectionItem::Kind first = items.front().kind;
  const bool as_variables =
      first == CollectionItem::Kind::kVariable && IsVariableCollectionKey(key);
  for (size_t i = 0; i < items.size(); ++i) {
    const CollectionItem& item = items[i];
    bool fits = as_variables ? item.kind == CollectionItem::Kind::kVariable
                : IsNamed(first) ? IsNamed(item.kind)
                                 : item.kind == first;
    if (!fits) {
      return InvalidArgument("collection '", key, "' cannot be exported: item ", i, " is ",
                             KindName(item.kind), " but item 0 is ", KindName(first),
                             " (a CollectionDef holds one kind)");
    }
    if (as_variables) {
      tf::VariableDef var_def;
      if (!VariableToProto(*item.variable, scope, &var_def)) continue;
      std::string bytes;
      google::protobuf::io::StringOutputStream stream(&bytes);
      {
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        var_def.SerializeToCodedStream(&coded);
      }
      out->mutable_bytes_list()->add_value(std::move(bytes));
      continue;
    }
    switch (item.kind) {
      case CollectionItem::Kind::kBytes: out->mutable_bytes_list()->add_value(item.bytes); break;
      case CollectionItem::Kind::kInt64:
        out->mutable_int64_list()->add_value(item.int64_value);
        break;
      case CollectionItem::Kind::kFloat:
        out->mutable_float_list()->add_value(item.float_value);
        break;
      default: {
        std::string name = item.Name();
        if (IsInScope(name, scope)) out->mutable_node_list()->add_value(StripScope(name, scope));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status ExportMetaGraph(const Graph& g, const MetaGraphExportOptions& opts, tf::MetaGraphDef* out) {
  if (out == nullptr) return InvalidArgument("ExportMetaGraph: output is null");
  const std::string& scope = opts.export_scope;
  if (!scope.empty() && (scope.back() == '/' || scope.front() == '/')) {
    return InvalidArgument("export scope '", scope, "' must not begin or end with '/'");
  }
  std::lock_guard lock(g.mutex());
  tf::MetaGraphDef meta;

  tf::GraphDef* graph_def = meta.mutable_graph_def();
  TG_RETURN_IF_ERROR(ExportGraphDef(g, graph_def));
  std::vector<std::string> unbound;
  if (!scope.empty()) ScopeGraphDef(scope, graph_def, &unbound);
  if (opts.clear_devices) {
    for (tf::NodeDef& node : *graph_def->mutable_node()) node.clear_device();
  }
  if (opts.strip_default_attrs) StripDefaultAttrs(g, graph_def);

  tf::MetaGraphDef::MetaInfoDef* info = meta.mutable_meta_info_def();
  info->set_meta_graph_version(opts.meta_graph_version);
  StrippedOpList(g, *graph_def, info->mutable_stripped_op_list());
  for (const std::string& tag : opts.tags) info->add_tags(tag);
  info->set_tensorflow_git_version(opts.producer_version);
  info->set_stripped_default_attrs(opts.strip_default_attrs);

  if (opts.has_saver_def) {
    tf::SaverDef saver;
    if (!saver.ParseFromString(opts.saver_def)) {
      return InvalidArgument("ExportMetaGraph: the SaverDef given (", opts.saver_def.size(),
                             " bytes) is not a valid serialized SaverDef");
    }
    // TF's Saver.to_proto(export_scope): a saver outside the scope is not exported.
    if (IsInScope(saver.filename_tensor_name(), scope) &&
        IsInScope(saver.save_tensor_name(), scope) && IsInScope(saver.restore_op_name(), scope)) {
      saver.set_filename_tensor_name(StripScope(saver.filename_tensor_name(), scope));
      saver.set_save_tensor_name(StripScope(saver.save_tensor_name(), scope));
      saver.set_restore_op_name(StripScope(saver.restore_op_name(), scope));
      *meta.mutable_saver_def() = std::move(saver);
    }
  }

  auto* collections = meta.mutable_collection_def();
  for (const std::string& key : g.collections().Keys()) {
    if (key == kUnboundInputsCollection) continue;  // rewritten below for this export
    const std::vector<CollectionItem>* items = g.collections().Find(key);
    tf::CollectionDef def;
    TG_RETURN_IF_ERROR(CollectionToProto(key, *items, scope, &def));
    if (def.kind_case() != tf::CollectionDef::KIND_NOT_SET) (*collections)[key] = std::move(def);
  }
  if (!unbound.empty()) {
    tf::CollectionDef def;
    for (const std::string& name : unbound) def.mutable_bytes_list()->add_value(name);
    (*collections)[kUnboundInputsCollection] = std::move(def);
  }
  *out = std::move(meta);
  return Status::OK();
}

Status ExportMetaGraphBytes(const Graph& g, const MetaGraphExportOptions& opts, std::string* out) {
  if (out == nullptr) return InvalidArgument("ExportMetaGraphBytes: output is null");
  tf::MetaGraphDef meta;
  TG_RETURN_IF_ERROR(ExportMetaGraph(g, opts, &meta));
  return SerializeMetaGraphDef(meta, out);
}

}  // namespace tgraph
