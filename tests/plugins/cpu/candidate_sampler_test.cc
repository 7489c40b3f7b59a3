// LogUniformCandidateSampler: output shapes, the log-uniform frequencies
// P(k) = (log(k+2) - log(k+1)) / log(range_max+1), expected counts, unique sampling, seeds,
// and bad inputs.
#include <cmath>
#include <set>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

AttrMap SamplerAttrs(int64_t num_true, int64_t num_sampled, bool unique, int64_t range_max,
                     int64_t seed = 1, int64_t seed2 = 2) {
  return {{"num_true", AttrOfInt(num_true)}, {"num_sampled", AttrOfInt(num_sampled)},
          {"unique", AttrOfBool(unique)},    {"range_max", AttrOfInt(range_max)},
          {"seed", AttrOfInt(seed)},         {"seed2", AttrOfInt(seed2)}};
}

double P(int64_t k, int64_t range_max) {
  return (std::log(k + 2.0) - std::log(k + 1.0)) / std::log(range_max + 1.0);
}

TEST(CandidateSamplerKernelTest, FrequenciesAreLogUniform) {
  const int64_t range = 100, n = 200000;
  OpRun r =
      RunOp("LogUniformCandidateSampler", {I64({2, 1}, {0, 50})}, SamplerAttrs(1, n, false, range));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 3u);
  EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{n});
  EXPECT_EQ(r.outputs[1].dims(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(r.outputs[2].dims(), std::vector<int64_t>{n});
  std::vector<double> counts(static_cast<size_t>(range), 0);
  for (int64_t v : Values<int64_t>(r.outputs[0])) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, range);
    ++counts[static_cast<size_t>(v)];
  }
  for (int64_t k : {0, 1, 2, 5, 10, 30, 99}) {
    const double want = P(k, range) * n;
    EXPECT_NEAR(counts[static_cast<size_t>(k)], want, 5 * std::sqrt(want) + 1) << "class " << k;
  }
  // Without unique, expected count = P(k) * num_sampled.
  const float* te = r.outputs[1].flat<float>();
  EXPECT_NEAR(te[0], P(0, range) * n, 1e-3 * P(0, range) * n);
  EXPECT_NEAR(te[1], P(50, range) * n, 1e-3 * P(50, range) * n);
  const int64_t first = r.outputs[0].flat<int64_t>()[0];
  EXPECT_NEAR(r.outputs[2].flat<float>()[0], P(first, range) * n, 1e-3 * P(first, range) * n);
}

TEST(CandidateSamplerKernelTest, UniqueSamplesAreDistinct) {
  OpRun r =
      RunOp("LogUniformCandidateSampler", {I64({1, 2}, {3, 4})}, SamplerAttrs(2, 40, true, 50));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  std::vector<int64_t> s = Values<int64_t>(r.outputs[0]);
  EXPECT_EQ(std::set<int64_t>(s.begin(), s.end()).size(), 40u);
  for (float e : Values<float>(r.outputs[2])) {
    EXPECT_GT(e, 0.0f);
    EXPECT_LE(e, 1.0f);  // 1 - (1 - p)^tries
  }
  // Sampling every class.
  r = RunOp("LogUniformCandidateSampler", {I64({1, 1}, {0})}, SamplerAttrs(1, 5, true, 5));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  s = Values<int64_t>(r.outputs[0]);
  EXPECT_EQ(std::set<int64_t>(s.begin(), s.end()), (std::set<int64_t>{0, 1, 2, 3, 4}));
}

TEST(CandidateSamplerKernelTest, Seeds) {
  Tensor tc = I64({1, 1}, {0});
  OpRun a = RunOp("LogUniformCandidateSampler", {tc}, SamplerAttrs(1, 64, false, 1000, 3, 4));
  OpRun b = RunOp("LogUniformCandidateSampler", {tc}, SamplerAttrs(1, 64, false, 1000, 3, 4));
  OpRun c = RunOp("LogUniformCandidateSampler", {tc}, SamplerAttrs(1, 64, false, 1000, 3, 5));
  ASSERT_TRUE(a.status.ok() && b.status.ok() && c.status.ok());
  EXPECT_TRUE(a.outputs[0].Equals(b.outputs[0]));
  EXPECT_FALSE(a.outputs[0].Equals(c.outputs[0]));
  KernelFixture f("LogUniformCandidateSampler", {In(tc)}, SamplerAttrs(1, 64, false, 1000, 3, 4));
  OpRun f1 = f.Run(), f2 = f.Run();
  EXPECT_TRUE(f1.outputs[0].Equals(a.outputs[0]));
  EXPECT_FALSE(f2.outputs[0].Equals(f1.outputs[0]));
}

TEST(CandidateSamplerKernelTest, BadInputs) {
  ExpectInvalid(RunOp("LogUniformCandidateSampler", {I64({2, 2}, {0, 1, 2, 3})},
                      SamplerAttrs(1, 4, false, 10), false)
                    .status,
                {"node", "num_true (1) columns", "[2,2]"});
  ExpectInvalid(
      RunOp("LogUniformCandidateSampler", {I64({2, 1}, {0, 10})}, SamplerAttrs(1, 4, false, 10))
          .status,
      {"true_classes[1,0] = 10 is not in [0, 10)"});
  ExpectInvalid(
      RunOp("LogUniformCandidateSampler", {I64({1, 1}, {0})}, SamplerAttrs(1, 11, true, 10)).status,
      {"num_sampled", "range_max"});
}

}  // namespace
}  // namespace tgraph::testing
