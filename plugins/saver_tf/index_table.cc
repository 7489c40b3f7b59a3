#include "index_table.h"

#include <leveldb/comparator.h>
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <memory>

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
  IndexRandomAccessFile adapter(file.get());
  leveldb::Table* raw_table = nullptr;
  leveldb::Status s = leveldb::Table::Open(IndexTableOptions(), &adapter, file->size(), &raw_table);
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
  return BundleStatus::OK();
}

}  // namespace tgraph::saver_tf
