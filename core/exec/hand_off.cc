#include "core/exec/hand_off.h"

#include <utility>

#include "core/exec/cpu_relax.h"

namespace tgraph {

bool HandOff::TryHand(std::function<void()>& fn) {
  int free = available_.load(std::memory_order_acquire);
  while (free > 0) {
    if (available_.compare_exchange_weak(free, free - 1, std::memory_order_acq_rel)) {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(fn));
      queued_.fetch_add(1, std::memory_order_release);
      return true;
    }
  }
  return false;
}

bool HandOff::Pop(std::function<void()>* fn) {
  if (queued_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (tasks_.empty()) return false;
  *fn = std::move(tasks_.front());
  tasks_.pop_front();
  queued_.fetch_sub(1, std::memory_order_release);
  return true;
}

bool HandOff::Leave() {
  int free = available_.load(std::memory_order_acquire);
  while (free > 0) {
    if (available_.compare_exchange_weak(free, free - 1, std::memory_order_acq_rel)) return true;
  }
  return false;
}

void HandOff::Linger() {
  if (!enabled()) return;
  int now_lingering = lingering_.load(std::memory_order_relaxed);
  do {
    if (now_lingering >= max_lingering_) return;
  } while (!lingering_.compare_exchange_weak(now_lingering, now_lingering + 1,
                                             std::memory_order_acq_rel));
  available_.fetch_add(1, std::memory_order_acq_rel);
  auto deadline = std::chrono::steady_clock::now() + linger_;
  for (int i = 0;; ++i) {
    std::function<void()> fn;
    if (Pop(&fn)) {
      fn();
      fn = nullptr;  // the task's captures go before we spin again
      available_.fetch_add(1, std::memory_order_acq_rel);
      deadline = std::chrono::steady_clock::now() + linger_;
      i = 0;
      continue;
    }
    // Past the deadline (or stopping), leave as soon as our place is not needed: a failed
    // Leave means every lingering thread's place is promised to a task being queued, but
    // another thread may take that task, so try again rather than wait for one.
    if ((i & 63) == 63 &&
        (stopping_.load(std::memory_order_acquire) || std::chrono::steady_clock::now() >= deadline) &&
        Leave()) {
      lingering_.fetch_sub(1, std::memory_order_acq_rel);
      return;
    }
    CpuRelax();
  }
}

}  // namespace tgraph
