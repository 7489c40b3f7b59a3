// TFRecord framing (TensorFlow's core/lib/io/record_writer): each record is
//   uint64 length | uint32 masked crc32c(length) | data[length] | uint32 masked crc32c(data),
// little-endian, concatenated with no file header. Event files for TensorBoard use it.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace tgraph::io {

// The 12-byte header of a record of `length` bytes; the 4-byte footer of `data`.
std::string RecordHeader(uint64_t length);
std::string RecordFooter(std::string_view data);

class RecordWriter {
 public:
  // Creates `path`, which must not exist yet (ALREADY_EXISTS otherwise, so that a writer
  // never truncates another's file). Errors name the file.
  static StatusOr<std::unique_ptr<RecordWriter>> CreateNew(const std::string& path);
  ~RecordWriter();  // closes, dropping any error (call Close to see it)
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  const std::string& path() const { return path_; }
  // Buffered; an error (a full disk) may only show at Flush or Close. After an error every
  // call fails with it.
  Status Write(std::string_view data);
  // Hands the buffered records to the operating system.
  Status Flush();
  // Flushes and closes; further calls fail with FAILED_PRECONDITION.
  Status Close();

 private:
  RecordWriter(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  Status IoError(const char* what, int error);

  std::string path_;
  std::FILE* file_;
  Status error_;  // the first failure, returned by every later call
};

}  // namespace tgraph::io
