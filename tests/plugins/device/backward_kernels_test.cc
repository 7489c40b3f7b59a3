// The device kernels of an MLP's backward pass (SigmoidGrad, TanhGrad, BiasAddGrad, the
// softmax cross-entropy losses) against the CPU plugin, as kernels_test.cc does for
// the forward kernels: one graph built for /device:CPU:0 and for /device:GPU:0, fed the same
// values, compared element by element; error paths run on GPU:0 only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectDeviceMatchesCpu;
using devtest::Random;

class BackwardTest : public devtest::DeviceTest {};

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// ---- SigmoidGrad / TanhGrad (y, dy) ----

class OutputGradTest : public BackwardTest,
                             public ::testing::WithParamInterface<const char*> {};

TEST_P(OutputGradTest, MatchesCpu) {
  const char* op = GetParam();
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{
        b.Op(op, {b.Feed({7, 13}, Random(91, -1, 1, 41)), b.Feed({7, 13}, Random(91, -3, 3, 42))})};
  });
  // One element count is enough (TensorFlow's kernels); the output takes y's shape.
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{
        b.Op(op, {b.Feed({2, 6}, Random(12, -1, 1, 43)), b.Feed({12}, Random(12, -3, 3, 44))})};
  });
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{b.Op(op, {b.Feed({0, 3}, {}), b.Feed({0, 3}, {})})};
  });
  ExpectDeviceError(
      [&](Builder& b) {
        return std::vector<TG_Output>{
            b.Op(op, {b.Feed({2, 3}, Random(6)), b.Feed({5}, Random(5))}, {}, "og")};
      },
      TG_INVALID_ARGUMENT, "og", "same number of elements");
}

INSTANTIATE_TEST_SUITE_P(Ops, OutputGradTest, ::testing::Values("SigmoidGrad", "TanhGrad"));

// ---- BiasAddGrad ----

TEST_F(BackwardTest, BiasAddGradMatchesCpuInBothFormats) {
  struct Case {
    std::vector<int64_t> dims;
    const char* format;
  };
  const std::vector<Case> cases = {
      {{8, 10}, "NHWC"},        // an MLP layer
      {{300, 3}, "NHWC"},       // more rows than a work-group / block
      {{2, 3, 4, 5}, "NHWC"},
      {{0, 4}, "NHWC"},         // empty batch: zeros
      {{2, 3, 4, 5}, "NCHW"},   // spatial dims summed first
      {{4, 3, 1}, "NCHW"},      // no spatial extent: one pass
      {{0, 3, 2}, "NCHW"},      // empty batch: zeros
      {{2, 0, 3}, "NCHW"},      // no channels: an empty result
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.format) + " rank " + std::to_string(c.dims.size()));
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{
          b.Op("BiasAddGrad", {b.Feed(c.dims, Random(Count(c.dims), -1, 1, 45))},
               [&](TG_OperationDescription* d) { TG_SetAttrString(d, "data_format", c.format, 4); })};
    }, 1e-5, 1e-5);
  }
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op("BiasAddGrad", {b.Feed({4}, Random(4))}, {}, "bag")};
      },
      TG_INVALID_ARGUMENT, "bag", "rank at least 2");
}

// ---- SoftmaxCrossEntropyWithLogits ----

TEST_F(BackwardTest, SoftmaxXentMatchesCpuWithBroadcasting) {
  struct Case {
    std::vector<int64_t> features, labels;
  };
  const std::vector<Case> cases = {
      {{8, 10}, {8, 10}},   // an MLP's logits
      {{3, 300}, {3, 300}}, // more classes than a work-group / block
      {{4, 5}, {1, 5}},     // labels broadcast over the batch
      {{1, 5}, {4, 5}},     // features broadcast over the batch
      {{4, 5}, {5}},        // 1-D labels
      {{4, 1}, {4, 6}},     // one feature per row, broadcast over the classes
      {{0, 5}, {0, 5}},     // empty batch
      {{3, 0}, {3, 0}},     // no classes: zero loss
  };
  for (const Case& c : cases) {
    ExpectDeviceMatchesCpu([&](Builder& b) {
      // Labels in [0, 1): not normalized (any values are valid).
      TG_Output f = b.Feed(c.features, Random(Count(c.features), -8, 8, 46));
      TG_Output l = b.Feed(c.labels, Random(Count(c.labels), 0, 1, 47));
      TG_Output x = b.Op("SoftmaxCrossEntropyWithLogits", {f, l}, {}, "xent");
      return std::vector<TG_Output>{x, TG_Output{x.oper, 1}};
    }, 1e-5, 1e-5, "xent");
  }
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op("SoftmaxCrossEntropyWithLogits",
                                           {b.Feed({4, 5}, Random(20)), b.Feed({3, 5}, Random(15))},
                                           {}, "xent")};
      },
      TG_INVALID_ARGUMENT, "xent", "broadcastable");
}

// ---- SparseSoftmaxCrossEntropyWithLogits (labels in device memory) ----

TEST_F(BackwardTest, SparseSoftmaxXentMatchesCpuForBothLabelTypes) {
  for (bool wide : {false, true}) {
    for (std::vector<int64_t> dims : {std::vector<int64_t>{8, 10}, std::vector<int64_t>{3, 300},
                                      std::vector<int64_t>{5, 1}, std::vector<int64_t>{0, 4}}) {
      SCOPED_TRACE(std::string(wide ? "int64" : "int32") + " labels, " +
                   std::to_string(dims[0]) + "x" + std::to_string(dims[1]));
      std::vector<int32_t> labels;
      for (int64_t i = 0; i < dims[0]; ++i) labels.push_back(static_cast<int32_t>((i * 7) % dims[1]));
      ExpectDeviceMatchesCpu([&](Builder& b) {
        TG_Output l = wide ? b.FeedInt64({dims[0]}, std::vector<int64_t>(labels.begin(), labels.end()))
                           : b.FeedInt({dims[0]}, labels);
        TG_Output x = b.Op("SparseSoftmaxCrossEntropyWithLogits",
                           {b.Feed(dims, Random(Count(dims), -8, 8, 48)), l},
                           [&](TG_OperationDescription* d) {
                             TG_SetAttrType(d, "Tlabels", wide ? TG_INT64 : TG_INT32);
                           },
                           "sxent");
        return std::vector<TG_Output>{x, TG_Output{x.oper, 1}};
      }, 1e-5, 1e-5, "sxent");
    }
  }
}

TEST_F(BackwardTest, SparseSoftmaxXentRejectsOutOfRangeLabels) {
  // The first bad row is reported, whichever work-group / block finds its label first.
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op("SparseSoftmaxCrossEntropyWithLogits",
                                           {b.Feed({4, 3}, Random(12)), b.FeedInt({4}, {0, 2, 3, -1})},
                                           {}, "sx")};
      },
      TG_INVALID_ARGUMENT, "sx", "labels[2] = 3 is outside the valid range of classes [0, 3)");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op(
            "SparseSoftmaxCrossEntropyWithLogits",
            {b.Feed({2, 3}, Random(6)), b.FeedInt64({2}, {1, -5000000000LL})},
            [](TG_OperationDescription* d) { TG_SetAttrType(d, "Tlabels", TG_INT64); }, "sx64")};
      },
      TG_INVALID_ARGUMENT, "sx64", "labels[1] = -5000000000 is outside the valid range");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op("SparseSoftmaxCrossEntropyWithLogits",
                                           {b.Feed({4, 3}, Random(12)), b.FeedInt({3}, {0, 1, 2})},
                                           {}, "sxs")};
      },
      TG_INVALID_ARGUMENT, "sxs", "labels 1-D [batch]");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op("SparseSoftmaxCrossEntropyWithLogits",
                                           {b.Feed({2, 0}, {}), b.FeedInt({2}, {0, 0})}, {}, "sx0")};
      },
      TG_INVALID_ARGUMENT, "sx0", "at least one class");
}

}  // namespace
