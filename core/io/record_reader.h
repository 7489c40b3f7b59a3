// Reads TFRecord files (record_writer.h) back, checking both CRCs of every record: what
// tgraph's own tests and tools use to look into event files.
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include "core/base/status.h"

namespace tgraph::io {

class RecordReader {
 public:
  // NOT_FOUND naming the file when it cannot be opened.
  static StatusOr<std::unique_ptr<RecordReader>> Open(const std::string& path);

  // The next record into *data; false at the end of the file. A record cut short or a CRC
  // that does not match is DATA_LOSS naming the file and the record's offset.
  StatusOr<bool> Next(std::string* data);

 private:
  RecordReader(std::string path, std::ifstream in) : path_(std::move(path)), in_(std::move(in)) {}
  Status Corrupt(const char* what) const;

  std::string path_;
  std::ifstream in_;
  uint64_t offset_ = 0;  // where the next record starts
};

}  // namespace tgraph::io
