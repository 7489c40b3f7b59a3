// Checkpoint files: TensorFlow's CheckpointReader / BundleWriter over the saver plugins
// (core/plugin/registry.h's SaverRegistration), the format chosen by the prefix.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "c_api/src/c_api_internal.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

using namespace tgraph;
using namespace tgraph::capi;

struct TG_CheckpointReader {
  std::string prefix;
  const SaverRegistration* saver = nullptr;
  std::vector<SaverRegistration::Entry> entries;  // in name order
};

namespace {

// The saver for `prefix`. Savers are plugins: the first call loads the search path's
// plugins, and a prefix no loaded saver serves loads it again (a plugin may have been added
// to TGRAPH_PLUGIN_PATH's directories since).
StatusOr<const SaverRegistration*> SaverFor(const char* fn, const char* prefix) {
  if (prefix == nullptr) return NullArg(fn, "prefix");
  static std::once_flag discovered;
  std::call_once(discovered, [] { (void)LoadPluginsFromSearchPath(); });
  StatusOr<const SaverRegistration*> saver = SaverRegistry::Global()->ForPrefix(prefix);
  if (saver.ok()) return saver;
  Status discovery = LoadPluginsFromSearchPath();
  saver = SaverRegistry::Global()->ForPrefix(prefix);
  if (saver.ok() || discovery.ok()) return saver;
  return Status(saver.status().code(), StrCat(saver.status().message(),
                                              "; loading plugins: ", discovery.message()));
}

const SaverRegistration::Entry* EntryAt(const TG_CheckpointReader* reader, int index) {
  if (reader == nullptr || index < 0 || static_cast<size_t>(index) >= reader->entries.size()) {
    return nullptr;
  }
  return &reader->entries[static_cast<size_t>(index)];
}

}  // namespace

extern "C" TG_CheckpointReader* TG_NewCheckpointReader(const char* prefix, TG_Status* status) {
  return GuardValue<TG_CheckpointReader*>(
      status, nullptr, [&](TG_CheckpointReader** out) -> Status {
        TG_ASSIGN_OR_RETURN(const SaverRegistration* saver,
                            SaverFor("TG_NewCheckpointReader", prefix));
        auto reader = std::make_unique<TG_CheckpointReader>();
        reader->prefix = prefix;
        reader->saver = saver;
        TG_RETURN_IF_ERROR(saver->List(prefix, &reader->entries));
        std::sort(reader->entries.begin(), reader->entries.end(),
                  [](const auto& a, const auto& b) { return a.name < b.name; });
        *out = reader.release();
        return Status::OK();
      });
}

extern "C" void TG_DeleteCheckpointReader(TG_CheckpointReader* reader) { delete reader; }

extern "C" const char* TG_CheckpointReaderFormat(const TG_CheckpointReader* reader) {
  return reader == nullptr ? "" : reader->saver->format.c_str();
}

extern "C" int TG_CheckpointReaderNumTensors(const TG_CheckpointReader* reader) {
  return reader == nullptr ? 0 : static_cast<int>(reader->entries.size());
}

extern "C" const char* TG_CheckpointReaderTensorName(const TG_CheckpointReader* reader,
                                                     int index) {
  const SaverRegistration::Entry* entry = EntryAt(reader, index);
  return entry == nullptr ? nullptr : entry->name.c_str();
}

extern "C" TG_DataType TG_CheckpointReaderTensorType(const TG_CheckpointReader* reader,
                                                     int index) {
  const SaverRegistration::Entry* entry = EntryAt(reader, index);
  return entry == nullptr ? TG_INVALID_DTYPE : static_cast<TG_DataType>(entry->dtype);
}

extern "C" int TG_CheckpointReaderTensorNumDims(const TG_CheckpointReader* reader, int index) {
  const SaverRegistration::Entry* entry = EntryAt(reader, index);
  return entry == nullptr ? -1 : static_cast<int>(entry->dims.size());
}

extern "C" void TG_CheckpointReaderTensorDims(const TG_CheckpointReader* reader, int index,
                                              int64_t* dims, int num_dims, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (reader == nullptr) return NullArg("TG_CheckpointReaderTensorDims", "reader");
    const SaverRegistration::Entry* entry = EntryAt(reader, index);
    if (entry == nullptr) {
      return InvalidArgument("TG_CheckpointReaderTensorDims: index ", index,
                             " is out of range [0, ", reader->entries.size(), ")");
    }
    if (num_dims != static_cast<int>(entry->dims.size())) {
      return InvalidArgument("TG_CheckpointReaderTensorDims: tensor '", entry->name, "' has ",
                             entry->dims.size(), " dims, not ", num_dims);
    }
    if (num_dims > 0 && dims == nullptr) return NullArg("TG_CheckpointReaderTensorDims", "dims");
    std::copy(entry->dims.begin(), entry->dims.end(), dims);
    return Status::OK();
  });
}

extern "C" int TG_CheckpointReaderFind(const TG_CheckpointReader* reader, const char* name) {
  if (reader == nullptr || name == nullptr) return -1;
  auto it = std::lower_bound(reader->entries.begin(), reader->entries.end(), name,
                             [](const auto& entry, const char* n) { return entry.name < n; });
  if (it == reader->entries.end() || it->name != name) return -1;
  return static_cast<int>(it - reader->entries.begin());
}

extern "C" TG_Tensor* TG_CheckpointReaderRead(const TG_CheckpointReader* reader,
                                              const char* name, TG_Status* status) {
  return GuardValue<TG_Tensor*>(status, nullptr, [&](TG_Tensor** out) -> Status {
    if (reader == nullptr) return NullArg("TG_CheckpointReaderRead", "reader");
    if (name == nullptr) return NullArg("TG_CheckpointReaderRead", "name");
    std::vector<Tensor> tensors;
    TG_RETURN_IF_ERROR(reader->saver->Restore(reader->prefix, {name}, &tensors));
    *out = new TG_Tensor{std::move(tensors.at(0))};
    return Status::OK();
  });
}

extern "C" int TG_CheckpointExists(const char* prefix) {
  return NoThrow(0, [&] {
    StatusOr<const SaverRegistration*> saver = SaverFor("TG_CheckpointExists", prefix);
    return saver.ok() && (*saver)->Exists(prefix) ? 1 : 0;
  });
}

extern "C" void TG_CheckpointWrite(const char* prefix, const char* const* names,
                                   TG_Tensor* const* tensors, int n, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (n < 0) return InvalidArgument("TG_CheckpointWrite: n is ", n);
    if (n > 0 && names == nullptr) return NullArg("TG_CheckpointWrite", "names");
    if (n > 0 && tensors == nullptr) return NullArg("TG_CheckpointWrite", "tensors");
    TG_ASSIGN_OR_RETURN(const SaverRegistration* saver, SaverFor("TG_CheckpointWrite", prefix));
    std::vector<std::string> name_list;
    std::vector<Tensor> tensor_list;
    for (int i = 0; i < n; ++i) {
      if (names[i] == nullptr) return InvalidArgument("TG_CheckpointWrite: names[", i, "] is NULL");
      if (tensors[i] == nullptr) {
        return InvalidArgument("TG_CheckpointWrite: the tensor of '", names[i], "' is NULL");
      }
      name_list.emplace_back(names[i]);
      tensor_list.push_back(tensors[i]->tensor);  // shares the buffer: no copy
    }
    return saver->Save(prefix, name_list, tensor_list);
  });
}

extern "C" void TG_CheckpointRemove(const char* prefix, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const SaverRegistration* saver, SaverFor("TG_CheckpointRemove", prefix));
    return saver->Remove(prefix);
  });
}

extern "C" void TG_CheckpointMerge(const char* const* prefixes, int n, const char* destination,
                                   int delete_old_dirs, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (n <= 0 || prefixes == nullptr) {
      return InvalidArgument("TG_CheckpointMerge: no checkpoints to merge");
    }
    TG_ASSIGN_OR_RETURN(const SaverRegistration* saver,
                        SaverFor("TG_CheckpointMerge", destination));
    std::vector<std::string> sources;
    for (int i = 0; i < n; ++i) {
      if (prefixes[i] == nullptr) {
        return InvalidArgument("TG_CheckpointMerge: prefixes[", i, "] is NULL");
      }
      sources.emplace_back(prefixes[i]);
    }
    return saver->Merge(sources, destination, delete_old_dirs != 0);
  });
}
