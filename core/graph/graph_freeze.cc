#include "core/graph/graph_freeze.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "core/graph/attr_value_util.h"
#include "core/graph/graph_cut.h"
#include "core/graph/proto_convert.h"

namespace tgraph {

bool IsRefVariableOp(const std::string& op) { return op == "VariableV2" || op == "Variable"; }

namespace {

// The node a data input names ("n", "n:0"); empty for a control input.
std::string InputNode(const std::string& input) {
  if (input.empty() || input[0] == '^') return "";
  return input.substr(0, input.find(':'));
}

// A resource variable (VarHandleOp) is read through a ReadVariableOp of its handle: the first
// one in `def` names the value to freeze.
std::string ReaderOf(const tf::GraphDef& def, const std::string& handle) {
  for (const auto& node : def.node()) {
    if (node.op() == "ReadVariableOp" && node.input_size() > 0 && InputNode(node.input(0)) == handle) {
      return node.name() + ":0";
    }
  }
  return "";
}

// A kept reader of a frozen resource variable, rewritten to read the constant (TF's freezing
// does the same): ReadVariableOp -> Identity, ResourceGather -> GatherV2 along axis 0 (whose
// axis constant is added to `out`).
Status RewriteResourceReader(const tf::NodeDef& node, const tf::AttrValue& dtype, tf::GraphDef* out,
                             tf::NodeDef* copy) {
  *copy = node;
  copy->clear_attr();
  if (node.op() == "ReadVariableOp") {
    copy->set_op("Identity");
    (*copy->mutable_attr())["T"] = dtype;
    return Status::OK();
  }
  if (node.op() == "ResourceGather") {
    auto tindices = node.attr().find("Tindices");
    if (tindices == node.attr().end()) {
      return InvalidArgument("convert_variables_to_constants: '", node.name(), "' (ResourceGather) has no Tindices attr");
    }
    tf::NodeDef* axis = out->add_node();
    axis->set_name(node.name() + "/axis");
    axis->set_op("Const");
    axis->set_device(node.device());
    TG_ASSIGN_OR_RETURN(Tensor zero, Tensor::Allocate(DT_INT32, {}));
    (*axis->mutable_attr())["dtype"] = AttrOfType(DT_INT32);
    (*axis->mutable_attr())["value"] = AttrOfTensor(zero);
    copy->set_op("GatherV2");
    // The data inputs (handle, indices), the axis, then any control inputs.
    copy->clear_input();
    for (int i = 0; i < node.input_size(); ++i) {
      if (i == 2) copy->add_input(axis->name());
      copy->add_input(node.input(i));
    }
    if (node.input_size() <= 2) copy->add_input(axis->name());
    (*copy->mutable_attr())["Tparams"] = dtype;
    (*copy->mutable_attr())["Tindices"] = tindices->second;
    (*copy->mutable_attr())["Taxis"] = AttrOfType(DT_INT32);
    auto batch_dims = node.attr().find("batch_dims");
    (*copy->mutable_attr())["batch_dims"] =
        batch_dims != node.attr().end() ? batch_dims->second : AttrOfInt(0);
    return Status::OK();
  }
  return Unimplemented("convert_variables_to_constants: '", node.name(), "' (", node.op(),
                       ") uses a frozen resource variable and cannot be kept (only ReadVariableOp "
                       "and ResourceGather can read a constant)");
}

}  // namespace

StatusOr<tf::GraphDef> ConvertVariablesToConstants(const tf::GraphDef& def,
                                                   const FreezeOptions& options,
                                                   const TensorReader& read,
                                                   std::vector<std::string>* converted) {
  const char* fn = "convert_variables_to_constants";
  if (options.output_node_names.empty()) {
    return InvalidArgument(fn, ": no output node names (nothing would be kept)");
  }
  TG_ASSIGN_OR_RETURN(tf::GraphDef needed, ExtractSubGraph(def, options.output_node_names));
  std::vector<std::string> names;
  std::vector<std::string> tensor_names;
  for (const auto& node : needed.node()) {
    const bool resource = node.op() == "VarHandleOp";
    if (!IsRefVariableOp(node.op()) && !resource) continue;
    if (options.whitelist && options.whitelist->count(node.name()) == 0) continue;
    if (options.blacklist.count(node.name()) != 0) continue;
    std::string tensor = node.name() + ":0";
    if (resource) {
      tensor = ReaderOf(def, node.name());
      if (tensor.empty()) {
        return InvalidArgument(fn, ": resource variable '", node.name(),
                               "' has no ReadVariableOp in the graph to read its value with");
      }
    }
    names.push_back(node.name());
    tensor_names.push_back(std::move(tensor));
  }
  std::vector<Tensor> values;
  if (!names.empty()) {
    if (!read) return InvalidArgument(fn, ": no way to read the variables' values");
    TG_ASSIGN_OR_RETURN(values, read(tensor_names));
    if (values.size() != names.size()) {
      return Internal(fn, ": read ", values.size(), " values for ", names.size(), " variables");
    }
  }
  std::set<std::string> frozen(names.begin(), names.end());
  std::map<std::string, tf::AttrValue> frozen_resources;  // VarHandleOp name -> its dtype
  for (const auto& node : needed.node()) {
    auto dtype = node.attr().find("dtype");
    if (node.op() == "VarHandleOp" && frozen.count(node.name()) != 0 && dtype != node.attr().end()) {
      frozen_resources[node.name()] = dtype->second;
    }
  }
  tf::GraphDef out;
  size_t next_value = 0;
  for (const auto& node : needed.node()) {
    if (frozen.count(node.name()) == 0) {
      const std::string handle = node.input_size() > 0 ? InputNode(node.input(0)) : "";
      auto resource = frozen_resources.find(handle);
      if (resource != frozen_resources.end()) {
        tf::NodeDef rewritten;
        TG_RETURN_IF_ERROR(RewriteResourceReader(node, resource->second, &out, &rewritten));
        *out.add_node() = std::move(rewritten);
      } else {
        *out.add_node() = node;
      }
      continue;
    }
    tf::NodeDef* copy = out.add_node();
    const Tensor& value = values[next_value++];
    auto dtype_attr = node.attr().find("dtype");
    if (dtype_attr == node.attr().end() ||
        static_cast<int>(value.dtype()) != static_cast<int>(dtype_attr->second.type())) {
      return Internal(fn, ": the value read for variable '", node.name(), "' is ",
                      DataTypeName(value.dtype()), ", not the variable's dtype");
    }
    copy->set_name(node.name());
    copy->set_op("Const");
    copy->set_device(node.device());
    (*copy->mutable_attr())["dtype"] = dtype_attr->second;
    (*copy->mutable_attr())["value"] = AttrOfTensor(value);
  }
  *out.mutable_library() = needed.library();
  *out.mutable_versions() = needed.versions();
  if (converted != nullptr) *converted = std::move(names);
  return out;
}

}  // namespace tgraph
