// Concurrent TG_SessionRun calls on one session: 8 threads x 1000 runs each get their own
// correct results, and locked updates of one variable from every thread add up exactly;
// 8 threads x 10,000 runs mixing updates and reads see a counter that only grows; the graph
// grows and sessions close while other threads run.
#include <atomic>
#include <cmath>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::FloatScalar;
using tgtest::FloatTensor;
using tgtest::Floats;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

constexpr int kThreads = 8;
constexpr int kRunsPerThread = 1000;

class SessionConcurrencyTest : public SessionTest {
 protected:
  // Counts failures from worker threads; the first message is kept for the report.
  struct Failures {
    std::atomic<int> count{0};
    std::mutex mu;
    std::string first;
    void Add(const std::string& what) {
      if (count.fetch_add(1) == 0) {
        std::lock_guard<std::mutex> lock(mu);
        first = what;
      }
    }
  };

  template <typename Body>
  void RunThreads(Failures* failures, Body body, int runs_per_thread = kRunsPerThread) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        TG_Status* status = TG_NewStatus();
        for (int i = 0; i < runs_per_thread; ++i) body(t, i, status, failures);
        TG_DeleteStatus(status);
      });
    }
    for (std::thread& th : threads) th.join();
  }
};

// y = x . W with W = [[1, 2], [3, 4]]: x = [a, b] gives [a + 3b, 2a + 4b].
TEST_F(SessionConcurrencyTest, ManyThreadsRunOneSession) {
  TG_Operation* x = Placeholder(TG_FLOAT, {1, 2}, "x");
  TG_Operation* w = ConstTensor(FloatTensor({2, 2}, {1, 2, 3, 4}), "w");
  TG_Operation* y = Binary("MatMul", x, w, "y");
  TG_ASSERT_OK(s_);
  TG_Session* sess = NewSession();
  TG_ASSERT_OK(s_);

  Failures failures;
  RunThreads(&failures, [&](int t, int i, TG_Status* status, Failures* f) {
    const float a = static_cast<float>(t);
    const float b = static_cast<float>(i);
    TensorPtr value = FloatTensor({1, 2}, {a, b});
    TG_Output input = Out(x);
    TG_Tensor* fed = value.get();
    TG_Output fetch = Out(y);
    TG_Tensor* result = nullptr;
    TG_SessionRun(sess, nullptr, &input, &fed, 1, &fetch, &result, 1, nullptr, 0, nullptr,
                  status);
    if (TG_GetCode(status) != TG_OK) {
      f->Add(std::string("run failed: ") + TG_Message(status));
      return;
    }
    const std::vector<float> got = Floats(result);
    TG_DeleteTensor(result);
    const std::vector<float> want = {a + 3 * b, 2 * a + 4 * b};
    if (got != want) {
      f->Add("thread " + std::to_string(t) + " run " + std::to_string(i) + ": wrong result");
    }
  });
  EXPECT_EQ(failures.count.load(), 0) << failures.first;
}

TEST_F(SessionConcurrencyTest, LockedUpdatesFromManyThreadsAddUp) {
  TG_Variable* v = ScalarVar("counter", 0.0f);
  TG_Operation* inc = Increment(v, "inc", /*use_locking=*/true);
  TG_Operation* init = Init();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);

  Failures failures;
  RunThreads(&failures, [&](int, int, TG_Status* status, Failures* f) {
    const TG_Operation* target = inc;
    TG_SessionRun(sess, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, &target, 1, nullptr,
                  status);
    if (TG_GetCode(status) != TG_OK) f->Add(std::string("run failed: ") + TG_Message(status));
  });
  EXPECT_EQ(failures.count.load(), 0) << failures.first;
  EXPECT_EQ(ScalarValue(sess, v), static_cast<float>(kThreads * kRunsPerThread));
}

// Different requests at once: each thread has its own fetch (new plans get built while other
// runs execute), and a session made while others run is independent.
TEST_F(SessionConcurrencyTest, DifferentRequestsAtOnce) {
  std::vector<TG_Operation*> consts;
  std::vector<TG_Operation*> squares;
  for (int t = 0; t < kThreads; ++t) {
    consts.push_back(ScalarConst(static_cast<float>(t + 1)));
    squares.push_back(Binary("Mul", consts.back(), consts.back()));
    TG_ASSERT_OK(s_);
  }
  TG_Session* sess = NewSession();
  TG_ASSERT_OK(s_);
  Failures failures;
  RunThreads(&failures, [&](int t, int i, TG_Status* status, Failures* f) {
    // Alternate between two requests per thread.
    TG_Output fetch = Out(i % 2 == 0 ? squares[static_cast<size_t>(t)]
                                     : consts[static_cast<size_t>(t)]);
    TG_Tensor* result = nullptr;
    TG_SessionRun(sess, nullptr, nullptr, nullptr, 0, &fetch, &result, 1, nullptr, 0, nullptr,
                  status);
    if (TG_GetCode(status) != TG_OK) {
      f->Add(std::string("run failed: ") + TG_Message(status));
      return;
    }
    const float c = static_cast<float>(t + 1);
    const float want = i % 2 == 0 ? c * c : c;
    const bool right = TG_TensorElementCount(result) == 1 &&
                       *static_cast<const float*>(TG_TensorData(result)) == want;
    TG_DeleteTensor(result);
    if (!right) f->Add("thread " + std::to_string(t) + ": wrong result");
  });
  EXPECT_EQ(failures.count.load(), 0) << failures.first;
}

// Runs `fetch` of a float scalar; NaN (and a failure recorded) when the run fails.
float RunScalar(TG_Session* sess, TG_Output fetch, TG_Status* status) {
  TG_Tensor* result = nullptr;
  TG_SessionRun(sess, nullptr, nullptr, nullptr, 0, &fetch, &result, 1, nullptr, 0, nullptr,
                status);
  if (TG_GetCode(status) != TG_OK || result == nullptr) return std::nanf("");
  const float value = *static_cast<const float*>(TG_TensorData(result));
  TG_DeleteTensor(result);
  return value;
}

// Every thread alternates a locked increment (fetching the new value) with a read: the values
// one thread sees never go down, an increment always sees more than that thread saw before,
// and the counter ends at the number of increments.
TEST_F(SessionConcurrencyTest, UpdatesAndReadsMixTenThousandRunsPerThread) {
  constexpr int kRuns = 10000;
  TG_Variable* v = ScalarVar("counter", 0.0f);
  TG_Operation* inc = Increment(v, "inc", /*use_locking=*/true);
  TG_Operation* init = Init();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);

  Failures failures;
  std::vector<float> last_seen(kThreads, -1.0f);
  RunThreads(
      &failures,
      [&](int t, int i, TG_Status* status, Failures* f) {
        const bool increment = i % 2 == 0;
        const float got = RunScalar(sess, increment ? Out(inc) : Read(v), status);
        if (TG_GetCode(status) != TG_OK) {
          f->Add(std::string("run failed: ") + TG_Message(status));
          return;
        }
        float& last = last_seen[static_cast<size_t>(t)];
        if (got < last || (increment && got <= last)) {
          f->Add("thread " + std::to_string(t) + " run " + std::to_string(i) + " saw " +
                 std::to_string(got) + " after " + std::to_string(last));
        }
        last = got;
      },
      kRuns);
  EXPECT_EQ(failures.count.load(), 0) << failures.first;
  EXPECT_EQ(ScalarValue(sess, v), static_cast<float>(kThreads * kRuns / 2));
}

// One thread adds operations to the graph and runs each new one while the others keep
// running increments and reads on the same session: the new fetches plan and run, and the
// others' results stay right.
TEST_F(SessionConcurrencyTest, GraphGrowsWhileOthersRun) {
  TG_Variable* v = ScalarVar("counter", 0.0f);
  TG_Operation* inc = Increment(v, "inc", /*use_locking=*/true);
  TG_Operation* init = Init();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  TG_Graph* graph = g_;
  TG_Output counter = Read(v);

  Failures failures;
  std::atomic<int> increments{0};
  RunThreads(&failures, [&](int t, int i, TG_Status* status, Failures* f) {
    if (t == 0) {
      // counter * 0 + i: two new Consts and two new ops per run, built with this thread's
      // status.
      auto constant = [&](float value) -> TG_Operation* {
        TensorPtr t = FloatScalar(value);
        TG_OperationDescription* d = TG_NewOperation(graph, "Const", nullptr);
        TG_SetAttrTensor(d, "value", t.get(), status);
        TG_SetAttrType(d, "dtype", TG_FLOAT);
        return TG_FinishOperation(d, status);
      };
      TG_Operation* c = constant(static_cast<float>(i));
      TG_Operation* zero = nullptr;
      if (c != nullptr) {
        TG_OperationDescription* zero_d = TG_NewOperation(graph, "Mul", nullptr);
        TG_AddInput(zero_d, counter);
        TG_Operation* zero_const = constant(0.0f);
        if (zero_const != nullptr) TG_AddInput(zero_d, Out(zero_const));
        zero = TG_FinishOperation(zero_d, status);
      }
      TG_Operation* sum = nullptr;
      if (c != nullptr && zero != nullptr) {
        TG_OperationDescription* sum_d = TG_NewOperation(graph, "AddV2", nullptr);
        TG_AddInput(sum_d, Out(zero));
        TG_AddInput(sum_d, Out(c));
        sum = TG_FinishOperation(sum_d, status);
      }
      if (sum == nullptr) {
        f->Add(std::string("building failed: ") + TG_Message(status));
        return;
      }
      const float got = RunScalar(sess, Out(sum), status);
      if (TG_GetCode(status) != TG_OK || got != static_cast<float>(i)) {
        f->Add("new op " + std::to_string(i) + ": " + TG_Message(status));
      }
      return;
    }
    const bool increment = i % 2 == 0;
    RunScalar(sess, increment ? Out(inc) : Read(v), status);
    if (TG_GetCode(status) != TG_OK) {
      f->Add(std::string("run failed: ") + TG_Message(status));
      return;
    }
    if (increment) ++increments;
  });
  EXPECT_EQ(failures.count.load(), 0) << failures.first;
  EXPECT_EQ(ScalarValue(sess, v), static_cast<float>(increments.load()));
}

// Closing waits for runs in flight; runs that start afterwards fail cleanly.
TEST_F(SessionConcurrencyTest, CloseWhileRunning) {
  TG_Operation* x = Placeholder(TG_FLOAT, {64, 64}, "x");
  TG_Operation* y = Binary("MatMul", x, x, "y");
  TG_ASSERT_OK(s_);
  TG_Session* sess = NewSession();
  TG_ASSERT_OK(s_);
  TensorPtr value = FloatTensor({64, 64}, std::vector<float>(64 * 64, 1.0f));
  std::atomic<int> ok{0}, closed{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      TG_Status* status = TG_NewStatus();
      for (int i = 0; i < 200; ++i) {
        TG_Output input = Out(x);
        TG_Tensor* fed = value.get();
        TG_Output fetch = Out(y);
        TG_Tensor* result = nullptr;
        TG_SessionRun(sess, nullptr, &input, &fed, 1, &fetch, &result, 1, nullptr, 0, nullptr,
                      status);
        if (TG_GetCode(status) == TG_OK) {
          ++ok;
          if (result == nullptr || Floats(result)[0] != 64.0f) ++other;
        } else if (TG_GetCode(status) == TG_FAILED_PRECONDITION) {
          ++closed;
          if (result != nullptr) ++other;
        } else {
          ++other;
        }
        TG_DeleteTensor(result);
      }
      TG_DeleteStatus(status);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  TG_CloseSession(sess, s_);
  TG_EXPECT_OK(s_);
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(ok.load() + closed.load(), 800);
}

}  // namespace
