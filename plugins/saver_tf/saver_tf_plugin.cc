// The "tensorflow_v2" saver: TensorFlow's V2 checkpoint format (the tensor bundle) as a
// tgraph saver plugin. This file is the boundary: it turns the core's host tensors into the
// bundle writer's byte ranges and the reader's bytes into tensors the core allocates, and
// BundleStatus into TG_Status. It is the default format (no file extension), chosen for any
// prefix no other saver claims.
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "bundle_files.h"
#include "bundle_reader.h"
#include "bundle_writer.h"
#include "tgraph/plugin.hpp"

namespace tgraph::saver_tf {
namespace {

using plugin::Api;

void Report(const BundleStatus& s, TG_Status* status) {
  if (!s.ok()) Api()->set_status(status, s.code, s.message.c_str());
}

// Runs `body` with C++ exceptions turned into a status: none may cross into the core.
template <typename Body>
void Guarded(TG_Status* status, Body body) {
  try {
    Report(body(), status);
  } catch (const std::bad_alloc&) {
    Report(Error(TG_RESOURCE_EXHAUSTED, "out of memory in the tensorflow_v2 saver"), status);
  } catch (const std::exception& e) {
    Report(Error(TG_INTERNAL, Str("tensorflow_v2 saver: ", e.what())), status);
  }
}

BundleStatus Unsupported(const std::string& name, TG_DataType dtype) {
  return Error(TG_UNIMPLEMENTED, Str("tensor '", name, "' has dtype ", static_cast<int>(dtype),
                                     " (resource or variant), which the tensorflow_v2 saver "
                                     "does not store"));
}

bool IsUnsupported(TG_DataType dtype) { return dtype == TG_RESOURCE || dtype == TG_VARIANT; }

// A new host tensor, or the core's reason for refusing it (its status, read back).
BundleStatus NewTensor(const std::string& name, TG_DataType dtype,
                       const std::vector<int64_t>& dims, TG_Status* status, TG_Tensor** out) {
  *out = Api()->new_host_tensor(dtype, dims.data(), static_cast<int>(dims.size()), status);
  if (*out != nullptr) return BundleStatus::OK();
  const TG_Code code = Api()->status_code(status);
  return Error(code == TG_OK ? TG_INTERNAL : code,
               Str("cannot allocate tensor '", name, "' (dtype ", static_cast<int>(dtype), ", ",
                   dims.size(), " dims)"));
}

// The size of one element of `dtype` as the core lays tensors out (the core is the
// authority on dtype sizes, which the file format shares): a one-element tensor's bytes.
BundleStatus ElementSize(const std::string& name, TG_DataType dtype, TG_Status* status,
                         size_t* size) {
  const int value = static_cast<int>(dtype);
  if (value <= 0 || value >= TG_DATA_TYPE_REF_OFFSET) {
    return Error(TG_DATA_LOSS, Str("tensor '", name, "' has an invalid dtype (", value, ")"));
  }
  if (IsUnsupported(dtype)) return Unsupported(name, dtype);
  TG_Tensor* probe = nullptr;
  SAVER_TF_RETURN_IF_ERROR(NewTensor(name, dtype, {1}, status, &probe));
  *size = Api()->tensor_byte_size(probe);
  Api()->delete_host_tensor(probe);
  return BundleStatus::OK();
}

// Complex numbers are two floats: a big-endian file swaps each half on its own.
size_t SwapUnit(TG_DataType dtype, size_t element_size) {
  return dtype == TG_COMPLEX64 || dtype == TG_COMPLEX128 ? element_size / 2 : element_size;
}

// ---- save ----

BundleStatus AddTensor(BundleWriter* writer, const std::string& name, const TG_Tensor* tensor) {
  if (tensor == nullptr) return Error(TG_INVALID_ARGUMENT, Str("tensor '", name, "' is NULL"));
  const plugin::TensorView view(tensor);
  const TG_DataType dtype = view.dtype();
  const std::vector<int64_t> dims = view.dims();
  if (dtype == TG_STRING) {
    return writer->AddStrings(name, dims, view.num_elements(),
                              [&view](int64_t i) { return view.string_at(i); });
  }
  if (IsUnsupported(dtype)) return Unsupported(name, dtype);
  return writer->AddRaw(name, dtype, dims, Api()->tensor_data(tensor), view.byte_size());
}

void Save(void* /*user_data*/, const char* prefix, const char* const* names,
          const TG_Tensor* const* tensors, size_t count, TG_Status* status) {
  Guarded(status, [&]() -> BundleStatus {
    if (prefix == nullptr || (count > 0 && (names == nullptr || tensors == nullptr))) {
      return Error(TG_INVALID_ARGUMENT, "save: NULL prefix, names or tensors");
    }
    BundleWriter writer(prefix);
    SAVER_TF_RETURN_IF_ERROR(writer.Begin());
    for (size_t i = 0; i < count; ++i) {
      const std::string name = names[i] != nullptr ? names[i] : "";
      BundleStatus s = AddTensor(&writer, name, tensors[i]);
      if (!s.ok()) return Error(s.code, Str("saving tensor '", name, "': ", s.message));
    }
    return writer.Finish();
  });
}

// ---- restore ----

BundleStatus ReadTensor(const BundleReader& reader, const std::string& name, TG_Status* status,
                        TG_Tensor** out) {
  const tf::BundleEntryProto* entry = nullptr;
  SAVER_TF_RETURN_IF_ERROR(reader.Lookup(name, &entry));
  std::vector<int64_t> dims;
  int64_t count = 0;
  SAVER_TF_RETURN_IF_ERROR(BundleReader::Dims(name, *entry, &dims, &count));
  const auto dtype = static_cast<TG_DataType>(entry->dtype());
  const bool partitioned = entry->slices_size() > 0;
  if (partitioned && dtype == TG_STRING) {
    return Error(TG_UNIMPLEMENTED, Str("tensor '", name, "' of checkpoint '", reader.prefix(),
                                       "' is a partitioned string tensor, which this reader "
                                       "does not assemble"));
  }
  if (dtype == TG_STRING) {
    std::vector<std::string> strings;
    SAVER_TF_RETURN_IF_ERROR(reader.ReadStrings(name, *entry, count, &strings));
    SAVER_TF_RETURN_IF_ERROR(NewTensor(name, dtype, dims, status, out));
    for (int64_t i = 0; i < count; ++i) {
      const std::string& s = strings[static_cast<size_t>(i)];
      Api()->tensor_set_string(*out, i, s.data(), s.size());
    }
    return BundleStatus::OK();
  }
  size_t element_size = 0;
  SAVER_TF_RETURN_IF_ERROR(ElementSize(name, dtype, status, &element_size));
  if (element_size != 0 &&
      static_cast<uint64_t>(count) > std::numeric_limits<uint64_t>::max() / element_size) {
    return Error(TG_DATA_LOSS, Str("tensor '", name, "' is too large for its dtype"));
  }
  const uint64_t bytes = static_cast<uint64_t>(count) * element_size;
  // Before allocating: a corrupt entry must not make us allocate what its shape claims.
  if (!partitioned) SAVER_TF_RETURN_IF_ERROR(reader.CheckRawSize(name, *entry, bytes));
  SAVER_TF_RETURN_IF_ERROR(NewTensor(name, dtype, dims, status, out));
  void* data = Api()->tensor_data(*out);
  SAVER_TF_RETURN_IF_ERROR(
      partitioned ? reader.ReadPartitioned(name, *entry, element_size, data, bytes)
                  : reader.ReadRaw(name, *entry, data, bytes));
  if (reader.big_endian()) SwapBytes(data, bytes, SwapUnit(dtype, element_size));
  return BundleStatus::OK();
}

void Restore(void* /*user_data*/, const char* prefix, const char* const* names, size_t count,
             TG_Tensor** tensors, TG_Status* status) {
  Guarded(status, [&]() -> BundleStatus {
    if (prefix == nullptr || (count > 0 && (names == nullptr || tensors == nullptr))) {
      return Error(TG_INVALID_ARGUMENT, "restore: NULL prefix, names or tensors");
    }
    std::unique_ptr<BundleReader> reader;
    SAVER_TF_RETURN_IF_ERROR(BundleReader::Open(prefix, &reader));
    for (size_t i = 0; i < count; ++i) {
      const std::string name = names[i] != nullptr ? names[i] : "";
      SAVER_TF_RETURN_IF_ERROR(ReadTensor(*reader, name, status, &tensors[i]));
    }
    return BundleStatus::OK();
  });
}

// ---- list, exists, remove, merge ----

void List(void* /*user_data*/, const char* prefix, TG_CheckpointVisitFn visit, void* visit_arg,
          TG_Status* status) {
  Guarded(status, [&]() -> BundleStatus {
    if (prefix == nullptr || visit == nullptr) {
      return Error(TG_INVALID_ARGUMENT, "list: NULL prefix or visitor");
    }
    std::unique_ptr<BundleReader> reader;
    SAVER_TF_RETURN_IF_ERROR(BundleReader::Open(prefix, &reader));
    for (const auto& [name, entry] : reader->entries()) {
      std::vector<int64_t> dims;
      int64_t count = 0;
      SAVER_TF_RETURN_IF_ERROR(BundleReader::Dims(name, entry, &dims, &count));
      TG_CheckpointEntry visited{};
      visited.struct_size = sizeof(visited);
      visited.name = name.c_str();
      visited.dtype = static_cast<TG_DataType>(entry.dtype());
      visited.num_dims = static_cast<int>(dims.size());
      visited.dims = dims.empty() ? nullptr : dims.data();
      if (visit(visit_arg, &visited) != 0) break;
    }
    return BundleStatus::OK();
  });
}

int Exists(void* /*user_data*/, const char* prefix) {
  try {
    return prefix != nullptr && BundleExists(prefix) ? 1 : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

void Remove(void* /*user_data*/, const char* prefix, TG_Status* status) {
  Guarded(status, [&]() -> BundleStatus {
    if (prefix == nullptr) return Error(TG_INVALID_ARGUMENT, "remove: NULL prefix");
    return RemoveBundle(prefix);
  });
}

void Merge(void* /*user_data*/, const char* const* prefixes, size_t count,
           const char* destination, int delete_old_dirs, TG_Status* status) {
  Guarded(status, [&]() -> BundleStatus {
    if (destination == nullptr || (count > 0 && prefixes == nullptr)) {
      return Error(TG_INVALID_ARGUMENT, "merge: NULL prefixes or destination");
    }
    std::vector<std::string> sources;
    for (size_t i = 0; i < count; ++i) sources.emplace_back(prefixes[i] ? prefixes[i] : "");
    return MergeBundles(sources, destination, delete_old_dirs != 0);
  });
}

}  // namespace
}  // namespace tgraph::saver_tf

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  using namespace tgraph::saver_tf;
  tgraph::plugin::Init init(args, status, "saver_tf", "0.1.0");
  if (!init.ok()) return;
  TG_SaverDefinition saver{};
  saver.struct_size = sizeof(saver);
  saver.format = "tensorflow_v2";
  saver.save = Save;
  saver.restore = Restore;
  saver.file_extension = nullptr;  // the default format
  saver.list = List;
  saver.exists = Exists;
  saver.remove = Remove;
  saver.merge = Merge;
  Api()->register_saver(&saver, status);
}
