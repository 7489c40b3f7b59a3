#include "core/plugin/plugin_loader.h"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <boost/filesystem.hpp>
#include <algorithm>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "core/plugin/abi_handles.h"
#include "core/plugin/core_api.h"
#include "core/plugin/cpu_variant.h"
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

// How statuses name a plugin file: as the caller gave it, with the file it resolved to when
// that differs (a path through a symlink), so the caller finds the path it used.
std::string Quoted(const std::string& given, const std::string& resolved = "") {
  if (resolved.empty() || resolved == given) return StrCat("'", given, "'");
  return StrCat("'", given, "' (", resolved, ")");
}

// `quoted` comes from Quoted().
Status PluginError(Code code, const std::string& quoted, const std::string& reason) {
  return Status(code, StrCat("Plugin ", quoted, ": ", reason));
}

// Is `file` an ELF shared object? An error naming the file when it is not (a text file
// named .so, an executable, a truncated file).
Status CheckSharedLibrary(const std::string& file, const std::string& quoted) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return PluginError(Code::kPermissionDenied, quoted, "cannot be opened for reading");
  unsigned char header[18] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  const auto got = in.gcount();
  if (got < 4 || std::memcmp(header, "\x7f" "ELF", 4) != 0) {
    return PluginError(Code::kInvalidArgument, quoted, "not a shared library (no ELF header)");
  }
  if (got < static_cast<std::streamsize>(sizeof header)) {
    return PluginError(Code::kInvalidArgument, quoted,
                       "not a shared library (truncated ELF header)");
  }
  // e_type (offset 16) in the file's byte order (EI_DATA, offset 5: 1 = little endian).
  const unsigned type = header[5] == 1 ? (header[16] | (header[17] << 8)) : ((header[16] << 8) | header[17]);
  constexpr unsigned kElfSharedObject = 3;  // ET_DYN
  if (type != kElfSharedObject) {
    return PluginError(Code::kInvalidArgument, quoted,
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

// "built for x86-64-v4; this CPU lacks avx512f, ...", or "" when `cpu` runs that level.
std::string WhyCpuCannotRun(const CpuFeatures& cpu, CpuLevel level) {
  std::string missing;
  for (const std::string& m : MissingFeatures(cpu, level)) {
    if (!missing.empty()) missing += ", ";
    missing += m;
  }
  if (missing.empty()) return "";
  return StrCat("built for ", CpuLevelName(level), "; this CPU lacks ", missing);
}

// The variant files of one group ("libx.<level>.so" in one directory) and which of them this
// process should load: the highest level the CPU runs and TGRAPH_CPU_VARIANT allows.
struct VariantChoice {
  std::string chosen;                         // empty when none can run here
  std::map<std::string, std::string> passed;  // file -> why it was not chosen
};

VariantChoice ChooseVariant(const std::vector<std::string>& files) {
  const CpuFeatures cpu = CurrentCpuFeatures();
  const CpuLevel allowed = AllowedCpuLevel();
  VariantChoice choice;
  std::optional<CpuLevel> best;
  for (const std::string& file : files) {
    const CpuLevel level = ParseVariantFileName(fs::path(file).filename().string())->level;
    const std::string cannot_run = WhyCpuCannotRun(cpu, level);
    if (!cannot_run.empty()) {
      choice.passed[file] = cannot_run;
    } else if (level > allowed) {
      choice.passed[file] = StrCat(CpuLevelName(level), " is above TGRAPH_CPU_VARIANT=",
                                   CpuLevelName(allowed));
    } else if (!best || level > *best) {
      if (!choice.chosen.empty()) choice.passed[choice.chosen] = "";
      best = level;
      choice.chosen = file;
      continue;
    } else {
      choice.passed[file] = "";
    }
  }
  for (auto& [file, why] : choice.passed) {
    if (why.empty()) {
      why = StrCat("the better variant ", fs::path(choice.chosen).filename().string(),
                   " was chosen");
    }
  }
  return choice;
}

// The error for a group `path` none of whose variants this CPU runs, with each file's reason.
Status NoVariantRuns(const std::string& path, const VariantChoice& choice) {
  std::string why;
  for (const auto& [file, reason] : choice.passed) {
    why += StrCat(why.empty() ? "" : "; ", fs::path(file).filename().string(), ": ", reason);
  }
  return PluginError(Code::kFailedPrecondition, Quoted(path),
                     StrCat("no CPU variant of it can run on this CPU (", why, ")"));
}

// "<dir>/libx.so" that does not exist stands for its CPU variants "<dir>/libx.<level>.so":
// the best one this process may run, or an error naming the path and why none can run.
StatusOr<std::string> ResolveVariantGroup(const std::string& path) {
  const std::vector<std::string> variants = PluginFilesIn(path);  // the group's variants
  if (variants.empty()) return PluginError(Code::kNotFound, Quoted(path), "no such file");
  VariantChoice choice = ChooseVariant(variants);
  if (choice.chosen.empty()) return NoVariantRuns(path, choice);
  return choice.chosen;
}

// A variant file must never be loaded on a CPU that lacks its level: its code (static
// initializers included) may use any instruction of that level.
Status CheckCpuRunsVariant(const std::string& file_name, const std::string& quoted) {
  const auto name = ParseVariantFileName(file_name);
  if (!name) return Status::OK();
  const std::string cannot_run = WhyCpuCannotRun(CurrentCpuFeatures(), name->level);
  if (cannot_run.empty()) return Status::OK();
  return PluginError(Code::kFailedPrecondition, quoted,
                     StrCat("is a CPU variant ", cannot_run, " (load it by its group name, '",
                            name->group_file_name, "', to get the best variant this CPU runs)"));
}

StatusOr<const LoadedPlugin*> LoadLocked(const std::string& requested) {
  if (requested.empty()) return InvalidArgument("LoadPlugin: the plugin path is empty");
  boost::system::error_code ec;
  std::string path = requested;
  fs::file_status st = fs::status(fs::path(path), ec);
  if (!fs::exists(st)) {
    TG_ASSIGN_OR_RETURN(path, ResolveVariantGroup(requested));
    st = fs::status(fs::path(path), ec);
  }
  const fs::path p(path);
  if (fs::is_directory(st)) {
    return PluginError(Code::kInvalidArgument, Quoted(path),
                       "is a directory, not a shared library");
  }
  const fs::path canonical_path = fs::canonical(p, ec);
  if (ec) {
    return PluginError(Code::kNotFound, Quoted(path), StrCat("cannot be resolved: ", ec.message()));
  }
  const std::string file = canonical_path.string();
  const std::string quoted = Quoted(path, file);
  if (const LoadedPlugin* loaded = FindLoaded(file)) return loaded;  // already loaded: no-op

  TG_RETURN_IF_ERROR(CheckCpuRunsVariant(p.filename().string(), quoted));
  TG_RETURN_IF_ERROR(CheckCpuRunsVariant(canonical_path.filename().string(), quoted));
  TG_RETURN_IF_ERROR(CheckSharedLibrary(file, quoted));

  auto library = std::make_shared<boost::dll::shared_library>();
  dlerror();  // clear any stale message
  library->load(canonical_path, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now, ec);
  if (ec || !library->is_loaded()) {
    const char* why = dlerror();
    return PluginError(Code::kInvalidArgument, quoted,
                       StrCat("cannot be loaded as a shared library: ",
                              why != nullptr ? std::string(why) : ec.message()));
  }
  if (!library->has("TG_PluginInit")) {
    return PluginError(Code::kNotFound, quoted,
                       "does not export TG_PluginInit (is it a tgraph plugin? see tgraph/plugin.h)");
  }
  auto init = library->get<void(const TG_PluginInitArgs*, TG_Status*)>("TG_PluginInit");

  PluginRegistrations regs(path);
  InitOutcome outcome = CallInit(init, file, &regs);
  const TG_PluginInfo& info = outcome.info;
  const std::string stem = canonical_path.stem().string();
  const std::string name = info.name != nullptr && info.name[0] != '\0' ? info.name : stem;
  const std::string version = info.version != nullptr ? info.version : "";
  const std::string who = StrCat(" (plugin '", name, "'", version.empty() ? "" : " version ",
                                 version, ")");

  // A newer plugin's failures are most likely due to the ABI, so that is reported first.
  if (info.abi_version > TG_PLUGIN_ABI_VERSION) {
    return PluginError(Code::kFailedPrecondition, quoted,
                       StrCat("was built for plugin ABI version ", info.abi_version,
                              ", newer than this core's ABI version ", TG_PLUGIN_ABI_VERSION, who,
                              "; rebuild it against this tgraph's SDK or upgrade tgraph"));
  }
  // A registration that failed is the root cause even if init then reported it again.
  if (!regs.first_error().ok()) return regs.first_error();
  if (!outcome.init_status.ok()) {
    return PluginError(outcome.init_status.code(), quoted,
                       StrCat("TG_PluginInit failed", who, ": ", outcome.init_status.message()));
  }
  if (info.abi_version == 0) {
    return PluginError(Code::kFailedPrecondition, quoted,
                       "did not declare its ABI version (TG_PluginInit must set "
                       "args->info->abi_version = TG_PLUGIN_ABI_VERSION)");
  }

  auto plugin = std::make_unique<LoadedPlugin>();
  plugin->file = file;
  plugin->name = name;
  plugin->version = version;
  plugin->abi_version = info.abi_version;
  if (auto variant = ParseVariantFileName(canonical_path.filename().string())) {
    plugin->cpu_variant = CpuLevelName(variant->level);
  }
  // A faster kernel replacing another is intended (that is what priorities are for), but
  // never silent: it is on the plugin's record and logged at INFO.
  for (const std::string& line : regs.KernelOverrides()) {
    PluginRegistrations::Scope scope(&regs);
    CoreApi()->log(TG_LOG_INFO, line.c_str());
  }
  plugin->messages = regs.Messages();
  plugin->ops = regs.OpNames();
  plugin->kernels = regs.KernelKeys();
  plugin->devices = regs.DeviceTypes();
  plugin->savers = regs.SaverFormats();
  plugin->gradients = regs.GradientOpTypes();
  plugin->overrides = regs.KernelOverrides();
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
    return PluginError(Code::kResourceExhausted, Quoted(path), "out of memory while loading");
  } catch (const std::exception& e) {
    return PluginError(Code::kInternal, Quoted(path), StrCat("loading failed: ", e.what()));
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
  if (!fs::exists(st)) {
    // "dir/libx.so" that does not exist stands for its CPU variants, as in LoadPlugin.
    const std::string group = p.filename().string();
    const std::string dir = p.parent_path().empty() ? "." : p.parent_path().string();
    for (const std::string& file : PluginFilesIn(dir)) {
      const auto variant = ParseVariantFileName(fs::path(file).filename().string());
      if (variant && variant->group_file_name == group) files.push_back(file);
    }
    return files;
  }
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

namespace {

// The file name that shadows: a variant file counts under its group's name, so a
// "libx.so" or any "libx.<level>.so" found earlier on the path shadows every later one.
std::string ShadowName(const std::string& file) {
  const std::string name = fs::path(file).filename().string();
  const auto variant = ParseVariantFileName(name);
  return variant ? variant->group_file_name : name;
}

// Every report is kept (discovery runs a few times per process at most), so the strings of
// one handed out stay valid for the process, like the plugins' own.
struct DiscoveryReport {
  std::mutex mu;
  std::deque<std::vector<PluginCandidate>> reports{1};
};

DiscoveryReport& Report() {
  static DiscoveryReport* const report = new DiscoveryReport();  // never destroyed
  return *report;
}

// One entry's candidates, each with what became of it; failures are also appended.
void DiscoverEntry(const std::string& entry, std::vector<PluginCandidate>* candidates,
                   std::vector<Status>* failures,
                   std::vector<const LoadedPlugin*>* newly_loaded) {
  const std::vector<std::string> files = PluginFilesIn(entry);
  std::map<std::string, std::vector<std::string>> groups;  // group name -> variant files
  for (const std::string& file : files) {
    if (ParseVariantFileName(fs::path(file).filename().string())) {
      groups[ShadowName(file)].push_back(file);
    }
  }
  std::map<std::string, VariantChoice> choices;
  for (const auto& [group, variants] : groups) choices[group] = ChooseVariant(variants);

  for (const std::string& file : files) {
    PluginCandidate c;
    c.file = file;
    const std::string shadow_name = ShadowName(file);
    auto choice = choices.find(shadow_name);
    if (choice != choices.end() && choice->second.chosen != file) {
      c.outcome = PluginCandidate::Outcome::kVariantNotChosen;
      c.reason = choice->second.passed[file];
      candidates->push_back(std::move(c));
      continue;
    }
    boost::system::error_code ec;
    const fs::path canonical_path = fs::canonical(file, ec);
    if (!ec) {
      if (const LoadedPlugin* loaded = FindLoaded(canonical_path.string())) {
        c.outcome = PluginCandidate::Outcome::kLoaded;
        c.plugin = loaded;
        candidates->push_back(std::move(c));
        continue;
      }
      const LoadedPlugin* shadowing = nullptr;
      for (const LoadedPlugin* p : LoadedPlugins()) {
        if (ShadowName(p->file) == shadow_name) shadowing = p;
      }
      if (shadowing != nullptr) {
        c.outcome = PluginCandidate::Outcome::kShadowed;
        c.reason = StrCat("shadowed by ", shadowing->file, ", loaded earlier");
        candidates->push_back(std::move(c));
        continue;
      }
    }
    auto loaded = LoadPlugin(file);
    if (loaded.ok()) {
      c.outcome = PluginCandidate::Outcome::kLoaded;
      c.plugin = loaded.value();
      if (newly_loaded != nullptr) newly_loaded->push_back(loaded.value());
    } else {
      c.outcome = PluginCandidate::Outcome::kFailed;
      c.reason = loaded.status().message();
      failures->push_back(loaded.status());
    }
    candidates->push_back(std::move(c));
  }
  // A group none of whose variants can run here is a failure of discovery: the plugin the
  // user installed is not available.
  for (const auto& [group, choice] : choices) {
    if (choice.chosen.empty()) {
      failures->push_back(NoVariantRuns((fs::path(entry) / group).string(), choice));
    }
  }
}

}  // namespace

Status LoadPluginsFrom(const std::vector<std::string>& entries,
                       std::vector<const LoadedPlugin*>* newly_loaded) {
  std::vector<Status> failures;
  std::vector<PluginCandidate> candidates;
  for (const std::string& entry : entries) {
    DiscoverEntry(entry, &candidates, &failures, newly_loaded);
  }
  {
    DiscoveryReport& report = Report();
    std::lock_guard<std::mutex> lock(report.mu);
    report.reports.push_back(std::move(candidates));
  }
  if (failures.empty()) return Status::OK();
  std::string message = failures.size() == 1 ? "" : StrCat(failures.size(), " plugins failed to load: ");
  for (size_t i = 0; i < failures.size(); ++i) {
    if (i > 0) message += "; ";
    message += failures[i].message();
  }
  return Status(failures[0].code(), message);
}

const std::vector<PluginCandidate>& LastDiscoveryReport() {
  DiscoveryReport& report = Report();
  std::lock_guard<std::mutex> lock(report.mu);
  return report.reports.back();
}

Status LoadPluginsFromSearchPath(std::vector<const LoadedPlugin*>* newly_loaded) {
  return LoadPluginsFrom(PluginSearchPath(), newly_loaded);
}

}  // namespace tgraph
