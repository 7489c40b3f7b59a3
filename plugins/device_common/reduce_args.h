// The host side of the GPU plugins' reductions (Sum, Mean, Max, Min, Prod over any set of
// axes): the axes' checks, the output dims, and how a device kernel walks the input.
//
// Size-1 dims are dropped and neighbouring dims that are both kept or both reduced are
// merged, leaving alternating groups. When at most one reduced group remains the input is
// [outer, reduce, inner] (the common cases: the last axes, the first, all, a middle block),
// which the plugins' fast kernels take; otherwise the kernel gets each kept and reduced
// group's size and element stride (ReduceShape) and decomposes indices itself.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// What each output folds, and the order a device kernel applies it in.
enum class ReduceOp { kSum = 0, kMax = 1, kMin = 2, kProd = 3 };

struct ReducePlan {
  std::vector<int64_t> out_dims;
  int64_t outputs = 0;  // output elements
  int64_t reduce = 1;   // input elements folded into each output
  // Groups left after merging, outermost first, with their element strides in the input.
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  // At most one reduced group: the input is [outer, reduce, inner].
  bool adjacent = true;
  int64_t outer = 1, inner = 1;
};

// Checks the axes (a host int32/int64 scalar or vector, each in [-rank, rank), repeats
// allowed) and plans the reduction; false after failing the node.
inline bool PlanReduction(tgraph::plugin::Context& ctx, const std::vector<int64_t>& dims,
                          const tgraph::plugin::TensorView& axes_t, bool keep_dims,
                          ReducePlan* plan) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (axes_t.rank() > 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "reduction_indices must be a scalar or a vector, got shape " +
                                      ShapeString(axes_t.dims()));
    return false;
  }
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t i = 0; i < axes_t.num_elements(); ++i) {
    const int64_t a = IndexAt(axes_t, i);
    if (a < -rank || a >= rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Invalid reduction dimension (" + std::to_string(a) +
                                        " for input with " + std::to_string(rank) +
                                        " dimension(s)");
      return false;
    }
    reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }
  *plan = ReducePlan{};
  std::vector<int64_t> sizes;
  std::vector<bool> red;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (reduced[d]) {
      if (keep_dims) plan->out_dims.push_back(1);
      plan->reduce *= dims[d];
    } else {
      plan->out_dims.push_back(dims[d]);
    }
    if (dims[d] == 1) continue;
    if (!sizes.empty() && red.back() == reduced[d]) {
      sizes.back() *= dims[d];
    } else {
      sizes.push_back(dims[d]);
      red.push_back(reduced[d]);
    }
  }
  plan->outputs = Product(plan->out_dims);
  // Element strides of the groups (row-major over the merged sizes).
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * sizes[i];
  int reduced_groups = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (red[i]) {
      ++reduced_groups;
      plan->red_dims.push_back(sizes[i]);
      plan->red_strides.push_back(strides[i]);
    } else {
      plan->kept_dims.push_back(sizes[i]);
      plan->kept_strides.push_back(strides[i]);
      (reduced_groups == 0 ? plan->outer : plan->inner) *= sizes[i];
    }
  }
  plan->adjacent = reduced_groups <= 1;
  return true;
}

// Fills a device's ReduceShape (int fields kept_rank, red_rank, reduce, and int arrays
// kept_dims, kept_strides, red_dims, red_strides, as the OpenCL source's and cuda_launch.h's)
// for an input whose counts fit ints; UNIMPLEMENTED past the arrays' length. The plugins'
// arrays hold 16 groups of each kind, which no such input exceeds: groups alternate and
// have more than one element each, so 17 reduced groups need 16 kept ones between them and
// at least 2^33 elements. (With 8, a rank-17 input of 2^17 elements reduced over every other
// axis failed at run time, a hole a kernel cannot decline: ABI 6 kernels see no shapes when
// they are created.)
template <class ReduceShape>
bool FillReduceShape(tgraph::plugin::Context& ctx, const ReducePlan& plan,
                     const std::vector<int64_t>& dims, ReduceShape* s) {
  using Int = decltype(s->reduce);
  constexpr size_t kMax = std::size(ReduceShape{}.kept_dims);
  if (plan.kept_dims.size() > kMax || plan.red_dims.size() > kMax) {
    ctx.Fail(TG_UNIMPLEMENTED, "reducing " + ShapeString(dims) + " needs more than " +
                                   std::to_string(kMax) +
                                   " alternating groups of kept and reduced dims");
    return false;
  }
  *s = ReduceShape{};
  s->kept_rank = static_cast<Int>(plan.kept_dims.size());
  s->red_rank = static_cast<Int>(plan.red_dims.size());
  s->reduce = static_cast<Int>(plan.reduce);
  for (size_t i = 0; i < plan.kept_dims.size(); ++i) {
    s->kept_dims[i] = static_cast<Int>(plan.kept_dims[i]);
    s->kept_strides[i] = static_cast<Int>(plan.kept_strides[i]);
  }
  for (size_t i = 0; i < plan.red_dims.size(); ++i) {
    s->red_dims[i] = static_cast<Int>(plan.red_dims[i]);
    s->red_strides[i] = static_cast<Int>(plan.red_strides[i]);
  }
  return true;
}

}  // namespace tgraph_device_common
