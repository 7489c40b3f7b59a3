#include "file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace tgraph::saver_tf {
namespace {

// Appends at least this large go straight from the caller's memory to the file.
constexpr size_t kBufferSize = 1 << 20;
// One write() call writes at most this much (Linux caps a write at about 2 GiB anyway).
constexpr size_t kMaxWriteChunk = size_t{1} << 30;

std::atomic<WriteFaultHook> g_write_fault_hook{nullptr};

BundleStatus ErrnoStatus(int error, const std::string& what, const std::string& path) {
  return Error(CodeForErrno(error), Str(what, " '", path, "': ", std::strerror(error)));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

TG_Code CodeForErrno(int error) {
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return TG_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS:
      return TG_PERMISSION_DENIED;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case ENOMEM:
      return TG_RESOURCE_EXHAUSTED;
    case EEXIST:
      return TG_ALREADY_EXISTS;
    case EISDIR:
    case ENAMETOOLONG:
    case EINVAL:
      return TG_INVALID_ARGUMENT;
    default:
      return TG_UNKNOWN;
  }
}

void SetWriteFaultHookForTesting(WriteFaultHook hook) { g_write_fault_hook.store(hook); }

// ---- FileWriter ----

BundleStatus FileWriter::Create(const std::string& path, std::unique_ptr<FileWriter>* out) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "cannot create", path);
  out->reset(new FileWriter(path, fd));
  return BundleStatus::OK();
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

BundleStatus FileWriter::WriteAll(const char* data, size_t n) {
  while (n > 0) {
    const size_t chunk = n < kMaxWriteChunk ? n : kMaxWriteChunk;
    if (WriteFaultHook hook = g_write_fault_hook.load()) {
      if (const int injected = hook(path_, written_, chunk)) {
        return ErrnoStatus(injected, "cannot write", path_);
      }
    }
    const ssize_t wrote = ::write(fd_, data, chunk);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot write", path_);
    }
    data += wrote;
    n -= static_cast<size_t>(wrote);
    written_ += static_cast<uint64_t>(wrote);
    StartWriteBack();
  }
  return BundleStatus::OK();
}

// Queues what was written since the last call for the disk, every kWriteBackChunk bytes, so
// the disk writes while the save goes on instead of all at SyncAndClose's fsync (a 1 GiB save
// then waits for the disk once, not for the whole file). Asynchronous; an error here changes
// nothing, since the fsync reports any I/O error.
void FileWriter::StartWriteBack() {
  if (written_ - write_back_from_ < kWriteBackChunk) return;
  (void)::sync_file_range(fd_, static_cast<off_t>(write_back_from_),
                          static_cast<off_t>(written_ - write_back_from_), SYNC_FILE_RANGE_WRITE);
  write_back_from_ = written_;
}

BundleStatus FileWriter::Append(const void* data, size_t n) {
  if (fd_ < 0) return Error(TG_FAILED_PRECONDITION, Str("'", path_, "' is closed"));
  const char* bytes = static_cast<const char*>(data);
  size_ += n;
  if (buffer_.size() + n <= kBufferSize) {
    buffer_.append(bytes, n);
    return BundleStatus::OK();
  }
  SAVER_TF_RETURN_IF_ERROR(Flush());
  if (n >= kBufferSize) return WriteAll(bytes, n);
  buffer_.append(bytes, n);
  return BundleStatus::OK();
}

BundleStatus FileWriter::Flush() {
  if (buffer_.empty()) return BundleStatus::OK();
  BundleStatus s = WriteAll(buffer_.data(), buffer_.size());
  buffer_.clear();
  return s;
}

BundleStatus FileWriter::SyncAndClose() {
  SAVER_TF_RETURN_IF_ERROR(Flush());
  if (::fsync(fd_) != 0) return ErrnoStatus(errno, "cannot sync", path_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return ErrnoStatus(errno, "cannot close", path_);
  return BundleStatus::OK();
}

// ---- FileReader ----

BundleStatus FileReader::Open(const std::string& path, std::unique_ptr<FileReader>* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return ErrnoStatus(error, "cannot stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(TG_INVALID_ARGUMENT, Str("'", path, "' is not a regular file"));
  }
  out->reset(new FileReader(path, fd, static_cast<uint64_t>(st.st_size)));
  return BundleStatus::OK();
}

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
}

BundleStatus FileReader::ReadUpTo(uint64_t offset, void* dst, size_t n, size_t* got) const {
  char* out = static_cast<char*>(dst);
  *got = 0;
  while (*got < n) {
    const size_t want = n - *got < kMaxWriteChunk ? n - *got : kMaxWriteChunk;
    const ssize_t r = ::pread(fd_, out + *got, want, static_cast<off_t>(offset + *got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot read", path_);
    }
    if (r == 0) break;  // end of file
    *got += static_cast<size_t>(r);
  }
  return BundleStatus::OK();
}

BundleStatus FileReader::ReadAt(uint64_t offset, void* dst, size_t n) const {
  size_t got = 0;
  SAVER_TF_RETURN_IF_ERROR(ReadUpTo(offset, dst, n, &got));
  if (got != n) {
    return Error(TG_DATA_LOSS, Str("'", path_, "' is truncated: wanted ", n, " bytes at offset ",
                                   offset, ", the file has ", size_, " bytes"));
  }
  return BundleStatus::OK();
}

// ---- paths ----

bool FileExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

BundleStatus RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return ErrnoStatus(errno, Str("cannot rename '", from, "' to"), to);
  }
  return BundleStatus::OK();
}

BundleStatus RemoveFileIfExists(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus(errno, "cannot delete", path);
  }
  return BundleStatus::OK();
}

BundleStatus SyncDirectoryOf(const std::string& path) {
  const std::string dir = DirectoryOf(path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open directory", dir);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some file systems cannot sync a directory (EINVAL); the renames happened anyway.
  if (rc != 0 && error != EINVAL) return ErrnoStatus(error, "cannot sync directory", dir);
  return BundleStatus::OK();
}

std::string TemporaryNameFor(const std::string& final_path) {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(generator()));
  return Str(final_path, ".tempstate", hex);
}

}  // namespace tgraph::saver_tf
