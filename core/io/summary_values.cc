#include "core/io/summary_values.h"

#include <cmath>

#include "common/histogram.h"

namespace tgraph::io {

tf::Summary ScalarSummary(const std::string& tag, float value) {
  tf::Summary summary;
  tf::Summary::Value* v = summary.add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
  return summary;
}

StatusOr<tf::Summary> HistogramSummary(const std::string& tag, const double* values,
                                       int64_t n) {
  if (n < 0) return InvalidArgument("Histogram '", tag, "': ", n, " values");
  if (n > 0 && values == nullptr) return InvalidArgument("Histogram '", tag, "': values is NULL");
  histogram::Histogram histo;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      return InvalidArgument("Nan in summary histogram for: ", tag, " (value ", i, " is ",
                             values[i], ")");
    }
    histo.Add(values[i]);
  }
  tf::Summary summary;
  tf::Summary::Value* v = summary.add_value();
  v->set_tag(tag);
  histo.EncodeTo(v->mutable_histo());
  return summary;
}

}  // namespace tgraph::io
