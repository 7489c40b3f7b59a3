// `.meta` files: parsing (binary, else text format) and atomic writing.
#include <fcntl.h>
#include <unistd.h>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/graph/meta_graph_io.h"

namespace tgraph {
namespace {

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

// Writes all of data, retrying short writes and EINTR.
bool WriteAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Status ParseMetaGraphDef(const void* data, size_t len, const std::string& source,
                         tf::MetaGraphDef* out) {
  if (data == nullptr && len > 0) return InvalidArgument(source, ": data is null");
  if (len > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return InvalidArgument(source, ": ", len, " bytes is more than a protobuf message can hold");
  }
  tf::MetaGraphDef def;
  if (len > 0 && def.ParseFromArray(data, static_cast<int>(len))) {
    *out = std::move(def);
    return Status::OK();
  }
  // Text format only when the bytes are text; an empty input is an empty MetaGraphDef.
  std::string text = len == 0 ? std::string() : std::string(static_cast<const char*>(data), len);
  def.Clear();
  google::protobuf::TextFormat::Parser parser;
  parser.AllowPartialMessage(false);
  class Silent : public google::protobuf::io::ErrorCollector {
   public:
    void AddError(int line, int column, const std::string& message) override {
      if (first.empty()) first = StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
    }
    std::string first;
  } errors;
  parser.RecordErrorsTo(&errors);
  if (text.find('\0') == std::string::npos && parser.ParseFromString(text, &def)) {
    *out = std::move(def);
    return Status::OK();
  }
  return InvalidArgument(source, " is not a valid MetaGraphDef (", len,
                         " bytes: neither a binary proto nor text format",
                         errors.first.empty() ? "" : StrCat("; as text, ", errors.first),
                         "); is it truncated or another kind of file?");
}

Status ReadMetaGraphFile(const std::string& path, tf::MetaGraphDef* out) {
  if (out == nullptr) return InvalidArgument("ReadMetaGraphFile: output is null");
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus(errno, StrCat("cannot open MetaGraph file '", path, "'"));
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return ErrnoStatus(errno, StrCat("cannot read MetaGraph file '", path, "'"));
  std::string bytes = std::move(contents).str();
  return ParseMetaGraphDef(bytes.data(), bytes.size(), StrCat("MetaGraph file '", path, "'"), out);
}

Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  std::string tmp = StrCat(path, ".tmp", ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
  size_t slash = path.rfind('/');
  std::string dir;
  if (slash == std::string::npos) {
    dir.push_back('.');
  } else if (slash == 0) {
    dir.push_back('/');
  } else {
    dir.assign(path, 0, slash);
  }
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::OK();
}

}  // namespace tgraph
