// The broadcast of operands' dims (numpy rules) as a device kernel walks it: output dims,
// and each operand's element strides per output dim (0 where it is broadcast), with size-1
// dims dropped and mergeable dims merged, so most broadcasts need only a rank of 1 or 2.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tgraph_device_common {

struct BroadcastPlan {
  std::vector<int64_t> out_dims;
  std::vector<int64_t> dims, xs, ys;
};

// The same for any number of operands (SelectV2's three): strides[k] are operand k's.
struct BroadcastPlanN {
  std::vector<int64_t> out_dims;
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides;
};

// False when the shapes do not broadcast.
inline bool PlanBroadcastN(const std::vector<std::vector<int64_t>>& shapes,
                           BroadcastPlanN* plan) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<std::vector<int64_t>> padded;
  for (const auto& s : shapes) {
    padded.emplace_back(rank, 1);
    std::copy(s.begin(), s.end(), padded.back().begin() + static_cast<long>(rank - s.size()));
  }
  plan->out_dims.assign(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    for (const auto& p : padded) {
      if (p[d] == 1) continue;
      if (plan->out_dims[d] != 1 && plan->out_dims[d] != p[d]) return false;
      plan->out_dims[d] = p[d];
    }
  }
  // Row-major strides, zeroed along broadcast dims; then drop size-1 output dims.
  std::vector<std::vector<int64_t>> full(padded.size(), std::vector<int64_t>(rank));
  for (size_t k = 0; k < padded.size(); ++k) {
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      full[k][d] = padded[k][d] == 1 ? 0 : stride;
      stride *= padded[k][d];
    }
  }
  plan->dims.clear();
  plan->strides.assign(padded.size(), {});
  for (size_t d = 0; d < rank; ++d) {
    if (plan->out_dims[d] == 1) continue;
    const int64_t n = plan->out_dims[d];
    // Merge with the previous kept dim when every operand steps through them as one.
    bool merge = !plan->dims.empty();
    for (size_t k = 0; merge && k < padded.size(); ++k) {
      merge = plan->strides[k].back() == full[k][d] * n;
    }
    if (merge) {
      plan->dims.back() *= n;
      for (size_t k = 0; k < padded.size(); ++k) plan->strides[k].back() = full[k][d];
      continue;
    }
    plan->dims.push_back(n);
    for (size_t k = 0; k < padded.size(); ++k) plan->strides[k].push_back(full[k][d]);
  }
  return true;
}

// False when the shapes do not broadcast.
inline bool PlanBroadcast(const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                          BroadcastPlan* plan) {
  BroadcastPlanN n;
  if (!PlanBroadcastN({x, y}, &n)) return false;
  plan->out_dims = std::move(n.out_dims);
  plan->dims = std::move(n.dims);
  plan->xs = std::move(n.strides[0]);
  plan->ys = std::move(n.strides[1]);
  return true;
}

}  // namespace tgraph_device_common
