// The OpenCL C sources of the plugin's programs ("cwise", "matmul", "reduce", "misc", "xent"
// in cl_sources.cc; "train" in cl_sources_train.cc; "conv" in cl_sources_conv.cc; "compare"
// in cl_sources_compare.cc).
#pragma once

#include <string>

namespace tgraph_opencl {

// The program's source, or NULL for an unknown name.
const char* ProgramSource(const std::string& name);

extern const char kTrainSource[];
extern const char kConvSource[];
extern const char kCompareSource[];  // after the binary ops' prelude (cl_sources.cc)

}  // namespace tgraph_opencl
