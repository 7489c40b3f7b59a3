// Max and ArgMax on /device:GPU:0 (CUDA) against the CPU plugin (see cuda_kernels_test.cc
// for how the graphs are built and compared).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectDeviceMatchesCpu;
using devtest::Random;

class CudaMaxArgMaxTest : public devtest::DeviceTest {};

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

TEST_F(CudaMaxArgMaxTest, MaxMatchesCpu) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int32_t> axes;
    bool keep_dims;
  };
  const std::vector<Case> cases = {
      {{4, 7}, {1}, false},        {{4, 7}, {-1}, true},           {{3, 1000}, {0, 1}, true},
      {{5, 7}, {0}, false},        {{2, 3, 4, 5}, {1, 2}, false},  {{3, 4}, {}, false},
      {{3, 0}, {1}, false},  // an empty axis: -inf
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.axes.size()) + " axes of " + std::to_string(c.dims.size()) +
                 "-d");
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{
          b.Op("Max",
               {b.Feed(c.dims, Random(Count(c.dims), -5, 5, 17)),
                b.HostInts({static_cast<int64_t>(c.axes.size())}, c.axes)},
               [&](TG_OperationDescription* d) { TG_SetAttrBool(d, "keep_dims", c.keep_dims); })};
    });
  }
  // A NaN anywhere in a row gives NaN.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{b.Op(
        "Max", {b.Feed({3, 4}, {1, nan, 3, 2, 5, 6, 7, 8, nan, 0, 0, 9}), b.HostInts({}, {1})})};
  });
}

TEST_F(CudaMaxArgMaxTest, ArgMaxMatchesCpu) {
  struct Case {
    std::vector<int64_t> dims;
    int32_t axis;
  };
  const std::vector<Case> cases = {{{4, 7}, 1}, {{4, 7}, 0}, {{2, 5, 3}, 1}, {{2, 5, 3}, -1},
                                   {{9}, 0},    {{0, 3}, 1}};
  for (TG_DataType out : {TG_INT64, TG_INT32}) {
    for (const Case& c : cases) {
      SCOPED_TRACE("axis " + std::to_string(c.axis) + " of " + std::to_string(c.dims.size()) +
                   "-d, output " + (out == TG_INT64 ? "int64" : "int32"));
      // Few distinct values, so there are ties (the smallest index wins).
      std::vector<float> x = Random(Count(c.dims), 0, 4, 23);
      for (float& v : x) v = static_cast<float>(static_cast<int>(v));
      ExpectDeviceMatchesCpu([&](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("ArgMax", {b.Feed(c.dims, x), b.HostInts({}, {c.axis})},
                 [&](TG_OperationDescription* d) { TG_SetAttrType(d, "output_type", out); })};
      }, 0, 0);
    }
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{
        b.Op("ArgMax", {b.Feed({2, 4}, {1, nan, 3, nan, 5, 6, 7, 8}), b.HostInts({}, {1})})};
  }, 0, 0);
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("ArgMax", {b.Feed({3, 0}, {}), b.FeedInt({}, {1})}, {}, "argmax")};
      },
      TG_INVALID_ARGUMENT, "argmax", "Reduction axis 1 is empty");
}

}  // namespace
