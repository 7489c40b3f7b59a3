#include "core/graph/graph_freeze.h"

#include <utility>

#include "core/graph/attr_value_util.h"
#include "core/graph/graph_cut.h"
#include "core/graph/proto_convert.h"

namespace tgraph {

bool IsRefVariableOp(const std::string& op) { return op == "VariableV2" || op == "Variable"; }

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
    if (!IsRefVariableOp(node.op())) continue;
    if (options.whitelist && options.whitelist->count(node.name()) == 0) continue;
    if (options.blacklist.count(node.name()) != 0) continue;
    names.push_back(node.name());
    tensor_names.push_back(node.name() + ":0");
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
  tf::GraphDef out;
  size_t next_value = 0;
  for (const auto& node : needed.node()) {
    tf::NodeDef* copy = out.add_node();
    if (frozen.count(node.name()) == 0) {
      *copy = node;
      continue;
    }
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
