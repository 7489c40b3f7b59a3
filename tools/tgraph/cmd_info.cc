// `tgraph info FILE`: what a GraphDef or MetaGraphDef holds (op counts, placeholders,
// variables, collections, devices requested) and what is missing to run it here. The file is
// decoded, not imported, so ops unknown here are reported rather than refused. A checkpoint
// prefix instead lists the checkpoint's tensors (checkpoint_info.h).
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "checkpoint_info.h"
#include "commands.h"
#include "tool_common.h"

namespace tgraph::tool {
namespace {

struct InfoOptions {
  PluginOptions plugins;
  std::string file;
  std::vector<std::string> tensors;  // checkpoints: --tensor NAME
  std::string npy_dir;               // checkpoints: --npy DIR
};

const std::set<std::string>& PlaceholderOps() {
  static const std::set<std::string> ops = {"Placeholder", "PlaceholderV2",
                                            "PlaceholderWithDefault"};
  return ops;
}

const std::set<std::string>& VariableOps() {
  static const std::set<std::string> ops = {"VariableV2", "Variable", "VarHandleOp",
                                            "TemporaryVariable"};
  return ops;
}

std::string Attr(const TG_GraphDefSummary* s, int node, const char* name) {
  const char* text = TG_GraphDefSummaryNodeAttr(s, node, name);
  return text == nullptr ? std::string("?") : std::string(text);
}

void PrintOpCounts(const TG_GraphDefSummary* s) {
  std::map<std::string, int> counts;
  for (int i = 0; i < TG_GraphDefSummaryNumNodes(s); ++i) ++counts[TG_GraphDefSummaryNodeOp(s, i)];
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::cout << "Ops by type (" << sorted.size() << " types):\n";
  for (const auto& [op, count] : sorted) std::cout << std::setw(8) << count << "  " << op << "\n";
}

// Placeholders or variables: "  name: dtype shape (Op)".
void PrintNodesOf(const TG_GraphDefSummary* s, const std::set<std::string>& ops,
                  const char* title) {
  std::vector<std::string> lines;
  for (int i = 0; i < TG_GraphDefSummaryNumNodes(s); ++i) {
    std::string op = TG_GraphDefSummaryNodeOp(s, i);
    if (!ops.count(op)) continue;
    lines.push_back(std::string(TG_GraphDefSummaryNodeName(s, i)) + ": " + Attr(s, i, "dtype") +
                    " " + Attr(s, i, "shape") + " (" + op + ")");
  }
  std::cout << title << " (" << lines.size() << "):\n";
  for (const std::string& line : lines) std::cout << "  " << line << "\n";
}

void PrintCollections(const TG_GraphDefSummary* s) {
  int count = TG_GraphDefSummaryNumCollections(s);
  std::cout << "Collections (" << count << "):\n";
  for (int c = 0; c < count; ++c) {
    std::vector<std::string> items;
    for (int j = 0; j < TG_GraphDefSummaryCollectionSize(s, c); ++j) {
      items.emplace_back(TG_GraphDefSummaryCollectionItem(s, c, j));
    }
    std::cout << "  " << TG_GraphDefSummaryCollectionKey(s, c) << " ("
              << TG_GraphDefSummaryCollectionKind(s, c) << ", " << items.size()
              << "): " << Join(items) << "\n";
  }
}

void PrintDevices(const TG_GraphDefSummary* s) {
  std::map<std::string, int> nodes_per_device;
  for (int i = 0; i < TG_GraphDefSummaryNumNodes(s); ++i) {
    std::string device = TG_GraphDefSummaryNodeDevice(s, i);
    if (!device.empty()) ++nodes_per_device[device];
  }
  std::cout << "Devices requested (" << nodes_per_device.size() << "):\n";
  for (const auto& [device, count] : nodes_per_device) {
    std::cout << "  " << device << " (" << count << " node" << (count == 1 ? "" : "s") << ")\n";
  }
}

// The function library (GraphDef.library): each function with its node count.
void PrintFunctions(const TG_GraphDefSummary* s) {
  const int count = TG_GraphDefSummaryNumFunctions(s);
  if (count == 0) return;
  std::cout << "Functions (" << count << "):\n";
  for (int f = 0; f < count; ++f) {
    const int nodes = TG_GraphDefSummaryFunctionNumNodes(s, f);
    std::cout << "  " << TG_GraphDefSummaryFunctionName(s, f) << " (" << nodes << " node"
              << (nodes == 1 ? "" : "s") << ")\n";
  }
}

// Op types not defined here, and op types without a kernel on any device loaded here, each
// with one node that uses it (the user can then find it in the file); the bodies of the
// library's functions count too.
void PrintMissing(const TG_GraphDefSummary* s) {
  std::map<std::string, std::string> first_node_of_op;
  for (int i = 0; i < TG_GraphDefSummaryNumNodes(s); ++i) {
    first_node_of_op.emplace(TG_GraphDefSummaryNodeOp(s, i),
                             std::string("node ") + TG_GraphDefSummaryNodeName(s, i));
  }
  for (int f = 0; f < TG_GraphDefSummaryNumFunctions(s); ++f) {
    for (int i = 0; i < TG_GraphDefSummaryFunctionNumNodes(s, f); ++i) {
      first_node_of_op.emplace(TG_GraphDefSummaryFunctionNodeOp(s, f, i),
                               std::string("in function ") + TG_GraphDefSummaryFunctionName(s, f));
    }
  }
  std::vector<std::string> devices = LoadedDeviceTypes();
  std::vector<std::string> undefined, no_kernel;
  StatusPtr status = NewStatus();
  for (const auto& [op, node] : first_node_of_op) {
    OpInfoPtr info(TG_NewOpInfo(op.c_str(), status.get()));
    if (info == nullptr) {
      undefined.push_back(op + " (" + node + ")");
      continue;
    }
    bool runnable = false;
    std::vector<std::string> kernel_devices;
    for (int d = 0; d < TG_OpInfoNumKernelDeviceTypes(info.get()); ++d) {
      std::string device = TG_OpInfoKernelDeviceType(info.get(), d);
      kernel_devices.push_back(device);
      runnable |= std::find(devices.begin(), devices.end(), device) != devices.end();
    }
    if (!runnable) {
      no_kernel.push_back(op + " (" + node + "; kernels: " +
                          (kernel_devices.empty() ? "none" : Join(kernel_devices)) + ")");
    }
  }
  std::cout << "Missing to run here (devices loaded: " << (devices.empty() ? "none" : Join(devices))
            << "):\n";
  if (undefined.empty() && no_kernel.empty()) {
    std::cout << "  nothing: every op is defined and has a kernel on a loaded device\n";
    return;
  }
  for (const std::string& op : undefined) std::cout << "  op type not defined here: " << op << "\n";
  for (const std::string& op : no_kernel) {
    std::cout << "  no kernel on a loaded device: " << op << "\n";
  }
}

void RunInfo(const InfoOptions& options) {
  LoadPlugins(options.plugins);  // first: the savers that recognise checkpoints are plugins
  const bool checkpoint_options = !options.tensors.empty() || !options.npy_dir.empty();
  const std::string prefix = CheckpointPrefixOf(options.file);
  std::error_code error;
  if (!prefix.empty() || checkpoint_options || !std::filesystem::exists(options.file, error)) {
    if (prefix.empty() && !checkpoint_options) {
      throw ToolError(options.file + ": cannot open: no such file, and no checkpoint with "
                      "that prefix (" + options.file + ".index)");
    }
    // With --tensor or --npy a missing checkpoint is the reader's error (naming the index).
    PrintCheckpointInfo({prefix.empty() ? options.file : prefix, options.tensors,
                         options.npy_dir});
    return;
  }
  SummaryPtr summary = LoadGraphDefSummary(options.file);
  const TG_GraphDefSummary* s = summary.get();
  std::cout << options.file << ": " << (TG_GraphDefSummaryIsText(s) ? "text" : "binary") << " "
            << (TG_GraphDefSummaryIsMetaGraphDef(s) ? "MetaGraphDef" : "GraphDef") << ", "
            << TG_GraphDefSummaryNumNodes(s) << " nodes\n";
  PrintOpCounts(s);
  PrintNodesOf(s, PlaceholderOps(), "Placeholders");
  PrintNodesOf(s, VariableOps(), "Variables");
  if (TG_GraphDefSummaryIsMetaGraphDef(s)) PrintCollections(s);
  PrintDevices(s);
  PrintFunctions(s);
  PrintMissing(s);
}

}  // namespace

Command AddInfoCommand(CLI::App* app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* command = app->add_subcommand(
      "info",
      "Describe a GraphDef or MetaGraphDef file (binary or text): op counts by type, "
      "placeholders, variables, collections, devices requested, and the ops that cannot run "
      "here (not defined, or no kernel on a loaded device). Given a checkpoint prefix "
      "(model.ckpt-1000 for model.ckpt-1000.index and its data files, or a file a saver plugin "
      "claims, such as x.safetensors): each tensor's name, dtype, shape and size.");
  command->add_option("FILE", options->file,
                      "A GraphDef or MetaGraphDef, binary or text, or a checkpoint prefix")
      ->required();
  command->add_option("--tensor", options->tensors,
                      "Checkpoints: print this tensor's value numpy-style (repeatable)");
  command->add_option("--npy", options->npy_dir,
                      "Checkpoints: write the --tensor tensors (all tensors without --tensor) "
                      "as DIR/<name>.npy, a name's '/' scopes becoming directories");
  AddPluginOptions(command, &options->plugins);
  return {command, [options] { RunInfo(*options); }};
}

}  // namespace tgraph::tool
