#include "core/plugin/checkpoint_services.h"

#include <memory>
#include <string>
#include <vector>

#include "core/plugin/abi_handles.h"
#include "core/plugin/registry.h"
#include "core/plugin/status_boundary.h"

namespace tgraph {
namespace {

Status CheckNames(const char* call, const char* prefix, const char* const* names, size_t count) {
  if (prefix == nullptr) return InvalidArgument(call, ": the checkpoint prefix is NULL");
  if (count > 0 && names == nullptr) return InvalidArgument(call, ": names is NULL");
  for (size_t i = 0; i < count; ++i) {
    if (names[i] == nullptr) return InvalidArgument(call, ": name ", i, " is NULL");
  }
  return Status::OK();
}

void ApiCheckpointSave(const char* prefix, const char* const* names,
                       const TG_Tensor* const* tensors, size_t count, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_RETURN_IF_ERROR(CheckNames("checkpoint_save", prefix, names, count));
    if (count > 0 && tensors == nullptr) return InvalidArgument("checkpoint_save: tensors is NULL");
    std::vector<std::string> name_list(names, names + count);
    std::vector<Tensor> tensor_list;
    tensor_list.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      if (tensors[i] == nullptr) {
        return InvalidArgument("checkpoint_save: tensor '", names[i], "' is NULL");
      }
      tensor_list.push_back(tensors[i]->tensor);  // shares the buffer: no copy
    }
    TG_ASSIGN_OR_RETURN(const SaverRegistration* saver, SaverRegistry::Global()->ForPrefix(prefix));
    return saver->Save(prefix, name_list, tensor_list);
  });
}

void ApiCheckpointRestore(const char* prefix, const char* const* names, size_t count,
                          TG_Tensor** tensors, TG_Status* status) {
  if (tensors != nullptr) {
    for (size_t i = 0; i < count; ++i) tensors[i] = nullptr;
  }
  Guard(status, [&]() -> Status {
    TG_RETURN_IF_ERROR(CheckNames("checkpoint_restore", prefix, names, count));
    if (count > 0 && tensors == nullptr) {
      return InvalidArgument("checkpoint_restore: tensors is NULL");
    }
    TG_ASSIGN_OR_RETURN(const SaverRegistration* saver, SaverRegistry::Global()->ForPrefix(prefix));
    std::vector<Tensor> restored;
    TG_RETURN_IF_ERROR(saver->Restore(prefix, std::vector<std::string>(names, names + count),
                                      &restored));
    for (size_t i = 0; i < count; ++i) tensors[i] = new TG_Tensor{std::move(restored[i])};
    return Status::OK();
  });
}

void ApiCheckpointMerge(const char* const* prefixes, size_t count, const char* destination,
                        int delete_old_dirs, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_RETURN_IF_ERROR(CheckNames("checkpoint_merge", destination, prefixes, count));
    TG_ASSIGN_OR_RETURN(const SaverRegistration* saver,
                        SaverRegistry::Global()->ForPrefix(destination));
    return saver->Merge(std::vector<std::string>(prefixes, prefixes + count), destination,
                        delete_old_dirs != 0);
  });
}

}  // namespace

void FillCheckpointServices(TG_CoreApi* api) {
  api->checkpoint_save = ApiCheckpointSave;
  api->checkpoint_restore = ApiCheckpointRestore;
  api->checkpoint_merge = ApiCheckpointMerge;
}

}  // namespace tgraph
