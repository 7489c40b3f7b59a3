// Reads a V2 checkpoint ("tensor bundle", FORMATS.md §3): the whole `.index` is parsed when
// the reader opens (it is small: one entry per tensor); tensor data is read on demand from
// the data shard each entry names, straight into the caller's buffer, and checked against
// the entry's size and CRC-32C.
//
// Errors (each message names the file and, where there is one, the tensor): NOT_FOUND for a
// missing index or data file or an unknown tensor; DATA_LOSS for a corrupt or truncated
// index, an entry whose size does not match its dtype and shape, a short data file or a
// checksum mismatch; UNIMPLEMENTED for what this reader does not decode (DT_VARIANT,
// partitioned string tensors).
//
// Partitioned tensors (FORMATS.md §3.5: a full entry listing its slices, each slice stored
// under its own OrderedCode key) are assembled: the slices' keys are hidden from entries(),
// as TensorFlow's reader hides them, and ReadPartitioned copies each slice into place.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bundle_status.h"
#include "file_io.h"
#include "tgraph/proto/tensor_bundle.pb.h"

namespace tgraph::saver_tf {

class BundleReader {
 public:
  static BundleStatus Open(const std::string& prefix, std::unique_ptr<BundleReader>* out);

  const std::string& prefix() const { return prefix_; }
  const tf::BundleHeaderProto& header() const { return header_; }
  // Every tensor's entry by name (the header's empty key is not among them).
  const std::map<std::string, tf::BundleEntryProto>& entries() const { return entries_; }
  // True when the data was written on a big-endian host (numbers must be swapped).
  bool big_endian() const { return header_.endianness() == tf::BundleHeaderProto::BIG; }

  // The entry of `name`, with its shape checked (dims ≥ 0, known rank); NOT_FOUND naming
  // the tensor and the checkpoint.
  BundleStatus Lookup(const std::string& name, const tf::BundleEntryProto** entry) const;
  // The entry's dims and element count (DATA_LOSS on a negative dim or an overflow).
  static BundleStatus Dims(const std::string& name, const tf::BundleEntryProto& entry,
                           std::vector<int64_t>* dims, int64_t* num_elements);

  // DATA_LOSS unless the entry's size is `bytes` (elements × element size of its dtype).
  BundleStatus CheckRawSize(const std::string& name, const tf::BundleEntryProto& entry,
                            uint64_t bytes) const;
  // Reads a fixed-size dtype's bytes into dst (`bytes` as for CheckRawSize) and checks the
  // CRC.
  BundleStatus ReadRaw(const std::string& name, const tf::BundleEntryProto& entry, void* dst,
                       uint64_t bytes) const;
  // Assembles a partitioned entry (entry.slices_size() > 0) of a fixed-size dtype into dst
  // (`bytes` = elements × element_size of the full shape), each slice's CRC checked.
  BundleStatus ReadPartitioned(const std::string& name, const tf::BundleEntryProto& entry,
                               size_t element_size, void* dst, uint64_t bytes) const;
  // Reads a DT_STRING tensor of `count` elements.
  BundleStatus ReadStrings(const std::string& name, const tf::BundleEntryProto& entry,
                           int64_t count, std::vector<std::string>* out) const;

 private:
  BundleReader() = default;
  // The data file of an entry, opened on first use; NOT_FOUND naming it when missing.
  BundleStatus DataFile(const std::string& name, const tf::BundleEntryProto& entry,
                        const FileReader** file) const;
  // Checks that [offset, offset + size) lies inside the data file.
  BundleStatus CheckExtent(const std::string& name, const tf::BundleEntryProto& entry,
                           const FileReader& file) const;
  BundleStatus ChecksumMismatch(const std::string& name, const FileReader& file,
                                uint32_t expected, uint32_t actual) const;

  std::string prefix_;
  tf::BundleHeaderProto header_;
  std::map<std::string, tf::BundleEntryProto> entries_;
  std::map<std::string, tf::BundleEntryProto> slice_entries_;  // by OrderedCode slice key
  mutable std::map<int, std::unique_ptr<FileReader>> data_files_;
};

// Reverses the bytes of each `unit`-byte element in place (a big-endian checkpoint's numbers).
void SwapBytes(void* data, uint64_t bytes, size_t unit);

}  // namespace tgraph::saver_tf
