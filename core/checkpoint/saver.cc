#include "core/checkpoint/saver.h"

#include <boost/filesystem.hpp>
#include <chrono>
#include <map>

#include "core/checkpoint/checkpoint_state.h"
#include "core/plugin/registry.h"

namespace tgraph {
namespace {

namespace fs = boost::filesystem;

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string DirOf(const std::string& prefix) {
  const fs::path parent = fs::path(prefix).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// How the state file names a checkpoint: relative to its directory when it is in it (the
// directory can then move), as tf.train.CheckpointManager writes it.
std::string StatePath(const std::string& path, const std::string& dir) {
  const fs::path p(path);
  if (p.has_parent_path() && fs::path(DirOf(path)) == fs::path(dir)) {
    return p.filename().string();
  }
  return path;
}

std::string DimsString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

// "<prefix>-<step>", as TF names it; for a format chosen by its file extension the step goes
// before the extension ("model-100.safetensors"), so the path still selects that format.
StatusOr<std::string> CheckpointPath(const std::string& prefix, std::optional<int64_t> step) {
  if (!step) return prefix;
  std::string stem = prefix;
  std::string extension;
  auto format = SaverRegistry::Global()->ForPrefix(prefix);
  if (format.ok() && format.value()->def.file_extension != nullptr) {
    const std::string ext = format.value()->def.file_extension;
    if (!ext.empty() && prefix.size() > ext.size() &&
        prefix.compare(prefix.size() - ext.size(), ext.size(), ext) == 0) {
      stem = prefix.substr(0, prefix.size() - ext.size());
      extension = ext;
    }
  }
  stem += '-';
  stem += std::to_string(*step);
  stem += extension;
  return stem;
}

// A sharded save writes its parts where the default format's names lead
// ("<path>_temp/part-00000-of-00001") and merges them at <path>: both must be one format.
Status CheckShardedFormat(const std::string& path) {
  TG_ASSIGN_OR_RETURN(const SaverRegistration* format, SaverRegistry::Global()->ForPrefix(path));
  TG_ASSIGN_OR_RETURN(const SaverRegistration* parts,
                      SaverRegistry::Global()->ForPrefix(path + "_temp/part-00000-of-00001"));
  if (format != parts) {
    return Unimplemented("Saver(sharded=True): '", path, "' selects the ", format->format,
                         " format, but sharded saves write ", parts->format,
                         " parts and merge them; save it with sharded=False");
  }
  return Status::OK();
}

}  // namespace

Saver::Saver(Graph& graph, tf::SaverDef def)
    : graph_(graph), def_(std::move(def)), clock_(NowSeconds) {
  next_preserved_time_ = clock_() + def_.keep_checkpoint_every_n_hours() * 3600.0;
}

void Saver::SetClockForTesting(std::function<double()> clock) {
  clock_ = std::move(clock);
  next_preserved_time_ = clock_() + def_.keep_checkpoint_every_n_hours() * 3600.0;
}

StatusOr<std::unique_ptr<Saver>> Saver::Create(Graph& graph, std::vector<SaveEntry> entries,
                                               const SaverBuildOptions& options) {
  TG_ASSIGN_OR_RETURN(tf::SaverDef def, BuildSaverGraph(graph, std::move(entries), options));
  return FromSaverDef(graph, def);
}

StatusOr<std::unique_ptr<Saver>> Saver::FromSaverDef(Graph& graph, const tf::SaverDef& def) {
  if (def.version() == tf::SaverDef::LEGACY) {
    return Unimplemented("SaverDef version LEGACY (V1 checkpoints) is not supported; only V2");
  }
  std::unique_ptr<Saver> saver(new Saver(graph, def));
  TG_RETURN_IF_ERROR(saver->Resolve());
  return saver;
}

Status Saver::Resolve() {
  auto named = [&](const std::string& what, const std::string& name) -> StatusOr<Output> {
    auto out = graph_.FindOutput(name);
    if (!out.ok()) return NotFound("the SaverDef's ", what, " '", name, "' is not in the graph");
    return out;
  };
  TG_ASSIGN_OR_RETURN(filename_tensor_, named("filename_tensor_name", def_.filename_tensor_name()));
  TG_ASSIGN_OR_RETURN(save_tensor_, named("save_tensor_name", def_.save_tensor_name()));
  restore_op_ = graph_.FindOperation(def_.restore_op_name());
  if (restore_op_ == nullptr) {
    return NotFound("the SaverDef's restore_op_name '", def_.restore_op_name(), "' is not in the graph");
  }
  if (BaseType(filename_tensor_.dtype()) != DT_STRING) {
    return InvalidArgument("the SaverDef's filename tensor '", def_.filename_tensor_name(),
                           "' is not a string");
  }
  return Status::OK();
}

void Saver::SetLastCheckpoints(std::vector<std::pair<std::string, double>> checkpoints) {
  last_ = std::move(checkpoints);
}

StatusOr<std::string> Saver::Save(Session& session, const std::string& prefix,
                                  std::optional<int64_t> global_step,
                                  const MetaGraphWriter& write_meta_graph,
                                  const std::string& latest_filename) {
  if (session.graph() != &graph_) {
    return InvalidArgument("Saver: the session runs another graph than the Saver's");
  }
  if (prefix.empty()) return InvalidArgument("Saver.save: the save path is empty");
  TG_ASSIGN_OR_RETURN(std::string path, CheckpointPath(prefix, global_step));
  const std::string dir = DirOf(path);
  boost::system::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return NotFound("Parent directory of ", path, " doesn't exist, can't save.");
  }
  if (def_.sharded()) TG_RETURN_IF_ERROR(CheckShardedFormat(path));
  TG_ASSIGN_OR_RETURN(Tensor filename, StringScalar(path));
  std::vector<Tensor> outputs;
  TG_RETURN_IF_ERROR(session.Run({{filename_tensor_, filename}}, {save_tensor_}, {}, &outputs));
  if (write_meta_graph) TG_RETURN_IF_ERROR(write_meta_graph(path + ".meta"));
  const double now = clock_();
  TG_RETURN_IF_ERROR(RecordAndRotate(path, now));

  tf::CheckpointState state;
  state.set_model_checkpoint_path(StatePath(path, dir));
  for (const auto& [p, t] : last_) {
    state.add_all_model_checkpoint_paths(StatePath(p, dir));
    state.add_all_model_checkpoint_timestamps(t);
  }
  if (state.all_model_checkpoint_paths_size() == 0 ||
      state.all_model_checkpoint_paths(state.all_model_checkpoint_paths_size() - 1) !=
          state.model_checkpoint_path()) {
    state.add_all_model_checkpoint_paths(state.model_checkpoint_path());
    state.add_all_model_checkpoint_timestamps(now);
  }
  state.set_last_preserved_timestamp(next_preserved_time_ -
                                     def_.keep_checkpoint_every_n_hours() * 3600.0);
  TG_RETURN_IF_ERROR(WriteCheckpointState(dir, latest_filename, state));
  return path;
}

Status Saver::RecordAndRotate(const std::string& path, double now) {
  if (def_.max_to_keep() <= 0) return Status::OK();  // keep everything, track nothing
  std::erase_if(last_, [&](const auto& entry) { return entry.first == path; });
  last_.emplace_back(path, now);
  while (static_cast<int>(last_.size()) > def_.max_to_keep()) {
    const auto [old_path, saved_at] = last_.front();
    last_.erase(last_.begin());
    const double keep_seconds = def_.keep_checkpoint_every_n_hours() * 3600.0;
    if (keep_seconds > 0 && saved_at >= next_preserved_time_) {
      next_preserved_time_ += keep_seconds;  // preserved: left on disk, no longer tracked
      continue;
    }
    TG_RETURN_IF_ERROR(DeleteCheckpoint(old_path));
  }
  return Status::OK();
}

Status Saver::Restore(Session& session, const std::string& path) {
  if (session.graph() != &graph_) {
    return InvalidArgument("Saver: the session runs another graph than the Saver's");
  }
  TG_ASSIGN_OR_RETURN(const SaverRegistration* format, SaverRegistry::Global()->ForPrefix(path));
  if (format->def.exists != nullptr && !format->Exists(path)) {
    return NotFound("The passed save_path is not a valid checkpoint: ", path);
  }
  TG_ASSIGN_OR_RETURN(std::vector<RestoreTarget> targets, FindRestoreTargets(graph_, def_));
  std::vector<SaverRegistration::Entry> listing;
  Status listed = format->List(path, &listing);
  if (listed.ok()) {
    std::map<std::string, const SaverRegistration::Entry*> by_key;
    for (const auto& e : listing) by_key[e.name] = &e;
    for (const RestoreTarget& t : targets) {
      auto it = by_key.find(t.key);
      const std::string var = t.variable != nullptr ? t.variable->name() : t.key;
      if (it == by_key.end()) {
        return NotFound("Key ", t.key, " not found in checkpoint '", path,
                        "' (restoring variable '", var, "')");
      }
      const SaverRegistration::Entry& e = *it->second;
      if (e.dtype != t.dtype) {
        return InvalidArgument("variable '", var, "' is ", DataTypeName(t.dtype), " but checkpoint '",
                               path, "' holds '", t.key, "' as ", DataTypeName(e.dtype));
      }
      if (t.validate_shape && !t.shape.IsCompatibleWith(PartialShape(e.dims))) {
        return InvalidArgument("variable '", var, "' has shape ", t.shape.ToString(),
                               " but checkpoint '", path, "' holds '", t.key, "' with shape ",
                               DimsString(e.dims));
      }
    }
  } else if (listed.code() != Code::kUnimplemented) {
    return listed;
  }
  TG_ASSIGN_OR_RETURN(Tensor filename, StringScalar(path));
  std::vector<Tensor> outputs;
  return session.Run({{filename_tensor_, filename}}, {}, {restore_op_}, &outputs);
}

Status DeleteCheckpoint(const std::string& prefix) {
  TG_ASSIGN_OR_RETURN(const SaverRegistration* format, SaverRegistry::Global()->ForPrefix(prefix));
  TG_RETURN_IF_ERROR(format->Remove(prefix));
  boost::system::error_code ec;
  fs::remove(prefix + ".meta", ec);  // absent is fine
  return Status::OK();
}

}  // namespace tgraph
