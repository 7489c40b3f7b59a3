#include "core/base/memory_account.h"

namespace tgraph {
namespace {
thread_local const std::shared_ptr<MemoryAccount>* current_account = nullptr;
}  // namespace

void MemoryAccount::Charge(int64_t bytes) {
  allocated_.fetch_add(bytes, std::memory_order_relaxed);
  const int64_t live = live_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (live > peak && !peak_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

void MemoryAccount::Credit(int64_t bytes) { live_.fetch_sub(bytes, std::memory_order_relaxed); }

MemoryAccountScope::MemoryAccountScope(const std::shared_ptr<MemoryAccount>* account)
    : previous_(current_account) {
  current_account = account != nullptr && *account ? account : nullptr;
}

MemoryAccountScope::~MemoryAccountScope() { current_account = previous_; }

const std::shared_ptr<MemoryAccount>* CurrentMemoryAccount() { return current_account; }

}  // namespace tgraph
