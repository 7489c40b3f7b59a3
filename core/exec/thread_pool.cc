#include "core/exec/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/ThreadPool>

#include "core/exec/cpu_relax.h"
#include "core/exec/hand_off.h"

namespace tgraph {
namespace {

// A block should carry at least this much work (ns) to be worth handing to another thread
// (a wake-up plus a cache miss or two costs a few microseconds).
constexpr double kMinBlockCostNs = 20000.0;
// At most this many blocks per thread (a little over-splitting evens out uneven blocks).
constexpr int64_t kBlocksPerThread = 4;
// The caller of ParallelFor spins at least this long for the helpers' blocks before it
// sleeps (longer in a pool whose threads linger).
constexpr std::chrono::microseconds kMinJoinSpin(20);

// What the caller and the helpers share. Helpers may start after the caller has returned
// (they then find no block left), so this lives in a shared_ptr and `fn` is touched only
// for a block that was claimed before the caller stopped waiting.
struct ForState {
  int64_t total = 0;
  int64_t num_blocks = 0;
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};  // blocks finished
  std::mutex mu;
  std::condition_variable cv;
  bool sleeping = false;  // under mu: the caller waits on cv

  // Claims and runs blocks until none is left; returns how many this thread ran.
  void Work() {
    int64_t ran = 0;
    for (;;) {
      const int64_t b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= num_blocks) break;
      // Blocks differ in size by at most one unit (the first `extra` get one more); no
      // product of b and total, which could overflow for huge ranges.
      const int64_t base = total / num_blocks, extra = total % num_blocks;
      const int64_t begin = b * base + std::min(b, extra);
      const int64_t end = begin + base + (b < extra ? 1 : 0);
      (*fn)(begin, end);
      ++ran;
    }
    if (ran > 0 && done.fetch_add(ran, std::memory_order_acq_rel) + ran == num_blocks) {
      // The last block: wake the caller if it went to sleep (under mu, so the wake-up
      // cannot fall between its check of `done` and its wait).
      std::lock_guard<std::mutex> lock(mu);
      if (sleeping) cv.notify_all();
    }
  }

  // The caller, after its own blocks: a helper's block is about as long as the caller's,
  // so it is usually finished or nearly; spin for up to `spin` before sleeping, which costs
  // a futex wait here and a wake-up there (20-100 us on a virtual machine whose idle vCPU
  // the host took back). No sched_yield in the spin: on a busy machine it hands the core to
  // another process for a whole time slice.
  void Join(std::chrono::microseconds spin) {
    const auto spin_until = std::chrono::steady_clock::now() + spin;
    for (int i = 0; done.load(std::memory_order_acquire) != num_blocks; ++i) {
      if ((i & 63) == 63 && std::chrono::steady_clock::now() >= spin_until) {
        std::unique_lock<std::mutex> lock(mu);
        sleeping = true;
        cv.wait(lock, [&] { return done.load(std::memory_order_acquire) == num_blocks; });
        return;
      }
      CpuRelax();
    }
  }
};

}  // namespace

struct ThreadPool::Impl {
  // A pool's parallel loops use its threads' count with the caller included (ParallelFor),
  // so at most n - 1 threads linger: with the caller they fill n cores, no more.
  Impl(int n, std::chrono::microseconds linger) : hand_off(linger, n - 1), pool(n) {}
  HandOff hand_off;  // before the pool: its threads use it until they are joined
  Eigen::ThreadPool pool;
};

ThreadPool::ThreadPool(int num_threads, std::chrono::microseconds linger)
    : impl_(std::make_unique<Impl>(std::max(num_threads, 1), linger)),
      num_threads_(std::max(num_threads, 1)),
      join_spin_(std::max(linger, kMinJoinSpin)) {
  handle_.pool = this;
}

ThreadPool::~ThreadPool() { impl_->hand_off.Stop(); }

int ThreadPool::CurrentThreadId() const { return impl_->pool.CurrentThreadId(); }

void ThreadPool::Schedule(std::function<void()> fn) {
  if (impl_->hand_off.TryHand(fn)) return;
  if (!impl_->hand_off.enabled()) {
    impl_->pool.Schedule(std::move(fn));
    return;
  }
  Impl* impl = impl_.get();
  impl_->pool.Schedule([impl, fn = std::move(fn)] {
    fn();
    impl->hand_off.Linger();
  });
}

int64_t ThreadPool::NumBlocks(int num_threads, int64_t total, double cost_per_unit_ns) {
  if (total <= 0) return 0;
  if (num_threads <= 1 || total == 1) return 1;
  int64_t blocks;
  if (!(cost_per_unit_ns > 0) || !std::isfinite(cost_per_unit_ns)) {
    blocks = num_threads;  // unknown cost: assume the work is worth spreading
  } else {
    const double total_cost = static_cast<double>(total) * cost_per_unit_ns;
    const double by_cost = std::floor(total_cost / kMinBlockCostNs);
    const double cap = static_cast<double>(num_threads * kBlocksPerThread);
    blocks = static_cast<int64_t>(std::min(by_cost, cap));
  }
  return std::clamp<int64_t>(blocks, 1, total);
}

void ThreadPool::ParallelFor(int64_t total, double cost_per_unit_ns,
                             const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t blocks = NumBlocks(num_threads_, total, cost_per_unit_ns);
  if (blocks == 0) return;
  if (blocks == 1) {
    fn(0, total);
    return;
  }
  auto state = std::make_shared<ForState>();
  state->total = total;
  state->num_blocks = blocks;
  state->fn = &fn;
  // The caller takes blocks too, so blocks - 1 helpers at most, and with the caller no more
  // threads than NumThreads(): one more would only share a core (on 2 cores, the MLP
  // training step took 19% less time with one helper and lingering threads than with two
  // helpers and none, CNN 7%; bench/README.md).
  const int64_t helpers = std::min<int64_t>(blocks - 1, num_threads_ - 1);
  for (int64_t i = 0; i < helpers; ++i) Schedule([state] { state->Work(); });
  state->Work();
  state->Join(join_spin_);
}

bool ThreadPool::RunsInline(ThreadPool* pool, int64_t total, double cost_per_unit_ns) {
  return pool == nullptr || NumBlocks(pool->NumThreads(), total, cost_per_unit_ns) <= 1;
}

void ThreadPool::ParallelFor(ThreadPool* pool, int64_t total, double cost_per_unit_ns,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  if (RunsInline(pool, total, cost_per_unit_ns)) {
    fn(0, total);
    return;
  }
  pool->ParallelFor(total, cost_per_unit_ns, fn);
}

TG_ThreadPool* ThreadPool::InlineHandle() {
  static TG_ThreadPool handle;  // pool == nullptr
  return &handle;
}

}  // namespace tgraph
