// What the `tgraph` subcommands share: owning handles for C API objects, failure reporting
// (a ToolError names the file, node or plugin and ends the command with exit code 1),
// reading graph files and loading plugins. Everything goes through tgraph/c_api.h.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tgraph/c_api.h"

namespace tgraph::tool {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// A command's failure: main prints "tgraph: <what>" on stderr and exits with kExitFailure.
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <auto Delete>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Delete(p);
  }
};
using StatusPtr = std::unique_ptr<TG_Status, Deleter<TG_DeleteStatus>>;
using BufferPtr = std::unique_ptr<TG_Buffer, Deleter<TG_DeleteBuffer>>;
using GraphPtr = std::unique_ptr<TG_Graph, Deleter<TG_DeleteGraph>>;
using TensorPtr = std::unique_ptr<TG_Tensor, Deleter<TG_DeleteTensor>>;
using OpInfoPtr = std::unique_ptr<TG_OpInfo, Deleter<TG_DeleteOpInfo>>;
using SummaryPtr = std::unique_ptr<TG_GraphDefSummary, Deleter<TG_DeleteGraphDefSummary>>;
using SessionOptionsPtr = std::unique_ptr<TG_SessionOptions, Deleter<TG_DeleteSessionOptions>>;
using RunOptionsPtr = std::unique_ptr<TG_RunOptions, Deleter<TG_DeleteRunOptions>>;
using RunMetadataPtr = std::unique_ptr<TG_RunMetadata, Deleter<TG_DeleteRunMetadata>>;

StatusPtr NewStatus();

// Throws a ToolError "<context>: <message>" unless `status` is TG_OK. (The library's
// messages already name the node, tensor or plugin; `context` adds the file or the step.)
void Check(const TG_Status* status, const std::string& context);

// The whole file; a ToolError naming it when it cannot be read.
std::string ReadFileBytes(const std::string& path);

// A GraphDef or MetaGraphDef file, binary or text, decoded (see TG_NewGraphDefSummary).
SummaryPtr LoadGraphDefSummary(const std::string& path);

// The graph of a GraphDef or MetaGraphDef file, imported with its own names (no prefix).
// A ToolError naming the file and the offending node when it cannot be imported.
GraphPtr ImportGraphFile(const std::string& path);

// The plugin options every subcommand that needs kernels or op definitions takes.
struct PluginOptions {
  std::vector<std::string> load;  // --load FILE, loaded before the search path
};
void AddPluginOptions(CLI::App* command, PluginOptions* options);

// Loads the --load files (a failure is a ToolError naming the file), then every plugin on
// the search path. A plugin of the search path that fails is reported on stderr as a
// warning unless `quiet`: the others still load, and `tgraph plugins` says why in full.
void LoadPlugins(const PluginOptions& options, bool quiet = false);

// The device types the loaded plugins provide ("CPU", "GPU", ...), sorted, unique.
std::vector<std::string> LoadedDeviceTypes();

// "a, b, c".
std::string Join(const std::vector<std::string>& items, const std::string& separator = ", ");

}  // namespace tgraph::tool
