// The checkpoint services of TG_CoreApi (ABI 5): what the SaveV2 / RestoreV2 /
// MergeV2Checkpoints kernels call. The core, not the kernel, picks the saver plugin, so any
// device's kernels reach every loaded checkpoint format the same way.
#pragma once

#include "tgraph/plugin.h"

namespace tgraph {

void FillCheckpointServices(TG_CoreApi* api);

}  // namespace tgraph
