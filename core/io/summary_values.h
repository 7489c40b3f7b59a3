// Summary protos built from plain values, the form tf.summary writes for TF1 scalars
// (simple_value) and histograms (HistogramProto with TensorFlow's buckets,
// common/histogram.h). The FileWriter's add-scalar and add-histogram use them; the summary
// ops compute the same protos inside the CPU plugin.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"
#include "tgraph/proto/summary.pb.h"

namespace tgraph::io {

tf::Summary ScalarSummary(const std::string& tag, float value);

// values[0, n) must be finite: INVALID_ARGUMENT naming the tag otherwise (TensorFlow's
// "Nan in summary histogram").
StatusOr<tf::Summary> HistogramSummary(const std::string& tag, const double* values, int64_t n);

}  // namespace tgraph::io
