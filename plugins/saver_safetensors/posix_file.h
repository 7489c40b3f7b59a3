// The file system calls the saver needs, with errno turned into statuses that name the
// file: reading at an offset, writing everything, and writing a file atomically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "status.h"

namespace tgraph_safetensors {

// `what` failed with `err` (an errno value): the TensorFlow code for it and strerror's text.
Status ErrnoStatus(int err, std::string_view what);

// A file open for reading; closed by the destructor.
class ReadFile {
 public:
  ReadFile() = default;
  ~ReadFile();
  ReadFile(const ReadFile&) = delete;
  ReadFile& operator=(const ReadFile&) = delete;

  // NOT_FOUND for a missing file, else the errno's code; the status names `path`.
  Status Open(const std::string& path);
  uint64_t size() const { return size_; }
  // Exactly `n` bytes at `offset` into `buffer`; DATA_LOSS naming the file if it ends first.
  Status ReadAt(uint64_t offset, void* buffer, size_t n) const;
  // The kernel may read ahead aggressively: the whole data section is read in order.
  void AdviseSequential() const;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

// Writes `path` so that it either appears whole or not at all: the bytes go to a temporary
// file in the same directory, which Commit flushes to disk (fsync), renames over `path` and
// makes durable (fsync of the directory). Destroying an uncommitted writer removes the
// temporary file, so a failed save leaves no partial file and any old `path` untouched.
class AtomicFileWriter {
 public:
  AtomicFileWriter() = default;
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  Status Open(const std::string& path);
  // All `n` bytes, straight from `data` (no copy is made). Every few MiB, the disk write
  // of what is written so far is started (Linux), so that it overlaps the rest of the save
  // instead of all waiting for Commit's fsync.
  Status Write(const void* data, size_t n);
  Status Commit();

 private:
  void Abandon();
  void StartWriteBack();

  int fd_ = -1;
  std::string path_;
  std::string temp_path_;
  uint64_t written_ = 0;  // bytes so far
  uint64_t flushing_from_ = 0;  // where the write-back not yet started begins
};

// fsyncs the directory holding `path`, so a rename or unlink in it survives a crash.
Status SyncParentDirectory(const std::string& path);

}  // namespace tgraph_safetensors
