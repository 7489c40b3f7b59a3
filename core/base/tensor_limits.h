// The largest tensor the core will allocate (issue 21, item 4): shapes come from GraphDefs,
// checkpoints and kernels' input values, and one that needs more memory than the machine has
// must be RESOURCE_EXHAUSTED before anything is allocated, never std::bad_alloc or an OOM
// kill. Tensor::Allocate and AllocateUninitialized check it (for DT_STRING, counting each
// element's std::string).
#pragma once

#include <cstdint>

namespace tgraph {

// In bytes: TGRAPH_MAX_TENSOR_BYTES from the environment when set to a positive number (read
// once), else the machine's physical memory.
uint64_t MaxTensorBytes();

}  // namespace tgraph
