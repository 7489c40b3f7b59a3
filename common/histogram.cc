#include "common/histogram.h"

#include <algorithm>
#include <cfloat>

namespace tgraph::histogram {

const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double> limits = [] {
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    std::vector<double> all;
    all.reserve(2 * positive.size() + 1);
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all.push_back(-*it);
    all.push_back(0.0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return limits;
}

// An empty histogram has min DBL_MAX and max -DBL_MAX, as TensorFlow's.
Histogram::Histogram()
    : min_(DBL_MAX), max_(-DBL_MAX), counts_(DefaultBucketLimits().size(), 0.0) {}

void Histogram::Add(double value) {
  const std::vector<double>& limits = DefaultBucketLimits();
  size_t b = static_cast<size_t>(std::upper_bound(limits.begin(), limits.end(), value) -
                                 limits.begin());
  // DBL_MAX itself (no limit above it) counts in the last bucket rather than past the end.
  b = std::min(b, counts_.size() - 1);
  counts_[b] += 1.0;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  num_ += 1;
  sum_ += value;
  sum_squares_ += value * value;
}

}  // namespace tgraph::histogram
