// The `checkpoint` state file TensorFlow keeps beside its checkpoints: a CheckpointState in
// protobuf text format naming the newest checkpoint and the ones still kept. Written
// atomically (a temporary file, flushed and renamed), so a reader never sees half a file.
#pragma once

#include <optional>
#include <string>

#include "core/base/status.h"
#include "tgraph/proto/checkpoint_state.pb.h"

namespace tgraph {

inline constexpr const char* kCheckpointStateFile = "checkpoint";

// Reads <dir>/<latest_filename>. NOT_FOUND when it is absent; DATA_LOSS naming the file when
// it does not parse or names no checkpoint. Relative paths are returned as written.
StatusOr<tf::CheckpointState> ReadCheckpointState(const std::string& dir,
                                                  const std::string& latest_filename);
Status WriteCheckpointState(const std::string& dir, const std::string& latest_filename,
                            const tf::CheckpointState& state);

// tf.train.latest_checkpoint: the newest checkpoint's prefix (relative paths joined to
// `dir`), or nullopt when there is no state file or its newest checkpoint is gone.
StatusOr<std::optional<std::string>> LatestCheckpoint(const std::string& dir,
                                                      const std::string& latest_filename);

}  // namespace tgraph
