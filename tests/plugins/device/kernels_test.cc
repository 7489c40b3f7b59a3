// Every kernel of the device plugin under test (built once per backend: opencl_tests,
// cuda_tests) against the CPU plugin's result for the same inputs: the same graph is built
// twice, once on /device:CPU:0 and once on /device:GPU:0, and run through sessions of the C
// API (OpenCL on PoCL in CI; without a device, CUDA skips saying why). Inputs are fed
// placeholders (copied to the device by the executor); shapes and axes are host-side Consts,
// as the kernels declare them host memory.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectDeviceMatchesCpu;
using devtest::kGpu;
using devtest::Random;
using devtest::RunResult;

// The fixture (plugins loaded, GPU:0 present, ExpectDeviceError) is shared with the backward
// kernels' tests (tests/plugins/device_test_util.h).
class KernelTest : public devtest::DeviceTest {};

// ---- binary ops with broadcasting ----

struct BinaryCase {
  std::vector<int64_t> x, y;
};

class BinaryTest : public KernelTest,
                         public ::testing::WithParamInterface<const char*> {};

TEST_P(BinaryTest, MatchesCpuWithBroadcasting) {
  const char* op = GetParam();
  const std::vector<BinaryCase> cases = {
      {{2, 3, 4}, {2, 3, 4}},   // same shape
      {{2, 3, 4}, {}},          // scalar
      {{}, {5}},                // scalar on the left
      {{2, 3, 4}, {3, 1}},      // middle broadcast
      {{4}, {2, 1, 4}},         // rank extension
      {{2, 1, 4, 1}, {1, 3, 1, 5}},
      {{7, 1}, {1, 9}},         // outer product
      {{0, 3}, {3}},            // empty
  };
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(std::string(op) + " " + std::to_string(c.x.size()) + "-d by " +
                 std::to_string(c.y.size()) + "-d");
    auto count = [](const std::vector<int64_t>& d) {
      size_t n = 1;
      for (int64_t v : d) n *= static_cast<size_t>(v);
      return n;
    };
    // RealDiv: keep the divisor away from zero.
    const float lo = std::string(op) == "RealDiv" ? 0.5f : -2.0f;
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{b.Op(op, {b.Feed(c.x, Random(count(c.x), -2.0f, 2.0f, 3)),
                                              b.Feed(c.y, Random(count(c.y), lo, 2.0f, 4))})};
    });
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryTest,
                         ::testing::Values("Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum"));

TEST_F(KernelTest, MaximumPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{
        b.Op("Maximum", {b.Feed({4}, {nan, 1, 2, nan}), b.Feed({4}, {0, nan, 3, nan})})};
  });
}

TEST_F(KernelTest, IncompatibleShapesFail) {
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("AddV2", {b.Feed({2, 3}, Random(6)), b.Feed({4}, Random(4))}, {}, "bad_add")};
      },
      TG_INVALID_ARGUMENT, "bad_add", "Incompatible shapes: [2,3] vs. [4]");
}

// ---- unary ops ----

class UnaryTest : public KernelTest,
                        public ::testing::WithParamInterface<const char*> {};

TEST_P(UnaryTest, MatchesCpu) {
  const char* op = GetParam();
  // Log: positive inputs; the others span both signs.
  const float lo = std::string(op) == "Log" ? 0.01f : -6.0f;
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{b.Op(op, {b.Feed({3, 41}, Random(123, lo, 6.0f, 7))})};
  }, 1e-5, 1e-6);
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{b.Op(op, {b.Feed({0}, {})})};
  });
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryTest,
                         ::testing::Values("Neg", "Exp", "Log", "Tanh", "Sigmoid", "Relu",
                                           "Softplus"));

// Softplus at its thresholds (x itself above 13.94, exp(x) below -13.94) and beyond; its
// gradient, sigmoid(features) times the gradients, where exp(-features) overflows; both on
// the device (NCE losses' log-sigmoids).
TEST_F(KernelTest, SoftplusAndGradientAtTheEdgesMatchCpu) {
  const std::vector<float> x = {-100.0f, -20.0f, -13.95f, -13.9f, -1.0f, 0.0f,
                                1.0f,    13.9f,  13.95f,  20.0f,  100.0f, -0.0f};
  RunResult r = ExpectDeviceMatchesCpu([&](Builder& b) {
    TG_Output features = b.Feed({3, 4}, x);
    return std::vector<TG_Output>{
        b.Op("Softplus", {features}, {}, "softplus"),
        b.Op("SoftplusGrad", {b.Feed({3, 4}, Random(12, -3, 3, 5)), features}, {}, "grad")};
  }, 1e-5, 1e-30);
  EXPECT_EQ(r.DeviceOf("softplus"), kGpu) << r.StepsString();
  EXPECT_EQ(r.DeviceOf("grad"), kGpu) << r.StepsString();
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op(
            "SoftplusGrad", {b.Feed({2, 3}, Random(6)), b.Feed({3, 2}, Random(6))}, {}, "sg")};
      },
      TG_INVALID_ARGUMENT, "sg", "same shape");
}

TEST_F(KernelTest, ReluGradMatchesCpu) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> features = Random(50, -1, 1, 9);
  features[3] = 0.0f;
  features[4] = nan;
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{
        b.Op("ReluGrad", {b.Feed({5, 10}, Random(50, -3, 3, 8)), b.Feed({5, 10}, features)})};
  });
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("ReluGrad", {b.Feed({2, 3}, Random(6)), b.Feed({3, 2}, Random(6))}, {}, "rg")};
      },
      TG_INVALID_ARGUMENT, "rg", "same shape");
}

// ---- data movement ----
// (Error cases feed their shapes: a constant bad shape is refused while building.)

TEST_F(KernelTest, IdentityAndReshapeAliasWithoutCopies) {
  for (bool ints : {false, true}) {
    RunResult r = ExpectDeviceMatchesCpu([&](Builder& b) {
      TG_Output x = ints ? b.FeedInt({2, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
                         : b.Feed({2, 6}, Random(12));
      TG_Output id = b.Op("Identity", {x}, {}, "id");
      TG_Output r1 = b.Op("Reshape", {id, b.HostInts({3}, {3, -1, 2})}, {}, "r1");
      return std::vector<TG_Output>{b.Op("Reshape", {r1, b.HostInts({2}, {4, 3})}, {}, "r2")};
    });
    EXPECT_EQ(r.DeviceOf("id"), kGpu) << r.StepsString();
    EXPECT_EQ(r.DeviceOf("r1"), kGpu) << r.StepsString();
    // The feed goes in, the fetch comes out; the shapes stay on the host.
    EXPECT_EQ(r.Copies(), 2) << r.StepsString();
    ASSERT_EQ(r.values.size(), 1u);
    EXPECT_EQ(r.values[0].dims, (std::vector<int64_t>{4, 3}));
  }
}

TEST_F(KernelTest, ReshapeRejectsBadShapes) {
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Reshape", {b.Feed({2, 3}, Random(6)), b.HostInts({2}, {4, 2})}, {}, "rs")};
      },
      TG_INVALID_ARGUMENT, "rs", "6 values, but the requested shape has 8");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Reshape", {b.Feed({2, 3}, Random(6)), b.FeedInt({2}, {-1, -1})}, {}, "rs2")};
      },
      TG_INVALID_ARGUMENT, "rs2", "only one input size may be -1");
}

TEST_F(KernelTest, FillAndZerosLikeMatchCpu) {
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("Fill", {b.HostInts({3}, {2, 3, 4}), b.Feed({}, {2.5f})})};
  });
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("Fill", {b.HostInts({2}, {5, 1}), b.FeedInt({}, {-7})})};
  });
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("ZerosLike", {b.Feed({3, 5}, Random(15))})};
  });
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("ZerosLike", {b.FeedInt({2}, {4, 5})})};
  });
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Fill", {b.FeedInt({2}, {2, -1}), b.Feed({}, {1.0f})}, {}, "fill")};
      },
      TG_INVALID_ARGUMENT, "fill", "must be non-negative");
}

TEST_F(KernelTest, ExpandDimsAliasesAtEveryPosition) {
  for (int32_t dim : {0, 1, 2, -1, -3}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    RunResult r = ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{
          b.Op("ExpandDims", {b.Feed({2, 3}, Random(6)), b.HostInts({}, {dim})}, {}, "ed")};
    });
    EXPECT_EQ(r.Copies(), 2) << r.StepsString();
  }
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("ExpandDims", {b.FeedInt({3}, {4, 5, 6}), b.HostInts({1}, {0})})};
  });
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("ExpandDims", {b.Feed({2, 3}, Random(6)), b.FeedInt({}, {3})}, {}, "ed")};
      },
      TG_INVALID_ARGUMENT, "ed", "Tried to expand dim index 3");
}

TEST_F(KernelTest, SqueezeAliasesWithoutCopies) {
  for (std::vector<int64_t> axes : {std::vector<int64_t>{}, std::vector<int64_t>{0},
                                    std::vector<int64_t>{-1, 2}}) {
    SCOPED_TRACE(std::to_string(axes.size()) + " squeeze_dims");
    RunResult r = ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{
          b.Op("Squeeze", {b.Feed({1, 3, 1, 2, 1}, Random(6))},
               [&](TG_OperationDescription* d) {
                 TG_SetAttrIntList(d, "squeeze_dims", axes.data(), static_cast<int>(axes.size()));
               },
               "sq")};
    });
    EXPECT_EQ(r.Copies(), 2) << r.StepsString();
  }
  ExpectDeviceError(
      [](Builder& b) {
        const int64_t axis = 1;
        return std::vector<TG_Output>{b.Op("Squeeze", {b.Feed({2, 3}, Random(6))},
                                           [&](TG_OperationDescription* d) {
                                             TG_SetAttrIntList(d, "squeeze_dims", &axis, 1);
                                           },
                                           "sq")};
      },
      TG_INVALID_ARGUMENT, "sq", "Can not squeeze dim[1]");
}

// Pad with zeros (Slice's gradient: the NCE loss's backward pass), float and int32, on the
// device: paddings on each side, empty inputs and outputs, size-1 dims, no padding (the input
// itself), and the CPU's errors.
TEST_F(KernelTest, PadMatchesCpu) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int32_t> paddings;
  };
  const std::vector<Case> cases = {
      {{5}, {2, 3}},
      {{2, 3}, {1, 0, 0, 2}},
      {{2, 1, 3}, {0, 1, 2, 2, 1, 0}},
      {{3, 4}, {0, 0, 0, 0}},        // no padding
      {{0, 3}, {1, 1, 0, 2}},        // empty input, padded
      {{3, 0}, {0, 0, 0, 0}},        // empty
      {{}, {}},                      // scalar
      {{1, 2, 1, 2, 1, 2}, {1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 2, 0}},
  };
  for (bool ints : {false, true}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(ints ? "int32" : "float") + " rank " +
                   std::to_string(c.dims.size()));
      size_t n = 1;
      for (int64_t d : c.dims) n *= static_cast<size_t>(d);
      std::vector<int32_t> int_values(n);
      for (size_t i = 0; i < n; ++i) int_values[i] = static_cast<int32_t>(i * 7) - 11;
      ExpectDeviceMatchesCpu([&](Builder& b) {
        TG_Output x = ints ? b.FeedInt(c.dims, int_values) : b.Feed(c.dims, Random(n));
        return std::vector<TG_Output>{b.Op(
            "Pad", {x, b.HostInts({static_cast<int64_t>(c.dims.size()), 2}, c.paddings)}, {},
            "pad")};
      }, 0, 0);
    }
  }
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Pad", {b.Feed({2, 3}, Random(6)), b.FeedInt({1, 2}, {1, 1})}, {}, "pad")};
      },
      TG_INVALID_ARGUMENT, "pad", "paddings must be a matrix of shape [2,2]");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Pad", {b.Feed({2}, Random(2)), b.FeedInt({1, 2}, {0, -1})}, {}, "pad")};
      },
      TG_INVALID_ARGUMENT, "pad", "Paddings must be non-negative: 0 -1");
}

TEST_F(KernelTest, TileMatchesCpu) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int32_t> multiples;
  };
  const std::vector<Case> cases = {
      {{1}, {8}},                 // a Mean gradient's spread
      {{2, 3}, {3, 2}},
      {{2, 1, 3}, {1, 4, 1}},
      {{3}, {0}},                 // empty output
      {{}, {}},                   // scalar
      {{1, 2, 1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1, 2, 1}},  // 8 dims, merged to 4
      {{3, 1, 1, 1, 1, 1, 1, 2}, {1, 1, 1, 1, 1, 1, 1, 1}},  // size-1 dims dropped
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("rank " + std::to_string(c.dims.size()));
    size_t n = 1;
    for (int64_t d : c.dims) n *= static_cast<size_t>(d);
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{b.Op(
          "Tile", {b.Feed(c.dims, Random(n)),
                   b.HostInts({static_cast<int64_t>(c.multiples.size())}, c.multiples)})};
    });
  }
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("Tile", {b.FeedInt({2}, {7, -8}), b.HostInts({1}, {3})})};
  });
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Tile", {b.Feed({2, 3}, Random(6)), b.FeedInt({1}, {2})}, {}, "tile")};
      },
      TG_INVALID_ARGUMENT, "tile", "Expected multiples argument to be a vector of length 2");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Tile", {b.Feed({2}, Random(2)), b.FeedInt({1}, {-1})}, {}, "tile")};
      },
      TG_INVALID_ARGUMENT, "tile", "Expected multiples[0] >= 0");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Tile", {b.Feed({1, 1, 1, 1, 1, 1, 1}, Random(1)),
                          b.HostInts({7}, {2, 2, 2, 2, 2, 2, 2})}, {}, "tile")};
      },
      TG_UNIMPLEMENTED, "tile", "needs more than 6 dims");
}

TEST_F(KernelTest, GatherV2MatchesCpu) {
  struct Case {
    std::vector<int64_t> params, indices_dims;
    std::vector<int32_t> indices;
    int32_t axis;
  };
  const std::vector<Case> cases = {
      {{5, 3}, {4}, {4, 0, 2, 4}, 0},             // embedding rows, repeated
      {{5, 3}, {2, 2}, {1, 0, 3, 3}, 0},          // 2-D indices
      {{2, 5, 3}, {3}, {4, 1, 0}, 1},             // a middle axis
      {{2, 5, 3}, {2}, {2, 0}, -1},               // the last axis, negative
      {{4}, {}, {3}, 0},                          // scalar index
      {{5, 3}, {0}, {}, 0},                       // no indices
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("axis " + std::to_string(c.axis) + " of rank " + std::to_string(c.params.size()));
    size_t n = 1;
    for (int64_t d : c.params) n *= static_cast<size_t>(d);
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{b.Op("GatherV2", {b.Feed(c.params, Random(n)),
                                                      b.FeedInt(c.indices_dims, c.indices),
                                                      b.HostInts({}, {c.axis})})};
    });
  }
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op(
            "GatherV2", {b.Feed({5, 3}, Random(15)), b.FeedInt({2, 2}, {0, 1, 5, -1}),
                         b.HostInts({}, {0})},
            {}, "gather")};
      },
      TG_INVALID_ARGUMENT, "gather", "indices[1,0] = 5 is not in [0, 5)");
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{b.Op(
            "GatherV2", {b.Feed({5, 3}, Random(15)), b.FeedInt({1}, {0}), b.FeedInt({}, {2})},
            {}, "gather")};
      },
      TG_INVALID_ARGUMENT, "gather", "Expected axis in the range [-2, 2)");
  // batch_dims: holes_test.cc.
}

// An int32 Const on GPU:0 lives in host memory: a host-memory consumer (Reshape's shape)
// takes it without a copy, a device consumer (Cast) gets it copied in.
TEST_F(KernelTest, Int32ConstIsHostMemory) {
  TG_Status* s = TG_NewStatus();
  Builder b(kGpu);
  TG_GraphPushDevice(b.graph(), kGpu, s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  TG_Output shape = b.HostInts({2}, {3, 2});  // placed by the device stack
  TG_Output ints = b.HostInts({3}, {1, -2, 3});
  TG_GraphPopDevice(b.graph(), s);
  TG_DeleteStatus(s);
  TG_Output r = b.Op("Reshape", {b.Feed({6}, Random(6)), shape}, {}, "rs");
  TG_Output c = b.Op("Cast", {ints}, [](TG_OperationDescription* d) {
    TG_SetAttrType(d, "SrcT", TG_INT32);
    TG_SetAttrType(d, "DstT", TG_FLOAT);
  }, "cast");
  const RunResult got = b.Run({r, c});
  ASSERT_EQ(got.code, TG_OK) << got.message;
  EXPECT_EQ(got.DeviceOf("const0"), kGpu) << got.StepsString();
  EXPECT_EQ(got.DeviceOf("const1"), kGpu) << got.StepsString();
  EXPECT_EQ(got.CopiesOf("const0:0"), 0) << got.StepsString();
  EXPECT_EQ(got.CopiesOf("const1:0"), 1) << got.StepsString();
  ASSERT_EQ(got.values.size(), 2u);
  EXPECT_EQ(got.values[0].dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(got.values[1].values, (std::vector<double>{1, -2, 3}));
}

TEST_F(KernelTest, CastBetweenFloatAndInt32MatchesCpu) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectDeviceMatchesCpu([&](Builder& b) {
    return std::vector<TG_Output>{b.Op(
        "Cast", {b.Feed({8}, {-2.7f, -0.5f, 0.0f, 0.5f, 2.7f, 1e10f, -1e10f, nan})},
        [](TG_OperationDescription* d) {
          TG_SetAttrType(d, "SrcT", TG_FLOAT);
          TG_SetAttrType(d, "DstT", TG_INT32);
        })};
  });
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("Cast", {b.FeedInt({4}, {-3, 0, 7, 16777217})},
                                       [](TG_OperationDescription* d) {
                                         TG_SetAttrType(d, "SrcT", TG_INT32);
                                         TG_SetAttrType(d, "DstT", TG_FLOAT);
                                       })};
  });
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("Cast", {b.Feed({3}, {1.5f, -2, 3})},
                                       [](TG_OperationDescription* d) {
                                         TG_SetAttrType(d, "SrcT", TG_FLOAT);
                                         TG_SetAttrType(d, "DstT", TG_FLOAT);
                                       })};
  });
}

// ---- nn ops ----

TEST_F(KernelTest, MatMulMatchesCpuWithTransposes) {
  const int64_t m = 37, k = 53, n = 29;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::string("transpose_a=") + (ta ? "1" : "0") + " transpose_b=" +
                   (tb ? "1" : "0"));
      ExpectDeviceMatchesCpu([&](Builder& b) {
        TG_Output a = b.Feed(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k},
                             Random(static_cast<size_t>(m * k), -1, 1, 11));
        TG_Output bb = b.Feed(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n},
                              Random(static_cast<size_t>(k * n), -1, 1, 12));
        return std::vector<TG_Output>{b.Op("MatMul", {a, bb}, [&](TG_OperationDescription* d) {
          TG_SetAttrBool(d, "transpose_a", ta ? 1 : 0);
          TG_SetAttrBool(d, "transpose_b", tb ? 1 : 0);
        })};
      }, 1e-4, 1e-5);
    }
  }
  // Empty inner dimension: zeros.
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{b.Op("MatMul", {b.Feed({3, 0}, {}), b.Feed({0, 4}, {})})};
  });
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("MatMul", {b.Feed({2, 3}, Random(6)), b.Feed({2, 3}, Random(6))}, {}, "mm")};
      },
      TG_INVALID_ARGUMENT, "mm", "Matrix size-incompatible");
}

TEST_F(KernelTest, BiasAddMatchesCpuInBothFormats) {
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{
        b.Op("BiasAdd", {b.Feed({4, 5, 6}, Random(120)), b.Feed({6}, Random(6, -1, 1, 2))})};
  });
  ExpectDeviceMatchesCpu([](Builder& b) {
    return std::vector<TG_Output>{
        b.Op("BiasAdd", {b.Feed({2, 3, 4, 5}, Random(120)), b.Feed({3}, Random(3, -1, 1, 2))},
             [](TG_OperationDescription* d) { TG_SetAttrString(d, "data_format", "NCHW", 4); })};
  });
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("BiasAdd", {b.Feed({4, 5}, Random(20)), b.Feed({4}, Random(4))}, {}, "ba")};
      },
      TG_INVALID_ARGUMENT, "ba", "does not match the channel dimension");
}

TEST_F(KernelTest, SoftmaxMatchesCpu) {
  for (std::vector<int64_t> dims : {std::vector<int64_t>{6, 10}, std::vector<int64_t>{3, 200},
                                    std::vector<int64_t>{2, 2, 1}, std::vector<int64_t>{7}}) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{b.Op("Softmax", {b.Feed(dims, Random(n, -20, 20, 5))})};
    }, 1e-5, 1e-7);
  }
}

struct ReduceCase {
  std::vector<int64_t> dims;
  std::vector<int32_t> axes;
  bool keep_dims;
};

TEST_F(KernelTest, SumAndMeanMatchCpu) {
  const std::vector<ReduceCase> cases = {
      {{4, 7}, {1}, false},          // last axis
      {{4, 7}, {-1}, true},          // negative axis, keep_dims
      {{4, 7}, {0, 1}, false},       // all axes
      {{3, 1000}, {0, 1}, true},     // all axes, more than a work-group / block per output
      {{5, 7}, {0}, false},          // first axis (strided)
      {{2, 3, 4, 5}, {1, 2}, false}, // a middle block
      {{2, 1, 4}, {0, 2}, false},    // adjacent once the size-1 dim is ignored
      {{3, 4}, {}, false},           // nothing reduced
      {{3, 0}, {1}, false},          // an empty axis: Sum 0, Mean NaN
  };
  for (const char* op : {"Sum", "Mean"}) {
    for (const ReduceCase& c : cases) {
      SCOPED_TRACE(std::string(op) + " over " + std::to_string(c.axes.size()) + " axes of " +
                   std::to_string(c.dims.size()) + "-d");
      size_t n = 1;
      for (int64_t d : c.dims) n *= static_cast<size_t>(d);
      ExpectDeviceMatchesCpu([&](Builder& b) {
        return std::vector<TG_Output>{
            b.Op(op,
                 {b.Feed(c.dims, Random(n, -1, 1, 13)),
                  b.HostInts({static_cast<int64_t>(c.axes.size())}, c.axes)},
                 [&](TG_OperationDescription* d) { TG_SetAttrBool(d, "keep_dims", c.keep_dims); })};
      }, 1e-4, 1e-5);
    }
  }
}

TEST_F(KernelTest, ReductionErrors) {
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Mean", {b.Feed({2, 3}, Random(6)), b.HostInts({1}, {2})}, {}, "mean")};
      },
      TG_INVALID_ARGUMENT, "mean", "Invalid reduction dimension");
}

}  // namespace
