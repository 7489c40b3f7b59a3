#include "bundle_reader.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "common/crc32c.h"
#include "index_table.h"
#include "naming.h"
#include "slice_key.h"

namespace tgraph::saver_tf {
namespace {

uint32_t ReadLittleEndian32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

void SwapBytes(void* data, uint64_t bytes, size_t unit) {
  if (unit <= 1) return;
  auto* p = static_cast<unsigned char*>(data);
  for (uint64_t i = 0; i + unit <= bytes; i += unit) std::reverse(p + i, p + i + unit);
}

BundleStatus BundleReader::Open(const std::string& prefix, std::unique_ptr<BundleReader>* out) {
  const std::string index_path = IndexFileName(prefix);
  std::map<std::string, std::string> table;
  SAVER_TF_RETURN_IF_ERROR(ReadIndexTable(index_path, &table));
  std::unique_ptr<BundleReader> reader(new BundleReader());
  reader->prefix_ = prefix;
  auto header = table.find("");
  if (header == table.end() || !reader->header_.ParseFromString(header->second)) {
    return Error(TG_DATA_LOSS, Str("index file '", index_path,
                                   "' has no valid BundleHeaderProto under the empty key"));
  }
  const tf::VersionDef& version = reader->header_.version();
  const auto& bad = version.bad_consumers();
  if (version.producer() < 0 || version.min_consumer() > 1 ||
      std::find(bad.begin(), bad.end(), 1) != bad.end()) {
    return Error(TG_INVALID_ARGUMENT,
                 Str("checkpoint '", prefix, "' needs a newer reader (producer ",
                     version.producer(), ", min_consumer ", version.min_consumer(),
                     "; this reader is version 1)"));
  }
  if (reader->header_.num_shards() < 1) {
    return Error(TG_DATA_LOSS, Str("index file '", index_path, "' declares ",
                                   reader->header_.num_shards(), " data shards"));
  }
  table.erase(header);
  for (auto& [key, value] : table) {
    tf::BundleEntryProto entry;
    if (!entry.ParseFromString(value)) {
      return Error(TG_DATA_LOSS, Str("index file '", index_path, "': the entry of tensor '", key,
                                     "' is not a valid BundleEntryProto"));
    }
    reader->entries_.emplace_hint(reader->entries_.end(), key, std::move(entry));
  }
  for (const auto& [name, entry] : reader->entries_) {
    for (const auto& slice : entry.slices()) {
      auto stored = reader->entries_.find(SliceKey(name, slice));
      if (stored == reader->entries_.end()) continue;  // missing: an error when read
      reader->slice_entries_.insert(*stored);
    }
  }
  for (const auto& [key, entry] : reader->slice_entries_) reader->entries_.erase(key);
  *out = std::move(reader);
  return BundleStatus::OK();
}

BundleStatus BundleReader::Dims(const std::string& name, const tf::BundleEntryProto& entry,
                                std::vector<int64_t>* dims, int64_t* num_elements) {
  dims->clear();
  int64_t n = 1;
  if (entry.shape().unknown_rank()) {
    return Error(TG_DATA_LOSS, Str("tensor '", name, "' has a shape of unknown rank"));
  }
  for (const auto& dim : entry.shape().dim()) {
    const int64_t d = dim.size();
    if (d < 0 || (d > 0 && n > std::numeric_limits<int64_t>::max() / d)) {
      return Error(TG_DATA_LOSS, Str("tensor '", name, "' has an invalid shape (dimension ",
                                     d, ")"));
    }
    n *= d;
    dims->push_back(d);
  }
  *num_elements = n;
  return BundleStatus::OK();
}

BundleStatus BundleReader::Lookup(const std::string& name,
                                  const tf::BundleEntryProto** entry) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    return Error(TG_NOT_FOUND, Str("tensor '", name, "' not found in checkpoint '", prefix_, "'"));
  }
  std::vector<int64_t> dims;
  int64_t n = 0;
  SAVER_TF_RETURN_IF_ERROR(Dims(name, it->second, &dims, &n));
  *entry = &it->second;
  return BundleStatus::OK();
}

BundleStatus BundleReader::DataFile(const std::string& name, const tf::BundleEntryProto& entry,
                                    const FileReader** file) const {
  const int shard = entry.shard_id();
  if (shard < 0 || shard >= header_.num_shards()) {
    return Error(TG_DATA_LOSS, Str("tensor '", name, "' of checkpoint '", prefix_,
                                   "' is in data shard ", shard, " of ", header_.num_shards()));
  }
  auto it = data_files_.find(shard);
  if (it == data_files_.end()) {
    const std::string path = DataFileName(prefix_, shard, header_.num_shards());
    std::unique_ptr<FileReader> opened;
    BundleStatus s = FileReader::Open(path, &opened);
    if (!s.ok()) {
      if (s.code == TG_NOT_FOUND) {
        return Error(TG_NOT_FOUND, Str("data file '", path, "' not found (holds tensor '", name,
                                       "' of checkpoint '", prefix_, "')"));
      }
      return s;
    }
    it = data_files_.emplace(shard, std::move(opened)).first;
  }
  *file = it->second.get();
  return BundleStatus::OK();
}

BundleStatus BundleReader::CheckExtent(const std::string& name, const tf::BundleEntryProto& entry,
                                       const FileReader& file) const {
  const uint64_t offset = static_cast<uint64_t>(entry.offset());
  const uint64_t size = static_cast<uint64_t>(entry.size());
  if (entry.offset() < 0 || entry.size() < 0 || offset > file.size() ||
      size > file.size() - offset) {
    return Error(TG_DATA_LOSS, Str("data file '", file.path(), "' is truncated: tensor '", name,
                                   "' needs bytes [", entry.offset(), ", ",
                                   entry.offset() + entry.size(), ") of a file of ", file.size(),
                                   " bytes"));
  }
  return BundleStatus::OK();
}

BundleStatus BundleReader::ChecksumMismatch(const std::string& name, const FileReader& file,
                                            uint32_t expected, uint32_t actual) const {
  char detail[64];
  std::snprintf(detail, sizeof(detail), " (expected crc32c 0x%08x, got 0x%08x)", expected, actual);
  return Error(TG_DATA_LOSS, Str("checksum mismatch in data file '", file.path(),
                                 "' for tensor '", name, "'", detail));
}

BundleStatus BundleReader::CheckRawSize(const std::string& name,
                                        const tf::BundleEntryProto& entry,
                                        uint64_t bytes) const {
  if (static_cast<uint64_t>(entry.size()) != bytes || entry.size() < 0) {
    return Error(TG_DATA_LOSS, Str("tensor '", name, "' of checkpoint '", prefix_, "' has ",
                                   entry.size(), " bytes in the index, but its dtype and shape "
                                   "need ", bytes));
  }
  return BundleStatus::OK();
}

BundleStatus BundleReader::ReadRaw(const std::string& name, const tf::BundleEntryProto& entry,
                                   void* dst, uint64_t bytes) const {
  SAVER_TF_RETURN_IF_ERROR(CheckRawSize(name, entry, bytes));
  const FileReader* file = nullptr;
  SAVER_TF_RETURN_IF_ERROR(DataFile(name, entry, &file));
  SAVER_TF_RETURN_IF_ERROR(CheckExtent(name, entry, *file));
  // The CRC runs over each block as it is read, while the next ones are read (FileReader:
  // several reads in flight, cached blocks checksummed by the threads that copy them).
  uint32_t crc = 0;
  SAVER_TF_RETURN_IF_ERROR(file->ReadAtWithCrc32c(static_cast<uint64_t>(entry.offset()), dst,
                                                  static_cast<size_t>(bytes), &crc));
  const uint32_t expected = crc32c::Unmask(entry.crc32c());
  if (crc != expected) return ChecksumMismatch(name, *file, expected, crc);
  return BundleStatus::OK();
}

BundleStatus BundleReader::ReadPartitioned(const std::string& name,
                                           const tf::BundleEntryProto& entry,
                                           size_t element_size, void* dst,
                                           uint64_t bytes) const {
  std::vector<int64_t> full;
  int64_t count = 0;
  SAVER_TF_RETURN_IF_ERROR(Dims(name, entry, &full, &count));
  if (static_cast<uint64_t>(count) * element_size != bytes) {
    return Error(TG_INVALID_ARGUMENT, Str("tensor '", name, "': ", bytes, " bytes given for ",
                                          count, " elements"));
  }
  const size_t rank = full.size();
  auto* out = static_cast<char*>(dst);
  for (int k = 0; k < entry.slices_size(); ++k) {
    const tf::TensorSliceProto& slice = entry.slices(k);
    const std::string what = Str("slice ", k, " of tensor '", name, "'");
    auto stored = slice_entries_.find(SliceKey(name, slice));
    if (stored == slice_entries_.end()) {
      return Error(TG_DATA_LOSS, Str(what, " is missing from index file '",
                                     IndexFileName(prefix_), "'"));
    }
    if (static_cast<size_t>(slice.extent_size()) != rank ||
        stored->second.dtype() != entry.dtype()) {
      return Error(TG_DATA_LOSS, Str(what, " does not match the tensor's rank or dtype"));
    }
    std::vector<int64_t> start(rank), length(rank);
    uint64_t slice_elements = 1;
    for (size_t d = 0; d < rank; ++d) {
      const auto& extent = slice.extent(static_cast<int>(d));
      start[d] = extent.start();
      length[d] = extent.has_length() ? extent.length() : full[d];
      if (start[d] < 0 || length[d] < 0 || start[d] > full[d] || length[d] > full[d] - start[d]) {
        return Error(TG_DATA_LOSS, Str(what, " lies outside its shape in dimension ", d));
      }
      slice_elements *= static_cast<uint64_t>(length[d]);
    }
    if (slice_elements == 0) continue;
    std::vector<char> buffer(static_cast<size_t>(slice_elements * element_size));
    SAVER_TF_RETURN_IF_ERROR(ReadRaw(what, stored->second, buffer.data(), buffer.size()));
    // Copy the slice's rows (runs along the last dimension) into place; `index` walks the
    // other dimensions of the slice like an odometer.
    const size_t run = static_cast<size_t>(rank == 0 ? 1 : length[rank - 1]) * element_size;
    std::vector<int64_t> index(rank, 0);
    for (size_t from = 0; from < buffer.size(); from += run) {
      uint64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) {
        offset = offset * static_cast<uint64_t>(full[d]) +
                 static_cast<uint64_t>(start[d] + (d + 1 < rank ? index[d] : 0));
      }
      std::memcpy(out + offset * element_size, buffer.data() + from, run);
      for (size_t d = rank > 1 ? rank - 1 : 0; d-- > 0;) {  // next row: dims rank-2 ... 0
        if (++index[d] < length[d]) break;
        index[d] = 0;
      }
    }
  }
  return BundleStatus::OK();
}

BundleStatus BundleReader::ReadStrings(const std::string& name, const tf::BundleEntryProto& entry,
                                       int64_t count, std::vector<std::string>* out) const {
  const FileReader* file = nullptr;
  SAVER_TF_RETURN_IF_ERROR(DataFile(name, entry, &file));
  SAVER_TF_RETURN_IF_ERROR(CheckExtent(name, entry, *file));
  auto corrupt = [&](const char* what) {
    return Error(TG_DATA_LOSS, Str("string tensor '", name, "' in data file '", file->path(),
                                   "' is corrupt: ", what));
  };
  // At least one length byte per element and the 4-byte length checksum.
  if (static_cast<uint64_t>(entry.size()) < static_cast<uint64_t>(count) + 4) {
    return corrupt("its size is too small for its shape");
  }
  std::string bytes(static_cast<size_t>(entry.size()), '\0');
  SAVER_TF_RETURN_IF_ERROR(file->ReadAt(static_cast<uint64_t>(entry.offset()), bytes.data(),
                                        bytes.size()));
  // The varint lengths.
  std::vector<uint64_t> lengths(static_cast<size_t>(count));
  uint32_t crc = 0;
  const auto* begin = reinterpret_cast<const uint8_t*>(bytes.data());
  google::protobuf::io::CodedInputStream input(
      begin, static_cast<int>(std::min<size_t>(bytes.size(), std::numeric_limits<int>::max())));
  uint64_t total = 0;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t length = 0;
    if (!input.ReadVarint64(&length)) return corrupt("a string length is cut off");
    lengths[static_cast<size_t>(i)] = length;
    char fixed[8];
    const int width = length > 0xffffffffu ? 8 : 4;
    for (int b = 0; b < width; ++b) fixed[b] = static_cast<char>((length >> (8 * b)) & 0xff);
    crc = crc32c::Extend(crc, fixed, static_cast<size_t>(width));
    if (length > bytes.size() || total + length > bytes.size()) {
      return corrupt("the string lengths exceed its size");
    }
    total += length;
  }
  const size_t lengths_end = static_cast<size_t>(input.CurrentPosition());
  if (lengths_end + 4 + total != bytes.size()) {
    return corrupt("the string lengths do not add up to its size");
  }
  const uint32_t stored_lengths_crc = ReadLittleEndian32(bytes.data() + lengths_end);
  if (crc32c::Unmask(stored_lengths_crc) != crc) {
    return Error(TG_DATA_LOSS, Str("checksum mismatch in data file '", file->path(),
                                   "' for the string lengths of tensor '", name, "'"));
  }
  crc = crc32c::Extend(crc, bytes.data() + lengths_end, 4);
  crc = crc32c::Extend(crc, bytes.data() + lengths_end + 4, static_cast<size_t>(total));
  const uint32_t expected = crc32c::Unmask(entry.crc32c());
  if (crc != expected) return ChecksumMismatch(name, *file, expected, crc);
  out->clear();
  out->reserve(static_cast<size_t>(count));
  size_t at = lengths_end + 4;
  for (uint64_t length : lengths) {
    out->emplace_back(bytes.data() + at, static_cast<size_t>(length));
    at += static_cast<size_t>(length);
  }
  return BundleStatus::OK();
}

}  // namespace tgraph::saver_tf
