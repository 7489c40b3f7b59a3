#include "core/base/allocation_faults.h"

#include <atomic>

namespace tgraph {
namespace {
std::atomic<int64_t> allocations_to_failure{0};  // 0: disarmed
}  // namespace

void FailNthTensorAllocation(int64_t nth) {
  allocations_to_failure.store(nth > 0 ? nth : 0, std::memory_order_relaxed);
}

int64_t TensorAllocationsBeforeFailure() {
  return allocations_to_failure.load(std::memory_order_relaxed);
}

bool ConsumeTensorAllocationFault() {
  int64_t left = allocations_to_failure.load(std::memory_order_relaxed);
  while (left > 0) {
    if (allocations_to_failure.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) {
      return left == 1;
    }
  }
  return false;
}

}  // namespace tgraph
