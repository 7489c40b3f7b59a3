// The memory limits of untrusted input (tensor sizes, imports) share one rule.
#pragma once

#include <cstdint>

namespace tgraph {

// `variable` from the environment when it holds a positive number of bytes, else the
// machine's physical memory (the largest uint64_t when that cannot be read). Not cached: the
// callers read it once.
uint64_t MemoryLimitFromEnvironment(const char* variable);

}  // namespace tgraph
