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

// Linux moves at most this much per read/write call; asking for less keeps every call
// well-defined on other systems too.
constexpr size_t kMaxIoChunk = size_t{1} << 30;
// How much a save writes (in one call) before starting the disk write of it.
constexpr uint64_t kWriteBackChunk = uint64_t{8} << 20;

TG_Code CodeForErrno(int err) {
  switch (err) {
    case ENOENT:
      return TG_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS:
      return TG_PERMISSION_DENIED;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case ENOMEM:
    case EMFILE:
    case ENFILE:
      return TG_RESOURCE_EXHAUSTED;
    case EEXIST:
      return TG_ALREADY_EXISTS;
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
      return TG_FAILED_PRECONDITION;
    case EIO:
      return TG_DATA_LOSS;
    case EINVAL:
      return TG_INVALID_ARGUMENT;
    default:
      return TG_UNKNOWN;
  }
}

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
  return Status(CodeForErrno(err), StrCat(what, ": ", std::strerror(err)));
}

// ---- ReadFile ----

ReadFile::~ReadFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status ReadFile::Open(const std::string& path) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    if (err == ENOENT) return NotFound(StrCat("safetensors file '", path, "' not found"));
    return ErrnoStatus(err, StrCat("opening safetensors file '", path, "'"));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return ErrnoStatus(errno, StrCat("stat of '", path, "'"));
  if (!S_ISREG(st.st_mode)) {
    return Status(TG_FAILED_PRECONDITION,
                  StrCat("safetensors file '", path, "' is not a regular file"));
  }
  size_ = static_cast<uint64_t>(st.st_size);
  return Status();
}

Status ReadFile::ReadAt(uint64_t offset, void* buffer, size_t n) const {
  auto* out = static_cast<char*>(buffer);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, out, std::min(n, kMaxIoChunk), static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, StrCat("reading safetensors file '", path_, "'"));
    }
    if (got == 0) {
      return DataLoss(StrCat("safetensors file '", path_, "' ends at byte ", offset, ", ", n,
                             " bytes before the data it describes (truncated while reading?)"));
    }
    out += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
  return Status();
}

void ReadFile::AdviseSequential() const {
  (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);  // a hint: failure changes nothing
}

// ---- AtomicFileWriter ----

AtomicFileWriter::~AtomicFileWriter() { Abandon(); }

void AtomicFileWriter::Abandon() {
  if (fd_ >= 0) CloseKeepingErrno(fd_);
  fd_ = -1;
  written_ = flushing_from_ = 0;
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
  // file system only). O_EXCL: a leftover of a crashed save is never written into.
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = StrCat(path, ".tmp-", ::getpid(), "-", counter.fetch_add(1));
    fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) {
      temp_path_ = std::move(temp);
      return Status();
    }
    if (errno != EEXIST) {
      return ErrnoStatus(errno, StrCat("creating a temporary file for '", path, "'"));
    }
  }
  return Status(TG_ALREADY_EXISTS, StrCat("no free temporary file name next to '", path, "'"));
}

Status AtomicFileWriter::Write(const void* data, size_t n) {
  const auto* in = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t put = ::write(fd_, in, std::min<size_t>(n, kWriteBackChunk));
    if (put < 0) {
      if (errno == EINTR) continue;
      const Status s = ErrnoStatus(errno, StrCat("writing '", temp_path_, "' (for '", path_, "')"));
      Abandon();
      return s;
    }
    in += put;
    n -= static_cast<size_t>(put);
    written_ += static_cast<uint64_t>(put);
    StartWriteBack();
  }
  return Status();
}

void AtomicFileWriter::StartWriteBack() {
#ifdef __linux__
  if (written_ - flushing_from_ < kWriteBackChunk) return;
  // Asynchronous: queues the pages for the disk and returns. A failure here changes nothing
  // (Commit's fsync reports any I/O error), so it is not checked.
  (void)::sync_file_range(fd_, static_cast<off_t>(flushing_from_),
                          static_cast<off_t>(written_ - flushing_from_), SYNC_FILE_RANGE_WRITE);
  flushing_from_ = written_;
#endif
}

Status AtomicFileWriter::Commit() {
  if (::fsync(fd_) != 0) {
    const Status s = ErrnoStatus(errno, StrCat("flushing '", temp_path_, "' to disk"));
    Abandon();
    return s;
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const Status s = ErrnoStatus(errno, StrCat("closing '", temp_path_, "'"));
    Abandon();
    return s;
  }
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const Status s = ErrnoStatus(errno, StrCat("renaming '", temp_path_, "' to '", path_, "'"));
    Abandon();
    return s;
  }
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
