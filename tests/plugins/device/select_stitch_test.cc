// Select, SelectV2 and DynamicStitch on /device:GPU:0 against the CPU plugin (see
// kernels_test.cc for how graphs are built and compared): Select's scalar, element-wise and
// row conditions, SelectV2's three-way broadcasting, float and int32, empty tensors, the
// CPU's errors naming the node; DynamicStitch's later writers winning, rows nobody names
// (zero), trailing dims, empty inputs, int32 data (a host-memory kernel on the device) and
// negative indices; ParallelDynamicStitch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectDeviceMatchesCpu;
using devtest::Random;
using devtest::RunResult;

class SelectStitchTest : public devtest::DeviceTest {};

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

std::vector<bool> Pattern(size_t n, unsigned seed) {
  std::vector<bool> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = ((i * 7 + seed) % 3) != 0;
  return v;
}

std::vector<int32_t> Ints(size_t n, int32_t base) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base + static_cast<int32_t>(i * 5) - 9;
  return v;
}

struct SelectCase {
  std::vector<int64_t> c, t, e;
};

// Builds `op` over a condition and t / e of the case's shapes (float or int32).
void ExpectSelectMatchesCpu(const char* op, const SelectCase& k, bool ints) {
  SCOPED_TRACE(std::string(op) + (ints ? " int32" : " float") + " condition rank " +
               std::to_string(k.c.size()) + ", t rank " + std::to_string(k.t.size()) +
               ", e rank " + std::to_string(k.e.size()));
  ExpectDeviceMatchesCpu(
      [&](Builder& b) {
        TG_Output c = b.FeedBool(k.c, Pattern(Count(k.c), 1));
        TG_Output t = ints ? b.FeedInt(k.t, Ints(Count(k.t), 100))
                           : b.Feed(k.t, Random(Count(k.t), -2, 2, 5));
        TG_Output e = ints ? b.FeedInt(k.e, Ints(Count(k.e), -100))
                           : b.Feed(k.e, Random(Count(k.e), -2, 2, 6));
        return std::vector<TG_Output>{b.Op(op, {c, t, e}, {}, "select")};
      },
      0, 0);
}

TEST_F(SelectStitchTest, SelectMatchesCpu) {
  const std::vector<SelectCase> cases = {
      {{2, 3}, {2, 3}, {2, 3}},           // element-wise
      {{}, {4, 2}, {4, 2}},               // scalar condition
      {{4}, {4, 3, 2}, {4, 3, 2}},        // whole rows
      {{3}, {3}, {3}},                    // a vector, element-wise
      {{0, 2}, {0, 2}, {0, 2}},           // empty
      {{0}, {0, 5}, {0, 5}},              // empty rows
  };
  for (bool ints : {false, true}) {
    for (const SelectCase& k : cases) ExpectSelectMatchesCpu("Select", k, ints);
  }
  // Both scalar values of a scalar condition.
  for (bool value : {false, true}) {
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{b.Op(
          "Select", {b.FeedBool({}, {value}), b.Feed({3}, {1, 2, 3}), b.Feed({3}, {4, 5, 6})},
          {}, "select")};
    });
  }
}

TEST_F(SelectStitchTest, SelectV2BroadcastsMatchCpu) {
  const std::vector<SelectCase> cases = {
      {{2, 3}, {2, 3}, {2, 3}},
      {{}, {4, 2}, {2}},                  // scalar condition, e broadcast
      {{2, 1, 3}, {4, 1}, {}},            // all three broadcast
      {{5, 1}, {1, 4}, {5, 4}},
      {{3}, {2, 1}, {1, 3}},
      {{1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1}, {1}},  // six dims that do not merge
      {{0, 3}, {3}, {1, 3}},              // empty
  };
  for (bool ints : {false, true}) {
    for (const SelectCase& k : cases) ExpectSelectMatchesCpu("SelectV2", k, ints);
  }
}

TEST_F(SelectStitchTest, SelectErrorsNameTheNode) {
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op("Select",
                                           {b.FeedBool({2}, {true, false}), b.Feed({2}, {1, 2}),
                                            b.Feed({3}, {1, 2, 3})},
                                           {}, "bad_select")};
      },
      TG_INVALID_ARGUMENT, "bad_select",
      "'t' and 'e' must have the same shape, but are [2] and [3]");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op("Select",
                                           {b.FeedBool({3}, {true, false, true}),
                                            b.Feed({2, 3}, Random(6)), b.Feed({2, 3}, Random(6))},
                                           {}, "bad_condition")};
      },
      TG_INVALID_ARGUMENT, "bad_condition",
      "'condition' must be a scalar, have the shape of 't', or be a vector as long as the first "
      "dimension of 't', but 'condition' has shape [3] and 't' has shape [2,3]");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op("SelectV2",
                                           {b.FeedBool({2}, {true, false}),
                                            b.Feed({3}, Random(3)), b.Feed({}, {1})},
                                           {}, "bad_select_v2")};
      },
      TG_INVALID_ARGUMENT, "bad_select_v2",
      "condition [2], then [3] and else [] must be broadcastable");
}

// DynamicStitch(indices..., data...) on the device; `ints` stitches int32 data (the host
// kernel the device registers).
RunResult ExpectStitchMatchesCpu(const std::vector<std::vector<int64_t>>& index_dims,
                                 const std::vector<std::vector<int32_t>>& indices,
                                 const std::vector<int64_t>& trailing, bool ints,
                                 const char* op = "DynamicStitch") {
  return ExpectDeviceMatchesCpu(
      [&](Builder& b) {
        std::vector<TG_Output> idx, data;
        for (size_t m = 0; m < indices.size(); ++m) {
          idx.push_back(b.FeedInt(index_dims[m], indices[m]));
          std::vector<int64_t> dims = index_dims[m];
          dims.insert(dims.end(), trailing.begin(), trailing.end());
          const uint32_t seed = static_cast<uint32_t>(m) + 30;
          data.push_back(ints ? b.FeedInt(dims, Ints(Count(dims), 10 * static_cast<int32_t>(m)))
                              : b.Feed(dims, Random(Count(dims), -3, 3, seed)));
        }
        return std::vector<TG_Output>{b.OpOfLists(op, {idx, data}, "stitch")};
      },
      0, 0);
}

TEST_F(SelectStitchTest, DynamicStitchMatchesCpu) {
  for (bool ints : {false, true}) {
    SCOPED_TRACE(ints ? "int32" : "float");
    // Two inputs interleaving rows of 3 (a partitioned embedding's gradient).
    ExpectStitchMatchesCpu({{2}, {3}}, {{0, 2}, {1, 3, 4}}, {3}, ints);
    // Later inputs win, and later positions of one input: rows 1 and 2 are written twice.
    ExpectStitchMatchesCpu({{3}, {2, 2}}, {{1, 1, 2}, {2, 0, 1, 5}}, {2}, ints);
    // Rows nobody names (3 and 4) are zero; scalar rows; matrix-shaped indices.
    ExpectStitchMatchesCpu({{2}, {1}}, {{0, 5}, {2}}, {}, ints);
    ExpectStitchMatchesCpu({{2, 2}}, {{3, 0, 1, 2}}, {2, 2}, ints);
    // Empty: no indices at all, and an empty input among others; rows of zero elements.
    ExpectStitchMatchesCpu({{0}}, {{}}, {4}, ints);
    ExpectStitchMatchesCpu({{0}, {2}}, {{}, {1, 0}}, {3}, ints);
    ExpectStitchMatchesCpu({{2}}, {{0, 1}}, {0}, ints);
    // ParallelDynamicStitch (TensorFlow's embedding lookup over partitions builds it): the
    // same kernels.
    ExpectStitchMatchesCpu({{3}, {2, 2}}, {{1, 1, 2}, {2, 0, 1, 5}}, {2}, ints,
                           "ParallelDynamicStitch");
  }
}

TEST_F(SelectStitchTest, DynamicStitchBadIndicesFailNamingTheNode) {
  for (bool ints : {false, true}) {
    SCOPED_TRACE(ints ? "int32" : "float");
    ExpectDeviceError(
        [&](Builder& b) {
          TG_Output d0 = ints ? b.FeedInt({2}, {1, 2}) : b.Feed({2}, {1, 2});
          TG_Output d1 = ints ? b.FeedInt({2}, {3, 4}) : b.Feed({2}, {3, 4});
          return std::vector<TG_Output>{b.OpOfLists(
              "DynamicStitch",
              {{b.FeedInt({2}, {0, 1}), b.FeedInt({2}, {2, -1})}, {d0, d1}}, "bad_stitch")};
        },
        TG_INVALID_ARGUMENT, "bad_stitch",
        "indices[1] holds -1 at flat position 1; indices must be non-negative");
    ExpectDeviceError(
        [&](Builder& b) {
          TG_Output d0 = ints ? b.FeedInt({2, 2}, {1, 2, 3, 4}) : b.Feed({2, 2}, {1, 2, 3, 4});
          TG_Output d1 = ints ? b.FeedInt({1, 3}, {5, 6, 7}) : b.Feed({1, 3}, {5, 6, 7});
          return std::vector<TG_Output>{b.OpOfLists(
              "DynamicStitch", {{b.FeedInt({2}, {0, 1}), b.FeedInt({1}, {2})}, {d0, d1}},
              "mismatched_stitch")};
        },
        TG_INVALID_ARGUMENT, "mismatched_stitch",
        "Need data[0].shape[1:] = [2] to match data[1].shape[1:] = [3]");
  }
}

}  // namespace
