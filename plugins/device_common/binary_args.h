// The host side of an element-wise binary op on a device (the float arithmetic of cwise and
// the comparisons and logical ops, whose output is DT_BOOL): the CPU plugin's broadcasting
// checks and messages (plugins/cpu/cwise_ops_common.h, cwise_compare.cc), then what the
// device kernel takes: nothing more when the operands have one shape, else the output's
// dims after merging (broadcast_plan.h) and each operand's element strides.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "device_common/broadcast_plan.h"
#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// What Equal / NotEqual answer, with incompatible_shape_error=false, for shapes that do not
// broadcast: a scalar false (Equal) or true (NotEqual) instead of an error, as TensorFlow.
enum class OnMismatch { kFail, kScalarFalse, kScalarTrue };

struct BinaryPlan {
  std::vector<int64_t> out_dims;
  int64_t n = 0;           // output elements: 0 means there is nothing to launch
  bool same = false;       // x and y have one shape: element i of each
  bool mismatch = false;   // OnMismatch gave a scalar answer, `answer`
  bool answer = false;
};

// Checks the broadcast of inputs 0 and 1 and fills the device's broadcast struct `s` (int
// fields rank and n, int arrays dims, xs, ys: the OpenCL source's Bcast and cuda_launch.h's
// BroadcastShape), left zeroed when plan->same. `check_int_sized` is the plugin's
// element-count limit. False after failing the node.
template <class Shape, class CheckIntSized>
bool PlanBinary(tgraph::plugin::Context& ctx, CheckIntSized check_int_sized, BinaryPlan* plan,
                Shape* s, OnMismatch on_mismatch = OnMismatch::kFail) {
  const std::vector<int64_t> xd = ctx.input(0).dims(), yd = ctx.input(1).dims();
  *plan = BinaryPlan{};
  *s = Shape{};
  BroadcastPlan b;
  if (!PlanBroadcast(xd, yd, &b)) {
    if (on_mismatch == OnMismatch::kFail) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "Incompatible shapes: " + ShapeString(xd) + " vs. " + ShapeString(yd));
      return false;
    }
    plan->mismatch = true;
    plan->answer = on_mismatch == OnMismatch::kScalarTrue;
    plan->n = 1;
    return true;
  }
  plan->n = Product(b.out_dims);
  if (!check_int_sized(ctx, plan->n, "the output")) return false;
  plan->out_dims = std::move(b.out_dims);
  plan->same = xd == yd;
  if (plan->same) return true;
  using Int = decltype(s->rank);
  constexpr size_t kMaxRank = std::size(Shape{}.dims);
  if (b.dims.size() > kMaxRank) {
    ctx.Fail(TG_UNIMPLEMENTED, "broadcasting " + ShapeString(xd) + " with " + ShapeString(yd) +
                                   " needs more than " + std::to_string(kMaxRank) +
                                   " dims after merging");
    return false;
  }
  s->rank = static_cast<Int>(b.dims.size());
  s->n = static_cast<Int>(plan->n);
  for (size_t d = 0; d < b.dims.size(); ++d) {
    s->dims[d] = static_cast<Int>(b.dims[d]);
    s->xs[d] = static_cast<Int>(b.xs[d]);
    s->ys[d] = static_cast<Int>(b.ys[d]);
  }
  return true;
}

// Equal / NotEqual read incompatible_shape_error (absent in TensorFlow 1 graphs: true).
inline OnMismatch EqualityMismatch(tgraph::plugin::Construction& c, bool not_equal) {
  bool strict = true;
  if (c.HasAttr("incompatible_shape_error")) c.GetAttr("incompatible_shape_error", &strict);
  if (strict) return OnMismatch::kFail;
  return not_equal ? OnMismatch::kScalarTrue : OnMismatch::kScalarFalse;
}

}  // namespace tgraph_device_common
