// The CPU plugin's summary kernels (summary_kernels.cc), a library of their own: they need
// protobuf (the lite Summary protos) and none of Eigen, and keeping them apart keeps the
// protobuf include paths off the compile lines of the Eigen kernels.
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

void RegisterSummaryKernels(tgraph::plugin::Init& init);  // ScalarSummary, HistogramSummary,
                                                          // MergeSummary

}  // namespace tgraph_cpu
