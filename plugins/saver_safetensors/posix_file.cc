#include "posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tgraph_safetensors {
namespace {

int CloseKeepingErrno(int fd) {
  const int saved = errno;
  const int rc = ::close(fd);
  errno = saved;
  return rc;
}

std::string ParentDirectory(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace

Status ErrnoStatus(int err, std::string_view what) {
  return Status(tgraph::saver_io::CodeForErrno(err), StrCat(what, ": ", std::strerror(err)));
}

// The shared I/O's status as this plugin's.
static Status FromIo(const tgraph::saver_io::IoStatus& s) {
  return s.ok() ? Status() : Status(s.code, s.message);
}

// ---- ReadFile ----

ReadFile::~ReadFile() = default;

Status ReadFile::Open(const std::string& path) {
  path_ = path;
  // Checked here first, for this plugin's messages and codes.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return NotFound(StrCat("safetensors file '", path, "' not found"));
    return ErrnoStatus(err, StrCat("opening safetensors file '", path, "'"));
  }
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const int stat_errno = errno;
  CloseKeepingErrno(fd);
  if (!stat_ok) return ErrnoStatus(stat_errno, StrCat("stat of '", path, "'"));
  if (!S_ISREG(st.st_mode)) {
    return Status(TG_FAILED_PRECONDITION,
                  StrCat("safetensors file '", path, "' is not a regular file"));
  }
  TGRAPH_SAFETENSORS_RETURN_IF_ERROR(FromIo(tgraph::saver_io::FileReader::Open(path, &reader_)));
  size_ = reader_->size();
  return Status();
}

Status ReadFile::ReadAt(uint64_t offset, void* buffer, size_t n) const {
  if (reader_ == nullptr) return Status(TG_FAILED_PRECONDITION, "ReadFile: not open");
  return FromIo(reader_->ReadAt(offset, buffer, n));
}

// ---- AtomicFileWriter ----

AtomicFileWriter::~AtomicFileWriter() { Abandon(); }

void AtomicFileWriter::Abandon() {
  writer_.reset();  // closes without syncing
  if (!temp_path_.empty()) {
    const int saved = errno;
    ::unlink(temp_path_.c_str());
    errno = saved;
    temp_path_.clear();
  }
}

Status AtomicFileWriter::Open(const std::string& path) {
  Abandon();
  path_ = path;
  // A name no other writer uses, in the destination's directory (rename works within one
  // file system only). O_EXCL: a leftover of a crashed save is never written into; the
  // name, once ours, is reopened by the shared writer.
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = StrCat(path, ".tmp-", ::getpid(), "-", counter.fetch_add(1));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      temp_path_ = std::move(temp);
      const Status s = FromIo(tgraph::saver_io::FileWriter::Create(
          temp_path_, &writer_, tgraph::saver_io::FileWriter::Mode::kDirectIfPossible));
      if (!s.ok()) Abandon();
      return s;
    }
    if (errno != EEXIST) {
      return ErrnoStatus(errno, StrCat("creating a temporary file for '", path, "'"));
    }
  }
  return Status(TG_ALREADY_EXISTS, StrCat("no free temporary file name next to '", path, "'"));
}

Status AtomicFileWriter::Write(const void* data, size_t n) {
  if (writer_ == nullptr) return Status(TG_FAILED_PRECONDITION, "AtomicFileWriter: not open");
  const Status s = FromIo(writer_->Append(data, n));
  if (!s.ok()) Abandon();
  return s;
}

Status AtomicFileWriter::Commit() {
  if (writer_ == nullptr) return Status(TG_FAILED_PRECONDITION, "AtomicFileWriter: not open");
  Status s = FromIo(writer_->SyncAndClose());  // flushed to disk: then the rename
  if (s.ok() && ::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    s = ErrnoStatus(errno, StrCat("renaming '", temp_path_, "' to '", path_, "'"));
  }
  if (!s.ok()) {
    Abandon();
    return s;
  }
  writer_.reset();
  temp_path_.clear();  // it is `path_` now
  return SyncParentDirectory(path_);
}

Status SyncParentDirectory(const std::string& path) {
  const std::string dir = ParentDirectory(path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, StrCat("opening directory '", dir, "'"));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus(err, StrCat("flushing directory '", dir, "' to disk"));
  return Status();
}

}  // namespace tgraph_safetensors
