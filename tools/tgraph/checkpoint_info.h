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

// True when a loaded saver recognises a checkpoint at `prefix` (plugins must be loaded).
bool IsCheckpoint(const std::string& prefix);

// Lists the checkpoint, prints the --tensor ones, writes .npy files; a ToolError naming the
// prefix (and the tensor or file) on failure.
void PrintCheckpointInfo(const CheckpointInfoOptions& options);

}  // namespace tgraph::tool
