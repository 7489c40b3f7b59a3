// Freezing a graph as TensorFlow's graph_util.convert_variables_to_constants does: the
// fragment the outputs need, with every variable in it replaced by a Const of the same name
// holding the variable's current value. Reads (V/read Identity) keep working on the Const;
// the Assign initializers and everything else the outputs do not need are cut away.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"
#include "tgraph/proto/graph.pb.h"

namespace tgraph {

// The current values of the tensors named ("V:0"), in order: a session run.
using TensorReader =
    std::function<StatusOr<std::vector<Tensor>>(const std::vector<std::string>& tensor_names)>;

struct FreezeOptions {
  std::vector<std::string> output_node_names;
  // Only these variables are frozen (nullopt: all); TF's variable_names_whitelist.
  std::optional<std::set<std::string>> whitelist;
  // These are not (TF's variable_names_blacklist).
  std::set<std::string> blacklist;
};

// The ops that are variables of the kind frozen here (VariableV2 and TF's older Variable).
bool IsRefVariableOp(const std::string& op);

// ExtractSubGraph(def, outputs), then each VariableV2/Variable node chosen by the lists
// becomes {op: Const, name, attr dtype (the variable's), attr value (its current value,
// read through `read` in one call)}, keeping the node's device. Other nodes are copied as
// they are. A variable the reader cannot read (e.g. uninitialized) fails with its status;
// a value whose dtype differs from the node's dtype attr is INTERNAL naming the variable.
// `converted` (may be null) receives the names of the frozen variables.
StatusOr<tf::GraphDef> ConvertVariablesToConstants(const tf::GraphDef& def,
                                                   const FreezeOptions& options,
                                                   const TensorReader& read,
                                                   std::vector<std::string>* converted = nullptr);

}  // namespace tgraph
