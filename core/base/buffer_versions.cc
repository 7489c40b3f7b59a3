#include "core/base/buffer_versions.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace tgraph {
namespace {

struct Entry {
  std::weak_ptr<TensorBuffer> buffer;  // expired: the buffer died, the entry is stale
  uint64_t version = 0;
};

struct Table {
  std::mutex mu;
  std::unordered_map<const TensorBuffer*, Entry> entries;
  uint64_t next = 1;  // 0 = unknown; 64 bits never wrap in a process's life
  size_t purge_at = 64;

  // Drops the entries of dead buffers once the table has doubled since the last purge, so
  // that a session that reallocates variables (or many sessions) cannot grow it forever.
  void PurgeIfLarge() {
    if (entries.size() >= purge_at) Purge();
  }
  void Purge() {
    std::erase_if(entries, [](const auto& kv) { return kv.second.buffer.expired(); });
    purge_at = std::max<size_t>(64, 2 * entries.size());
  }
};

Table& Global() {
  static Table* table = new Table;  // never destroyed: kernels may ask during exit
  return *table;
}

}  // namespace

uint64_t BufferVersions::Get(const TensorBuffer* buffer) {
  if (buffer == nullptr) return 0;
  Table& t = Global();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.entries.find(buffer);
  if (it == t.entries.end() || it->second.buffer.expired()) return 0;
  return it->second.version;
}

void BufferVersions::Touch(const std::shared_ptr<TensorBuffer>& buffer) {
  if (buffer == nullptr) return;
  Table& t = Global();
  std::lock_guard<std::mutex> lock(t.mu);
  t.PurgeIfLarge();
  Entry& e = t.entries[buffer.get()];
  e.buffer = buffer;
  e.version = t.next++;
}

void BufferVersions::Ensure(const std::shared_ptr<TensorBuffer>& buffer) {
  if (buffer == nullptr) return;
  Table& t = Global();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.entries.find(buffer.get());
  if (it != t.entries.end() && !it->second.buffer.expired()) return;
  t.PurgeIfLarge();
  Entry& e = t.entries[buffer.get()];
  e.buffer = buffer;
  e.version = t.next++;
}

void BufferVersions::Renumber(const TensorBuffer* buffer) {
  if (buffer == nullptr) return;
  Table& t = Global();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.entries.find(buffer);
  if (it != t.entries.end() && !it->second.buffer.expired()) it->second.version = t.next++;
}

void BufferVersions::Drop(const TensorBuffer* buffer) {
  if (buffer == nullptr) return;
  Table& t = Global();
  std::lock_guard<std::mutex> lock(t.mu);
  t.entries.erase(buffer);
}

void BufferVersions::ForgetDead() {
  Table& t = Global();
  std::lock_guard<std::mutex> lock(t.mu);
  t.Purge();
}

size_t BufferVersions::NumEntriesForTest() {
  Table& t = Global();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.entries.size();
}

}  // namespace tgraph
