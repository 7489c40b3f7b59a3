#include "core/checkpoint/checkpoint_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/filesystem.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <google/protobuf/text_format.h>

#include "core/plugin/registry.h"

namespace tgraph {
namespace {

namespace fs = boost::filesystem;

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  const std::string reason = std::strerror(err);
  if (err == ENOENT) return NotFound(what, " '", path, "': ", reason);
  if (err == EACCES || err == EPERM) return PermissionDenied(what, " '", path, "': ", reason);
  if (err == ENOSPC || err == EDQUOT) return ResourceExhausted(what, " '", path, "': ", reason);
  return Internal(what, " '", path, "': ", reason);
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : (fs::path(dir) / name).string();
}

Status WriteAll(int fd, const std::string& contents, const std::string& path) {
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("writing", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  std::random_device rd;
  const std::string temp = StrCat(path, ".tmp", std::to_string(rd()));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("creating", temp, errno);
  Status s = WriteAll(fd, contents, temp);
  if (s.ok() && ::fsync(fd) != 0) s = ErrnoStatus("flushing", temp, errno);
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus("closing", temp, errno);
  if (s.ok() && ::rename(temp.c_str(), path.c_str()) != 0) s = ErrnoStatus("renaming into", path, errno);
  if (!s.ok()) {
    ::unlink(temp.c_str());
    return s;
  }
  // The rename is durable once the directory is.
  const fs::path parent = fs::path(path).parent_path();
  const int dir_fd = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::OK();
}

StatusOr<tf::CheckpointState> ReadCheckpointState(const std::string& dir,
                                                  const std::string& latest_filename) {
  const std::string path = JoinPath(dir, latest_filename.empty() ? kCheckpointStateFile : latest_filename);
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("no checkpoint state file '", path, "'");
  std::ostringstream text;
  text << in.rdbuf();
  tf::CheckpointState state;
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &state)) {
    return DataLoss("checkpoint state file '", path, "' is not a text-format CheckpointState");
  }
  if (state.model_checkpoint_path().empty()) {
    return DataLoss("checkpoint state file '", path, "' has no model_checkpoint_path");
  }
  return state;
}

Status WriteCheckpointState(const std::string& dir, const std::string& latest_filename,
                            const tf::CheckpointState& state) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(state, &text)) {
    return Internal("could not print the checkpoint state");
  }
  return WriteFileAtomically(JoinPath(dir, latest_filename.empty() ? kCheckpointStateFile : latest_filename), text);
}

StatusOr<std::optional<std::string>> LatestCheckpoint(const std::string& dir,
                                                      const std::string& latest_filename) {
  auto state = ReadCheckpointState(dir, latest_filename);
  if (!state.ok()) {
    if (state.status().code() == Code::kNotFound) return std::optional<std::string>();
    return state.status();
  }
  std::string path = state.value().model_checkpoint_path();
  if (!fs::path(path).is_absolute()) path = JoinPath(dir, path);
  TG_ASSIGN_OR_RETURN(const SaverRegistration* saver, SaverRegistry::Global()->ForPrefix(path));
  if (!saver->Exists(path)) return std::optional<std::string>();
  return std::optional<std::string>(path);
}

}  // namespace tgraph
