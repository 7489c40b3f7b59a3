// The Saver section of c_api.h: TG_NewSaver / TG_NewSaverFromDef over the core's Saver
// (core/checkpoint), save / restore in a session, and the checkpoint state file.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c_api/src/c_api_internal.h"
#include "core/base/file_io.h"
#include "core/checkpoint/checkpoint_state.h"
#include "core/checkpoint/saver.h"
#include "core/plugin/registry.h"

using namespace tgraph;
using namespace tgraph::capi;

struct TG_Saver {
  TG_Graph* graph = nullptr;
  std::unique_ptr<Saver> saver;
  std::string last_path;                  // what TG_SaverSave returned last
};

namespace {

#define TG_SAVER_HAS(opts, field) \
  ((opts)->struct_size >= offsetof(TG_SaverOptions, field) + sizeof((opts)->field))

// The first released TG_SaverOptions (ABI of this header): older callers do not exist yet.
constexpr size_t kSaverOptionsV1Size = sizeof(TG_SaverOptions);

Status ReadSaverOptions(const TG_Graph* g, const TG_SaverOptions* in, SaverBuildOptions* out,
                        std::vector<SaveEntry>* entries) {
  const char* fn = "TG_NewSaver";
  *out = SaverBuildOptions();
  std::vector<Variable*> vars;
  std::vector<std::string> names;
  if (in != nullptr) {
    if (in->struct_size < kSaverOptionsV1Size || in->struct_size > sizeof(TG_SaverOptions)) {
      return InvalidArgument(fn, ": TG_SaverOptions.struct_size is ", in->struct_size,
                             "; expected ", sizeof(TG_SaverOptions),
                             " (initialise it with TG_InitSaverOptions)");
    }
    if (TG_SAVER_HAS(in, name) && in->name != nullptr && in->name[0] != '\0') out->name = in->name;
    if (TG_SAVER_HAS(in, max_to_keep)) out->max_to_keep = in->max_to_keep;
    if (TG_SAVER_HAS(in, keep_checkpoint_every_n_hours)) {
      out->keep_checkpoint_every_n_hours = in->keep_checkpoint_every_n_hours;
    }
    if (TG_SAVER_HAS(in, sharded)) out->sharded = in->sharded != 0;
    if (TG_SAVER_HAS(in, filename) && in->filename != nullptr) out->filename = in->filename;
    if (in->num_vars < 0) return InvalidArgument(fn, ": num_vars is ", in->num_vars);
    if (in->num_vars > 0 && in->var_list == nullptr) return NullArg(fn, "var_list");
    for (int i = 0; i < in->num_vars; ++i) {
      if (in->var_list[i] == nullptr) return InvalidArgument(fn, ": var_list[", i, "] is NULL");
      vars.push_back(const_cast<Variable*>(ToVar(in->var_list[i])));
      if (in->save_names != nullptr) {
        if (in->save_names[i] == nullptr) {
          return InvalidArgument(fn, ": save_names[", i, "] is NULL");
        }
        names.emplace_back(in->save_names[i]);
      }
    }
  }
  if (vars.empty()) {
    // Every global variable, under its op name (TF's default var_list).
    if (const auto* items = g->graph.collections().Find(collection_keys::kGlobalVariables)) {
      for (const CollectionItem& item : *items) {
        if (item.variable != nullptr) vars.push_back(item.variable);
      }
    }
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    entries->push_back(SaveEntry{names.empty() ? vars[i]->name : names[i], vars[i]});
  }
  return Status::OK();
}

}  // namespace

extern "C" void TG_InitSaverOptions(TG_SaverOptions* opts) {
  if (opts == nullptr) return;
  std::memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->max_to_keep = 5;
  opts->keep_checkpoint_every_n_hours = 10000.0f;
}

extern "C" TG_Saver* TG_NewSaver(TG_Graph* g, const TG_SaverOptions* opts, TG_Status* status) {
  return GuardValue<TG_Saver*>(status, nullptr, [&](TG_Saver** out) -> Status {
    if (g == nullptr) return NullArg("TG_NewSaver", "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction("TG_NewSaver", g));
    SaverBuildOptions options;
    std::vector<SaveEntry> entries;
    TG_RETURN_IF_ERROR(ReadSaverOptions(g, opts, &options, &entries));
    auto handle = std::make_unique<TG_Saver>();
    handle->graph = g;
    TG_ASSIGN_OR_RETURN(handle->saver, Saver::Create(g->graph, std::move(entries), options));
    *out = handle.release();
    return Status::OK();
  });
}

extern "C" TG_Saver* TG_NewSaverFromDef(TG_Graph* g, const void* saver_def, size_t len,
                                        TG_Status* status) {
  return GuardValue<TG_Saver*>(status, nullptr, [&](TG_Saver** out) -> Status {
    if (g == nullptr) return NullArg("TG_NewSaverFromDef", "the graph");
    if (saver_def == nullptr && len > 0) return NullArg("TG_NewSaverFromDef", "saver_def");
    tf::SaverDef def;
    if (!def.ParseFromArray(saver_def, static_cast<int>(len))) {
      return InvalidArgument("TG_NewSaverFromDef: the ", len, " bytes are not a SaverDef");
    }
    GraphLock lock(g->graph.mutex());
    auto handle = std::make_unique<TG_Saver>();
    handle->graph = g;
    TG_ASSIGN_OR_RETURN(handle->saver, Saver::FromSaverDef(g->graph, def));
    *out = handle.release();
    return Status::OK();
  });
}

extern "C" void TG_DeleteSaver(TG_Saver* saver) { delete saver; }

extern "C" void TG_SaverToSaverDef(const TG_Saver* saver, TG_Buffer* saver_def, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (saver == nullptr) return NullArg("TG_SaverToSaverDef", "the saver");
    if (saver_def == nullptr) return NullArg("TG_SaverToSaverDef", "the buffer");
    std::string bytes;
    if (!saver->saver->def().SerializeToString(&bytes)) {
      return Internal("TG_SaverToSaverDef: could not serialize the SaverDef");
    }
    return FillBuffer(saver_def, bytes);
  });
}

extern "C" const char* TG_SaverSave(TG_Saver* saver, TG_Session* session, const char* save_path,
                                    const int64_t* global_step, const TG_Buffer* meta_graph,
                                    const char* latest_filename, TG_Status* status) {
  return GuardValue<const char*>(status, nullptr, [&](const char** out) -> Status {
    const char* fn = "TG_SaverSave";
    if (saver == nullptr) return NullArg(fn, "the saver");
    if (session == nullptr || session->session == nullptr) return NullArg(fn, "the session");
    if (save_path == nullptr) return NullArg(fn, "save_path");
    if (meta_graph != nullptr && meta_graph->data == nullptr && meta_graph->length > 0) {
      return NullArg(fn, "meta_graph->data");
    }
    Saver::MetaGraphWriter write_meta;
    if (meta_graph != nullptr) {
      write_meta = [meta_graph](const std::string& meta_path) {
        return WriteFileAtomically(
            meta_path, std::string(static_cast<const char*>(meta_graph->data), meta_graph->length));
      };
    }
    std::optional<int64_t> step;
    if (global_step != nullptr) step = *global_step;
    TG_ASSIGN_OR_RETURN(std::string path,
                        saver->saver->Save(*session->session, save_path, step, write_meta,
                                           latest_filename != nullptr ? latest_filename
                                                                      : kCheckpointStateFile));
    saver->last_path = std::move(path);
    *out = saver->last_path.c_str();
    return Status::OK();
  });
}

extern "C" void TG_SaverRestore(TG_Saver* saver, TG_Session* session, const char* save_path,
                                TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_SaverRestore";
    if (saver == nullptr) return NullArg(fn, "the saver");
    if (session == nullptr || session->session == nullptr) return NullArg(fn, "the session");
    if (save_path == nullptr) return NullArg(fn, "save_path");
    return saver->saver->Restore(*session->session, save_path);
  });
}

extern "C" int TG_SaverNumLastCheckpoints(const TG_Saver* saver) {
  return saver == nullptr ? 0 : static_cast<int>(saver->saver->last_checkpoints().size());
}

extern "C" const char* TG_SaverLastCheckpoint(const TG_Saver* saver, int i) {
  if (saver == nullptr || i < 0 ||
      i >= static_cast<int>(saver->saver->last_checkpoints().size())) {
    return nullptr;
  }
  return saver->saver->last_checkpoints()[static_cast<size_t>(i)].first.c_str();
}

extern "C" void TG_SaverRecoverLastCheckpoints(TG_Saver* saver, const char* const* paths,
                                               int num_paths) {
  if (saver == nullptr || num_paths < 0 || (num_paths > 0 && paths == nullptr)) return;
  NoThrow(0, [&] {
    std::vector<std::pair<std::string, double>> kept;
    for (int i = 0; i < num_paths; ++i) {
      if (paths[i] == nullptr) continue;
      auto format = SaverRegistry::Global()->ForPrefix(paths[i]);
      if (format.ok() && format.value()->Exists(paths[i])) kept.emplace_back(paths[i], 0.0);
    }
    saver->saver->SetLastCheckpoints(std::move(kept));
    return 0;
  });
}

extern "C" int TG_LatestCheckpoint(const char* checkpoint_dir, const char* latest_filename,
                                   TG_Buffer* path, TG_Status* status) {
  return GuardValue<int>(status, 0, [&](int* out) -> Status {
    if (checkpoint_dir == nullptr) return NullArg("TG_LatestCheckpoint", "checkpoint_dir");
    if (path == nullptr) return NullArg("TG_LatestCheckpoint", "the path buffer");
    TG_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                        LatestCheckpoint(checkpoint_dir, latest_filename != nullptr ? latest_filename : ""));
    *out = 0;
    if (latest) {
      TG_RETURN_IF_ERROR(FillBuffer(path, *latest));
      *out = 1;
    }
    return Status::OK();
  });
}

extern "C" void TG_GetCheckpointState(const char* checkpoint_dir, const char* latest_filename,
                                      TG_Buffer* state, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (checkpoint_dir == nullptr) return NullArg("TG_GetCheckpointState", "checkpoint_dir");
    if (state == nullptr) return NullArg("TG_GetCheckpointState", "the state buffer");
    TG_ASSIGN_OR_RETURN(tf::CheckpointState proto,
                        ReadCheckpointState(checkpoint_dir, latest_filename != nullptr ? latest_filename : ""));
    std::string bytes;
    if (!proto.SerializeToString(&bytes)) return Internal("could not serialize the CheckpointState");
    return FillBuffer(state, bytes);
  });
}
