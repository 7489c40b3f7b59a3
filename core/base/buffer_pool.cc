#include "core/base/buffer_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tgraph {

namespace {

bool HugePagesWanted() {
#ifdef MADV_HUGEPAGE
  const char* env = std::getenv("TGRAPH_HUGE_PAGES");
  return env == nullptr || std::strcmp(env, "0") != 0;
#else
  return false;
#endif
}

// A fresh zeroed mapping of `size` bytes; when MarkedHuge, starting on a huge-page boundary
// (mapped a huge page longer, the ends trimmed) and marked for transparent huge pages. The
// marking is advice: where the kernel has none to give, the pages are ordinary ones.
void* MapBuffer(size_t size, bool huge) {
  constexpr int kProt = PROT_READ | PROT_WRITE;
  constexpr int kFlags = MAP_PRIVATE | MAP_ANONYMOUS;
  if (!BufferPool::MarkedHuge(size, huge)) {
    void* p = mmap(nullptr, size, kProt, kFlags, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  const size_t huge_page = BufferPool::kHugePageBytes;
  if (size > std::numeric_limits<size_t>::max() - huge_page) return nullptr;
  void* raw = mmap(nullptr, size + huge_page, kProt, kFlags, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  char* const begin = static_cast<char*>(raw);
  char* const aligned = reinterpret_cast<char*>(
      (reinterpret_cast<uintptr_t>(begin) + huge_page - 1) & ~(uintptr_t{huge_page} - 1));
  char* const end = begin + size + huge_page;
  if (aligned > begin) munmap(begin, static_cast<size_t>(aligned - begin));
  if (end > aligned + size) munmap(aligned + size, static_cast<size_t>(end - (aligned + size)));
#ifdef MADV_HUGEPAGE
  madvise(aligned, size, MADV_HUGEPAGE);
#endif
  return aligned;
}

}  // namespace

struct BufferPool::State {
  const bool huge_pages = HugePagesWanted();
  mutable std::mutex mutex;
  std::unordered_map<size_t, std::vector<void*>> free;  // class size -> cached buffers
  int64_t mapped = 0;
  int64_t cached = 0;
  int64_t peak_in_use = 0;  // the most bytes handed out and not given back at once
};

BufferPool::BufferPool() : state_(new State) {}

BufferPool* BufferPool::Global() {
#if defined(__SANITIZE_ADDRESS__)
  return nullptr;
#else
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  return nullptr;
#endif
#endif
  // Never destroyed: buffers may be freed by static destructors after main returns.
  static BufferPool* const pool = [] {
    const char* env = std::getenv("TGRAPH_BUFFER_POOL");
    return env != nullptr && std::strcmp(env, "0") == 0 ? nullptr : new BufferPool;
  }();
  return pool;
#endif
}

size_t BufferPool::ClassOf(size_t bytes) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // Steps of 1/8 of the highest power of two at or below `bytes`, and whole pages.
  // Sizes no mapping could hold: 0, which Get refuses (rounding up would wrap around).
  if (bytes > (std::numeric_limits<size_t>::max() >> 2)) return 0;
  size_t top = size_t{1} << (63 - __builtin_clzll(bytes | 1));
  size_t step = top >= 8 * page ? top / 8 : page;
  return (bytes + step - 1) / step * step;
}

size_t BufferPool::MappingOf(size_t class_size, bool huge_pages) {
  if (!huge_pages || class_size > std::numeric_limits<size_t>::max() - kHugePageBytes) {
    return class_size;
  }
  // Only a class under one huge page is rounded up (to one): in a larger one the whole huge
  // pages are huge already, and rounding its tail up would make the last one resident whole.
  if (class_size >= kHugePageBytes) return class_size;
  return (kHugePageBytes - class_size) <= class_size / 4 ? kHugePageBytes : class_size;
}

bool BufferPool::MarkedHuge(size_t mapping_size, bool huge_pages) {
  return huge_pages && mapping_size >= kHugePageBytes && mapping_size <= kMaxHugeMappingBytes;
}

bool BufferPool::huge_pages() const { return state_->huge_pages; }

void* BufferPool::Get(size_t bytes, bool* fresh) {
  const size_t cls = ClassOf(bytes);
  if (cls == 0) return nullptr;
  // The free lists and the byte counts are by mapping length (the class, or the class
  // rounded up to huge pages): classes that map alike share buffers.
  const size_t size = MappingOf(cls, state_->huge_pages);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    auto it = state_->free.find(size);
    if (it != state_->free.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      state_->cached -= static_cast<int64_t>(size);
      state_->peak_in_use = std::max(state_->peak_in_use, state_->mapped - state_->cached);
      *fresh = false;
      return p;
    }
  }
  void* p = MapBuffer(size, state_->huge_pages);
  if (p == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->mapped += static_cast<int64_t>(size);
  state_->peak_in_use = std::max(state_->peak_in_use, state_->mapped - state_->cached);
  *fresh = true;
  return p;
}

void BufferPool::Put(void* data, size_t bytes) {
  const size_t size = MappingOf(ClassOf(bytes), state_->huge_pages);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->cached + static_cast<int64_t>(size) <= CacheLimit(state_->peak_in_use)) {
      state_->free[size].push_back(data);
      state_->cached += static_cast<int64_t>(size);
      return;
    }
    state_->mapped -= static_cast<int64_t>(size);
  }
  munmap(data, size);
}

int64_t BufferPool::CacheLimit(int64_t peak_in_use) {
  return static_cast<int64_t>(kBaseCachedBytes) + 2 * peak_in_use;
}

int64_t BufferPool::mapped_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->mapped;
}

int64_t BufferPool::cached_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->cached;
}

int64_t BufferPool::peak_in_use_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->peak_in_use;
}

void BufferPool::Trim() {
  std::unordered_map<size_t, std::vector<void*>> free;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    free.swap(state_->free);
    for (const auto& [size, buffers] : free) state_->mapped -= static_cast<int64_t>(size * buffers.size());
    state_->cached = 0;
    state_->peak_in_use = state_->mapped;
  }
  for (const auto& [size, buffers] : free) {
    for (void* p : buffers) munmap(p, size);
  }
}

}  // namespace tgraph
