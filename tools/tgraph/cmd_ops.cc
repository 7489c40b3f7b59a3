// `tgraph ops [NAME]`: every registered op (or one) with its signature, the plugin that
// defined it and the device types with kernels for it.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "tool_common.h"

namespace tgraph::tool {
namespace {

struct OpsOptions {
  PluginOptions plugins;
  std::string name;
};

OpInfoPtr NewOpInfo(const std::string& op_type) {
  StatusPtr status = NewStatus();
  OpInfoPtr info(TG_NewOpInfo(op_type.c_str(), status.get()));
  Check(status.get(), "op '" + op_type + "'");
  return info;
}

std::vector<std::string> Specs(const TG_OpInfo* info, int (*count)(const TG_OpInfo*),
                               const char* (*spec)(const TG_OpInfo*, int)) {
  std::vector<std::string> specs;
  for (int i = 0; i < count(info); ++i) specs.emplace_back(spec(info, i));
  return specs;
}

// MatMul(a: T, b: T) -> (product: T)
//   attr transpose_a: bool = false
//   defined by: core; kernels: CPU, GPU
void PrintOp(const TG_OpInfo* info) {
  std::cout << TG_OpInfoName(info) << "(" << Join(Specs(info, TG_OpInfoNumInputs, TG_OpInfoInput))
            << ") -> (" << Join(Specs(info, TG_OpInfoNumOutputs, TG_OpInfoOutput)) << ")"
            << (TG_OpInfoIsStateful(info) ? "  [stateful]" : "") << "\n";
  for (const std::string& attr : Specs(info, TG_OpInfoNumAttrs, TG_OpInfoAttr)) {
    std::cout << "    attr " << attr << "\n";
  }
  const TG_Plugin* plugin = TG_OpInfoPlugin(info);
  std::vector<std::string> devices =
      Specs(info, TG_OpInfoNumKernelDeviceTypes, TG_OpInfoKernelDeviceType);
  std::cout << "    defined by: "
            << (plugin ? std::string("plugin ") + TG_PluginName(plugin) + " (" +
                             TG_PluginFile(plugin) + ")"
                       : std::string("core"))
            << "; kernels: " << (devices.empty() ? std::string("none") : Join(devices)) << "\n";
  if (*TG_OpInfoSummary(info)) std::cout << "    " << TG_OpInfoSummary(info) << "\n";
}

void RunOps(const OpsOptions& options) {
  LoadPlugins(options.plugins);
  if (!options.name.empty()) {
    PrintOp(NewOpInfo(options.name).get());
    return;
  }
  int count = TG_NumRegisteredOps();
  for (int i = 0; i < count; ++i) PrintOp(NewOpInfo(TG_RegisteredOpName(i)).get());
}

}  // namespace

Command AddOpsCommand(CLI::App* app) {
  auto options = std::make_shared<OpsOptions>();
  CLI::App* command = app->add_subcommand(
      "ops",
      "List every registered op (the core's and the loaded plugins'), or only NAME: inputs, "
      "outputs, attrs with defaults and allowed values, the plugin that defined it and the "
      "device types with kernels for it.");
  command->add_option("NAME", options->name, "Only this op type (e.g. MatMul)");
  AddPluginOptions(command, &options->plugins);
  return {command, [options] { RunOps(*options); }};
}

}  // namespace tgraph::tool
