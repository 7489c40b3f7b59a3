// The GPU backends' kernels count elements in ints (OpenCL and CUDA launch geometry, index
// arithmetic on the device): a tensor of 2^31 elements or more is beyond them. Every kernel
// of both plugins is registered through IntSizedKernel, whose creation declines a node
// (plugin ABI 6's construction_decline) with an input or output that the graph's shape
// inference already knows to be that large (ABI 8's construction_input_shape /
// construction_output_shape): placement then gives the node to the next kernel, the CPU's,
// and inserts the copies, as for any other node the device cannot run. A tensor whose size is
// known only at run time (an unknown dim, a feed) still reaches the kernel, whose compute
// refuses it with UNIMPLEMENTED naming the node (CheckIntSized in each plugin): the kernel
// was made for the node before that size was known.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// Elements of a statically known shape, saturating at INT64_MAX; -1 when a dim or the rank
// is unknown (a dim that may be 0 makes any count possible).
inline int64_t StaticElements(const tgraph::plugin::PartialShape& s) {
  if (!s.fully_defined()) return -1;
  int64_t n = 1;
  for (int64_t d : s.dims) {
    if (d == 0) return 0;
    if (n > std::numeric_limits<int64_t>::max() / d) n = std::numeric_limits<int64_t>::max();
    else n *= d;
  }
  return n;
}

// Declines the node (and returns true) when one of its inputs or outputs is statically known
// to have more than 2^31 - 1 elements, naming it and `backend` in the reason.
inline bool DeclineIfNotIntSized(tgraph::plugin::Construction& c, const char* backend) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  auto check = [&](bool input, int i) {
    const tgraph::plugin::PartialShape s = input ? c.input_shape(i) : c.output_shape(i);
    const int64_t n = StaticElements(s);
    if (n <= kMax) return false;
    std::string shape;
    for (size_t d = 0; d < s.dims.size(); ++d) {
      if (d > 0) shape += ',';
      shape += std::to_string(s.dims[d]);
    }
    c.Decline(std::string(input ? "input " : "output ") + std::to_string(i) + " has shape [" +
              shape + "] (" + std::to_string(n) + " elements); the " + backend +
              " kernels take at most 2^31 - 1 elements");
    return true;
  };
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (check(true, i)) return true;
  }
  for (int i = 0; i < c.num_outputs(); ++i) {
    if (check(false, i)) return true;
  }
  return false;
}

// Kernel class K, created only for nodes DeclineIfNotIntSized lets through. Backend names
// the plugin's kernels in the reason (a struct with `static constexpr const char* kName`).
template <typename Backend, typename K>
class IntSizedKernel {
 public:
  explicit IntSizedKernel(tgraph::plugin::Construction& c) {
    if (!DeclineIfNotIntSized(c, Backend::kName)) kernel_.emplace(c);
  }
  void Compute(tgraph::plugin::Context& ctx) { kernel_->Compute(ctx); }

 private:
  std::optional<K> kernel_;
};

}  // namespace tgraph_device_common
