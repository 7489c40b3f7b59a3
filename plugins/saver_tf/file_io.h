// Plain POSIX file access for the bundle: buffered sequential writes that can be fsynced,
// positioned reads, renames and directory syncs, each failure a BundleStatus naming the file.
// Large appends skip the buffer and go straight from the caller's memory to the file, so a
// tensor is never copied on its way out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "bundle_status.h"

namespace tgraph::saver_tf {

// The TensorFlow code for an errno value (ENOENT → NOT_FOUND, ENOSPC → RESOURCE_EXHAUSTED,
// EACCES → PERMISSION_DENIED, ...).
TG_Code CodeForErrno(int error);

class FileWriter {
 public:
  // Creates `path` (truncating it) for writing.
  static BundleStatus Create(const std::string& path, std::unique_ptr<FileWriter>* out);
  ~FileWriter();  // closes without syncing (an abandoned temporary file)
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  BundleStatus Append(const void* data, size_t n);
  BundleStatus Flush();
  // Flushes, fsyncs and closes; the file is complete on disk when this returns OK.
  BundleStatus SyncAndClose();

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }  // bytes appended so far

 private:
  FileWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  BundleStatus WriteAll(const char* data, size_t n);
  void StartWriteBack();

  static constexpr uint64_t kWriteBackChunk = 8u << 20;

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;     // appended (buffered or written)
  uint64_t written_ = 0;  // handed to the kernel
  uint64_t write_back_from_ = 0;  // queued for the disk up to here (StartWriteBack)
  std::string buffer_;
};

class FileReader {
 public:
  // NOT_FOUND naming `path` when it does not exist.
  static BundleStatus Open(const std::string& path, std::unique_ptr<FileReader>* out);
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  // Reads exactly n bytes at `offset`; DATA_LOSS naming the file when it ends first.
  BundleStatus ReadAt(uint64_t offset, void* dst, size_t n) const;
  // Reads up to n bytes at `offset` into dst; *got is how many were there.
  BundleStatus ReadUpTo(uint64_t offset, void* dst, size_t n, size_t* got) const;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }

 private:
  FileReader(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

bool FileExists(const std::string& path);
BundleStatus RenameFile(const std::string& from, const std::string& to);
// Removes `path`; a file that is not there is fine.
BundleStatus RemoveFileIfExists(const std::string& path);
// fsyncs the directory holding `path`, so that renames into it are durable.
BundleStatus SyncDirectoryOf(const std::string& path);
// A fresh temporary name next to `final_path` ("<final_path>.tempstate<random hex>").
std::string TemporaryNameFor(const std::string& final_path);

// Test seam: when set, every write to a file calls hook(path, offset, n) first; a non-zero
// return fails that write with that errno (tests inject ENOSPC or EIO half-way through a
// save). Process-wide; only unit tests that link these sources directly set it.
using WriteFaultHook = int (*)(const std::string& path, uint64_t offset, size_t n);
void SetWriteFaultHookForTesting(WriteFaultHook hook);

}  // namespace tgraph::saver_tf
