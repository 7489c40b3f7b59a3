#include "core/checkpoint/checkpoint_state.h"

#include <boost/filesystem.hpp>
#include <fstream>
#include <sstream>

#include <google/protobuf/text_format.h>

#include "core/base/file_io.h"
#include "core/plugin/registry.h"

namespace tgraph {
namespace {

namespace fs = boost::filesystem;

std::string JoinPath(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : (fs::path(dir) / name).string();
}

}  // namespace

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
