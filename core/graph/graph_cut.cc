#include "core/graph/graph_cut.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/pending/queue.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace tgraph {
namespace {

// Node name -> index in def.node(); duplicates are an error naming the node.
StatusOr<std::unordered_map<std::string, int>> IndexNodes(const tf::GraphDef& def,
                                                         const char* fn) {
  std::unordered_map<std::string, int> index;
  for (int i = 0; i < def.node_size(); ++i) {
    if (!index.emplace(def.node(i).name(), i).second) {
      return InvalidArgument(fn, ": the GraphDef has two nodes named '", def.node(i).name(), "'");
    }
  }
  return index;
}

bool IsControlInput(std::string_view input) { return !input.empty() && input[0] == '^'; }

}  // namespace

std::string_view InputNodeName(std::string_view input) {
  if (IsControlInput(input)) input.remove_prefix(1);
  const size_t colon = input.rfind(':');
  if (colon != std::string_view::npos) input = input.substr(0, colon);
  return input;
}

StatusOr<tf::GraphDef> ExtractSubGraph(const tf::GraphDef& def,
                                       const std::vector<std::string>& dest_nodes) {
  const char* fn = "extract_sub_graph";
  TG_ASSIGN_OR_RETURN(auto index, IndexNodes(def, fn));
  // An edge leads from a node to each node it reads (data or control).
  using DependencyGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  DependencyGraph deps(static_cast<size_t>(def.node_size()));
  for (int i = 0; i < def.node_size(); ++i) {
    for (const std::string& input : def.node(i).input()) {
      auto it = index.find(std::string(InputNodeName(input)));
      if (it == index.end()) {
        return InvalidArgument(fn, ": node '", def.node(i).name(), "' has input '", input,
                               "', which names no node of the graph");
      }
      boost::add_edge(static_cast<size_t>(i), static_cast<size_t>(it->second), deps);
    }
  }
  std::vector<boost::default_color_type> colors(static_cast<size_t>(def.node_size()),
                                                boost::white_color);
  auto color_map = boost::make_iterator_property_map(
      colors.begin(), boost::get(boost::vertex_index, deps));
  boost::queue<size_t> buffer;
  for (const std::string& dest : dest_nodes) {
    auto it = index.find(std::string(InputNodeName(dest)));
    if (it == index.end()) return InvalidArgument(fn, ": '", dest, "' is not in graph");
    const auto source = static_cast<size_t>(it->second);
    if (colors[source] != boost::white_color) continue;  // reached from an earlier dest
    boost::breadth_first_visit(deps, source, buffer, boost::default_bfs_visitor(), color_map);
  }
  tf::GraphDef out;
  for (int i = 0; i < def.node_size(); ++i) {
    if (colors[static_cast<size_t>(i)] != boost::white_color) *out.add_node() = def.node(i);
  }
  *out.mutable_library() = def.library();
  *out.mutable_versions() = def.versions();
  return out;
}

StatusOr<tf::GraphDef> RemoveTrainingNodes(const tf::GraphDef& def,
                                           const std::vector<std::string>& protected_nodes) {
  const char* fn = "remove_training_nodes";
  TG_RETURN_IF_ERROR(IndexNodes(def, fn).status());
  const std::unordered_set<std::string> keep(protected_nodes.begin(), protected_nodes.end());
  // Nodes with control inputs, and nodes that are control inputs: an Identity-like node among
  // them may order execution, so it stays (TF's rule).
  std::unordered_set<std::string> ordering;
  for (const auto& node : def.node()) {
    for (const std::string& input : node.input()) {
      if (!IsControlInput(input)) continue;
      ordering.insert(node.name());
      ordering.insert(std::string(InputNodeName(input)));
    }
  }
  // Spliced node -> the input it passes through.
  std::unordered_map<std::string, std::string> spliced;
  for (const auto& node : def.node()) {
    if (keep.count(node.name()) != 0 || node.input_size() == 0 ||
        IsControlInput(node.input(0))) {
      continue;
    }
    const std::string& op = node.op();
    const bool check_numerics = op == "CheckNumerics";
    const bool pass_through = op == "Identity" || op == "StopGradient" || op == "PreventGradient";
    if (check_numerics || (pass_through && ordering.count(node.name()) == 0)) {
      spliced.emplace(node.name(), node.input(0));
    }
  }
  tf::GraphDef out;
  for (const auto& node : def.node()) {
    if (spliced.count(node.name()) != 0) continue;
    tf::NodeDef* copy = out.add_node();
    *copy = node;
    copy->clear_input();
    for (const std::string& input : node.input()) {
      std::string name(InputNodeName(input));
      if (IsControlInput(input)) {
        // Only CheckNumerics nodes can be spliced while being control inputs.
        if (spliced.count(name) == 0) copy->add_input(input);
        continue;
      }
      std::string source = input;
      // A spliced node has one output: "x" and "x:0" both read it. Chains are followed; they
      // end since a cycle of pass-through nodes would never have run.
      size_t hops = 0;
      for (auto it = spliced.find(name); it != spliced.end() && hops <= spliced.size();
           it = spliced.find(name), ++hops) {
        source = it->second;
        name = std::string(InputNodeName(source));
      }
      if (hops > spliced.size()) {
        return InvalidArgument(fn, ": node '", node.name(),
                               "' reads a cycle of pass-through nodes through '", input, "'");
      }
      copy->add_input(source);
    }
  }
  *out.mutable_library() = def.library();
  *out.mutable_versions() = def.versions();
  return out;
}

}  // namespace tgraph
