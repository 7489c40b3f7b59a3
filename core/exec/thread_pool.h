// A thread pool for intra-op (and later inter-op) parallelism: Eigen's non-blocking pool
// underneath, with a ParallelFor that splits a range by estimated cost. Plugins see it as
// the opaque TG_ThreadPool of tgraph/plugin.h (pool_schedule, parallel_for, ...).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tgraph {
class ThreadPool;
}  // namespace tgraph

// The C handle plugins hold. `pool` is null for the inline "pool" (no threads: everything
// runs on the caller), which is what kernels get when no pool was given.
struct TG_ThreadPool {
  tgraph::ThreadPool* pool = nullptr;
};

namespace tgraph {

class ThreadPool {
 public:
  // num_threads < 1 is treated as 1. `linger` > 0: a thread that ran a task spins that
  // much longer for the next one before it may sleep (hand_off.h; at most num_threads - 1
  // threads at once), and ParallelFor's caller spins as long for the helpers' blocks.
  explicit ThreadPool(int num_threads,
                      std::chrono::microseconds linger = std::chrono::microseconds(0));
  ~ThreadPool();  // waits for scheduled work to finish
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int NumThreads() const { return num_threads_; }
  // This thread's index in the pool, in [0, NumThreads()), or -1 off the pool.
  int CurrentThreadId() const;
  // Runs fn on a pool thread some time later.
  void Schedule(std::function<void()> fn);

  // Runs fn(begin, end) over disjoint blocks covering [0, total) and returns when all have
  // run. The block size comes from cost_per_unit_ns (estimated nanoseconds per unit; <= 0 =
  // unknown: one block per thread): cheap ranges run inline on the caller. The caller works
  // too (so nesting inside a pool thread cannot deadlock), beside at most NumThreads() - 1
  // pool threads.
  void ParallelFor(int64_t total, double cost_per_unit_ns,
                   const std::function<void(int64_t, int64_t)>& fn);

  // The same on `pool`, or inline on the caller when `pool` is null.
  static void ParallelFor(ThreadPool* pool, int64_t total, double cost_per_unit_ns,
                          const std::function<void(int64_t, int64_t)>& fn);

  // How many blocks ParallelFor would use (exposed for tests and cost tuning).
  static int64_t NumBlocks(int num_threads, int64_t total, double cost_per_unit_ns);
  // Would the static ParallelFor run the whole range inline on the caller? (Callers that
  // wrap their function for it can skip the wrapping then.)
  static bool RunsInline(ThreadPool* pool, int64_t total, double cost_per_unit_ns);

  TG_ThreadPool* c_handle() { return &handle_; }
  // The handle of the inline pool (no threads).
  static TG_ThreadPool* InlineHandle();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int num_threads_;
  std::chrono::microseconds join_spin_;
  TG_ThreadPool handle_;
};

}  // namespace tgraph
