#include "core/base/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace tgraph {
namespace {

// Writes all of data, retrying short writes and EINTR; false with errno set on failure.
bool WriteAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    const ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

Status ErrnoStatus(int err, const std::string& what) {
  std::string message = StrCat(what, ": ", std::strerror(err));
  switch (err) {
    case ENOENT: return NotFound(message);
    case EACCES:
    case EPERM: return PermissionDenied(message);
    case ENOSPC:
    case EDQUOT: return ResourceExhausted(message);
    default: return UnknownError(message);
  }
}

Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  // A random name, created exclusively: two writers of one path never share a temporary.
  std::random_device rd;
  const std::string tmp = StrCat(path, ".tmp", rd(), rd());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, StrCat("cannot create '", tmp, "' to write '", path, "'"));
  bool ok = WriteAll(fd, bytes.data(), bytes.size()) && ::fsync(fd) == 0;
  int err = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return ErrnoStatus(err, StrCat("cannot write '", path, "'"));
  }
  // The rename itself is durable once the directory is synced.
  const int dir_fd = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::OK();
}

}  // namespace tgraph
