// ReadAhead: blocks come back in order whatever order the readers finish them in, no reader
// runs more than `window` blocks ahead of what the caller released, and destroying it midway
// waits for the reads under way.
#include "saver_io/read_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tgraph::saver_io {
namespace {

TEST(ReadAhead, BlocksComeBackInOrderWithinTheWindow) {
  constexpr size_t kCount = 200;
  constexpr size_t kWindow = 3;
  std::atomic<size_t> released{0};
  std::atomic<bool> overran{false};
  ReadAhead reads(kCount, kWindow, [&](size_t i) {
    if (i >= released.load() + kWindow) overran = true;
    if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    return static_cast<int64_t>(i * 10);
  });
  ASSERT_TRUE(reads.Start(3));
  for (size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(reads.Wait(i), static_cast<int64_t>(i * 10));
    released = i + 1;
    reads.Release(i);
  }
  EXPECT_FALSE(overran);
}

TEST(ReadAhead, DestroyingMidwayWaitsForTheReadsUnderWay) {
  std::atomic<int> running{0};
  std::atomic<int> finished{0};
  {
    ReadAhead reads(100, 4, [&](size_t) {
      ++running;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      --running;
      ++finished;
      return int64_t{1};
    });
    ASSERT_TRUE(reads.Start(2));
    EXPECT_EQ(reads.Wait(0), 1);
  }
  EXPECT_EQ(running.load(), 0);
  EXPECT_LE(finished.load(), 5);  // never more than the window past block 0
}

}  // namespace
}  // namespace tgraph::saver_io
