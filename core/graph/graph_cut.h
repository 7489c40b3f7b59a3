// Cutting GraphDefs as TensorFlow's graph_util does: extract_sub_graph (what some nodes need)
// and remove_training_nodes (pass-through ops a deployed graph does without). Both work on
// the proto alone: the graph need not be importable here (unknown op types are kept).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "tgraph/proto/graph.pb.h"

namespace tgraph {

// The node an input string names: "^ctrl" -> "ctrl", "x:1" -> "x", "x" -> "x".
std::string_view InputNodeName(std::string_view input);

// graph_util.extract_sub_graph(graph_def, dest_nodes): the nodes reachable backwards from
// `dest_nodes` over data and control inputs, in their original order, with the library and
// versions copied. A dest node ("name", or "name:k"/"^name", read as its node) that is not
// in the graph is INVALID_ARGUMENT naming it; so is an input naming no node, or two nodes of
// one name. Reachability is a Boost.Graph breadth-first visit.
StatusOr<tf::GraphDef> ExtractSubGraph(const tf::GraphDef& def,
                                       const std::vector<std::string>& dest_nodes);

// graph_util.remove_training_nodes(graph_def, protected_nodes): drops the pass-through ops
// Identity, StopGradient, PreventGradient and CheckNumerics that are not protected, rewiring
// every data input that read one to what it reads (through chains of them). As in TF, an
// Identity-like node is kept when it has control inputs or is itself a control input (it
// may order things); a CheckNumerics node always goes, and control inputs on it are dropped.
// (TF drops the data inputs that read a CheckNumerics node too, which leaves its consumers
// short of an input; tgraph rewires them like the others.) The library and versions are kept.
StatusOr<tf::GraphDef> RemoveTrainingNodes(const tf::GraphDef& def,
                                           const std::vector<std::string>& protected_nodes);

}  // namespace tgraph
