#include "core/plugin/plugin_loader.h"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <boost/filesystem.hpp>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "core/plugin/abi_handles.h"
#include "core/plugin/core_api.h"
#include "core/plugin/registry.h"
#include "tgraph/plugin.h"

namespace tgraph {
namespace {

namespace fs = boost::filesystem;

// Every load runs under load_mu (one TG_PluginInit at a time: registrations go through a
// thread-local, and the duplicate checks assume nobody commits in between). The list has
// its own lock so listing does not wait for a slow init.
struct Loader {
  std::mutex load_mu;
  std::mutex list_mu;
  std::vector<std::unique_ptr<LoadedPlugin>> plugins;  // load order
  std::map<std::string, LoadedPlugin*> by_file;        // canonical path -> plugin
};

Loader& GetLoader() {
  static Loader* const loader = new Loader();  // never destroyed: plugins stay loaded
  return *loader;
}

const LoadedPlugin* FindLoaded(const std::string& canonical) {
  Loader& l = GetLoader();
  std::lock_guard<std::mutex> lock(l.list_mu);
  auto it = l.by_file.find(canonical);
  return it == l.by_file.end() ? nullptr : it->second;
}

Status PluginError(Code code, const std::string& file, const std::string& reason) {
  return Status(code, StrCat("Plugin '", file, "': ", reason));
}

// Is `file` an ELF shared object? An error naming the file when it is not (a text file
// named .so, an executable, a truncated file).
Status CheckSharedLibrary(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return PluginError(Code::kPermissionDenied, file, "cannot be opened for reading");
  unsigned char header[18] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  const auto got = in.gcount();
  if (got < 4 || std::memcmp(header, "\x7f" "ELF", 4) != 0) {
    return PluginError(Code::kInvalidArgument, file, "not a shared library (no ELF header)");
  }
  if (got < static_cast<std::streamsize>(sizeof header)) {
    return PluginError(Code::kInvalidArgument, file, "not a shared library (truncated ELF header)");
  }
  // e_type (offset 16) in the file's byte order (EI_DATA, offset 5: 1 = little endian).
  const unsigned type = header[5] == 1 ? (header[16] | (header[17] << 8)) : ((header[16] << 8) | header[17]);
  constexpr unsigned kElfSharedObject = 3;  // ET_DYN
  if (type != kElfSharedObject) {
    return PluginError(Code::kInvalidArgument, file,
                       StrCat("not a shared library (ELF file of type ", type, ", expected ",
                              kElfSharedObject, " = shared object)"));
  }
  return Status::OK();
}

struct InitOutcome {
  Status init_status;
  TG_PluginInfo info{};
};

// Calls TG_PluginInit with registrations going to `regs`. Exceptions a C++ plugin lets
// escape become statuses (they should not cross a C boundary, but must not kill us).
InitOutcome CallInit(TG_PluginInitFn init, const std::string& file, PluginRegistrations* regs) {
  InitOutcome out;
  TG_PluginInfo info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof(TG_PluginInfo);
  TG_PluginInitArgs args;
  std::memset(&args, 0, sizeof args);
  args.struct_size = sizeof(TG_PluginInitArgs);
  args.core_abi_version = TG_PLUGIN_ABI_VERSION;
  args.api = CoreApi();
  args.info = &info;
  args.plugin_path = file.c_str();
  TG_Status status;
  {
    PluginRegistrations::Scope scope(regs);
    try {
      init(&args, &status);
    } catch (const std::exception& e) {
      status.status = Internal("TG_PluginInit threw an exception: ", e.what());
    } catch (...) {
      status.status = Internal("TG_PluginInit threw an exception");
    }
  }
  out.init_status = status.status;
  // Read the info as a plugin-filled struct: the plugin may have set its own struct_size.
  Status s = ReadPluginStruct(&info, kPluginInfoMinSize, "TG_PluginInfo", &out.info);
  if (!s.ok()) out.info = TG_PluginInfo{};
  return out;
}

StatusOr<const LoadedPlugin*> LoadLocked(const std::string& path) {
  if (path.empty()) return InvalidArgument("LoadPlugin: the plugin path is empty");
  boost::system::error_code ec;
  const fs::path p(path);
  const fs::file_status st = fs::status(p, ec);
  if (!fs::exists(st)) return PluginError(Code::kNotFound, path, "no such file");
  if (fs::is_directory(st)) {
    return PluginError(Code::kInvalidArgument, path, "is a directory, not a shared library");
  }
  const fs::path canonical_path = fs::canonical(p, ec);
  if (ec) return PluginError(Code::kNotFound, path, StrCat("cannot be resolved: ", ec.message()));
  const std::string file = canonical_path.string();
  if (const LoadedPlugin* loaded = FindLoaded(file)) return loaded;  // already loaded: no-op

  TG_RETURN_IF_ERROR(CheckSharedLibrary(file));

  auto library = std::make_shared<boost::dll::shared_library>();
  dlerror();  // clear any stale message
  library->load(canonical_path, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now, ec);
  if (ec || !library->is_loaded()) {
    const char* why = dlerror();
    return PluginError(Code::kInvalidArgument, file,
                       StrCat("cannot be loaded as a shared library: ",
                              why != nullptr ? std::string(why) : ec.message()));
  }
  if (!library->has("TG_PluginInit")) {
    return PluginError(Code::kNotFound, file,
                       "does not export TG_PluginInit (is it a tgraph plugin? see tgraph/plugin.h)");
  }
  auto init = library->get<void(const TG_PluginInitArgs*, TG_Status*)>("TG_PluginInit");

  PluginRegistrations regs(file);
  InitOutcome outcome = CallInit(init, file, &regs);
  const TG_PluginInfo& info = outcome.info;
  const std::string stem = canonical_path.stem().string();
  const std::string name = info.name != nullptr && info.name[0] != '\0' ? info.name : stem;
  const std::string version = info.version != nullptr ? info.version : "";
  const std::string who = StrCat(" (plugin '", name, "'", version.empty() ? "" : " version ",
                                 version, ")");

  // A newer plugin's failures are most likely due to the ABI, so that is reported first.
  if (info.abi_version > TG_PLUGIN_ABI_VERSION) {
    return PluginError(Code::kFailedPrecondition, file,
                       StrCat("was built for plugin ABI version ", info.abi_version,
                              ", newer than this core's ABI version ", TG_PLUGIN_ABI_VERSION, who,
                              "; rebuild it against this tgraph's SDK or upgrade tgraph"));
  }
  // A registration that failed is the root cause even if init then reported it again.
  if (!regs.first_error().ok()) return regs.first_error();
  if (!outcome.init_status.ok()) {
    return PluginError(outcome.init_status.code(), file,
                       StrCat("TG_PluginInit failed", who, ": ", outcome.init_status.message()));
  }
  if (info.abi_version == 0) {
    return PluginError(Code::kFailedPrecondition, file,
                       "did not declare its ABI version (TG_PluginInit must set "
                       "args->info->abi_version = TG_PLUGIN_ABI_VERSION)");
  }

  auto plugin = std::make_unique<LoadedPlugin>();
  plugin->file = file;
  plugin->name = name;
  plugin->version = version;
  plugin->abi_version = info.abi_version;
  plugin->ops = regs.OpNames();
  plugin->kernels = regs.KernelKeys();
  plugin->devices = regs.DeviceTypes();
  plugin->savers = regs.SaverFormats();
  plugin->gradients = regs.GradientOpTypes();
  plugin->library = library;
  TG_RETURN_IF_ERROR(regs.Commit(plugin.get()));

  Loader& l = GetLoader();
  std::lock_guard<std::mutex> lock(l.list_mu);
  LoadedPlugin* raw = plugin.get();
  l.plugins.push_back(std::move(plugin));
  l.by_file[file] = raw;
  return static_cast<const LoadedPlugin*>(raw);
}

}  // namespace

uint32_t CorePluginAbiVersion() { return TG_PLUGIN_ABI_VERSION; }

StatusOr<const LoadedPlugin*> LoadPlugin(const std::string& path) {
  std::lock_guard<std::mutex> lock(GetLoader().load_mu);
  try {
    return LoadLocked(path);
  } catch (const std::bad_alloc&) {
    return PluginError(Code::kResourceExhausted, path, "out of memory while loading");
  } catch (const std::exception& e) {
    return PluginError(Code::kInternal, path, StrCat("loading failed: ", e.what()));
  }
}

std::vector<const LoadedPlugin*> LoadedPlugins() {
  Loader& l = GetLoader();
  std::lock_guard<std::mutex> lock(l.list_mu);
  std::vector<const LoadedPlugin*> out;
  for (const auto& p : l.plugins) out.push_back(p.get());
  return out;
}

Status UnloadPlugin(const LoadedPlugin* plugin) {
  if (plugin == nullptr) return InvalidArgument("UnloadPlugin: the plugin is NULL");
  return FailedPrecondition("Plugin '", plugin->file, "' (", plugin->name,
                            ") cannot be unloaded: plugins stay loaded for the life of the "
                            "process, because graphs, plans and sessions may still use the "
                            "ops, kernels and devices it registered");
}

std::vector<std::string> PluginFilesIn(const std::string& entry) {
  std::vector<std::string> files;
  if (entry.empty()) return files;
  boost::system::error_code ec;
  const fs::path p(entry);
  const fs::file_status st = fs::status(p, ec);
  if (!fs::exists(st)) return files;
  if (!fs::is_directory(st)) {
    files.push_back(entry);
    return files;
  }
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& f = it->path();
    boost::system::error_code fec;
    if (f.extension() == ".so" && fs::is_regular_file(f, fec)) files.push_back(f.string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Status LoadPluginsFrom(const std::vector<std::string>& entries,
                       std::vector<const LoadedPlugin*>* newly_loaded) {
  std::vector<Status> failures;
  for (const std::string& entry : entries) {
    for (const std::string& file : PluginFilesIn(entry)) {
      boost::system::error_code ec;
      const fs::path canonical_path = fs::canonical(file, ec);
      if (!ec) {
        // Already loaded (this file) or shadowed (an earlier file of the same name).
        if (FindLoaded(canonical_path.string()) != nullptr) continue;
        bool shadowed = false;
        for (const LoadedPlugin* p : LoadedPlugins()) {
          shadowed = shadowed || fs::path(p->file).filename() == canonical_path.filename();
        }
        if (shadowed) continue;
      }
      auto loaded = LoadPlugin(file);
      if (!loaded.ok()) {
        failures.push_back(loaded.status());
      } else if (newly_loaded != nullptr) {
        newly_loaded->push_back(loaded.value());
      }
    }
  }
  if (failures.empty()) return Status::OK();
  std::string message = failures.size() == 1 ? "" : StrCat(failures.size(), " plugins failed to load: ");
  for (size_t i = 0; i < failures.size(); ++i) {
    if (i > 0) message += "; ";
    message += failures[i].message();
  }
  return Status(failures[0].code(), message);
}

Status LoadPluginsFromSearchPath(std::vector<const LoadedPlugin*>* newly_loaded) {
  return LoadPluginsFrom(PluginSearchPath(), newly_loaded);
}

}  // namespace tgraph
