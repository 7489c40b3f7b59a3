// RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt, RandomShuffle:
// seeding (same seeds => same numbers in a fresh kernel; runs of one kernel differ; seeds
// 0/0 are nondeterministic), independence from the thread count, and distribution sanity on
// 100k samples, for every dtype the kernels are registered for.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <set>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

AttrMap Seeds(int64_t seed, int64_t seed2, DataType dtype = DT_FLOAT) {
  return {{"seed", AttrOfInt(seed)}, {"seed2", AttrOfInt(seed2)}, {"dtype", AttrOfType(dtype)}};
}

std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (t.dtype()) {
      case DT_FLOAT:
        out.push_back(t.flat<float>()[i]);
        break;
      case DT_DOUBLE:
        out.push_back(t.flat<double>()[i]);
        break;
      case DT_HALF:
        out.push_back(static_cast<float>(t.flat<Eigen::half>()[i]));
        break;
      case DT_BFLOAT16:
        out.push_back(static_cast<float>(t.flat<Eigen::bfloat16>()[i]));
        break;
      case DT_INT32:
        out.push_back(t.flat<int32_t>()[i]);
        break;
      case DT_INT64:
        out.push_back(static_cast<double>(t.flat<int64_t>()[i]));
        break;
      default:
        ADD_FAILURE() << "AsDoubles: dtype";
    }
  }
  return out;
}

void MeanStd(const std::vector<double>& v, double* mean, double* stddev) {
  double s = 0, s2 = 0;
  for (double x : v) s += x;
  *mean = s / static_cast<double>(v.size());
  for (double x : v) s2 += (x - *mean) * (x - *mean);
  *stddev = std::sqrt(s2 / static_cast<double>(v.size()));
}

// RandomUniform, RandomStandardNormal and TruncatedNormal, once per registered dtype. The
// parameter prints as the dtype's name, so ctest names read ".../half".
struct DtypeParam {
  DataType dtype;
};
void PrintTo(const DtypeParam& p, std::ostream* os) { *os << DataTypeName(p.dtype); }

class RandomFloatDtypeTest : public ::testing::TestWithParam<DtypeParam> {};

TEST_P(RandomFloatDtypeTest, SameSeedsSameNumbersInAFreshKernel) {
  const DataType t = GetParam().dtype;
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    KernelFixture a(op, {In(I32Vec({3, 5}))}, Seeds(7, 11, t));
    KernelFixture b(op, {In(I32Vec({3, 5}))}, Seeds(7, 11, t));
    OpRun a1 = a.Run(), b1 = b.Run();
    ASSERT_TRUE(a1.status.ok()) << op << ": " << a1.status.ToString();
    ASSERT_TRUE(b1.status.ok());
    EXPECT_EQ(a1.outputs[0].dtype(), t) << op;
    EXPECT_EQ(a1.outputs[0].dims(), (std::vector<int64_t>{3, 5}));
    EXPECT_TRUE(a1.outputs[0].Equals(b1.outputs[0])) << op;
    // The next run of the same kernel draws new numbers, and again the same in both.
    OpRun a2 = a.Run(), b2 = b.Run();
    EXPECT_FALSE(a2.outputs[0].Equals(a1.outputs[0])) << op;
    EXPECT_TRUE(a2.outputs[0].Equals(b2.outputs[0])) << op;
    // Other seeds, other numbers.
    OpRun c = RunOp(op, {I32Vec({3, 5})}, Seeds(7, 12, t));
    OpRun d = RunOp(op, {I32Vec({3, 5})}, Seeds(8, 11, t));
    EXPECT_FALSE(c.outputs[0].Equals(a1.outputs[0])) << op;
    EXPECT_FALSE(d.outputs[0].Equals(a1.outputs[0])) << op;
    EXPECT_FALSE(c.outputs[0].Equals(d.outputs[0])) << op;
  }
}

TEST(RandomKernelTest, ZeroSeedsAreNondeterministic) {
  OpRun a = RunOp("RandomUniform", {I32Vec({64})}, Seeds(0, 0));
  OpRun b = RunOp("RandomUniform", {I32Vec({64})}, Seeds(0, 0));
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  EXPECT_FALSE(a.outputs[0].Equals(b.outputs[0]));
  // Either seed alone makes it deterministic.
  EXPECT_TRUE(RunOp("RandomUniform", {I32Vec({8})}, Seeds(0, 5))
                  .outputs[0]
                  .Equals(RunOp("RandomUniform", {I32Vec({8})}, Seeds(0, 5)).outputs[0]));
}

TEST_P(RandomFloatDtypeTest, NumbersDoNotDependOnThreads) {
  const DataType t = GetParam().dtype;
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    OpRun inline_run = RunArgs(op, {In(I32Vec({100001}))}, Seeds(3, 4, t));
    OpRun pooled = RunArgs(op, {In(I32Vec({100001}))}, Seeds(3, 4, t), true, TestPool());
    ASSERT_TRUE(inline_run.status.ok() && pooled.status.ok());
    EXPECT_TRUE(inline_run.outputs[0].Equals(pooled.outputs[0])) << op;
  }
}

TEST(RandomKernelTest, UniformDistribution) {
  for (DataType t : {DT_FLOAT, DT_DOUBLE}) {
    OpRun r = RunArgs("RandomUniform", {In(I64({1}, {100000}))}, Seeds(1, 2, t), true, TestPool());
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs[0].dtype(), t);
    std::vector<double> v = AsDoubles(r.outputs[0]);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0);
    double mean, sd;
    MeanStd(v, &mean, &sd);
    EXPECT_NEAR(mean, 0.5, 0.005) << DataTypeName(t);
    EXPECT_NEAR(sd, std::sqrt(1.0 / 12.0), 0.005) << DataTypeName(t);
    // Deciles are roughly even.
    std::vector<int> bins(10, 0);
    for (double x : v) ++bins[static_cast<size_t>(x * 10)];
    for (int b : bins) EXPECT_NEAR(b, 10000, 500);
  }
  // half / bfloat16: every value below 1 (no rounding up).
  for (DataType t : {DT_HALF, DT_BFLOAT16}) {
    OpRun r = RunOp("RandomUniform", {I32Vec({10000})}, Seeds(1, 2, t));
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    const uint16_t one = t == DT_HALF ? 0x3C00 : 0x3F80;
    std::set<uint16_t> distinct;
    for (int64_t i = 0; i < r.outputs[0].NumElements(); ++i) {
      const uint16_t bits = r.outputs[0].flat<uint16_t>()[i];
      ASSERT_LT(bits, one) << DataTypeName(t);  // non-negative values below 1.0
      distinct.insert(bits);
    }
    EXPECT_GT(distinct.size(), 50u);
  }
}

// Rounding to half or bfloat16 moves a value by at most 2^-9 of it: well inside these
// tolerances (bfloat16 rounds values in (2, 2 + 2^-7] down to 2: under 0.1% of the samples).
TEST_P(RandomFloatDtypeTest, NormalAndTruncatedNormalDistributions) {
  const DataType t = GetParam().dtype;
  OpRun r =
      RunArgs("RandomStandardNormal", {In(I32Vec({100000}))}, Seeds(5, 6, t), true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dtype(), t);
  double mean, sd;
  std::vector<double> v = AsDoubles(r.outputs[0]);
  for (double x : v) ASSERT_TRUE(std::isfinite(x)) << x;
  MeanStd(v, &mean, &sd);
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(sd, 1.0, 0.01);
  const auto beyond2 = std::count_if(v.begin(), v.end(), [](double x) { return std::abs(x) > 2; });
  EXPECT_NEAR(static_cast<double>(beyond2) / 100000.0, 0.0455, 0.004);
  EXPECT_GT(std::set<double>(v.begin(), v.end()).size(), 1000u);

  r = RunArgs("TruncatedNormal", {In(I32Vec({100000}))}, Seeds(5, 6, t), true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dtype(), t);
  v = AsDoubles(r.outputs[0]);
  for (double x : v) ASSERT_LE(std::abs(x), 2.0);  // also rules out NaN
  MeanStd(v, &mean, &sd);
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(sd, 0.8796, 0.01);  // stddev of N(0,1) truncated to [-2, 2]
  EXPECT_GT(std::set<double>(v.begin(), v.end()).size(), 1000u);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, RandomFloatDtypeTest,
                         ::testing::Values(DtypeParam{DT_FLOAT}, DtypeParam{DT_DOUBLE},
                                           DtypeParam{DT_HALF}, DtypeParam{DT_BFLOAT16}));

// half and bfloat16 draw float's normals from the same stream and round them to nearest (as
// TensorFlow's kernels do): with the same seeds, each value is float's, rounded. (Their
// uniforms take only as many bits as the mantissa holds: see UniformDistribution.)
TEST(RandomKernelTest, HalfAndBfloat16NormalsAreFloatNormalsRounded) {
  for (const char* op : {"RandomStandardNormal", "TruncatedNormal"}) {
    OpRun f = RunOp(op, {I32Vec({4001})}, Seeds(5, 6));
    ASSERT_TRUE(f.status.ok()) << f.status.ToString();
    const std::vector<float> floats = Values<float>(f.outputs[0]);
    for (DataType t : {DT_HALF, DT_BFLOAT16}) {
      OpRun r = RunOp(op, {I32Vec({4001})}, Seeds(5, 6, t));
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      const std::vector<double> got = AsDoubles(r.outputs[0]);
      ASSERT_EQ(got.size(), floats.size());
      int mismatches = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        const float want = t == DT_HALF ? static_cast<float>(Eigen::half(floats[i]))
                                        : static_cast<float>(Eigen::bfloat16(floats[i]));
        if (got[i] != want && mismatches++ < 5) {
          ADD_FAILURE() << op << " " << DataTypeName(t) << " [" << i << "]: " << got[i]
                        << ", float drew " << floats[i] << " (rounds to " << want << ")";
        }
      }
      EXPECT_EQ(mismatches, 0) << op << " " << DataTypeName(t);
    }
  }
}

TEST(RandomKernelTest, ShapesEmptyScalarAndBad) {
  OpRun r = RunOp("RandomUniform", {I32({0}, {})}, Seeds(1, 1));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].rank(), 0);
  r = RunOp("RandomStandardNormal", {I32Vec({2, 0})}, Seeds(1, 1));
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].NumElements(), 0);
  r = RunOp("RandomUniform", {I32Vec({3})}, Seeds(1, 1));  // odd sizes: partial groups
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].NumElements(), 3);
  ExpectInvalid(RunOp("RandomUniform", {I32Vec({2, -1})}, Seeds(1, 1), false).status,
                {"node", "shape[1] = -1"});
  ExpectInvalid(RunOp("RandomUniform", {I32({1, 1}, {2})}, Seeds(1, 1), false).status, {"vector"});
}

TEST(RandomKernelTest, RandomUniformInt) {
  AttrMap seeds{{"seed", AttrOfInt(9)}, {"seed2", AttrOfInt(9)}};
  OpRun r = RunArgs("RandomUniformInt", {In(I32Vec({100000})), In(I32Scalar(-3)), In(I32Scalar(5))},
                    seeds, true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  std::vector<int> counts(8, 0);
  const std::vector<int32_t> narrow = Values<int32_t>(r.outputs[0]);
  for (int32_t x : narrow) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 5);
    ++counts[static_cast<size_t>(x + 3)];
  }
  for (int c : counts) EXPECT_NEAR(c, 12500, 600);
  OpRun again = RunArgs("RandomUniformInt",
                        {In(I32Vec({100000})), In(I32Scalar(-3)), In(I32Scalar(5))}, seeds);
  EXPECT_TRUE(again.outputs[0].Equals(r.outputs[0]));
  // int64 with a range wider than 32 bits.
  r = RunOp("RandomUniformInt",
            {I32Vec({1000}), I64({}, {-(int64_t{1} << 40)}), I64({}, {int64_t{1} << 40})}, seeds);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const std::vector<int64_t> wide = Values<int64_t>(r.outputs[0]);
  const int64_t lo = *std::min_element(wide.begin(), wide.end());
  const int64_t hi = *std::max_element(wide.begin(), wide.end());
  EXPECT_GE(lo, -(int64_t{1} << 40));
  EXPECT_LT(hi, int64_t{1} << 40);
  EXPECT_LT(lo, -(int64_t{1} << 38));
  EXPECT_GT(hi, int64_t{1} << 38);
  ExpectInvalid(RunOp("RandomUniformInt", {I32Vec({2}), I32Scalar(5), I32Scalar(5)}, seeds).status,
                {"Need minval < maxval: 5 >= 5"});
  // Nothing to draw: no complaint about the bounds (as in TF).
  EXPECT_TRUE(
      RunOp("RandomUniformInt", {I32Vec({0}), I32Scalar(5), I32Scalar(5)}, seeds).status.ok());
}

TEST(RandomKernelTest, RandomShuffle) {
  AttrMap seeds{{"seed", AttrOfInt(4)}, {"seed2", AttrOfInt(2)}};
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < 1000; ++i) rows.push_back(i);
  Tensor x = I64({1000, 1}, rows);
  OpRun r = RunOp("RandomShuffle", {x}, seeds);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  std::vector<int64_t> got = Values<int64_t>(r.outputs[0]);
  EXPECT_NE(got, rows);
  std::vector<int64_t> sorted = got;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, rows);  // a permutation
  EXPECT_TRUE(RunOp("RandomShuffle", {x}, seeds).outputs[0].Equals(r.outputs[0]));
  // Rows move as a whole.
  Tensor m = F32({3, 2}, {0, 1, 10, 11, 20, 21});
  r = RunOp("RandomShuffle", {m}, seeds);
  ASSERT_TRUE(r.status.ok());
  std::vector<float> v = Values<float>(r.outputs[0]);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(v[static_cast<size_t>(2 * i + 1)], v[static_cast<size_t>(2 * i)] + 1);
  // Scalars and single rows come back unchanged.
  r = RunOp("RandomShuffle", {F32({}, {3})}, seeds);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>{3});
  r = RunOp("RandomShuffle", {F32({1, 2}, {1, 2})}, seeds);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace tgraph::testing
