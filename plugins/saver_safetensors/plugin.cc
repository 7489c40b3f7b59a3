// The plugin's entry point: registers the "safetensors" saver, whose C callbacks call
// saver.h and turn its statuses (and any exception) into the caller's TG_Status.
#include <exception>
#include <new>
#include <string>

#include "saver.h"
#include "tgraph/plugin.hpp"

namespace tgraph_safetensors {
namespace {

using tgraph::plugin::SetStatus;

template <typename Body>
void Guarded(TG_Status* status, const char* prefix, Body&& body) {
  if (prefix == nullptr) {
    SetStatus(status, TG_INVALID_ARGUMENT, "safetensors: the checkpoint path is NULL");
    return;
  }
  try {
    const Status s = body(std::string(prefix));
    if (!s.ok()) SetStatus(status, s.code(), s.message());
  } catch (const std::bad_alloc&) {
    SetStatus(status, TG_RESOURCE_EXHAUSTED,
              StrCat("safetensors file '", prefix, "': out of memory"));
  } catch (const std::exception& e) {
    SetStatus(status, TG_INTERNAL, StrCat("safetensors file '", prefix, "': ", e.what()));
  }
}

void SaveThunk(void*, const char* prefix, const char* const* names,
               const TG_Tensor* const* tensors, size_t count, TG_Status* status) {
  Guarded(status, prefix, [&](const std::string& path) {
    return Save(path, names, tensors, count);
  });
}

void RestoreThunk(void*, const char* prefix, const char* const* names, size_t count,
                  TG_Tensor** tensors, TG_Status* status) {
  Guarded(status, prefix, [&](const std::string& path) {
    return Restore(path, names, count, tensors, status);
  });
}

void ListThunk(void*, const char* prefix, TG_CheckpointVisitFn visit, void* visit_arg,
               TG_Status* status) {
  Guarded(status, prefix, [&](const std::string& path) {
    return List(path, visit, visit_arg);
  });
}

int ExistsThunk(void*, const char* prefix) {
  try {
    return prefix != nullptr && Exists(prefix) ? 1 : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

void RemoveThunk(void*, const char* prefix, TG_Status* status) {
  Guarded(status, prefix, [&](const std::string& path) { return Remove(path); });
}

}  // namespace
}  // namespace tgraph_safetensors

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args,
                                               TG_Status* status) {
  using namespace tgraph_safetensors;
  tgraph::plugin::Init init(args, status, "saver_safetensors", "0.1.0");
  TG_SaverDefinition def{};
  def.struct_size = sizeof(def);
  def.format = "safetensors";
  def.save = SaveThunk;
  def.restore = RestoreThunk;
  def.file_extension = ".safetensors";  // the prefix is the file itself
  def.list = ListThunk;
  def.exists = ExistsThunk;
  def.remove = RemoveThunk;
  def.merge = nullptr;  // one file per checkpoint: sharded saves are not offered
  tgraph::plugin::Api()->register_saver(&def, status);
}
