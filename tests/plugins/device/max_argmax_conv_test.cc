// Max, ArgMax and Conv2D on /device:GPU:0 against the CPU plugin (see kernels_test.cc for how
// the graphs are built and compared). Dilations, EXPLICIT padding, NCHW and the gradients:
// holes_test.cc.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectDeviceMatchesCpu;
using devtest::Random;

class MaxArgMaxConvTest : public devtest::DeviceTest {};

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

TEST_F(MaxArgMaxConvTest, MaxMatchesCpu) {
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

TEST_F(MaxArgMaxConvTest, ArgMaxMatchesCpu) {
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

struct ConvCase {
  std::vector<int64_t> input, filter;
  std::vector<int64_t> strides;
  const char* padding;
};

TG_Output Conv(Builder& b, const ConvCase& c, const char* name = "conv",
               std::vector<int64_t> dilations = {1, 1, 1, 1}, const char* format = "NHWC") {
  return b.Op("Conv2D",
              {b.Feed(c.input, Random(Count(c.input), -1, 1, 31)),
               b.Feed(c.filter, Random(Count(c.filter), -1, 1, 32))},
              [&](TG_OperationDescription* d) {
                TG_SetAttrIntList(d, "strides", c.strides.data(), 4);
                TG_SetAttrString(d, "padding", c.padding, std::strlen(c.padding));
                TG_SetAttrIntList(d, "dilations", dilations.data(), 4);
                TG_SetAttrString(d, "data_format", format, std::strlen(format));
              },
              name);
}

TEST_F(MaxArgMaxConvTest, Conv2DMatchesCpu) {
  const std::vector<ConvCase> cases = {
      {{2, 7, 6, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, "SAME"},
      {{2, 7, 6, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, "VALID"},
      {{2, 7, 6, 3}, {3, 3, 3, 4}, {1, 2, 2, 1}, "SAME"},
      {{2, 7, 6, 3}, {3, 2, 3, 5}, {1, 2, 3, 1}, "VALID"},
      {{1, 8, 8, 2}, {4, 4, 2, 3}, {1, 3, 1, 1}, "SAME"},   // even window: uneven padding
      {{3, 5, 5, 8}, {1, 1, 8, 16}, {1, 1, 1, 1}, "VALID"}, // 1x1: a GEMM
      {{1, 2, 2, 1}, {3, 3, 1, 1}, {1, 1, 1, 1}, "VALID"},  // window bigger than the input
      {{0, 4, 4, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, "SAME"},   // empty batch
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(std::string(c.padding) + " strides " + std::to_string(c.strides[1]) + "," +
                 std::to_string(c.strides[2]) + " filter " + std::to_string(c.filter[0]) + "x" +
                 std::to_string(c.filter[1]));
    ExpectDeviceMatchesCpu([&](Builder& b) { return std::vector<TG_Output>{Conv(b, c)}; }, 1e-4,
                        1e-5);
  }
}

TEST_F(MaxArgMaxConvTest, Conv2DRejectsBadShapes) {
  // A grouped convolution whose depths the graph does not know (the feeds declare no shape)
  // reaches the device kernel, which refuses it; with static depths the kernel declines the
  // node and it runs on the CPU (HolesTest.GroupedConvolutionsTheDeviceDeclinesRunOnTheCpu).
  ExpectDeviceError(
      [&](Builder& b) {
        const ConvCase grouped = {{1, 4, 4, 4}, {3, 3, 2, 2}, {1, 1, 1, 1}, "SAME"};
        return std::vector<TG_Output>{Conv(b, grouped, "grouped")};
      },
      TG_UNIMPLEMENTED, "grouped", "grouped convolution");
  ExpectDeviceError(
      [&](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Conv2D", {b.Feed({1, 4, 4, 3}, Random(48)), b.Feed({3, 3, 2, 2}, Random(36))},
                 [&](TG_OperationDescription* d) {
                   const int64_t strides[] = {1, 1, 1, 1};
                   TG_SetAttrIntList(d, "strides", strides, 4);
                   TG_SetAttrString(d, "padding", "SAME", 4);
                 },
                 "depth")};
      },
      TG_INVALID_ARGUMENT, "depth", "input depth 3 does not match the filter's in_depth 2");
  ExpectDeviceError(
      [&](Builder& b) {
        const ConvCase no_depth = {{1, 4, 4, 0}, {3, 3, 0, 2}, {1, 1, 1, 1}, "SAME"};
        return std::vector<TG_Output>{Conv(b, no_depth, "no_depth")};
      },
      TG_INVALID_ARGUMENT, "no_depth", "the filter's input depth must be > 0");
}

}  // namespace
