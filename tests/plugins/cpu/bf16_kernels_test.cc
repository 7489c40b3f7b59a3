// The bfloat16 kernels of plugins/cpu/bf16_kernels.cc (BiasAdd, BiasAddGrad, Softmax,
// LogSoftmax, ReluGrad, MaxPool, MaxPoolGrad) against the float kernels on the same (bf16-representable) values,
// within bfloat16 rounding: random shapes with odd sizes, batch 1, empty tensors, both data
// formats, inline and on a pool; bad shapes fail as the float kernels do. Its Cast between
// float and bfloat16 rounds to nearest even (or truncates) with NaN and infinities kept.
#include <algorithm>
#include <cmath>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

using Dims = std::vector<int64_t>;

int64_t Count(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// Runs `op` on bf16 inputs and on the same values in float; the results agree within
// `ulps` bf16 steps (2^-8 relative) of the larger of each value and `floor`.
void Compare(const std::string& op, const std::vector<Dims>& shapes, AttrMap attrs, uint32_t seed,
             double ulps = 2, double floor = 1e-3) {
  for (ThreadPool* pool : Pools()) {
    std::vector<Tensor> bf, fl;
    for (size_t i = 0; i < shapes.size(); ++i) {
      const auto v = RandomValues(DT_BFLOAT16, Count(shapes[i]), seed + static_cast<uint32_t>(i), -3, 3);
      bf.push_back(MakeTyped(DT_BFLOAT16, shapes[i], v));
      fl.push_back(MakeTyped(DT_FLOAT, shapes[i], v));
    }
    const std::string what = op + " " + PartialShape(shapes[0]).ToString() + (pool ? " (pool)" : " (inline)");
    SCOPED_TRACE(what);
    auto got = RunOpOnPool(pool, op, bf, attrs);
    auto want = RunOpOnPool(pool, op, fl, attrs);
    ASSERT_TRUE(got.status.ok()) << got.status.ToString();
    ASSERT_TRUE(want.status.ok()) << want.status.ToString();
    ASSERT_EQ(got.outputs[0].dtype(), DT_BFLOAT16);
    ASSERT_EQ(got.outputs[0].dims(), want.outputs[0].dims());
    const std::vector<double> w = ToDoubles(want.outputs[0]);
    std::vector<double> tol(w.size());
    for (size_t i = 0; i < w.size(); ++i) tol[i] = ulps / 256 * std::max(std::abs(w[i]), floor);
    ExpectClose(ToDoubles(got.outputs[0]), w, tol, what);
  }
}

AttrMap Format(const char* f) { return {{"data_format", AttrOfString(f)}}; }

TEST(Bf16KernelTest, BiasAddMatchesFloat) {
  uint32_t seed = 10;
  for (const Dims& d : std::vector<Dims>{{1, 7}, {13, 29}, {3, 5, 4, 17}, {0, 5}, {2, 0, 3}}) {
    Compare("BiasAdd", {d, {d.back()}}, Format("NHWC"), seed += 2);
  }
  Compare("BiasAdd", {{2, 3, 5, 7}, {3}}, Format("NCHW"), seed += 2);
}

TEST(Bf16KernelTest, BiasAddGradMatchesFloat) {
  uint32_t seed = 100;
  // Sums of up to 1000 values of |x| <= 3: the float kernel sums exactly enough; the bf16
  // one rounds the sum once. The floor covers sums that cancel to near zero.
  for (const Dims& d : std::vector<Dims>{{1, 7}, {31, 5}, {1000, 3}, {2, 3, 4, 9}, {0, 4}}) {
    Compare("BiasAddGrad", {d}, Format("NHWC"), seed += 2, 2, 0.05);
  }
  Compare("BiasAddGrad", {{3, 4, 5, 6}}, Format("NCHW"), seed += 2, 2, 0.05);
}

TEST(Bf16KernelTest, SoftmaxAndLogSoftmaxMatchFloat) {
  uint32_t seed = 200;
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (const Dims& d : std::vector<Dims>{{7}, {1, 10}, {5, 33}, {2, 3, 17}, {0, 4}, {4, 1}}) {
      Compare(op, {d}, {}, seed += 2);
    }
  }
}

TEST(Bf16KernelTest, ReluGradMatchesFloatExactly) {
  uint32_t seed = 300;
  for (const Dims& d : std::vector<Dims>{{1}, {7, 13}, {2, 3, 4, 5}, {0, 3}, {4096}}) {
    Compare("ReluGrad", {d, d}, {}, seed += 2, /*ulps=*/0, /*floor=*/0);
  }
  // Zero, negative zero, NaN and infinities as features.
  const double inf = INFINITY, nan = NAN;
  auto r = RunOp("ReluGrad", {MakeTyped(DT_BFLOAT16, {6}, {1, 2, 3, 4, 5, 6}),
                              MakeTyped(DT_BFLOAT16, {6}, {0.0, -0.0, nan, inf, -inf, 1e-30})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(ToDoubles(r.outputs[0]), (std::vector<double>{0, 0, 0, 4, 0, 6}));
}

TEST(Bf16KernelTest, CastRoundsToNearestEvenAndKeepsSpecials) {
  const double inf = INFINITY, nan = NAN;
  // 1 + 2^-8 is a tie (to 1, the even one); 1 + 3 * 2^-8 too (to 1 + 2^-6, the even one).
  const std::vector<double> in = {1.0, 1.0 + 1.0 / 256, 1.0 + 3.0 / 256, -2.5, inf, -inf, nan, 0.0};
  auto to = RunOp("Cast", {MakeTyped(DT_FLOAT, {8}, in)},
                  {{"DstT", AttrOfType(DT_BFLOAT16)}, {"Truncate", AttrOfBool(false)}});
  ASSERT_TRUE(to.status.ok()) << to.status.ToString();
  const std::vector<double> got = ToDoubles(to.outputs[0]);
  EXPECT_EQ(got[0], 1.0);
  EXPECT_EQ(got[1], 1.0);
  EXPECT_EQ(got[2], 1.0 + 4.0 / 256);
  EXPECT_EQ(got[3], -2.5);
  EXPECT_EQ(got[4], inf);
  EXPECT_EQ(got[5], -inf);
  EXPECT_TRUE(std::isnan(got[6]));
  EXPECT_EQ(got[7], 0.0);
  auto back = RunOp("Cast", {to.outputs[0]}, {{"DstT", AttrOfType(DT_FLOAT)}});
  ASSERT_TRUE(back.status.ok()) << back.status.ToString();
  EXPECT_EQ(back.outputs[0].dtype(), DT_FLOAT);
  const std::vector<double> round_trip = ToDoubles(back.outputs[0]);
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isnan(got[i])) {
      EXPECT_EQ(round_trip[i], got[i]) << i;
    }
  }
  // Truncation drops the low bits: 1 + 255/256 * 2^-7 becomes 1.
  auto cut = RunOp("Cast", {MakeTyped(DT_FLOAT, {2}, {1.0 + 255.0 / 256 / 128, nan})},
                   {{"DstT", AttrOfType(DT_BFLOAT16)}, {"Truncate", AttrOfBool(true)}});
  ASSERT_TRUE(cut.status.ok()) << cut.status.ToString();
  EXPECT_EQ(ToDoubles(cut.outputs[0])[0], 1.0);
  EXPECT_TRUE(std::isnan(ToDoubles(cut.outputs[0])[1]));
  // Large and empty tensors (the parallel loop).
  for (int64_t n : {0, 100000}) {
    const auto v = RandomValues(DT_FLOAT, n, 7, -100, 100);
    auto big = RunOpOnPool(TestPool(), "Cast", {MakeTyped(DT_FLOAT, {n}, v)},
                           {{"DstT", AttrOfType(DT_BFLOAT16)}, {"Truncate", AttrOfBool(false)}});
    ASSERT_TRUE(big.status.ok()) << big.status.ToString();
    const auto b = ToDoubles(big.outputs[0]);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b[static_cast<size_t>(i)], RoundTo(DT_BFLOAT16, v[static_cast<size_t>(i)])) << i;
  }
}

AttrMap Pool(int64_t k, int64_t stride, const char* padding) {
  return {{"ksize", AttrOfIntList({1, k, k, 1})},
          {"strides", AttrOfIntList({1, stride, stride, 1})},
          {"padding", AttrOfString(padding)},
          {"data_format", AttrOfString("NHWC")}};
}

TEST(Bf16KernelTest, MaxPoolAndItsGradientMatchFloat) {
  uint32_t seed = 400;
  struct Case {
    Dims in;
    int64_t k, stride;
    const char* padding;
  };
  for (const Case& c : std::vector<Case>{{{1, 5, 5, 3}, 2, 2, "SAME"},
                                         {{2, 7, 6, 17}, 3, 2, "VALID"},
                                         {{3, 4, 4, 1}, 3, 1, "SAME"},  // overlapping windows
                                         {{1, 28, 28, 32}, 2, 2, "SAME"},
                                         {{0, 4, 4, 2}, 2, 2, "SAME"}}) {
    const AttrMap attrs = Pool(c.k, c.stride, c.padding);
    Compare("MaxPool", {c.in}, attrs, seed += 3, /*ulps=*/0, /*floor=*/0);
    // The gradient: the float MaxPool's output as orig_output, a random grad; the same
    // (bf16-representable) values both ways, so the same first maxima take the gradients.
    const auto x = RandomValues(DT_BFLOAT16, Count(c.in), seed, -3, 3);
    auto pooled = RunOp("MaxPool", {MakeTyped(DT_FLOAT, c.in, x)}, attrs);
    ASSERT_TRUE(pooled.status.ok()) << pooled.status.ToString();
    const Dims out = pooled.outputs[0].dims();
    const auto y = ToDoubles(pooled.outputs[0]);
    const auto dy = RandomValues(DT_BFLOAT16, Count(out), seed + 1, -3, 3);
    for (ThreadPool* pool : Pools()) {
      SCOPED_TRACE(PartialShape(c.in).ToString() + (pool ? " (pool)" : " (inline)"));
      auto got = RunOpOnPool(pool, "MaxPoolGrad", {MakeTyped(DT_BFLOAT16, c.in, x),
                                                   MakeTyped(DT_BFLOAT16, out, y),
                                                   MakeTyped(DT_BFLOAT16, out, dy)}, attrs);
      auto want = RunOpOnPool(pool, "MaxPoolGrad", {MakeTyped(DT_FLOAT, c.in, x),
                                                    MakeTyped(DT_FLOAT, out, y),
                                                    MakeTyped(DT_FLOAT, out, dy)}, attrs);
      ASSERT_TRUE(got.status.ok()) << got.status.ToString();
      ASSERT_TRUE(want.status.ok()) << want.status.ToString();
      ASSERT_EQ(got.outputs[0].dtype(), DT_BFLOAT16);
      const auto w = ToDoubles(want.outputs[0]);
      std::vector<double> tol(w.size());
      for (size_t i = 0; i < w.size(); ++i) tol[i] = std::abs(w[i]) / 256 + 1e-6;  // one rounding
      ExpectClose(ToDoubles(got.outputs[0]), w, tol, "MaxPoolGrad");
    }
  }
  // A grad of the wrong shape fails as in float.
  const AttrMap attrs = Pool(2, 2, "VALID");
  const Tensor x = MakeTyped(DT_BFLOAT16, {1, 4, 4, 1}, std::vector<double>(16, 1));
  const Tensor y = MakeTyped(DT_BFLOAT16, {1, 2, 2, 1}, {1, 1, 1, 1});
  ExpectStatus(RunOp("MaxPoolGrad", {x, y, MakeTyped(DT_BFLOAT16, {1, 3, 3, 1}, std::vector<double>(9, 1))},
                     attrs, /*known_shapes=*/false).status,
               Code::kInvalidArgument, {"grad must have the pooled shape", "[1,2,2,1]"});
}

TEST(Bf16KernelTest, BadShapesFailAsInFloat) {
  const Tensor x = MakeTyped(DT_BFLOAT16, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = MakeTyped(DT_BFLOAT16, {4}, {1, 2, 3, 4});
  ExpectStatus(RunOp("BiasAdd", {x, b}, Format("NHWC"), /*known_shapes=*/false).status,
               Code::kInvalidArgument, {"bias size 4", "[2,3]"});
  ExpectStatus(RunOp("BiasAddGrad", {MakeTyped(DT_BFLOAT16, {3}, {1, 2, 3})}, Format("NHWC"), false).status,
               Code::kInvalidArgument, {"rank at least 2"});
  ExpectStatus(RunOp("Softmax", {MakeTyped(DT_BFLOAT16, {}, {1})}, {}, false).status,
               Code::kInvalidArgument, {"rank at least 1"});
}

}  // namespace
}  // namespace tgraph::testing
