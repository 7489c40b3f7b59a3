// MetaGraphDef import: the GraphDef under the import scope, then collections (variables
// rebuilt from VariableDefs) and the SaverDef returned with scoped names.
#include <algorithm>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "core/graph/meta_graph_io.h"
#include "core/graph/proto_convert.h"
#include "core/graph/scoped_names.h"
#include "core/graph/variables.h"
#include "core/ops/op_registry.h"
#include "tgraph/proto/variable.pb.h"

namespace tgraph {
namespace {

// Drops attrs this registry's OpDef does not know when the producer's OpDef (from the
// stripped op list) says they hold their default: attrs a newer TensorFlow added.
void DropProducerDefaultAttrs(const Graph& g, const tf::OpList& producer_ops, tf::GraphDef* def) {
  std::unordered_map<std::string, const tf::OpDef*> producer;
  for (const tf::OpDef& op : producer_ops.op()) producer[op.name()] = &op;
  for (tf::NodeDef& node : *def->mutable_node()) {
    const OpRegistration* reg = g.registry().Find(node.op());
    auto prod = producer.find(node.op());
    if (reg == nullptr || prod == producer.end()) continue;
    auto* attrs = node.mutable_attr();
    for (auto it = attrs->begin(); it != attrs->end();) {
      const std::string& name = it->first;
      bool known = std::any_of(reg->op_def.attr().begin(), reg->op_def.attr().end(),
                               [&](const tf::OpDef::AttrDef& a) { return a.name() == name; });
      bool defaulted = false;
      if (!known) {
        for (const auto& a : prod->second->attr()) {
          if (a.name() == name && a.has_default_value()) {
            defaulted = a.default_value().SerializeAsString() == it->second.SerializeAsString();
          }
        }
      }
      it = defaulted ? attrs->erase(it) : std::next(it);
    }
  }
}

// The names the GraphDef defines, with each node's op type, for checks before importing.
using NodeTypes = std::unordered_map<std::string, std::string>;

Status CheckNamed(const NodeTypes& nodes, const std::string& what, const std::string& name) {
  if (name.empty()) return InvalidArgument(what, " is empty");
  if (nodes.count(std::string(NodeNameOf(name))) == 0) {
    return InvalidArgument(what, " '", name, "' is not a node of the MetaGraph's GraphDef");
  }
  return Status::OK();
}

Status ParseVariableDef(const std::string& key, int index, const std::string& bytes,
                        const NodeTypes& nodes, tf::VariableDef* out) {
  std::string where = StrCat("collection '", key, "' item ", index);
  if (!out->ParseFromString(bytes)) {
    return InvalidArgument(where, " is not a serialized VariableDef (", bytes.size(), " bytes)");
  }
  std::string var = StrCat(where, " (variable '", out->variable_name(), "')");
  TG_RETURN_IF_ERROR(CheckNamed(nodes, StrCat(var, ": variable_name"), out->variable_name()));
  const std::string& type = nodes.at(std::string(NodeNameOf(out->variable_name())));
  if (out->is_resource()) {
    if (type != "VarHandleOp") {
      return InvalidArgument(var, " is a resource variable but names a ", type, " node, not a VarHandleOp");
    }
  } else if (type != "VariableV2" && type != "Variable") {
    return InvalidArgument(var, " names a ", type, " node, not a VariableV2");
  }
  TG_RETURN_IF_ERROR(CheckNamed(nodes, StrCat(var, ": initializer_name"), out->initializer_name()));
  TG_RETURN_IF_ERROR(CheckNamed(nodes, StrCat(var, ": snapshot_name"), out->snapshot_name()));
  if (!out->initial_value_name().empty()) {
    TG_RETURN_IF_ERROR(
        CheckNamed(nodes, StrCat(var, ": initial_value_name"), out->initial_value_name()));
  }
  return Status::OK();
}

// Everything the collections and the SaverDef name must exist in the GraphDef (or be an
// input_map key), so that nothing can fail once the nodes are in the graph.
Status CheckReferences(const tf::MetaGraphDef& def, const NodeTypes& nodes) {
  for (const auto& [key, col] : def.collection_def()) {
    if (key == kUnboundInputsCollection) continue;
    if (col.has_node_list()) {
      for (const std::string& name : col.node_list().value()) {
        TG_RETURN_IF_ERROR(CheckNamed(nodes, StrCat("collection '", key, "' item"), name));
      }
    } else if (col.has_bytes_list() && IsVariableCollectionKey(key)) {
      int i = 0;
      for (const std::string& bytes : col.bytes_list().value()) {
        tf::VariableDef var_def;
        TG_RETURN_IF_ERROR(ParseVariableDef(key, i++, bytes, nodes, &var_def));
      }
    }
  }
  if (def.has_saver_def()) {
    const tf::SaverDef& saver = def.saver_def();
    TG_RETURN_IF_ERROR(
        CheckNamed(nodes, "SaverDef filename_tensor_name", saver.filename_tensor_name()));
    TG_RETURN_IF_ERROR(CheckNamed(nodes, "SaverDef save_tensor_name", saver.save_tensor_name()));
    TG_RETURN_IF_ERROR(CheckNamed(nodes, "SaverDef restore_op_name", saver.restore_op_name()));
  }
  return Status::OK();
}

// After the GraphDef is in: a failure here is a bug of the checks above.
StatusOr<Output> FindImportedOutput(const Graph& g, const std::string& name) {
  StatusOr<Output> out = g.FindOutput(name);
  if (!out.ok()) return Internal("MetaGraph import: ", out.status().message());
  return out;
}

class CollectionRebuilder {
 public:
  CollectionRebuilder(Graph* g, std::string scope) : g_(g), scope_(std::move(scope)) {}

  Status Add(const std::string& key, const tf::CollectionDef& col) {
    Collections& collections = g_->collections();
    switch (col.kind_case()) {
      case tf::CollectionDef::kNodeList:
        for (const std::string& name : col.node_list().value()) {
          if (name.find(':') != std::string::npos) {
            TG_ASSIGN_OR_RETURN(Output t, Find(name));
            collections.Add(key, CollectionItem::OfTensor(t));
          } else {
            std::string scoped = PrependScope(name, scope_);
            Operation* op = g_->FindOperation(scoped);
            if (op == nullptr) return Internal("MetaGraph import: no operation '", scoped, "'");
            collections.Add(key, CollectionItem::OfOperation(op));
          }
        }
        break;
      case tf::CollectionDef::kBytesList:
        for (const std::string& bytes : col.bytes_list().value()) {
          if (IsVariableCollectionKey(key)) {
            TG_ASSIGN_OR_RETURN(Variable * v, VariableOf(bytes));
            collections.Add(key, CollectionItem::OfVariable(v));
          } else {
            collections.Add(key, CollectionItem::OfBytes(bytes));
          }
        }
        break;
      case tf::CollectionDef::kInt64List:
        for (int64_t v : col.int64_list().value()) collections.Add(key, CollectionItem::OfInt64(v));
        break;
      case tf::CollectionDef::kFloatList:
        for (float v : col.float_list().value()) collections.Add(key, CollectionItem::OfFloat(v));
        break;
      default: break;  // any_list and empty CollectionDefs are skipped (TF logs and skips)
    }
    return Status::OK();
  }

 private:
  // One Variable per variable op, shared by every collection that lists it.
  StatusOr<Variable*> VariableOf(const std::string& bytes) {
    tf::VariableDef def;
    if (!def.ParseFromString(bytes)) return Internal("MetaGraph import: bad VariableDef");
    TG_ASSIGN_OR_RETURN(Output ref, Find(def.variable_name()));
    auto found = by_op_.find(ref.op);
    if (found != by_op_.end()) return found->second;
    auto v = std::make_unique<Variable>();
    v->name = ref.op->name();
    v->op = ref.op;
    if (ref.op->type() == "VarHandleOp") {
      // The handle is a scalar: the variable's dtype and shape are the VarHandleOp's attrs.
      v->is_resource = true;
      const tf::AttrValue* dtype = ref.op->FindAttr("dtype");
      const tf::AttrValue* shape = ref.op->FindAttr("shape");
      if (dtype == nullptr || shape == nullptr) {
        return InvalidArgument("MetaGraph import: VarHandleOp '", ref.op->name(), "' lacks its dtype or shape attr");
      }
      v->dtype = static_cast<DataType>(dtype->type());
      TG_ASSIGN_OR_RETURN(v->shape, ShapeFromProto(shape->shape()));
    } else {
      v->dtype = BaseType(ref.op->output_type(0));
      v->shape = ref.op->output_shape(0);
    }
    v->trainable = def.trainable();
    v->synchronization = def.synchronization();
    v->aggregation = def.aggregation();
    v->initializer = g_->FindOperation(PrependScope(NodeNameOf(def.initializer_name()), scope_));
    TG_ASSIGN_OR_RETURN(v->snapshot, Find(def.snapshot_name()));
    if (!def.initial_value_name().empty()) {
      TG_ASSIGN_OR_RETURN(v->initial_value, Find(def.initial_value_name()));
    }
    Variable* raw = g_->variables().AdoptVariable(std::move(v));
    by_op_[ref.op] = raw;
    return raw;
  }

  StatusOr<Output> Find(const std::string& tensor_name) const {
    return FindImportedOutput(*g_, PrependScope(tensor_name, scope_));
  }

  Graph* g_;
  std::string scope_;
  std::unordered_map<const Operation*, Variable*> by_op_;
};

}  // namespace

Status ImportMetaGraph(const tf::MetaGraphDef& def, const MetaGraphImportOptions& opts, Graph* g,
                       MetaGraphImportResults* results) {
  if (g == nullptr) return InvalidArgument("ImportMetaGraph: graph is null");
  std::lock_guard lock(g->mutex());
  if (g->finalized()) {
    return FailedPrecondition(
        "Graph is finalized and cannot be modified (tried to import a MetaGraph)");
  }

  tf::GraphDef graph_def = def.graph_def();
  NodeTypes nodes;
  for (const tf::NodeDef& node : graph_def.node()) nodes.emplace(node.name(), node.op());
  for (const auto& [key, unused] : opts.input_map) nodes.emplace(key.first, "");
  TG_RETURN_IF_ERROR(CheckReferences(def, nodes));

  if (opts.clear_devices) {
    for (tf::NodeDef& node : *graph_def.mutable_node()) node.clear_device();
  }
  DropProducerDefaultAttrs(*g, def.meta_info_def().stripped_op_list(), &graph_def);

  // As TF's import_scoped_meta_graph: the scope is made unique and reserved like a name
  // scope (a second import under the same scope gets "scope_1"), then taken as is.
  std::string scope;
  if (!opts.import_scope.empty()) {
    std::string wanted = opts.import_scope;
    if (wanted.back() == '/') wanted.pop_back();
    scope = g->UniqueName(wanted, /*mark_used=*/true);
  }
  ImportOptions import;
  import.prefix = scope.empty() ? "" : scope + "/";
  import.input_map = opts.input_map;
  TG_RETURN_IF_ERROR(ImportGraphDef(graph_def, import, g, nullptr));

  // Collections in key order, so that re-export sees the same insertion order every time.
  std::vector<std::string> keys;
  for (const auto& [key, unused] : def.collection_def()) {
    if (key != kUnboundInputsCollection) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  CollectionRebuilder rebuilder(g, scope);
  for (const std::string& key : keys) {
    TG_RETURN_IF_ERROR(rebuilder.Add(key, def.collection_def().at(key)));
  }

  if (results != nullptr) {
    results->scope = scope;
    results->has_saver_def = def.has_saver_def();
    results->saver_def.clear();
    if (def.has_saver_def()) {
      tf::SaverDef saver = def.saver_def();
      saver.set_filename_tensor_name(PrependScope(saver.filename_tensor_name(), scope));
      saver.set_save_tensor_name(PrependScope(saver.save_tensor_name(), scope));
      saver.set_restore_op_name(PrependScope(saver.restore_op_name(), scope));
      results->saver_def = saver.SerializeAsString();
    }
  }
  return Status::OK();
}

}  // namespace tgraph
