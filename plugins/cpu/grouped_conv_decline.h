// Declining a grouped convolution by its static shapes (plugin ABI 8), for kernels that
// compute only plain convolutions: the oneDNN plugin's (the Eigen kernel computes groups) and
// the GPU plugins' (plugins/device_common/conv_args.h), so that placement gives the node to
// the Eigen kernel, on the CPU, with copies where needed. Depths known only at run time reach
// the kernel, which then fails with UNIMPLEMENTED naming the node.
//
// Plugin-side code over tgraph/plugin.hpp only, without Eigen, like unique_kernel.h: the GPU
// plugins include it too.
#pragma once

#include <cstdint>
#include <string>

#include "tgraph/plugin.hpp"

namespace tgraph_cpu::nn {

// Declines the node (and returns true) when the static shapes of its data (depth at
// `depth_dim`: 3 in NHWC, 1 in NCHW) and filter (HWIO) already show a grouped convolution
// (the depths differ; a depth that does not divide is a bad node, which the CPU kernel
// reports).
inline bool DeclineGroupedConv(tgraph::plugin::Construction& c,
                               const tgraph::plugin::PartialShape& data,
                               const tgraph::plugin::PartialShape& filter, int depth_dim = 3) {
  if (data.rank() != 4 || filter.rank() != 4) return false;
  const int64_t depth = data.dims[static_cast<size_t>(depth_dim)], k_depth = filter.dims[2];
  if (depth < 0 || k_depth <= 0 || depth == k_depth) return false;
  c.Decline(std::string("grouped convolution (input depth ") + std::to_string(depth) +
            ", filter input depth " + std::to_string(k_depth) + "): this kernel takes none");
  return true;
}

}  // namespace tgraph_cpu::nn
