// TensorFlow's histogram buckets (common/histogram.h).
#include "common/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace tgraph::histogram {
namespace {

// What EncodeTo fills; stands in for a generated HistogramProto.
struct FakeProto {
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  std::vector<double> bucket_limit, bucket;
  void Clear() { *this = FakeProto(); }
  void set_min(double v) { min = v; }
  void set_max(double v) { max = v; }
  void set_num(double v) { num = v; }
  void set_sum(double v) { sum = v; }
  void set_sum_squares(double v) { sum_squares = v; }
  void add_bucket_limit(double v) { bucket_limit.push_back(v); }
  void add_bucket(double v) { bucket.push_back(v); }
};

TEST(HistogramTest, DefaultLimitsGrowByTenPercentMirroredAroundZero) {
  const std::vector<double>& limits = DefaultBucketLimits();
  // 1e-12 * 1.1^k < 1e20 for k = 0..773, then DBL_MAX, mirrored, and 0.
  ASSERT_EQ(limits.size(), 2 * 775 + 1u);
  const size_t zero = 775;
  EXPECT_EQ(limits[zero], 0.0);
  EXPECT_EQ(limits[zero + 1], 1e-12);
  EXPECT_DOUBLE_EQ(limits[zero + 2], 1.1e-12);
  EXPECT_EQ(limits.back(), DBL_MAX);
  EXPECT_EQ(limits.front(), -DBL_MAX);
  EXPECT_LT(limits[limits.size() - 2], 1e20);
  for (size_t i = 1; i < limits.size(); ++i) {
    EXPECT_LT(limits[i - 1], limits[i]);
    EXPECT_EQ(limits[i - 1], -limits[limits.size() - i]);
  }
}

TEST(HistogramTest, CountsAValueInTheFirstBucketWhoseLimitIsAbove) {
  const std::vector<double>& limits = DefaultBucketLimits();
  Histogram h;
  h.Add(0.0);      // limit 0 is not above 0: the next bucket (limit 1e-12)
  h.Add(-1e-13);   // (-1e-12, 0]: the bucket of limit 0
  h.Add(DBL_MAX);  // nothing is above DBL_MAX: the last bucket
  const size_t zero = 775;
  EXPECT_EQ(h.counts()[zero + 1], 1);
  EXPECT_EQ(h.counts()[zero], 1);
  EXPECT_EQ(h.counts()[limits.size() - 1], 1);
  EXPECT_EQ(h.num(), 3);
  EXPECT_EQ(h.min(), -1e-13);
  EXPECT_EQ(h.max(), DBL_MAX);
}

TEST(HistogramTest, EncodeCollapsesRunsOfEmptyBuckets) {
  const std::vector<double>& limits = DefaultBucketLimits();
  Histogram h;
  for (double v : {1.0, 1.0, 3.0}) h.Add(v);
  FakeProto p;
  h.EncodeTo(&p);
  EXPECT_EQ(p.min, 1);
  EXPECT_EQ(p.max, 3);
  EXPECT_EQ(p.num, 3);
  EXPECT_EQ(p.sum, 5);
  EXPECT_EQ(p.sum_squares, 11);
  // empty run, 1's bucket, empty run, 3's bucket, empty run to DBL_MAX.
  ASSERT_EQ(p.bucket.size(), 5u);
  EXPECT_EQ(p.bucket, (std::vector<double>{0, 2, 0, 1, 0}));
  EXPECT_EQ(p.bucket_limit.back(), DBL_MAX);
  EXPECT_LE(p.bucket_limit[0], 1.0);
  EXPECT_GT(p.bucket_limit[1], 1.0);
  EXPECT_LE(p.bucket_limit[2], 3.0);
  EXPECT_GT(p.bucket_limit[3], 3.0);
  // Each kept limit is one of the default limits, and the run ends just below the value.
  const auto at = [&](double limit) {
    return std::find(limits.begin(), limits.end(), limit) - limits.begin();
  };
  EXPECT_EQ(at(p.bucket_limit[0]) + 1, at(p.bucket_limit[1]));
  EXPECT_EQ(at(p.bucket_limit[2]) + 1, at(p.bucket_limit[3]));
}

TEST(HistogramTest, EmptyHistogramEncodesOneBucket) {
  FakeProto p;
  Histogram().EncodeTo(&p);
  EXPECT_EQ(p.num, 0);
  EXPECT_EQ(p.min, DBL_MAX);
  EXPECT_EQ(p.max, -DBL_MAX);
  // One run of empty buckets ending at DBL_MAX.
  EXPECT_EQ(p.bucket_limit, std::vector<double>{DBL_MAX});
  EXPECT_EQ(p.bucket, std::vector<double>{0});
}

}  // namespace
}  // namespace tgraph::histogram
