// The histogram of TensorBoard's histogram summaries, bucketed as TensorFlow does
// (tensorflow/core/lib/histogram): bucket limits grow by 10% from 1e-12 up to 1e20, the same
// limits mirrored for negative values, 0 in the middle and +-DBL_MAX at the ends. A value v
// is counted in the first bucket whose limit is greater than v.
//
// Shared by the core (FileWriter's add-histogram) and the CPU plugin's HistogramSummary
// kernel, so both write the same HistogramProto. This library uses no core type and no
// generated proto: EncodeTo fills any class with HistogramProto's generated setters (the
// core's full protos and the plugin's lite copy).
#pragma once

#include <cstddef>
#include <vector>

namespace tgraph::histogram {

// TensorFlow's default bucket limits, ascending (built once, shared).
const std::vector<double>& DefaultBucketLimits();

class Histogram {
 public:
  Histogram();

  void Add(double value);

  double min() const { return min_; }
  double max() const { return max_; }
  double num() const { return num_; }
  double sum() const { return sum_; }
  double sum_squares() const { return sum_squares_; }
  const std::vector<double>& counts() const { return counts_; }  // one per bucket limit

  // Fills a HistogramProto as TensorFlow's HistogramSummary does: each run of empty buckets
  // becomes one bucket (limit: the run's last limit, count 0); a histogram of no values
  // still gets one bucket (DBL_MAX, 0) so readers always find one.
  template <typename HistogramProto>
  void EncodeTo(HistogramProto* proto) const {
    proto->Clear();
    proto->set_min(min_);
    proto->set_max(max_);
    proto->set_num(num_);
    proto->set_sum(sum_);
    proto->set_sum_squares(sum_squares_);
    ForEachEncodedBucket([proto](double limit, double count) {
      proto->add_bucket_limit(limit);
      proto->add_bucket(count);
    });
  }

 private:
  template <typename Fn>
  void ForEachEncodedBucket(Fn&& emit) const {
    const std::vector<double>& limits = DefaultBucketLimits();
    size_t emitted = 0;
    for (size_t i = 0; i < counts_.size();) {
      double limit = limits[i];
      double count = counts_[i];
      ++i;
      if (count <= 0.0) {
        while (i < counts_.size() && counts_[i] <= 0.0) limit = limits[i++];
        count = 0.0;
      }
      emit(limit, count);
      ++emitted;
    }
    if (emitted == 0) emit(limits.back(), 0.0);
  }

  double min_, max_, num_ = 0, sum_ = 0, sum_squares_ = 0;
  std::vector<double> counts_;
};

}  // namespace tgraph::histogram
