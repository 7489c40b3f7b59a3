// `tgraph plugins`: the plugin search path, every plugin file discovery found and what became
// of it (loaded, shadowed, another CPU variant chosen, or the reason it failed), and what each
// loaded plugin registered.
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "commands.h"
#include "tool_common.h"

namespace tgraph::tool {
namespace {

struct PluginsOptions {
  PluginOptions plugins;
  bool verbose = false;
};

const char* OutcomeText(TG_PluginOutcome outcome) {
  switch (outcome) {
    case TG_PLUGIN_LOADED:
      return "loaded";
    case TG_PLUGIN_SHADOWED:
      return "skipped (shadowed)";
    case TG_PLUGIN_VARIANT_NOT_CHOSEN:
      return "skipped (CPU variant not chosen)";
    case TG_PLUGIN_FAILED:
      return "FAILED";
  }
  return "FAILED";
}

// "label (n): a, b, c" -- or only the count unless `verbose` (a CPU plugin has hundreds).
void PrintNames(const std::string& label, const std::vector<std::string>& names, bool verbose) {
  std::cout << "    " << label << " (" << names.size() << ")";
  if (verbose && !names.empty()) std::cout << ": " << Join(names);
  std::cout << "\n";
}

std::vector<std::string> Names(const TG_Plugin* plugin, int (*count)(const TG_Plugin*),
                               const char* (*name)(const TG_Plugin*, int)) {
  std::vector<std::string> names;
  for (int i = 0; i < count(plugin); ++i) names.emplace_back(name(plugin, i));
  return names;
}

void PrintRegistrations(const TG_Plugin* plugin, bool verbose) {
  std::cout << "    name " << TG_PluginName(plugin) << ", version "
            << (*TG_PluginVersion(plugin) ? TG_PluginVersion(plugin) : "(none)") << ", ABI "
            << TG_PluginAbiVersion(plugin);
  if (*TG_PluginCpuVariant(plugin)) std::cout << ", CPU variant " << TG_PluginCpuVariant(plugin);
  std::cout << "\n";
  PrintNames("ops", Names(plugin, TG_PluginNumOps, TG_PluginOpName), verbose);
  std::map<std::string, std::set<std::string>> kernels_by_device;
  int kernels = TG_PluginNumKernels(plugin);
  for (int i = 0; i < kernels; ++i) {
    kernels_by_device[TG_PluginKernelDeviceType(plugin, i)].insert(
        TG_PluginKernelOpType(plugin, i));
  }
  std::cout << "    kernels (" << kernels << ")\n";
  for (const auto& [device, op_types] : kernels_by_device) {
    std::cout << "  ";
    PrintNames("for " + device + ", op types", {op_types.begin(), op_types.end()}, verbose);
  }
  PrintNames("devices", Names(plugin, TG_PluginNumDevices, TG_PluginDeviceType), true);
  PrintNames("savers", Names(plugin, TG_PluginNumSavers, TG_PluginSaverFormat), true);
  PrintNames("gradients", Names(plugin, TG_PluginNumGradients, TG_PluginGradientOpType), verbose);
  // Which kernels of others it replaces: always in full (a faster kernel replacing another
  // must never be silent).
  const std::vector<std::string> overrides =
      Names(plugin, TG_PluginNumKernelOverrides, TG_PluginKernelOverride);
  std::cout << "    overrides (" << overrides.size() << ")\n";
  for (const std::string& line : overrides) std::cout << "      " << line << "\n";
  // What it logged while loading, printed or not: e.g. why a GPU backend has no device.
  for (const std::string& line : Names(plugin, TG_PluginNumMessages, TG_PluginMessage)) {
    std::cout << "    said: " << line << "\n";
  }
}

void PrintSearchPath() {
  StatusPtr status = NewStatus();
  BufferPtr path(TG_NewBuffer());
  TG_GetPluginSearchPath(path.get(), status.get());
  Check(status.get(), "the plugin search path");
  std::string joined(static_cast<const char*>(path->data), path->length);
  std::cout << "Plugin search path:\n";
  size_t start = 0;
  while (start <= joined.size() && !joined.empty()) {
    size_t end = joined.find(':', start);
    if (end == std::string::npos) end = joined.size();
    std::cout << "  " << joined.substr(start, end - start) << "\n";
    start = end + 1;
  }
  std::cout << "CPU variant level: " << TG_CpuVariantLevel() << "\n";
}

void RunPlugins(const PluginsOptions& options) {
  PrintSearchPath();
  // Failures are the point of this listing, not a warning.
  LoadPlugins(options.plugins, /*quiet=*/true);
  std::set<const TG_Plugin*> described;
  int candidates = TG_NumPluginCandidates();
  std::cout << "Plugin files found (" << candidates << "):\n";
  for (int i = 0; i < candidates; ++i) {
    TG_PluginOutcome outcome = TG_PluginCandidateOutcome(i);
    std::cout << "  " << TG_PluginCandidateFile(i) << ": " << OutcomeText(outcome);
    if (*TG_PluginCandidateReason(i)) std::cout << ": " << TG_PluginCandidateReason(i);
    std::cout << "\n";
    if (const TG_Plugin* plugin = TG_PluginCandidatePlugin(i)) {
      PrintRegistrations(plugin, options.verbose);
      described.insert(plugin);
    }
  }
  // Plugins loaded with --load (not on the search path).
  for (int i = 0; i < TG_NumPlugins(); ++i) {
    const TG_Plugin* plugin = TG_GetPlugin(i);
    if (described.count(plugin)) continue;
    std::cout << "  " << TG_PluginFile(plugin) << ": loaded (--load)\n";
    PrintRegistrations(plugin, options.verbose);
  }
}

}  // namespace

Command AddPluginsCommand(CLI::App* app) {
  auto options = std::make_shared<PluginsOptions>();
  CLI::App* command = app->add_subcommand(
      "plugins",
      "List the plugin search path, every plugin file found on it and what became of it "
      "(loaded, skipped, or why it failed), and what each loaded plugin registered.");
  AddPluginOptions(command, &options->plugins);
  command->add_flag("-v,--verbose", options->verbose,
                    "List every op, kernel op type and gradient, not only their counts");
  return {command, [options] { RunPlugins(*options); }};
}

}  // namespace tgraph::tool
