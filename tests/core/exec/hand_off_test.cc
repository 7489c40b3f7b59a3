#include "core/exec/hand_off.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

namespace tgraph {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Hands `fn` over, retrying until a lingering thread takes it (the thread may not have
// started lingering yet); false if none did within a few seconds.
bool HandWhenTaken(HandOff& hand_off, std::function<void()> fn) {
  const auto give_up = std::chrono::steady_clock::now() + seconds(5);
  while (std::chrono::steady_clock::now() < give_up) {
    if (hand_off.TryHand(fn)) return true;
    std::this_thread::yield();
  }
  return false;
}

TEST(HandOffTest, DisabledDeclinesEveryTask) {
  for (HandOff* hand_off : {new HandOff(milliseconds(0), 4), new HandOff(seconds(1), 0)}) {
    EXPECT_FALSE(hand_off->enabled());
    hand_off->Linger();  // returns at once
    bool ran = false;
    std::function<void()> fn = [&] { ran = true; };
    EXPECT_FALSE(hand_off->TryHand(fn));
    EXPECT_TRUE(static_cast<bool>(fn));  // left with the caller
    EXPECT_FALSE(ran);
    delete hand_off;
  }
}

TEST(HandOffTest, NothingLingeringDeclines) {
  HandOff hand_off(seconds(1), 2);
  std::function<void()> fn = [] {};
  EXPECT_FALSE(hand_off.TryHand(fn));
}

// A lingering thread runs what it is handed, on itself, and keeps lingering after; it
// returns once nothing came for its linger time.
TEST(HandOffTest, LingeringThreadRunsHandedTasksThenLeaves) {
  HandOff hand_off(milliseconds(300), 1);
  std::thread::id lingerer;
  std::atomic<bool> left{false};
  std::thread thread([&] {
    hand_off.Linger();
    left = true;
  });
  std::vector<std::thread::id> ran_on;
  std::atomic<int> ran{0};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(HandWhenTaken(hand_off, [&] {
      ran_on.push_back(std::this_thread::get_id());
      ran.fetch_add(1);
    }));
    while (ran.load() != i + 1) std::this_thread::yield();
  }
  for (const auto& id : ran_on) EXPECT_EQ(id, thread.get_id());
  thread.join();  // nothing more came: it left after its linger time
  EXPECT_TRUE(left.load());
  std::function<void()> late = [] {};
  EXPECT_FALSE(hand_off.TryHand(late));
}

// At most max_lingering threads linger: another returns at once.
TEST(HandOffTest, NoMoreThanMaxLingeringThreadsLinger) {
  HandOff hand_off(seconds(60), 1);
  std::thread first([&] { hand_off.Linger(); });
  ASSERT_TRUE(HandWhenTaken(hand_off, [] {}));  // `first` lingers (and lingers on)
  const auto start = std::chrono::steady_clock::now();
  hand_off.Linger();  // a second thread: returns without lingering
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(30));
  hand_off.Stop();  // `first` returns long before its minute is up
  first.join();
}

// Many schedulers and lingering threads at once: every task handed over runs exactly once,
// and a lingering thread never leaves one behind (the schedulers run a declined task
// themselves).
TEST(HandOffTest, EveryHandedTaskRunsOnceUnderContention) {
  HandOff hand_off(std::chrono::microseconds(50), 3);
  constexpr int kSchedulers = 3, kTasksEach = 3000;
  std::vector<std::atomic<int>> runs(kSchedulers * kTasksEach);
  std::atomic<bool> stop{false};
  std::vector<std::thread> lingerers;
  for (int i = 0; i < 4; ++i) {
    lingerers.emplace_back([&] {
      while (!stop.load()) {
        hand_off.Linger();
        std::this_thread::yield();
      }
      hand_off.Linger();  // Stop()ped: returns once nothing is promised to it
    });
  }
  // One task handed over before the rush: the lingering threads are up and taking work.
  std::atomic<int> first{0};
  ASSERT_TRUE(HandWhenTaken(hand_off, [&] { first.fetch_add(1); }));
  std::vector<std::thread> schedulers;
  for (int s = 0; s < kSchedulers; ++s) {
    schedulers.emplace_back([&, s] {
      for (int t = 0; t < kTasksEach; ++t) {
        std::atomic<int>* slot = &runs[s * kTasksEach + t];
        std::function<void()> fn = [slot] { slot->fetch_add(1); };
        if (!hand_off.TryHand(fn)) fn();
      }
    });
  }
  for (auto& t : schedulers) t.join();
  stop = true;
  hand_off.Stop();
  for (auto& t : lingerers) t.join();
  for (size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << i;
  EXPECT_EQ(first.load(), 1);
}

}  // namespace
}  // namespace tgraph
