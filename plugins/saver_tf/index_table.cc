#include "index_table.h"

#include <leveldb/comparator.h>
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <google/protobuf/io/coded_stream.h>

#include <memory>
#include <new>

#include "file_io.h"

namespace tgraph::saver_tf {
namespace {

// TensorFlow's table options for the index (tensor_bundle.cc, table_options.h).
leveldb::Options IndexTableOptions() {
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  options.block_size = 262144;
  options.block_restart_interval = 16;
  options.filter_policy = nullptr;
  options.comparator = leveldb::BytewiseComparator();
  options.paranoid_checks = true;  // Table::Open verifies the index block's checksum
  return options;
}

// leveldb's file interfaces over ours; the first error keeps our status (code and the
// message naming the file), which leveldb's own Status would flatten.
class IndexWritableFile final : public leveldb::WritableFile {
 public:
  explicit IndexWritableFile(FileWriter* file) : file_(file) {}
  leveldb::Status Append(const leveldb::Slice& data) override {
    return Keep(file_->Append(data.data(), data.size()));
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return Keep(file_->Flush()); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  const BundleStatus& error() const { return error_; }

 private:
  leveldb::Status Keep(BundleStatus s) {
    if (s.ok()) return leveldb::Status::OK();
    if (error_.ok()) error_ = s;
    return leveldb::Status::IOError(s.message);
  }
  FileWriter* file_;
  BundleStatus error_;
};

class IndexRandomAccessFile final : public leveldb::RandomAccessFile {
 public:
  explicit IndexRandomAccessFile(const FileReader* file) : file_(file) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    size_t got = 0;
    BundleStatus s = file_->ReadUpTo(offset, scratch, n, &got);
    if (!s.ok()) return leveldb::Status::IOError(s.message);
    *result = leveldb::Slice(scratch, got);  // short reads are leveldb's "truncated block"
    return leveldb::Status::OK();
  }

 private:
  const FileReader* file_;
};

BundleStatus CorruptIndex(const std::string& path, const leveldb::Status& s) {
  if (s.IsCorruption()) {
    return Error(TG_DATA_LOSS, Str("index file '", path, "' is corrupt or truncated (",
                                   s.ToString(), ")"));
  }
  return Error(TG_DATA_LOSS, Str("cannot read index file '", path, "': ", s.ToString()));
}

// LevelDB allocates each block's size, as its handle gives it, before it reads the block:
// a corrupt footer would make it allocate up to 2^64 bytes. So the footer's two handles
// (metaindex, index; table_format.md: two varint64 pairs in the last 48 bytes, before the
// 8-byte magic) are checked against the file first. A file too short for a footer is left to
// LevelDB, which reports it.
BundleStatus CheckFooter(const std::string& path, const FileReader& file) {
  constexpr uint64_t kFooterSize = 48, kBlockTrailerSize = 5;  // type byte + CRC-32C
  if (file.size() < kFooterSize) return BundleStatus::OK();
  uint8_t footer[kFooterSize];
  SAVER_TF_RETURN_IF_ERROR(file.ReadAt(file.size() - kFooterSize, footer, kFooterSize));
  google::protobuf::io::CodedInputStream in(footer, static_cast<int>(kFooterSize - 8));
  for (const char* which : {"metaindex", "index"}) {
    uint64_t offset = 0, size = 0;
    if (!in.ReadVarint64(&offset) || !in.ReadVarint64(&size) || offset > file.size() ||
        size > file.size() - offset || size + kBlockTrailerSize > file.size() - offset) {
      return Error(TG_DATA_LOSS, Str("index file '", path, "' is corrupt: its footer gives the ",
                                     which, " block an extent beyond the file's ", file.size(),
                                     " bytes"));
    }
  }
  return BundleStatus::OK();
}

}  // namespace

BundleStatus WriteIndexTable(const std::string& path,
                             const std::map<std::string, std::string>& entries) {
  std::unique_ptr<FileWriter> file;
  SAVER_TF_RETURN_IF_ERROR(FileWriter::Create(path, &file));
  IndexWritableFile adapter(file.get());
  leveldb::TableBuilder builder(IndexTableOptions(), &adapter);
  for (const auto& [key, value] : entries) builder.Add(key, value);
  const leveldb::Status finished = builder.Finish();
  if (!adapter.error().ok()) return adapter.error();
  if (!finished.ok()) {
    return Error(TG_INTERNAL, Str("cannot build index '", path, "': ", finished.ToString()));
  }
  return file->SyncAndClose();
}

BundleStatus ReadIndexTable(const std::string& path,
                            std::map<std::string, std::string>* entries) {
  std::unique_ptr<FileReader> file;
  BundleStatus opened = FileReader::Open(path, &file);
  if (!opened.ok()) {
    if (opened.code == TG_NOT_FOUND) {
      return Error(TG_NOT_FOUND, Str("index file '", path, "' not found"));
    }
    return opened;
  }
  SAVER_TF_RETURN_IF_ERROR(CheckFooter(path, *file));
  IndexRandomAccessFile adapter(file.get());
  try {
    leveldb::Table* raw_table = nullptr;
    leveldb::Status s =
        leveldb::Table::Open(IndexTableOptions(), &adapter, file->size(), &raw_table);
    if (!s.ok()) return CorruptIndex(path, s);
    std::unique_ptr<leveldb::Table> table(raw_table);
    leveldb::ReadOptions read_options;
    read_options.verify_checksums = true;
    std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
    entries->clear();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      entries->emplace_hint(entries->end(), it->key().ToString(), it->value().ToString());
    }
    if (!it->status().ok()) return CorruptIndex(path, it->status());
  } catch (const std::bad_alloc&) {
    // A data block's handle (inside the index block, which LevelDB does not let us check
    // first) claiming more than memory holds.
    return Error(TG_DATA_LOSS, Str("index file '", path, "' is corrupt: a block's size is "
                                   "beyond what can be read"));
  }
  return BundleStatus::OK();
}

}  // namespace tgraph::saver_tf
