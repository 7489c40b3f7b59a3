// _MaxPoolWithIndex and _FusedMaxPoolGradWithIndex (nn_pool_index.cc) against the ops the
// plan-time rewrite replaces with them: the pooled values bit for bit MaxPool's, and the
// gradient from the codes bit for bit _FusedMaxPoolGrad's (num_features 0) over the pool's
// input, the bias sums included; over tiled, disjoint-with-gaps and overlapping windows,
// SAME / VALID / EXPLICIT, channel counts around the vector widths, ties, NaN, -inf and
// signed zeros; float and double, inline and on a pool. The codes by hand for the patterns
// of MaxPoolGradTiesAndNanInEveryLane; and bad inputs.
#include <cmath>
#include <cstring>
#include <limits>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

void ExpectSameBits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.dims(), want.dims()) << what;
  EXPECT_EQ(std::memcmp(got.data(), want.data(), want.ByteSize()), 0) << what;
}

// Values with many ties (a few levels), zeros of both signs, NaN and -inf; `relu`: as a Relu
// leaves them (no negatives but -0; NaN stays).
std::vector<double> Awkward(int64_t n, uint32_t seed, bool relu) {
  std::mt19937 gen(seed);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    const uint32_t r = gen() % 20;
    if (r < 12) {
      x = (static_cast<double>(r % 6) - 2) * 0.5;
    } else if (r == 12) {
      x = std::nan("");
    } else if (r == 13) {
      x = -std::numeric_limits<double>::infinity();
    } else if (r == 14) {
      x = -0.0;
    } else {
      x = static_cast<double>(gen() % 64) * 0.125 - 4;
    }
    if (relu && x < 0) x = 0;
  }
  return v;
}

void Check(DataType dtype, const PoolCase& c, uint32_t seed) {
  const std::string what = c.Name(dtype);
  SCOPED_TRACE(what);
  for (bool relu : {true, false}) {
    const Tensor x = MakeTyped(dtype, c.input, Awkward(Count(c.input), seed, relu));
    auto pooled = RunOp("MaxPool", {x}, c.Attrs());
    ASSERT_TRUE(pooled.status.ok()) << pooled.status.ToString();
    const Dims out = pooled.outputs[0].dims();
    const Tensor dy = MakeTyped(dtype, out, RandomValues(dtype, Count(out), seed + 3));
    AttrMap fused_attrs = c.Attrs();
    fused_attrs["num_features"] = AttrOfInt(0);
    auto want = RunArgs("_FusedMaxPoolGrad", {In(x), In(pooled.outputs[0]), In(dy), List({})},
                        fused_attrs);
    ASSERT_TRUE(want.status.ok()) << want.status.ToString();
    for (ThreadPool* pool : Pools()) {
      auto fwd = RunArgs("_MaxPoolWithIndex", {In(x)}, c.Attrs(), true, pool);
      ASSERT_TRUE(fwd.status.ok()) << fwd.status.ToString();
      ASSERT_EQ(fwd.outputs.size(), 2u);
      ExpectSameBits(fwd.outputs[0], pooled.outputs[0], "pooled values");
      EXPECT_EQ(fwd.outputs[1].dtype(), DT_UINT8);
      EXPECT_EQ(fwd.outputs[1].dims(), out);
      auto grad = RunArgs("_FusedMaxPoolGradWithIndex",
                          {Const(Sizes(c.input)), In(fwd.outputs[1]), In(dy)}, c.Attrs(), true, pool);
      ASSERT_TRUE(grad.status.ok()) << grad.status.ToString();
      ASSERT_EQ(grad.outputs.size(), 2u);
      ExpectSameBits(grad.outputs[0], want.outputs[0], relu ? "backprop (relu)" : "backprop");
      ExpectSameBits(grad.outputs[1], want.outputs[1], relu ? "bias (relu)" : "bias");
    }
  }
}

TEST(MaxPoolWithIndexTest, MatchesMaxPoolAndFusedMaxPoolGrad) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* padding : {"VALID", "SAME"}) {
      // Tiled (2x2 stride 2 over even and odd sizes), disjoint with uncovered pixels (stride
      // over the window), overlapping windows, channel blocks (batch 1, many channels), one
      // channel, the largest window.
      Check(dtype, {{3, 8, 8, 5}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, seed++);
      Check(dtype, {{2, 7, 9, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, seed++);
      Check(dtype, {{2, 9, 10, 6}, {1, 2, 3, 1}, {1, 3, 4, 1}, padding}, seed++);
      Check(dtype, {{2, 7, 9, 3}, {1, 3, 3, 1}, {1, 2, 2, 1}, padding}, seed++);
      Check(dtype, {{1, 7, 7, 37}, {1, 3, 3, 1}, {1, 1, 1, 1}, padding}, seed++);
      Check(dtype, {{1, 5, 6, 1}, {1, 3, 2, 1}, {1, 1, 1, 1}, padding}, seed++);
      Check(dtype, {{2, 16, 9, 4}, {1, 16, 8, 1}, {1, 16, 8, 1}, padding}, seed++);
    }
    Check(dtype, {{1, 5, 6, 2}, {1, 3, 3, 1}, {1, 1, 2, 1}, "EXPLICIT", {0, 0, 1, 2, 2, 0, 0, 0}}, seed++);
    // Channel counts around every lane count, and the CNN's first layer.
    for (int64_t depth : {1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33}) {
      Check(dtype, {{2, 6, 5, depth}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, seed++);
    }
    Check(dtype, {{4, 28, 28, 32}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, seed++);
  }
}

// The codes by hand: MaxPoolGradTiesAndNanInEveryLane's patterns (ties to the first, a NaN
// only when first) and the sign bit, in every lane of a 2x2 window; the pooled value is
// MaxPool's (NaN skipped; -0 kept when first; the lowest value when nothing exceeds it).
TEST(MaxPoolWithIndexTest, CodesOfTiesNanAndSigns) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const int64_t depth = 35;
  struct Pattern {
    std::vector<double> values;
    int code;
  };
  const std::vector<Pattern> patterns = {
      {{7, 7, 7, 7}, 0x80}, {{nan, 9, 1, 2}, 0},      {{1, nan, 3, 2}, 0x82},
      {{1, 2, 3, 4}, 0x83}, {{4, 9, 9, nan}, 0x81},   {{-1, -3, -1, -2}, 0},
      {{-inf, -inf, -inf, -inf}, 0}, {{-0.0, 0.0, -1, -2}, 0}, {{-2, 0, -1, 5}, 0x83}};
  std::vector<double> x(4 * depth);
  for (int64_t c = 0; c < depth; ++c) {
    const Pattern& p = patterns[static_cast<size_t>(c) % patterns.size()];
    for (int64_t i = 0; i < 4; ++i) x[static_cast<size_t>(i * depth + c)] = p.values[static_cast<size_t>(i)];
  }
  const AttrMap attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                      {"strides", AttrOfIntList({1, 2, 2, 1})},
                      {"padding", AttrOfString("VALID")}};
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    SCOPED_TRACE(DataTypeName(dtype));
    const Tensor x_t = MakeTyped(dtype, {1, 2, 2, depth}, x);
    for (ThreadPool* pool : Pools()) {
      auto r = RunArgs("_MaxPoolWithIndex", {In(x_t)}, attrs, true, pool);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      const std::vector<double> values = ToDoubles(r.outputs[0]);
      for (int64_t c = 0; c < depth; ++c) {
        const Pattern& p = patterns[static_cast<size_t>(c) % patterns.size()];
        EXPECT_EQ(r.outputs[1].flat<uint8_t>()[c], p.code) << "channel " << c;
        const double v = values[static_cast<size_t>(c)];
        if (std::isinf(p.values[0])) {
          EXPECT_LT(v, 0);
          EXPECT_FALSE(std::isinf(v)) << "MaxPool's lowest value, not -inf";
        } else if (p.values[0] == 0 && std::signbit(p.values[0])) {
          EXPECT_TRUE(v == 0 && std::signbit(v)) << "channel " << c;
        }
      }
    }
  }
}

TEST(MaxPoolWithIndexTest, EmptyTensorsAndBadInputs) {
  for (DataType dtype : {DT_FLOAT}) {
    Check(dtype, {{0, 4, 4, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, 300);
    Check(dtype, {{2, 4, 4, 0}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"}, 301);
  }
  const AttrMap attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                      {"strides", AttrOfIntList({1, 2, 2, 1})},
                      {"padding", AttrOfString("VALID")}};
  const Tensor codes = MakeTensor<uint8_t>(DT_UINT8, {1, 2, 2, 2}, std::vector<uint8_t>(8, 0x80));
  const Tensor dy = MakeTyped(DT_FLOAT, {1, 2, 2, 2}, std::vector<double>(8, 1));
  // Unknown static shapes, so that the kernel's own checks run.
  auto ok = RunArgs("_FusedMaxPoolGradWithIndex", {In(Sizes({1, 4, 4, 2})), In(codes), In(dy)}, attrs, false);
  ASSERT_TRUE(ok.status.ok()) << ok.status.ToString();
  EXPECT_EQ(Values<float>(ok.outputs[1]), (std::vector<float>{4, 4}));
  // The index of another shape than the pooled one; grad likewise.
  const Tensor small_codes = MakeTensor<uint8_t>(DT_UINT8, {1, 1, 2, 2}, std::vector<uint8_t>(4, 0));
  ExpectStatus(RunArgs("_FusedMaxPoolGradWithIndex", {In(Sizes({1, 4, 4, 2})), In(small_codes), In(dy)},
                       attrs, false).status,
               Code::kInvalidArgument, {"node", "index", "[1,2,2,2]", "[1,1,2,2]"});
  ExpectStatus(RunArgs("_FusedMaxPoolGradWithIndex", {In(Sizes({1, 6, 4, 2})), In(codes), In(dy)},
                       attrs, false).status,
               Code::kInvalidArgument, {"node", "pooled shape", "[1,3,2,2]"});
  ExpectStatus(RunArgs("_FusedMaxPoolGradWithIndex", {In(Sizes({1, 4, 4})), In(codes), In(dy)},
                       attrs, false).status,
               Code::kInvalidArgument, {"node", "orig_input_shape"});
  // An index of another dtype than uint8: the op's signature refuses it.
  const Tensor float_codes = MakeTyped(DT_FLOAT, {1, 2, 2, 2}, std::vector<double>(8, 0));
  const Status wrong_type =
      RunArgs("_FusedMaxPoolGradWithIndex", {In(Sizes({1, 4, 4, 2})), In(float_codes), In(dy)}, attrs, false)
          .status;
  EXPECT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.message().find("node"), std::string::npos) << wrong_type.ToString();
  // Windows over 128 pixels do not fit the code.
  const AttrMap big{{"ksize", AttrOfIntList({1, 12, 11, 1})},
                    {"strides", AttrOfIntList({1, 1, 1, 1})},
                    {"padding", AttrOfString("SAME")}};
  ExpectStatus(RunArgs("_MaxPoolWithIndex", {In(MakeTyped(DT_FLOAT, {1, 12, 11, 1}, std::vector<double>(132, 1)))},
                       big, false).status,
               Code::kInvalidArgument, {"node", "128"});
  ExpectStatus(RunArgs("_MaxPoolWithIndex", {In(MakeTyped(DT_FLOAT, {4, 4, 2}, std::vector<double>(32, 1)))},
                       attrs, false).status,
               Code::kInvalidArgument, {"node", "4-D"});
}

}  // namespace
}  // namespace tgraph::testing
