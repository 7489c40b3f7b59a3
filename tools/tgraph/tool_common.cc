// Shared helpers of the `tgraph` subcommands (see tool_common.h).
#include "tool_common.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

namespace tgraph::tool {

StatusPtr NewStatus() {
  StatusPtr status(TG_NewStatus());
  if (status == nullptr) throw ToolError("out of memory");
  return status;
}

void Check(const TG_Status* status, const std::string& context) {
  if (TG_GetCode(status) == TG_OK) return;
  throw ToolError(context + ": " + TG_Message(status));
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ToolError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw ToolError(path + ": cannot read: " + std::strerror(errno));
  return bytes.str();
}

SummaryPtr LoadGraphDefSummary(const std::string& path) {
  std::string bytes = ReadFileBytes(path);
  StatusPtr status = NewStatus();
  SummaryPtr summary(TG_NewGraphDefSummary(bytes.data(), bytes.size(), status.get()));
  Check(status.get(), path);
  return summary;
}

GraphPtr ImportGraphFile(const std::string& path) {
  SummaryPtr summary = LoadGraphDefSummary(path);
  StatusPtr status = NewStatus();
  BufferPtr graph_def(TG_NewBuffer());
  TG_GraphDefSummaryGraphDef(summary.get(), graph_def.get(), status.get());
  Check(status.get(), path);
  GraphPtr graph(TG_NewGraph());
  std::unique_ptr<TG_ImportGraphDefOptions, Deleter<TG_DeleteImportGraphDefOptions>> options(
      TG_NewImportGraphDefOptions());
  TG_ImportGraphDefOptionsSetPrefix(options.get(), "");
  TG_GraphImportGraphDef(graph.get(), graph_def.get(), options.get(), status.get());
  Check(status.get(), path + ": cannot import the graph");
  return graph;
}

void AddPluginOptions(CLI::App* command, PluginOptions* options) {
  command
      ->add_option("--load", options->load,
                   "A plugin file to load before those of the search path (repeatable)")
      ->type_name("FILE");
}

void LoadPlugins(const PluginOptions& options, bool quiet) {
  StatusPtr status = NewStatus();
  for (const std::string& file : options.load) {
    TG_LoadPlugin(file.c_str(), status.get());
    Check(status.get(), "--load " + file);
  }
  TG_LoadPluginsFromSearchPath(status.get());
  if (TG_GetCode(status.get()) != TG_OK && !quiet) {
    std::cerr << "tgraph: warning: some plugins of the search path did not load (see "
                 "`tgraph plugins`): "
              << TG_Message(status.get()) << "\n";
  }
}

std::vector<std::string> LoadedDeviceTypes() {
  std::set<std::string> types;
  for (int p = 0; p < TG_NumPlugins(); ++p) {
    const TG_Plugin* plugin = TG_GetPlugin(p);
    for (int d = 0; d < TG_PluginNumDevices(plugin); ++d)
      types.insert(TG_PluginDeviceType(plugin, d));
  }
  return {types.begin(), types.end()};
}

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

}  // namespace tgraph::tool
