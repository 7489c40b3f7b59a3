// `tgraph info PREFIX` for checkpoints: what a checkpoint holds (each tensor's name, dtype,
// shape and size), one tensor printed numpy-style, tensors written as .npy files. Read
// through the C API's checkpoint reader, so any loaded saver plugin's format works.
#pragma once

#include <string>
#include <vector>

namespace tgraph::tool {

struct CheckpointInfoOptions {
  std::string prefix;
  std::vector<std::string> tensors;  // --tensor NAME: print these (all of them: list only)
  std::string npy_dir;               // --npy DIR: write the chosen tensors (or all) there
};

// The checkpoint prefix `path` names: itself when a loaded saver recognises a checkpoint
// there, or the prefix of a V2 checkpoint's file ("model.ckpt.index",
// "model.ckpt.data-00000-of-00001"); "" when it names none (plugins must be loaded).
std::string CheckpointPrefixOf(const std::string& path);

// Lists the checkpoint, prints the --tensor ones, writes .npy files; a ToolError naming the
// prefix (and the tensor or file) on failure.
void PrintCheckpointInfo(const CheckpointInfoOptions& options);

}  // namespace tgraph::tool
