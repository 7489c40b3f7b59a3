#include "core/io/record_writer.h"

#include <cerrno>
#include <cstring>
#include <system_error>

#include "common/crc32c.h"

namespace tgraph::io {
namespace {

void AppendLittleEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

std::string RecordHeader(uint64_t length) {
  std::string header;
  AppendLittleEndian(&header, length, 8);
  AppendLittleEndian(&header, crc32c::Mask(crc32c::Value(header.data(), 8)), 4);
  return header;
}

std::string RecordFooter(std::string_view data) {
  std::string footer;
  AppendLittleEndian(&footer, crc32c::Mask(crc32c::Value(data.data(), data.size())), 4);
  return footer;
}

StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::CreateNew(const std::string& path) {
  // "x": fail instead of truncating a file that exists (C11 exclusive mode).
  std::FILE* file = std::fopen(path.c_str(), "wbx");
  if (file == nullptr) {
    const int error = errno;
    const std::string reason = std::generic_category().message(error);
    if (error == EEXIST) return AlreadyExists("Cannot create '", path, "': it already exists");
    if (error == ENOENT) return NotFound("Cannot create '", path, "': ", reason);
    if (error == EACCES || error == EPERM || error == EROFS) {
      return PermissionDenied("Cannot create '", path, "': ", reason);
    }
    return UnknownError("Cannot create '", path, "': ", reason);
  }
  return std::unique_ptr<RecordWriter>(new RecordWriter(path, file));
}

RecordWriter::~RecordWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

Status RecordWriter::IoError(const char* what, int error) {
  // No room left: a full disk, a quota, a file size limit.
  const Code code = error == ENOSPC || error == EDQUOT || error == EFBIG
                        ? Code::kResourceExhausted
                        : Code::kUnknown;
  error_ = Status(code, StrCat("Cannot ", what, " '", path_, "': ",
                               std::generic_category().message(error)));
  return error_;
}

Status RecordWriter::Write(std::string_view data) {
  if (!error_.ok()) return error_;
  if (file_ == nullptr) return FailedPrecondition("Record file '", path_, "' is closed");
  const std::string header = RecordHeader(data.size());
  const std::string footer = RecordFooter(data);
  for (std::string_view part : {std::string_view(header), data, std::string_view(footer)}) {
    if (!part.empty() && std::fwrite(part.data(), 1, part.size(), file_) != part.size()) {
      return IoError("write to", errno);
    }
  }
  return Status::OK();
}

Status RecordWriter::Flush() {
  if (!error_.ok()) return error_;
  if (file_ == nullptr) return FailedPrecondition("Record file '", path_, "' is closed");
  if (std::fflush(file_) != 0) return IoError("write to", errno);
  return Status::OK();
}

Status RecordWriter::Close() {
  if (file_ == nullptr) return error_.ok() ? FailedPrecondition("Record file '", path_,
                                                                "' is already closed")
                                           : error_;
  Status flushed = Flush();
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0 && flushed.ok()) return IoError("close", errno);
  return flushed;
}

}  // namespace tgraph::io
