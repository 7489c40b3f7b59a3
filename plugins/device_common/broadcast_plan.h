// The broadcast of two operands' dims (numpy rules) as a device kernel walks it: output dims,
// and each operand's element strides per output dim (0 where it is broadcast), with size-1
// dims dropped and mergeable dims merged, so most broadcasts need only a rank of 1 or 2.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tgraph_device_common {

struct BroadcastPlan {
  std::vector<int64_t> out_dims;
  std::vector<int64_t> dims, xs, ys;
};

// False when the shapes do not broadcast.
inline bool PlanBroadcast(const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                          BroadcastPlan* plan) {
  const size_t rank = std::max(x.size(), y.size());
  std::vector<int64_t> xd(rank, 1), yd(rank, 1);
  std::copy(x.begin(), x.end(), xd.begin() + static_cast<long>(rank - x.size()));
  std::copy(y.begin(), y.end(), yd.begin() + static_cast<long>(rank - y.size()));
  plan->out_dims.assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    if (xd[d] != yd[d] && xd[d] != 1 && yd[d] != 1) return false;
    plan->out_dims[d] = xd[d] == 1 ? yd[d] : xd[d];
  }
  // Row-major strides, zeroed along broadcast dims; then drop size-1 output dims.
  std::vector<int64_t> xs(rank), ys(rank);
  int64_t sx = 1, sy = 1;
  for (size_t d = rank; d-- > 0;) {
    xs[d] = xd[d] == 1 ? 0 : sx;
    ys[d] = yd[d] == 1 ? 0 : sy;
    sx *= xd[d];
    sy *= yd[d];
  }
  for (size_t d = 0; d < rank; ++d) {
    if (plan->out_dims[d] == 1) continue;
    const int64_t n = plan->out_dims[d];
    // Merge with the previous kept dim when both operands step through them as one.
    if (!plan->dims.empty() && plan->xs.back() == xs[d] * n && plan->ys.back() == ys[d] * n) {
      plan->dims.back() *= n;
      plan->xs.back() = xs[d];
      plan->ys.back() = ys[d];
      continue;
    }
    plan->dims.push_back(n);
    plan->xs.push_back(xs[d]);
    plan->ys.push_back(ys[d]);
  }
  return true;
}

}  // namespace tgraph_device_common
