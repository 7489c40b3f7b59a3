// Loading plugins (Boost.DLL, local symbol binding: two plugins never see each other's
// symbols). A plugin exports TG_PluginInit (tgraph/plugin.h); the loader calls it with the
// core's service table, checks the ABI version the plugin declares, and publishes what it
// registered only if the whole init succeeded.
//
// Plugins stay loaded for the life of the process: kernels, shape functions and devices
// they registered may be referenced from graphs, plans and sessions at any time, so
// unloading is refused (UnloadPlugin) rather than risking a dangling function pointer.
//
// Discovery (LoadPluginsFromSearchPath) looks, in this order, at:
//   1. TGRAPH_PLUGIN_PATH: colon-separated entries, each a plugin file or a directory;
//   2. the install's plugin directory (<prefix>/<libdir>/tgraph/plugins, fixed at build);
//   3. the directories next to the library that holds the core (found with dladdr): the
//      install layout relative to it (<libdir>/tgraph/plugins, for a relocated install)
//      and the build tree's plugins/ directory.
// In a directory every "*.so" file is a plugin. The first file of a given file name wins:
// a later one with the same name (e.g. an installed copy of a plugin already loaded from
// TGRAPH_PLUGIN_PATH) is skipped, not loaded twice.
//
// CPU variants (core/plugin/cpu_variant.h): files "libx.<level>.so" of one directory are one
// plugin built for several x86-64 levels; discovery loads only the best one this CPU runs
// (capped by TGRAPH_CPU_VARIANT), and they shadow as "libx.so". LoadPlugin("dir/libx.so")
// of a file that does not exist loads that best variant; LoadPlugin of a variant file whose
// level the CPU lacks fails with FAILED_PRECONDITION before the file is opened by dlopen.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace tgraph {

// A loaded plugin: what it said about itself and what it registered. Owned by the loader,
// never freed (pointers stay valid for the process).
struct LoadedPlugin {
  std::string file;     // canonical path of the library
  std::string name;     // from TG_PluginInfo (the file's stem if the plugin gave none)
  std::string version;  // from TG_PluginInfo ("" if none)
  uint32_t abi_version = 0;
  std::vector<std::string> ops;                              // op types it defined
  std::vector<std::pair<std::string, std::string>> kernels;  // (op type, device type)
  std::vector<std::string> devices;                          // device types
  std::vector<std::string> savers;                           // checkpoint formats
  std::vector<std::string> gradients;                        // op types
  // Kernels of others it outranks: "kernel X overrides Y of plugin 'p'" (also logged).
  std::vector<std::string> overrides;
  std::string cpu_variant;  // the CPU level of a variant file ("x86-64-v3"), else ""
  std::vector<std::string> messages;  // what it logged during TG_PluginInit ("INFO: ...")
  std::shared_ptr<void> library;                             // keeps the library loaded
};

// The plugin ABI version this core implements (TG_PLUGIN_ABI_VERSION of its build).
uint32_t CorePluginAbiVersion();

// Loads the plugin at `path` (once: a second call for the same file, by canonical path,
// returns the first load) and commits what its TG_PluginInit registered. Errors name the
// file and the reason: NOT_FOUND (no such file, no TG_PluginInit, a kernel for an unknown
// op), INVALID_ARGUMENT (not a shared library, a bad registration), FAILED_PRECONDITION
// (built for a newer ABI), ALREADY_EXISTS (a duplicate op, kernel, device or saver), or the
// code the plugin's init failed with. A failed load registers nothing and the library is
// unloaded again.
StatusOr<const LoadedPlugin*> LoadPlugin(const std::string& path);

// The discovery entries (files or directories), in search order (see above).
std::vector<std::string> PluginSearchPath();
// The plugin files an entry stands for: itself if it is a file, its "*.so" files (sorted)
// if it is a directory, the CPU variants "dir/libx.<level>.so" if it is a "dir/libx.so"
// that does not exist, else nothing.
std::vector<std::string> PluginFilesIn(const std::string& entry);

// Loads every plugin found in `entries` (skipping files loaded already or shadowed by an
// earlier file of the same name). Every file is tried; OK if all loaded, else the first
// failure's code with every failure's message. Plugins that loaded stay loaded either way.
// `newly_loaded` (may be null) gets the plugins this call loaded.
Status LoadPluginsFrom(const std::vector<std::string>& entries,
                       std::vector<const LoadedPlugin*>* newly_loaded = nullptr);
// LoadPluginsFrom(PluginSearchPath()).
Status LoadPluginsFromSearchPath(std::vector<const LoadedPlugin*>* newly_loaded = nullptr);

// What one discovery found: each candidate file, in search order, and what became of it.
struct PluginCandidate {
  enum class Outcome { kLoaded = 0, kShadowed = 1, kVariantNotChosen = 2, kFailed = 3 };
  std::string file;  // as found on the search path
  Outcome outcome = Outcome::kLoaded;
  std::string reason;                    // why it was not loaded ("" when it was)
  const LoadedPlugin* plugin = nullptr;  // when loaded (now or before)
};
// The candidates of the last LoadPluginsFrom / LoadPluginsFromSearchPath call (empty before
// the first). Every report is kept for the life of the process: the reference stays valid.
const std::vector<PluginCandidate>& LastDiscoveryReport();

// Every loaded plugin, in load order.
std::vector<const LoadedPlugin*> LoadedPlugins();

// Always FAILED_PRECONDITION: plugins stay loaded for the life of the process (see above).
Status UnloadPlugin(const LoadedPlugin* plugin);

}  // namespace tgraph
