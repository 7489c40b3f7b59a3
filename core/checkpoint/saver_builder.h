// Adds tf.train.Saver's nodes to a graph, as TensorFlow 1.x names and wires them, so that a
// MetaGraph's SaverDef means the same here and in TensorFlow:
//
//   save/filename/input  Const "model"        save/filename  PlaceholderWithDefault
//   save/Const           PlaceholderWithDefault(save/filename)   <- filename_tensor_name
//   save/SaveV2          SaveV2(save/Const, tensor_names, shape_and_slices, variables...)
//   save/control_dependency  Identity(save/Const, ^save/SaveV2)  <- save_tensor_name
//   save/RestoreV2       RestoreV2(save/Const, tensor_names, shape_and_slices)
//   save/Assign, save/Assign_1, ...  Assign(variable, save/RestoreV2:i)
//   save/restore_all     NoOp(^save/Assign, ...)                 <- restore_op_name
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/graph/graph.h"
#include "core/graph/variables.h"
#include "tgraph/proto/saver.pb.h"

namespace tgraph {

struct SaverBuildOptions {
  std::string name = "save";     // the name scope (made unique: "save_1", ...)
  std::string filename = "model";  // the filename tensor's default
  int max_to_keep = 5;           // 0 keeps every checkpoint
  float keep_checkpoint_every_n_hours = 10000.0f;
  bool sharded = false;
};

// One variable under its name in the checkpoint (TF1: the variable op's name).
struct SaveEntry {
  std::string key;
  Variable* variable = nullptr;
};

// The entries, sorted by key as TF sorts them; INVALID_ARGUMENT for none, a key used twice
// or a variable of another graph.
StatusOr<tf::SaverDef> BuildSaverGraph(Graph& graph, std::vector<SaveEntry> entries,
                                       const SaverBuildOptions& options);

// What a SaverDef's restore op restores: each checkpoint key with the variable op it is
// assigned to, found by walking restore_op -> Assign -> (variable, RestoreV2:i) and reading
// RestoreV2's tensor_names constant. Works for TF's graphs and ours alike.
struct RestoreTarget {
  std::string key;
  const Operation* variable = nullptr;  // the Assign's ref input's op
  DataType dtype = DT_INVALID;          // RestoreV2's dtype for this key
  PartialShape shape;                   // the variable's static shape
  bool validate_shape = true;           // the Assign's validate_shape
};
StatusOr<std::vector<RestoreTarget>> FindRestoreTargets(const Graph& graph,
                                                        const tf::SaverDef& def);

// A string scalar: the filename constants here, and what the Saver feeds them.
StatusOr<Tensor> StringScalar(const std::string& value);

}  // namespace tgraph
