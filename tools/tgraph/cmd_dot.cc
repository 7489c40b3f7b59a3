// `tgraph dot GRAPH [--fetch T...]`: the graph, or only the fragment the fetches need, as
// Graphviz DOT. Name scopes become nested clusters (Boost.Graph subgraphs, which
// write_graphviz emits as `subgraph cluster_...`); control edges are dashed.
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/subgraph.hpp>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "tool_common.h"

namespace tgraph::tool {
namespace {

struct DotOptions {
  PluginOptions plugins;
  std::string graph_file;
  std::vector<std::string> fetches;
  std::string output;
};

using Attributes = std::map<std::string, std::string>;
// Bidirectional, though only drawn one way: its edge iterator walks one edge list, where the
// directed one's (a boost::optional inside) trips GCC 12's -Wmaybe-uninitialized at -O3.
using DotGraph = boost::subgraph<boost::adjacency_list<
    boost::vecS, boost::vecS, boost::bidirectionalS,
    boost::property<boost::vertex_attribute_t, Attributes>,
    boost::property<boost::edge_index_t, int, boost::property<boost::edge_attribute_t, Attributes>>,
    boost::property<boost::graph_name_t, std::string,
                    boost::property<boost::graph_graph_attribute_t, Attributes,
                                    boost::property<boost::graph_vertex_attribute_t, Attributes,
                                                    boost::property<boost::graph_edge_attribute_t,
                                                                    Attributes>>>>>>;

// Edges from an operation to the operations it reads (data or control), for the walk back
// from the fetches.
using DependencyGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

struct GraphOps {
  std::vector<TG_Operation*> ops;  // creation order; index = vertex
  std::map<const TG_Operation*, size_t> index;
};

GraphOps ListOps(TG_Graph* graph) {
  GraphOps out;
  size_t pos = 0;
  while (TG_Operation* op = TG_GraphNextOperation(graph, &pos)) {
    out.index[op] = out.ops.size();
    out.ops.push_back(op);
  }
  return out;
}

std::vector<TG_Operation*> ControlInputs(TG_Operation* op) {
  std::vector<TG_Operation*> inputs(static_cast<size_t>(TG_OperationNumControlInputs(op)));
  TG_OperationGetControlInputs(op, inputs.data(), static_cast<int>(inputs.size()));
  return inputs;
}

std::vector<TG_Output> DataInputs(TG_Operation* op) {
  std::vector<TG_Output> inputs(static_cast<size_t>(TG_OperationNumInputs(op)));
  TG_OperationAllInputs(op, inputs.data(), static_cast<int>(inputs.size()));
  return inputs;
}

// Which operations to draw: all, or those the fetches reach through data and control
// inputs (a breadth-first search from each fetch over the dependency graph).
std::vector<bool> NeededOps(TG_Graph* graph, const GraphOps& all,
                            const std::vector<std::string>& fetches, const std::string& file) {
  if (fetches.empty()) return std::vector<bool>(all.ops.size(), true);
  DependencyGraph deps(all.ops.size());
  for (size_t v = 0; v < all.ops.size(); ++v) {
    for (const TG_Output& in : DataInputs(all.ops[v]))
      boost::add_edge(v, all.index.at(in.oper), deps);
    for (TG_Operation* in : ControlInputs(all.ops[v])) boost::add_edge(v, all.index.at(in), deps);
  }
  std::vector<boost::default_color_type> color(all.ops.size(), boost::white_color);
  auto colors =
      boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, deps));
  StatusPtr status = NewStatus();
  for (const std::string& fetch : fetches) {
    // A fetch may name an operation (a target) or a tensor.
    TG_Operation* op = TG_GraphOperationByName(graph, fetch.c_str());
    if (op == nullptr) {
      op = TG_GraphOutputByName(graph, fetch.c_str(), status.get()).oper;
      Check(status.get(), "--fetch " + fetch + ": no such tensor or operation in " + file);
    }
    size_t start = all.index.at(op);
    // An op an earlier fetch reached has had its inputs walked already.
    if (color[start] == boost::white_color) {
      boost::breadth_first_visit(deps, start, boost::color_map(colors));
    }
  }
  std::vector<bool> needed(all.ops.size());
  for (size_t v = 0; v < all.ops.size(); ++v) needed[v] = color[v] != boost::white_color;
  return needed;
}

// The cluster for name scope `scope` ("a/b"), created with its parents on first use.
DotGraph& ClusterFor(DotGraph& root, const std::string& scope,
                     std::map<std::string, DotGraph*>& clusters) {
  if (scope.empty()) return root;
  auto found = clusters.find(scope);
  if (found != clusters.end()) return *found->second;
  size_t slash = scope.rfind('/');
  DotGraph& parent =
      ClusterFor(root, slash == std::string::npos ? "" : scope.substr(0, slash), clusters);
  DotGraph& cluster = parent.create_subgraph();
  boost::get_property(cluster, boost::graph_name) = "cluster_" + scope;
  boost::get_property(cluster, boost::graph_graph_attribute)["label"] =
      slash == std::string::npos ? scope : scope.substr(slash + 1);
  clusters[scope] = &cluster;
  return cluster;
}

void WriteDot(const GraphOps& all, const std::vector<bool>& needed, std::ostream& out) {
  DotGraph root;
  boost::get_property(root, boost::graph_name) = "tgraph";
  boost::get_property(root, boost::graph_vertex_attribute)["shape"] = "box";
  std::map<size_t, DotGraph::vertex_descriptor> vertex_of;
  for (size_t i = 0; i < all.ops.size(); ++i) {
    if (!needed[i]) continue;
    auto v = boost::add_vertex(root);
    vertex_of[i] = v;
    std::string name = TG_OperationName(all.ops[i]);
    boost::get(boost::vertex_attribute, root)[v]["label"] =
        name + "\\n" + TG_OperationOpType(all.ops[i]);
    if (*TG_OperationDevice(all.ops[i])) {
      boost::get(boost::vertex_attribute, root)[v]["tooltip"] = TG_OperationDevice(all.ops[i]);
    }
  }
  // Clusters after the vertices: adding a vertex to a subgraph needs it in the root.
  std::map<std::string, DotGraph*> clusters;
  for (const auto& [i, v] : vertex_of) {
    std::string name = TG_OperationName(all.ops[i]);
    size_t slash = name.rfind('/');
    if (slash == std::string::npos) continue;
    boost::add_vertex(v, ClusterFor(root, name.substr(0, slash), clusters));
  }
  for (const auto& [i, v] : vertex_of) {
    for (const TG_Output& in : DataInputs(all.ops[i])) {
      auto source = vertex_of.find(all.index.at(in.oper));
      if (source == vertex_of.end()) continue;
      auto edge = boost::add_edge(source->second, v, root).first;
      const char* dtype = TG_DataTypeName(TG_OperationOutputType(in));
      boost::get(boost::edge_attribute, root)[edge]["label"] =
          (in.index > 0 ? std::string(":") + std::to_string(in.index) + " " : std::string()) +
          (dtype ? dtype : "");
    }
    for (TG_Operation* in : ControlInputs(all.ops[i])) {
      auto source = vertex_of.find(all.index.at(in));
      if (source == vertex_of.end()) continue;
      auto edge = boost::add_edge(source->second, v, root).first;
      boost::get(boost::edge_attribute, root)[edge]["style"] = "dashed";
    }
  }
  boost::write_graphviz(out, root);
}

void RunDot(const DotOptions& options) {
  LoadPlugins(options.plugins);
  GraphPtr graph = ImportGraphFile(options.graph_file);
  GraphOps all = ListOps(graph.get());
  std::vector<bool> needed = NeededOps(graph.get(), all, options.fetches, options.graph_file);
  if (options.output.empty() || options.output == "-") {
    WriteDot(all, needed, std::cout);
    return;
  }
  std::ofstream out(options.output);
  if (!out) throw ToolError(options.output + ": cannot open for writing");
  WriteDot(all, needed, out);
  if (!out.flush()) throw ToolError(options.output + ": cannot write");
}

}  // namespace

Command AddDotCommand(CLI::App* app) {
  auto options = std::make_shared<DotOptions>();
  CLI::App* command = app->add_subcommand(
      "dot",
      "Write a graph file as Graphviz DOT: the whole graph, or with --fetch only what the "
      "fetches need. Name scopes are clusters; control edges are dashed.");
  command->add_option("GRAPH", options->graph_file, "A GraphDef or MetaGraphDef, binary or text")
      ->required();
  command
      ->add_option("--fetch", options->fetches,
                   "Draw only what this tensor or operation needs (repeatable)")
      ->type_name("TENSOR");
  command->add_option("-o,--output", options->output, "Write to FILE instead of standard output")
      ->type_name("FILE");
  AddPluginOptions(command, &options->plugins);
  return {command, [options] { RunDot(*options); }};
}

}  // namespace tgraph::tool
