// tf.train.Saver: saves and restores variables by running the Saver's own graph nodes
// (saver_builder.h) in a session, and keeps the checkpoint directory as TensorFlow does —
// the `checkpoint` state file, max_to_keep rotation, keep_checkpoint_every_n_hours.
// A Saver built from a SaverDef (a MetaGraph written by TensorFlow) works the same way.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/checkpoint/saver_builder.h"
#include "core/exec/session.h"
#include "tgraph/proto/saver.pb.h"

namespace tgraph {

class Saver {
 public:
  // Adds the nodes for `entries` (all global variables when empty is not implied: pass them).
  static StatusOr<std::unique_ptr<Saver>> Create(Graph& graph, std::vector<SaveEntry> entries,
                                                 const SaverBuildOptions& options);
  // Uses the nodes a SaverDef names (they must be in `graph`).
  static StatusOr<std::unique_ptr<Saver>> FromSaverDef(Graph& graph, const tf::SaverDef& def);

  // Writes the meta graph file for a checkpoint ("<path>.meta"), if the caller wants one.
  using MetaGraphWriter = std::function<Status(const std::string& meta_path)>;

  // Saves the variables to `prefix` ("<prefix>-<global_step>" when given) and returns that
  // path; then the meta graph (when `write_meta_graph` is set), the rotation of old
  // checkpoints and the state file named `latest_filename` in the prefix's directory.
  StatusOr<std::string> Save(Session& session, const std::string& prefix,
                             std::optional<int64_t> global_step,
                             const MetaGraphWriter& write_meta_graph = nullptr,
                             const std::string& latest_filename = "checkpoint");
  // Restores every variable from `path`. Before anything is assigned, the checkpoint's
  // listing is checked against the variables (NOT_FOUND for a missing tensor, INVALID_ARGUMENT
  // for another dtype or shape, naming both): a failed restore changes no variable.
  Status Restore(Session& session, const std::string& path);

  const tf::SaverDef& def() const { return def_; }
  // Checkpoints kept by this Saver, oldest first, with their save times (Unix seconds).
  const std::vector<std::pair<std::string, double>>& last_checkpoints() const { return last_; }
  // tf.train.Saver.recover_last_checkpoints / set_last_checkpoints_with_time.
  void SetLastCheckpoints(std::vector<std::pair<std::string, double>> checkpoints);
  // Replaces the wall clock (Unix seconds) that stamps saves and schedules
  // keep_checkpoint_every_n_hours, counting the hours from now on the new clock.
  void SetClockForTesting(std::function<double()> clock);

 private:
  Saver(Graph& graph, tf::SaverDef def);
  Status Resolve();
  Status RecordAndRotate(const std::string& path, double now);

  Graph& graph_;
  tf::SaverDef def_;
  Output filename_tensor_;
  Output save_tensor_;
  Operation* restore_op_ = nullptr;
  std::vector<std::pair<std::string, double>> last_;
  std::function<double()> clock_;
  double next_preserved_time_ = 0;  // keep_checkpoint_every_n_hours
};

// Deletes a checkpoint's files (its saver format's files and "<prefix>.meta").
Status DeleteCheckpoint(const std::string& prefix);

}  // namespace tgraph
