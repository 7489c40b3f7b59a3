// Writes one V2 checkpoint ("tensor bundle", FORMATS.md §3): `<prefix>.data-00000-of-00001`
// with the tensors' bytes, and `<prefix>.index`, a table of BundleEntryProto by name under a
// BundleHeaderProto. Tensors are streamed from the caller's memory into the data file while
// their CRC-32C is computed; nothing is copied.
//
// Atomic: both files are written under temporary names next to their final ones, fsynced,
// then renamed (data, then index) and the directory fsynced. Until Finish succeeds no final
// name is touched, so a failed or abandoned save (write error, full disk, a destroyed
// writer) leaves whatever checkpoint was at the prefix as it was, and removes its
// temporary files.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bundle_status.h"
#include "file_io.h"

namespace tgraph::saver_tf {

class BundleWriter {
 public:
  explicit BundleWriter(std::string prefix);
  ~BundleWriter();  // an unfinished save's temporary files are removed
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Creates the prefix's directory if needed and the temporary data file.
  BundleStatus Begin();
  // A tensor of a fixed-size dtype: `bytes` of row-major element memory (may be NULL when
  // bytes is 0).
  BundleStatus AddRaw(const std::string& name, TG_DataType dtype,
                      const std::vector<int64_t>& dims, const void* data, uint64_t bytes);
  // A DT_STRING tensor of `count` elements; element(i) is the i-th string's bytes.
  BundleStatus AddStrings(const std::string& name, const std::vector<int64_t>& dims,
                          int64_t count, const std::function<std::string_view(int64_t)>& element);
  // Writes the index and moves both files into place.
  BundleStatus Finish();

 private:
  BundleStatus CheckName(const std::string& name) const;
  void AddEntry(const std::string& name, TG_DataType dtype, const std::vector<int64_t>& dims,
                uint64_t offset, uint64_t size, uint32_t crc);
  void RemoveTemporaries();

  std::string prefix_;
  std::string data_path_, data_temp_, index_path_, index_temp_;
  std::unique_ptr<FileWriter> data_;
  std::map<std::string, std::string> index_;  // name → serialized BundleEntryProto
  bool finished_ = false;
};

}  // namespace tgraph::saver_tf
