#include "saver.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <set>
#include <string_view>
#include <vector>

#include "dtypes.h"
#include "header.h"
#include "posix_file.h"
#include "tgraph/plugin.hpp"

// The data section is the tensors' bytes as they lie in memory; safetensors fixes them as
// little-endian, so a big-endian host would need a byte swap this plugin does not have.
static_assert(std::endian::native == std::endian::little,
              "saver_safetensors writes and reads tensors in host byte order");

namespace tgraph_safetensors {
namespace {

using tgraph::plugin::Api;
using tgraph::plugin::TensorView;

constexpr size_t kLengthBytes = 8;

std::array<unsigned char, kLengthBytes> EncodeLength(uint64_t n) {
  std::array<unsigned char, kLengthBytes> out{};
  for (size_t i = 0; i < kLengthBytes; ++i) out[i] = static_cast<unsigned char>(n >> (8 * i));
  return out;
}

uint64_t DecodeLength(const std::array<unsigned char, kLengthBytes>& in) {
  uint64_t n = 0;
  for (size_t i = 0; i < kLengthBytes; ++i) n |= static_cast<uint64_t>(in[i]) << (8 * i);
  return n;
}

// A checkpoint file whose header has been read and checked in full.
struct CheckedFile {
  ReadFile file;
  Header header;
  uint64_t data_start = 0;  // file offset of the data section
};

Status OpenChecked(const std::string& path, CheckedFile* f) {
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(f->file.Open(path));
  const uint64_t size = f->file.size();
  if (size < kLengthBytes) {
    return DataLoss(StrCat("safetensors file '", path, "' has ", size,
                           " bytes, fewer than the 8 of its header length"));
  }
  std::array<unsigned char, kLengthBytes> length_bytes{};
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(f->file.ReadAt(0, length_bytes.data(), kLengthBytes));
  // Checked against the file's size before anything is allocated for it.
  const uint64_t header_bytes = DecodeLength(length_bytes);
  if (header_bytes > size - kLengthBytes) {
    return DataLoss(StrCat("safetensors file '", path, "': header length ", header_bytes,
                           " exceeds the ", size - kLengthBytes, " bytes after it"));
  }
  if (header_bytes > kMaxHeaderBytes) {
    return DataLoss(StrCat("safetensors file '", path, "': header length ", header_bytes,
                           " exceeds the format's limit of ", kMaxHeaderBytes, " bytes"));
  }
  std::string text(header_bytes, '\0');
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(f->file.ReadAt(kLengthBytes, text.data(), text.size()));
  f->data_start = kLengthBytes + header_bytes;
  return ParseHeader(text, size - f->data_start, path, &f->header);
}

Status NoTgraphDtype(const std::string& path, const std::string& name, const TensorEntry& e) {
  return Status(TG_UNIMPLEMENTED,
                StrCat("safetensors file '", path, "': tensor '", name, "' has dtype ",
                       e.dtype->name, ", which tgraph has no type for"));
}

// What Save writes for one tensor.
struct PendingTensor {
  WriteEntry write;
  const void* data = nullptr;
};

Status CollectTensors(const char* const* names, const TG_Tensor* const* tensors, size_t count,
                      std::vector<PendingTensor>* pending) {
  if (count > 0 && (names == nullptr || tensors == nullptr)) {
    return InvalidArgument("save: the names or the tensors are NULL");
  }
  std::set<std::string_view> seen;
  for (size_t i = 0; i < count; ++i) {
    if (names[i] == nullptr || tensors[i] == nullptr) {
      return InvalidArgument(StrCat("tensor #", i, " has no name or no tensor (NULL)"));
    }
    const std::string_view name = names[i];
    if (name == kMetadataKey) {
      return InvalidArgument(StrCat("a tensor may not be named '", kMetadataKey,
                                    "': the safetensors header keeps that key for metadata"));
    }
    if (!seen.insert(name).second) {
      return InvalidArgument(StrCat("tensor name '", name, "' appears twice"));
    }
    const TensorView view(tensors[i]);
    const TG_DataType dtype = view.dtype();
    const SafetensorsDtype* format_dtype = SafetensorsDtypeFor(dtype);
    if (format_dtype == nullptr) {
      return InvalidArgument(StrCat("tensor '", name, "' has dtype ", DtypeName(dtype),
                                    ", which the safetensors format has no type for"));
    }
    PendingTensor p;
    p.write.name = name;
    p.write.entry.dtype = format_dtype;
    p.write.entry.shape = view.dims();
    uint64_t bytes = 0;
    if (!TensorByteSize(*format_dtype, p.write.entry.shape, &bytes) || bytes != view.byte_size()) {
      return Status(TG_INTERNAL, StrCat("tensor '", name, "' holds ", view.byte_size(),
                                        " bytes, not what its dtype and shape take"));
    }
    p.data = bytes > 0 ? Api()->tensor_data(tensors[i]) : nullptr;
    pending->push_back(std::move(p));
  }
  // Wider elements first, as the reference writer does: with the header padded to 8 bytes,
  // every tensor then starts at a multiple of its element size (readers can map it in
  // place). By name within a width, so the same tensors always give the same file.
  std::sort(pending->begin(), pending->end(), [](const PendingTensor& a, const PendingTensor& b) {
    if (a.write.entry.dtype->bits != b.write.entry.dtype->bits) {
      return a.write.entry.dtype->bits > b.write.entry.dtype->bits;
    }
    return a.write.name < b.write.name;
  });
  return Status();
}

}  // namespace

Status Save(const std::string& path, const char* const* names, const TG_Tensor* const* tensors,
            size_t count) {
  std::vector<PendingTensor> pending;
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(CollectTensors(names, tensors, count, &pending));
  std::vector<WriteEntry> entries;
  entries.reserve(pending.size());
  for (const PendingTensor& p : pending) entries.push_back(p.write);
  std::string header;
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(SerializeHeader(&entries, &header));

  AtomicFileWriter writer;
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(writer.Open(path));
  const auto length = EncodeLength(header.size());
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(writer.Write(length.data(), length.size()));
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(writer.Write(header.data(), header.size()));
  for (size_t i = 0; i < pending.size(); ++i) {
    const uint64_t bytes = entries[i].entry.byte_size();
    if (bytes > 0) TGRAPH_SAFETENSORS_RETURN_IF_ERROR(writer.Write(pending[i].data, bytes));
  }
  return writer.Commit();
}

Status Restore(const std::string& path, const char* const* names, size_t count,
               TG_Tensor** tensors, TG_Status* status) {
  if (count > 0 && (names == nullptr || tensors == nullptr)) {
    return InvalidArgument("restore: the names or the output array are NULL");
  }
  CheckedFile f;
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(OpenChecked(path, &f));
  // Every name is looked up before anything is allocated or read.
  std::vector<const TensorEntry*> wanted(count, nullptr);
  for (size_t i = 0; i < count; ++i) {
    if (names[i] == nullptr) return InvalidArgument(StrCat("tensor name #", i, " is NULL"));
    const auto it = f.header.tensors.find(names[i]);
    if (it == f.header.tensors.end()) {
      return NotFound(StrCat("tensor '", names[i], "' not found in safetensors file '", path,
                             "'"));
    }
    if (it->second.dtype->dtype == TG_INVALID_DTYPE) {
      return NoTgraphDtype(path, it->first, it->second);
    }
    wanted[i] = &it->second;
  }
  for (size_t i = 0; i < count; ++i) {
    const TensorEntry& e = *wanted[i];
    tensors[i] = Api()->new_host_tensor(e.dtype->dtype, e.shape.data(),
                                        static_cast<int>(e.shape.size()), status);
    if (tensors[i] == nullptr || !tgraph::plugin::IsOk(status)) {
      const TG_Code code = Api()->status_code(status);
      return Status(code == TG_OK ? TG_RESOURCE_EXHAUSTED : code,
                    StrCat("allocating tensor '", names[i], "' (", e.byte_size(),
                           " bytes) to restore from safetensors file '", path, "' failed"));
    }
    if (e.byte_size() == 0) continue;
    // Straight into the tensor's own buffer: no staging copy.
    TGRAPH_SAFETENSORS_RETURN_IF_ERROR(f.file.ReadAt(f.data_start + e.begin,
                                                     Api()->tensor_data(tensors[i]),
                                                     e.byte_size()));
  }
  return Status();
}

Status List(const std::string& path, TG_CheckpointVisitFn visit, void* visit_arg) {
  if (visit == nullptr) return InvalidArgument("list: the visit function is NULL");
  CheckedFile f;
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(OpenChecked(path, &f));
  for (const auto& [name, e] : f.header.tensors) {
    if (e.dtype->dtype == TG_INVALID_DTYPE) return NoTgraphDtype(path, name, e);
  }
  for (const auto& [name, e] : f.header.tensors) {
    TG_CheckpointEntry entry{};
    entry.struct_size = sizeof(entry);
    entry.name = name.c_str();
    entry.dtype = e.dtype->dtype;
    entry.num_dims = static_cast<int>(e.shape.size());
    entry.dims = e.shape.empty() ? nullptr : e.shape.data();
    if (visit(visit_arg, &entry) != 0) break;
  }
  return Status();
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Status Remove(const std::string& path) {
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return Status();
    return ErrnoStatus(errno, StrCat("deleting safetensors file '", path, "'"));
  }
  return SyncParentDirectory(path);
}

}  // namespace tgraph_safetensors
