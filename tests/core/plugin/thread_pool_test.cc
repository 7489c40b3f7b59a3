#include "core/exec/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tgraph {
namespace {

TEST(ThreadPoolTest, NumBlocksFollowsCost) {
  EXPECT_EQ(ThreadPool::NumBlocks(4, 0, 100), 0);
  EXPECT_EQ(ThreadPool::NumBlocks(1, 1000000, 1e6), 1);   // one thread: inline
  EXPECT_EQ(ThreadPool::NumBlocks(8, 100, 1.0), 1);       // 100 ns of work: not worth a thread
  EXPECT_EQ(ThreadPool::NumBlocks(8, 1000000, 1e3), 32);  // capped at 4 blocks a thread
  EXPECT_EQ(ThreadPool::NumBlocks(8, 3, 1e9), 3);         // never more blocks than units
  EXPECT_EQ(ThreadPool::NumBlocks(8, 1000, 0), 8);        // unknown cost: one block a thread
  EXPECT_EQ(ThreadPool::NumBlocks(8, 1000, -1), 8);
  const int64_t mid = ThreadPool::NumBlocks(8, 10000, 10.0);  // 100 us of work
  EXPECT_GT(mid, 1);
  EXPECT_LE(mid, 8);
}

void ExpectCoversOnce(ThreadPool* pool, int64_t total, double cost) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(total));
  ThreadPool::ParallelFor(pool, total, cost, [&](int64_t b, int64_t e) {
    ASSERT_LE(0, b);
    ASSERT_LE(b, e);
    ASSERT_LE(e, total);
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
  });
  for (int64_t i = 0; i < total; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << i;
}

TEST(ThreadPoolTest, ParallelForCoversEveryUnitOnce) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.NumThreads(), 4);
  for (int64_t total : {0, 1, 2, 7, 100, 12345}) {
    for (double cost : {0.0, 1.0, 1e3, 1e6}) ExpectCoversOnce(&pool, total, cost);
  }
  ExpectCoversOnce(nullptr, 1000, 1e6);  // no pool: inline
  ThreadPool single(1);
  ExpectCoversOnce(&single, 1000, 1e6);
  ThreadPool zero(0);  // treated as one thread
  EXPECT_EQ(zero.NumThreads(), 1);
}

// The caller spins briefly for blocks that helpers are running, then sleeps: a helper's
// block that outlasts the spin (milliseconds here) must still be waited for, and one that
// ends within it must not leave the caller asleep.
TEST(ThreadPoolTest, ParallelForWaitsForSlowHelperBlocks) {
  ThreadPool pool(2);
  for (int sleep_us : {0, 5, 3000}) {
    for (int round = 0; round < 10; ++round) {
      std::atomic<int> finished{0};
      ThreadPool::ParallelFor(&pool, 2, 1e9, [&](int64_t b, int64_t e) {
        if (pool.CurrentThreadId() >= 0 && sleep_us > 0) {
          std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        }
        finished.fetch_add(static_cast<int>(e - b));
      });
      ASSERT_EQ(finished.load(), 2) << "sleep " << sleep_us << " us, round " << round;
    }
  }
}

TEST(ThreadPoolTest, NoPoolRunsInlineOnTheCaller) {
  const auto caller = std::this_thread::get_id();
  int calls = 0;
  ThreadPool::ParallelFor(nullptr, 100, 1e9, [&](int64_t b, int64_t e) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 100);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
}

TEST(ThreadPoolTest, WorkSpreadsOverPoolThreads) {
  ThreadPool pool(4);
  std::mutex mu;
  std::set<int> ids;
  pool.ParallelFor(64, 1e7, [&](int64_t, int64_t) {
    const int id = pool.CurrentThreadId();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(id);
  });
  EXPECT_GE(ids.size(), 2u);  // the caller (-1) and at least one pool thread
  for (int id : ids) {
    EXPECT_GE(id, -1);
    EXPECT_LT(id, 4);
  }
  EXPECT_EQ(pool.CurrentThreadId(), -1);
}

TEST(ThreadPoolTest, NestedParallelForDoesNotDeadlock) {
  ThreadPool pool(2);
  std::atomic<int64_t> sum{0};
  pool.ParallelFor(8, 1e7, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      pool.ParallelFor(100, 1e6, [&](int64_t ib, int64_t ie) { sum.fetch_add(ie - ib); });
    }
  });
  EXPECT_EQ(sum.load(), 800);
}

// The caller works too, so a loop takes at most NumThreads() - 1 pool threads: with the
// caller, never more threads at once than the pool counts (one more would share a core).
TEST(ThreadPoolTest, ParallelForRunsOnNoMoreThreadsThanThePoolCounts) {
  for (auto linger : {std::chrono::microseconds(0), std::chrono::microseconds(2000)}) {
    ThreadPool pool(3, linger);
    std::atomic<int> running{0}, most{0};
    for (int round = 0; round < 3; ++round) {
      pool.ParallelFor(24, 1e9, [&](int64_t, int64_t) {
        const int now = running.fetch_add(1) + 1;
        for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        running.fetch_sub(1);
      });
    }
    EXPECT_LE(most.load(), 3) << "linger " << linger.count() << " us";
    EXPECT_GE(most.load(), 2) << "linger " << linger.count() << " us";
  }
}

// Threads that linger after their tasks still run every loop's blocks and every scheduled
// task, and the pool's destructor does not wait out a long linger.
TEST(ThreadPoolTest, LingeringThreadsRunEverythingAndStopWithThePool) {
  const auto start = std::chrono::steady_clock::now();
  {
    ThreadPool pool(4, std::chrono::seconds(30));
    for (int64_t total : {2, 7, 100, 12345}) ExpectCoversOnce(&pool, total, 1e6);
    std::atomic<int> scheduled{0};
    for (int i = 0; i < 200; ++i) pool.Schedule([&] { scheduled.fetch_add(1); });
    while (scheduled.load() != 200) std::this_thread::yield();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(ThreadPoolTest, ScheduleRunsOnAPoolThread) {
  ThreadPool pool(2);
  std::atomic<int> id{-2};
  std::atomic<bool> done{false};
  pool.Schedule([&] {
    id = pool.CurrentThreadId();
    done = true;
  });
  while (!done.load()) std::this_thread::yield();
  EXPECT_GE(id.load(), 0);
  EXPECT_LT(id.load(), 2);
  EXPECT_EQ(pool.c_handle()->pool, &pool);
  EXPECT_EQ(ThreadPool::InlineHandle()->pool, nullptr);
}

}  // namespace
}  // namespace tgraph
