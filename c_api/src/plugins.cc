// Plugins: loading (one file, or discovery), listing what is loaded, and the refused unload.
// A TG_Plugin* is the core's LoadedPlugin*, which the loader never frees.
#include "c_api/src/c_api_internal.h"
#include "core/plugin/cpu_variant.h"
#include "core/plugin/plugin_loader.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

const LoadedPlugin* ToPlugin(const TG_Plugin* p) { return reinterpret_cast<const LoadedPlugin*>(p); }
const TG_Plugin* ToC(const LoadedPlugin* p) { return reinterpret_cast<const TG_Plugin*>(p); }

template <typename T>
bool InRange(const std::vector<T>& v, int i) {
  return i >= 0 && static_cast<size_t>(i) < v.size();
}

template <typename T>
int Count(const TG_Plugin* plugin, std::vector<T> LoadedPlugin::*member) {
  if (plugin == nullptr) return 0;
  return static_cast<int>((ToPlugin(plugin)->*member).size());
}

const char* Name(const TG_Plugin* plugin, std::vector<std::string> LoadedPlugin::*member, int i) {
  if (plugin == nullptr) return nullptr;
  const auto& v = ToPlugin(plugin)->*member;
  return InRange(v, i) ? v[static_cast<size_t>(i)].c_str() : nullptr;
}

}  // namespace

extern "C" uint32_t TG_CorePluginAbiVersion(void) { return CorePluginAbiVersion(); }

extern "C" const TG_Plugin* TG_LoadPlugin(const char* path, TG_Status* status) {
  return GuardValue<const TG_Plugin*>(status, nullptr, [&](const TG_Plugin** out) -> Status {
    if (path == nullptr) return NullArg("TG_LoadPlugin", "path");
    TG_ASSIGN_OR_RETURN(const LoadedPlugin* plugin, LoadPlugin(path));
    *out = ToC(plugin);
    return Status::OK();
  });
}

extern "C" int TG_LoadPluginsFromSearchPath(TG_Status* status) {
  int loaded = 0;
  Guard(status, [&]() -> Status {
    std::vector<const LoadedPlugin*> newly_loaded;
    Status s = LoadPluginsFromSearchPath(&newly_loaded);
    loaded = static_cast<int>(newly_loaded.size());
    return s;
  });
  return loaded;
}

extern "C" void TG_GetPluginSearchPath(TG_Buffer* output, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (output == nullptr) return NullArg("TG_GetPluginSearchPath", "output");
    std::string joined;
    for (const std::string& entry : PluginSearchPath()) {
      if (!joined.empty()) joined += ':';
      joined += entry;
    }
    return FillBuffer(output, joined);
  });
}

extern "C" int TG_NumPlugins(void) {
  return NoThrow(0, [] { return static_cast<int>(LoadedPlugins().size()); });
}

extern "C" const TG_Plugin* TG_GetPlugin(int index) {
  return NoThrow<const TG_Plugin*>(nullptr, [&]() -> const TG_Plugin* {
    std::vector<const LoadedPlugin*> all = LoadedPlugins();
    return InRange(all, index) ? ToC(all[static_cast<size_t>(index)]) : nullptr;
  });
}

extern "C" const char* TG_PluginName(const TG_Plugin* plugin) {
  return plugin == nullptr ? "" : ToPlugin(plugin)->name.c_str();
}
extern "C" const char* TG_PluginVersion(const TG_Plugin* plugin) {
  return plugin == nullptr ? "" : ToPlugin(plugin)->version.c_str();
}
extern "C" uint32_t TG_PluginAbiVersion(const TG_Plugin* plugin) {
  return plugin == nullptr ? 0 : ToPlugin(plugin)->abi_version;
}
extern "C" const char* TG_PluginFile(const TG_Plugin* plugin) {
  return plugin == nullptr ? "" : ToPlugin(plugin)->file.c_str();
}

extern "C" int TG_PluginNumOps(const TG_Plugin* plugin) { return Count(plugin, &LoadedPlugin::ops); }
extern "C" const char* TG_PluginOpName(const TG_Plugin* plugin, int i) {
  return Name(plugin, &LoadedPlugin::ops, i);
}

extern "C" int TG_PluginNumKernels(const TG_Plugin* plugin) {
  return Count(plugin, &LoadedPlugin::kernels);
}
extern "C" const char* TG_PluginKernelOpType(const TG_Plugin* plugin, int i) {
  if (plugin == nullptr || !InRange(ToPlugin(plugin)->kernels, i)) return nullptr;
  return ToPlugin(plugin)->kernels[static_cast<size_t>(i)].first.c_str();
}
extern "C" const char* TG_PluginKernelDeviceType(const TG_Plugin* plugin, int i) {
  if (plugin == nullptr || !InRange(ToPlugin(plugin)->kernels, i)) return nullptr;
  return ToPlugin(plugin)->kernels[static_cast<size_t>(i)].second.c_str();
}

extern "C" int TG_PluginNumDevices(const TG_Plugin* plugin) {
  return Count(plugin, &LoadedPlugin::devices);
}
extern "C" const char* TG_PluginDeviceType(const TG_Plugin* plugin, int i) {
  return Name(plugin, &LoadedPlugin::devices, i);
}

extern "C" int TG_PluginNumSavers(const TG_Plugin* plugin) {
  return Count(plugin, &LoadedPlugin::savers);
}
extern "C" const char* TG_PluginSaverFormat(const TG_Plugin* plugin, int i) {
  return Name(plugin, &LoadedPlugin::savers, i);
}

extern "C" int TG_PluginNumGradients(const TG_Plugin* plugin) {
  return Count(plugin, &LoadedPlugin::gradients);
}
extern "C" const char* TG_PluginGradientOpType(const TG_Plugin* plugin, int i) {
  return Name(plugin, &LoadedPlugin::gradients, i);
}

extern "C" int TG_PluginNumKernelOverrides(const TG_Plugin* plugin) {
  return Count(plugin, &LoadedPlugin::overrides);
}
extern "C" const char* TG_PluginKernelOverride(const TG_Plugin* plugin, int i) {
  return Name(plugin, &LoadedPlugin::overrides, i);
}

extern "C" int TG_PluginNumMessages(const TG_Plugin* plugin) {
  return Count(plugin, &LoadedPlugin::messages);
}
extern "C" const char* TG_PluginMessage(const TG_Plugin* plugin, int i) {
  return Name(plugin, &LoadedPlugin::messages, i);
}

extern "C" const char* TG_PluginCpuVariant(const TG_Plugin* plugin) {
  return plugin == nullptr ? "" : ToPlugin(plugin)->cpu_variant.c_str();
}
extern "C" const char* TG_CpuVariantLevel(void) {
  return NoThrow<const char*>("", [] { return CpuLevelName(AllowedCpuLevel()); });
}

namespace {
const PluginCandidate* Candidate(int index) {
  const std::vector<PluginCandidate>& report = LastDiscoveryReport();
  return InRange(report, index) ? &report[static_cast<size_t>(index)] : nullptr;
}
}  // namespace

extern "C" int TG_NumPluginCandidates(void) {
  return NoThrow(0, [] { return static_cast<int>(LastDiscoveryReport().size()); });
}
extern "C" const char* TG_PluginCandidateFile(int index) {
  const PluginCandidate* c = Candidate(index);
  return c == nullptr ? nullptr : c->file.c_str();
}
extern "C" TG_PluginOutcome TG_PluginCandidateOutcome(int index) {
  const PluginCandidate* c = Candidate(index);
  return c == nullptr ? TG_PLUGIN_FAILED : static_cast<TG_PluginOutcome>(c->outcome);
}
extern "C" const char* TG_PluginCandidateReason(int index) {
  const PluginCandidate* c = Candidate(index);
  return c == nullptr ? "" : c->reason.c_str();
}
extern "C" const TG_Plugin* TG_PluginCandidatePlugin(int index) {
  const PluginCandidate* c = Candidate(index);
  return c == nullptr ? nullptr : ToC(c->plugin);
}

extern "C" void TG_UnloadPlugin(const TG_Plugin* plugin, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (plugin == nullptr) return NullArg("TG_UnloadPlugin", "plugin");
    return UnloadPlugin(ToPlugin(plugin));
  });
}
