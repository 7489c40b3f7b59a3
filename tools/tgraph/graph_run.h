// Running a graph file, shared by `tgraph run` and `tgraph bench`: the options that say what
// to feed, fetch and target, the graph and session they resolve to, and one step.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "tool_common.h"

namespace tgraph::tool {

struct RunSpec {
  PluginOptions plugins;
  std::string graph_file;
  std::vector<std::string> feeds;    // NAME=VALUE or NAME=FILE.npy
  std::vector<std::string> fetches;  // tensor names, "op" or "op:k"
  std::vector<std::string> targets;  // operation names
  std::string device;                // the session's default device ("" = its default)
  std::string restore;               // a checkpoint to restore first (GRAPH is a MetaGraph)
  int inter_op_threads = 0;          // 0: one per hardware thread
  int intra_op_threads = 0;
};

// Adds GRAPH, --feed, --fetch, --target, --device, the thread options and --load.
void AddRunSpecOptions(CLI::App* command, RunSpec* spec);

// A graph imported from a file, its session, and the resolved feeds, fetches and targets.
class GraphRun {
 public:
  // Loads the plugins, imports the graph, resolves every name (ToolError naming the tensor,
  // operation or file that is wrong) and opens the session.
  explicit GraphRun(const RunSpec& spec);
  ~GraphRun();
  GraphRun(const GraphRun&) = delete;
  GraphRun& operator=(const GraphRun&) = delete;

  // One run; the fetched tensors (in --fetch order), or a ToolError with the library's
  // message (a bad feed, an unfed placeholder, a kernel's error) naming the file.
  std::vector<TensorPtr> Step(const TG_RunOptions* run_options, TG_RunMetadata* metadata);

  const std::vector<std::string>& fetch_names() const { return spec_.fetches; }

 private:
  void Restore();
  void ResolveFeeds();
  void ResolveFetchesAndTargets();

  RunSpec spec_;
  GraphPtr graph_;
  BufferPtr saver_def_;
  TG_Session* session_ = nullptr;
  std::vector<TG_Output> feed_outputs_;
  std::vector<TensorPtr> feed_values_;
  std::vector<TG_Output> fetch_outputs_;
  std::vector<TG_Operation*> targets_;
};

}  // namespace tgraph::tool
