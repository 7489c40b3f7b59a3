// Tasks handed straight to pool threads that are spinning for work, so that a burst of
// parallel kernels does not wake a sleeping thread for each one.
//
// Why: a pool thread that parks in the kernel (futex) takes 20-100 us to run again once it is
// woken on a virtual machine whose idle vCPU the host has descheduled; a training step hands
// work to the pool tens of times, with gaps of a few to a few hundred microseconds between
// (MLP step on 2 cores: 50 hand-offs, 40% of them 20-100 us late, ~1 ms of helper time lost a
// step). So after each task a pool thread lingers: it spins (with pause) for `linger` more,
// taking any task handed to it, before it goes back to the pool's own loop, where it may park.
//
// Protocol. `available_` is the number of spinning threads less the tasks promised to them
// and not yet taken. A scheduler claims a place by decrementing it (never below zero) and
// then queues the task; a spinning thread past its deadline leaves only by decrementing it
// itself, so the last one to leave finds no task queued or on its way. A thread that cannot
// leave (every place promised) spins on: it or another takes the task, and then one of them
// can leave.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>

namespace tgraph {

class HandOff {
 public:
  // linger <= 0 or max_lingering <= 0: threads never linger and TryHand always declines.
  // At most `max_lingering` threads linger at once (the others return at once): a pool whose
  // caller works too should leave it a core.
  HandOff(std::chrono::nanoseconds linger, int max_lingering)
      : linger_(max_lingering > 0 ? linger : std::chrono::nanoseconds(0)),
        max_lingering_(max_lingering) {}
  HandOff(const HandOff&) = delete;
  HandOff& operator=(const HandOff&) = delete;

  // Queues fn for a lingering thread if one is free to take it (fn is moved from then);
  // false (fn untouched) if none is.
  bool TryHand(std::function<void()>& fn);

  // Called on a pool thread after it ran a task: runs handed tasks until none came for
  // `linger`, or Stop() was called, then returns.
  void Linger();

  // Lingering threads return as soon as no task is promised to them (for the pool's
  // destructor: its threads must get back to their loop to be joined).
  void Stop() { stopping_.store(true, std::memory_order_release); }

  bool enabled() const { return linger_.count() > 0; }

 private:
  // Takes a queued task, if any.
  bool Pop(std::function<void()>* fn);
  // Gives up this thread's place; false if a scheduler took it (a task is on its way).
  bool Leave();

  const std::chrono::nanoseconds linger_;
  const int max_lingering_;
  std::atomic<int> lingering_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<int> available_{0};
  std::atomic<int> queued_{0};  // tasks_.size(), read without the lock while spinning
  std::mutex mu_;
  std::deque<std::function<void()>> tasks_;
};

}  // namespace tgraph
