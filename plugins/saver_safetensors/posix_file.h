// The file system calls the saver needs, with errno turned into statuses that name the
// file: reading at an offset, writing everything, and writing a file atomically. The bytes
// go through the savers' shared I/O (plugins/saver_io/file_io.h), as the tensorflow_v2
// saver's do: the file is written O_DIRECT where the file system allows it, and large reads
// are overlapped, O_DIRECT when the page cache lacks the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "saver_io/file_io.h"

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

 private:
  std::unique_ptr<tgraph::saver_io::FileReader> reader_;
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
  // All `n` bytes: O_DIRECT straight from `data` where it and the file position are aligned
  // (the core's large tensors are page-aligned, and a large file's data section starts on a
  // page: header.h), through an aligned staging buffer otherwise (saver_io::FileWriter).
  Status Write(const void* data, size_t n);
  Status Commit();

 private:
  void Abandon();

  std::unique_ptr<tgraph::saver_io::FileWriter> writer_;
  std::string path_;
  std::string temp_path_;
};

// fsyncs the directory holding `path`, so a rename or unlink in it survives a crash.
Status SyncParentDirectory(const std::string& path);

}  // namespace tgraph_safetensors
