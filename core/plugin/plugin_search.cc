// Where discovery looks for plugins. The install locations come from the build (compile
// definitions set in sdk/CMakeLists.txt for this file only, so changing the install prefix
// recompiles one file).
#include <dlfcn.h>

#include <boost/filesystem.hpp>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/plugin/plugin_loader.h"

#ifndef TGRAPH_PLUGIN_INSTALL_PATH
#define TGRAPH_PLUGIN_INSTALL_PATH "/usr/local/lib/tgraph/plugins"
#endif
// The plugin directory relative to the directory of the library holding the core, in an
// installed tree and in the build tree.
#ifndef TGRAPH_PLUGIN_DIR_FROM_LIBDIR
#define TGRAPH_PLUGIN_DIR_FROM_LIBDIR "tgraph/plugins"
#endif
#ifndef TGRAPH_PLUGIN_DIR_FROM_BUILD_LIBDIR
#define TGRAPH_PLUGIN_DIR_FROM_BUILD_LIBDIR "../plugins"
#endif

namespace tgraph {
namespace {

namespace fs = boost::filesystem;

// The directory of the shared object (or executable) this function was linked into.
std::string CoreLibraryDir() {
  Dl_info info;
  std::memset(&info, 0, sizeof info);
  boost::system::error_code ec;
  fs::path object;
  if (dladdr(reinterpret_cast<void*>(&CoreLibraryDir), &info) != 0 && info.dli_fname != nullptr &&
      info.dli_fname[0] != '\0') {
    object = fs::canonical(fs::path(info.dli_fname), ec);
  }
  if (object.empty() || ec) {
    ec.clear();
    object = fs::read_symlink("/proc/self/exe", ec);  // the core is in the executable
    if (ec) return "";
  }
  return object.parent_path().string();
}

}  // namespace

std::vector<std::string> PluginSearchPath() {
  std::vector<std::string> entries;
  auto add = [&](const std::string& e) {
    if (e.empty()) return;
    const std::string normal = fs::path(e).lexically_normal().string();
    for (const auto& existing : entries) {
      if (existing == normal) return;
    }
    entries.push_back(normal);
  };
  if (const char* env = std::getenv("TGRAPH_PLUGIN_PATH")) {
    std::string value = env;
    size_t start = 0;
    while (start <= value.size()) {
      const size_t colon = value.find(':', start);
      const size_t end = colon == std::string::npos ? value.size() : colon;
      add(value.substr(start, end - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  add(TGRAPH_PLUGIN_INSTALL_PATH);
  const std::string dir = CoreLibraryDir();
  if (!dir.empty()) {
    add((fs::path(dir) / TGRAPH_PLUGIN_DIR_FROM_LIBDIR).string());
    add((fs::path(dir) / TGRAPH_PLUGIN_DIR_FROM_BUILD_LIBDIR).string());
  }
  return entries;
}

}  // namespace tgraph
