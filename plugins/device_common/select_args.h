// The host side of Select and SelectV2 on a device: the CPU plugin's checks and messages
// (plugins/cpu/cwise_compare.cc, split_broadcast_ops.cc), then one walk for both: the
// output is a broadcast of condition, t and e (SelectV2's rule; Select's scalar condition
// and its condition over t's first dimension are such broadcasts too), which a device kernel
// takes as output dims and each operand's element strides (0 where it is broadcast).
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "device_common/broadcast_plan.h"
#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// Checks the shapes of Select (v2 false) or SelectV2 (v2 true) and fills the device's
// SelectShape (int fields rank and n, int arrays dims, cs, ts, es: as the OpenCL source's and
// cuda_launch.h's), the output's dims in *out_dims. `check_int_sized` is the plugin's
// element-count limit. False after failing the node.
template <class SelectShape, class CheckIntSized>
bool PlanSelect(tgraph::plugin::Context& ctx, bool v2, CheckIntSized check_int_sized,
                std::vector<int64_t>* out_dims, SelectShape* s) {
  const std::vector<int64_t> cd = ctx.input(0).dims(), td = ctx.input(1).dims(),
                             ed = ctx.input(2).dims();
  std::vector<int64_t> cond = cd;
  if (!v2) {
    if (td != ed) {
      ctx.Fail(TG_INVALID_ARGUMENT, "'t' and 'e' must have the same shape, but are " +
                                        ShapeString(td) + " and " + ShapeString(ed));
      return false;
    }
    const bool rows = cd.size() == 1 && td.size() > 1 && cd[0] == td[0];
    if (!cd.empty() && cd != td && !rows) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "'condition' must be a scalar, have the shape of 't', or be a vector as long as "
               "the first dimension of 't', but 'condition' has shape " +
                   ShapeString(cd) + " and 't' has shape " + ShapeString(td));
      return false;
    }
    // Whole rows: the condition as [rows, 1, ..., 1].
    if (rows) cond.resize(td.size(), 1);
  }
  BroadcastPlanN plan;
  if (!PlanBroadcastN({cond, td, ed}, &plan)) {
    ctx.Fail(TG_INVALID_ARGUMENT, "condition " + ShapeString(cd) + ", then " + ShapeString(td) +
                                      " and else " + ShapeString(ed) + " must be broadcastable");
    return false;
  }
  const int64_t n = Product(plan.out_dims);
  if (!check_int_sized(ctx, n, "the output")) return false;
  using Int = decltype(s->rank);
  constexpr size_t kMaxRank = std::size(SelectShape{}.dims);
  if (plan.dims.size() > kMaxRank) {
    ctx.Fail(TG_UNIMPLEMENTED, "selecting from condition " + ShapeString(cd) + ", then " +
                                   ShapeString(td) + " and else " + ShapeString(ed) +
                                   " needs more than " + std::to_string(kMaxRank) +
                                   " dims after merging");
    return false;
  }
  *s = SelectShape{};
  s->rank = static_cast<Int>(plan.dims.size());
  s->n = static_cast<Int>(n);
  for (size_t d = 0; d < plan.dims.size(); ++d) {
    s->dims[d] = static_cast<Int>(plan.dims[d]);
    s->cs[d] = static_cast<Int>(plan.strides[0][d]);
    s->ts[d] = static_cast<Int>(plan.strides[1][d]);
    s->es[d] = static_cast<Int>(plan.strides[2][d]);
  }
  *out_dims = plan.out_dims;
  return true;
}

}  // namespace tgraph_device_common
