// The bytes of tensor buffers one run allocates, for run metadata: while a
// MemoryAccountScope is active on a thread, every buffer TensorBuffer::Allocate makes there
// is charged to its account until the buffer is freed (on whatever thread, even after the
// run), and the account keeps the high-water mark. Without a scope, allocation pays one
// thread-local load.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace tgraph {

class MemoryAccount {
 public:
  void Charge(int64_t bytes);
  void Credit(int64_t bytes);
  int64_t live_bytes() const { return live_.load(std::memory_order_relaxed); }
  int64_t peak_bytes() const { return peak_.load(std::memory_order_relaxed); }
  int64_t allocated_bytes() const { return allocated_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocated_{0};
};

// Makes `account` the current thread's account for the scope's life (null: none).
class MemoryAccountScope {
 public:
  explicit MemoryAccountScope(const std::shared_ptr<MemoryAccount>* account);
  ~MemoryAccountScope();
  MemoryAccountScope(const MemoryAccountScope&) = delete;
  MemoryAccountScope& operator=(const MemoryAccountScope&) = delete;

 private:
  const std::shared_ptr<MemoryAccount>* previous_;
};

// The current thread's account, or null.
const std::shared_ptr<MemoryAccount>* CurrentMemoryAccount();

}  // namespace tgraph
