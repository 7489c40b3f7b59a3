#include "core/base/memory_limit.h"

#include <unistd.h>

#include <cstdlib>
#include <limits>

namespace tgraph {

uint64_t MemoryLimitFromEnvironment(const char* variable) {
  if (const char* env = std::getenv(variable); env != nullptr && *env) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && v > 0) return static_cast<uint64_t>(v);
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

}  // namespace tgraph
