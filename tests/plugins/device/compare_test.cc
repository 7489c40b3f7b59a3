// Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, LogicalAnd, LogicalOr and
// LogicalNot on /device:GPU:0 against the CPU plugin (see kernels_test.cc for how graphs
// are built and compared): float32 and int32 operands of one shape, broadcast either way,
// scalars, six dims that do not merge and empty tensors; NaN (every comparison false but
// NotEqual), infinities, signed zeros and the ends of int32; bool outputs feeding a device
// Select; Equal / NotEqual of bools and their incompatible_shape_error=false scalar answer;
// the CPU's error naming the node for shapes that do not broadcast.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectDeviceMatchesCpu;
using devtest::Random;
using devtest::RunResult;

class CompareTest : public devtest::DeviceTest {};

const char* const kComparisons[] = {"Equal",   "NotEqual", "Less",
                                    "LessEqual", "Greater", "GreaterEqual"};

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// Few distinct values, so that equal pairs are common; every fourth float is NaN, +-inf or
// -0.0 in turn.
std::vector<float> Floats(size_t n, unsigned seed) {
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), -0.0f};
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t k = i * 5 + seed;
    v[i] = k % 4 == 3 ? special[(k / 4) % 4] : static_cast<float>(k % 3) - 1.0f;
  }
  return v;
}
std::vector<int32_t> Ints(size_t n, unsigned seed) {
  const int32_t special[] = {std::numeric_limits<int32_t>::min(),
                             std::numeric_limits<int32_t>::max(), 0, -1};
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t k = i * 3 + seed;
    v[i] = k % 5 == 4 ? special[(k / 5) % 4] : static_cast<int32_t>(k % 3) - 1;
  }
  return v;
}
std::vector<bool> Bools(size_t n, unsigned seed) {
  std::vector<bool> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = ((i * 7 + seed) % 3) != 0;
  return v;
}

struct Shapes {
  std::vector<int64_t> x, y;
};
const std::vector<Shapes>& Cases() {
  static const std::vector<Shapes> cases = {
      {{2, 3}, {2, 3}},                                 // one shape
      {{17}, {17}},
      {{2, 3}, {3}},                                    // y broadcast
      {{4, 1}, {1, 5}},                                 // both
      {{}, {2, 3}},                                     // scalar x
      {{3, 2}, {}},                                     // scalar y
      {{}, {}},
      {{2, 1, 2, 1, 2, 1}, {1, 2, 1, 2, 1, 2}},         // six dims that do not merge
      {{0, 3}, {1, 3}},                                 // empty
  };
  return cases;
}

void ExpectComparisonMatchesCpu(const char* op, const Shapes& k, bool ints) {
  SCOPED_TRACE(std::string(op) + (ints ? " int32 " : " float ") + std::to_string(k.x.size()) +
               "-d with " + std::to_string(k.y.size()) + "-d");
  const RunResult r = ExpectDeviceMatchesCpu(
      [&](Builder& b) {
        TG_Output x = ints ? b.FeedInt(k.x, Ints(Count(k.x), 1)) : b.Feed(k.x, Floats(Count(k.x), 1));
        TG_Output y = ints ? b.FeedInt(k.y, Ints(Count(k.y), 2)) : b.Feed(k.y, Floats(Count(k.y), 2));
        return std::vector<TG_Output>{b.Op(op, {x, y}, {}, "compare")};
      },
      0, 0);
  if (r.code == TG_OK && !r.values.empty()) {
    EXPECT_EQ(r.values[0].dtype, TG_BOOL);
  }
}

TEST_F(CompareTest, ComparisonsMatchCpu) {
  for (const char* op : kComparisons) {
    for (bool ints : {false, true}) {
      for (const Shapes& k : Cases()) ExpectComparisonMatchesCpu(op, k, ints);
    }
  }
}

bool Compare(const std::string& op, float a, float b) {
  if (op == "Equal") return a == b;
  if (op == "NotEqual") return a != b;
  if (op == "Less") return a < b;
  if (op == "LessEqual") return a <= b;
  if (op == "Greater") return a > b;
  return a >= b;
}

// NaN against NaN and 1, both ways: every comparison false but NotEqual (checked against C++
// here, not only against the CPU plugin).
TEST_F(CompareTest, NaNComparesUnequal) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {nan, 1.0f, nan}, y = {nan, 1.0f};
  for (const char* op : kComparisons) {
    const RunResult r = ExpectDeviceMatchesCpu(
        [&](Builder& b) {
          return std::vector<TG_Output>{
              b.Op(op, {b.Feed({3, 1}, x), b.Feed({2}, y)}, {}, "compare")};
        },
        0, 0);
    ASSERT_EQ(r.code, TG_OK) << r.message;
    std::vector<double> want;
    for (float a : x) {
      for (float c : y) want.push_back(Compare(op, a, c) ? 1 : 0);
    }
    EXPECT_EQ(r.values[0].values, want) << op;
  }
}

// The bool output is a device tensor other device kernels take: a mask for Select.
TEST_F(CompareTest, MaskFeedsSelectOnTheDevice) {
  const RunResult r = ExpectDeviceMatchesCpu(
      [](Builder& b) {
        TG_Output x = b.Feed({4, 3}, Random(12, -2, 2, 3));
        TG_Output zero = b.Feed({}, {0.0f});
        TG_Output mask = b.Op("Greater", {x, zero}, {}, "positive");
        TG_Output relu = b.Op("SelectV2", {mask, x, zero}, {}, "relu");
        return std::vector<TG_Output>{relu, mask};
      },
      0, 0);
  EXPECT_EQ(r.DeviceOf("positive"), devtest::kGpu) << r.StepsString();
}

TEST_F(CompareTest, BoolEqualityAndLogicalOpsMatchCpu) {
  for (const char* op : {"Equal", "NotEqual", "LogicalAnd", "LogicalOr"}) {
    for (const Shapes& k : Cases()) {
      SCOPED_TRACE(std::string(op) + " " + std::to_string(k.x.size()) + "-d with " +
                   std::to_string(k.y.size()) + "-d");
      ExpectDeviceMatchesCpu(
          [&](Builder& b) {
            return std::vector<TG_Output>{b.Op(
                op, {b.FeedBool(k.x, Bools(Count(k.x), 1)), b.FeedBool(k.y, Bools(Count(k.y), 2))},
                {}, "logical")};
          },
          0, 0);
    }
  }
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{}, {7}, {2, 0}, {3, 4}}) {
    ExpectDeviceMatchesCpu(
        [&](Builder& b) {
          return std::vector<TG_Output>{
              b.Op("LogicalNot", {b.FeedBool(dims, Bools(Count(dims), 3))}, {}, "not")};
        },
        0, 0);
  }
}

TEST_F(CompareTest, ShapesThatDoNotBroadcast) {
  for (const char* op : kComparisons) {
    ExpectDeviceError(
        [&](Builder& b) {
          return std::vector<TG_Output>{
              b.Op(op, {b.Feed({2}, {1, 2}), b.Feed({3}, {1, 2, 3})}, {}, "bad_compare")};
        },
        TG_INVALID_ARGUMENT, "bad_compare", "Incompatible shapes: [2] vs. [3]");
  }
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op(
            "LogicalOr", {b.FeedBool({2}, {true, false}), b.FeedBool({3}, {true, true, false})},
            {}, "bad_or")};
      },
      TG_INVALID_ARGUMENT, "bad_or", "Incompatible shapes: [2] vs. [3]");
  // incompatible_shape_error=false: Equal answers a scalar false, NotEqual a scalar true.
  for (const char* op : {"Equal", "NotEqual"}) {
    for (bool ints : {false, true}) {
      const RunResult r = ExpectDeviceMatchesCpu(
          [&](Builder& b) {
            TG_Output x = ints ? b.FeedInt({2}, {1, 2}) : b.Feed({2}, {1, 2});
            TG_Output y = ints ? b.FeedInt({3}, {1, 2, 3}) : b.Feed({3}, {1, 2, 3});
            return std::vector<TG_Output>{b.Op(
                op, {x, y},
                [](TG_OperationDescription* d) {
                  TG_SetAttrBool(d, "incompatible_shape_error", 0);
                },
                "lenient")};
          },
          0, 0);
      ASSERT_EQ(r.code, TG_OK) << r.message;
      EXPECT_TRUE(r.values[0].dims.empty());
      EXPECT_EQ(r.values[0].values, std::vector<double>{std::string(op) == "NotEqual" ? 1.0 : 0.0})
          << op;
    }
  }
}

}  // namespace
