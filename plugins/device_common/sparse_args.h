// The host side of the sparse updates every device plugin has (ScatterUpdate / ScatterAdd /
// ScatterSub, the SparseApply* optimizer updates, UnsortedSegmentSum, and GatherV2 with int64
// indices): argument checks worded as the CPU plugin words them, and the index plan the
// device kernels run on.
//
// The indices of these kernels are registered in host memory. The host checks every index
// before anything is enqueued (so a rejected update changes nothing, and the error names the
// bad position as the CPU plugin does, with no device round trip), and groups the positions
// by the row they address, in order. The device then runs one work item per (row, column)
// that applies that row's updates one after the other in the order of `indices`: duplicate
// indices accumulate (ScatterAdd/Sub), the last one wins (ScatterUpdate), and a sparse
// optimizer step applies each duplicate in turn, exactly as the CPU kernels do, with no
// atomics and the same floating-point order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device_common/array_args.h"
#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// Positions of `indices` grouped by the row they address. `packed` is what the device
// kernels read, one int32 buffer: rows[groups] (the row of each group, ascending),
// starts[groups + 1] (group g's positions are order[starts[g], starts[g + 1])), and
// order[n] (positions, ascending within a group).
struct RowPlan {
  int64_t n = 0;       // indices planned (dropped negative ones not counted)
  int64_t groups = 0;  // distinct rows
  std::vector<int32_t> packed;
};

// Checks that every index of `indices` (host memory, int32 or int64) is in [0, limit) and
// that the counts fit the device kernels' ints, then groups them. False after failing the
// node ("indices[1] = 7 is not in [0, 5)", `name` for "indices"). With `drop_negative`
// (UnsortedSegmentSum's segment ids, as TensorFlow) a negative index is no error: its
// position is left out of every group.
inline bool PlanRows(tgraph::plugin::Context& ctx, const tgraph::plugin::TensorView& indices,
                     int64_t limit, RowPlan* plan, bool drop_negative = false,
                     const char* name = "indices") {
  const int64_t n = indices.num_elements();
  if (n > 0x3fffffff) {  // 2n + 1 ints in one buffer
    ctx.Fail(TG_UNIMPLEMENTED, "more than 2^30 indices (" + std::to_string(n) + ")");
    return false;
  }
  std::vector<std::pair<int64_t, int32_t>> order;
  order.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = IndexAt(indices, i);
    if (v < 0 && drop_negative) continue;
    if (v < 0 || v >= limit) {
      FailBadIndex(ctx, indices.dims(), i, v, limit, name);
      return false;
    }
    order.emplace_back(v, static_cast<int32_t>(i));
  }
  std::sort(order.begin(), order.end());  // by row, then position
  std::vector<int32_t> rows, starts;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || order[k].first != order[k - 1].first) {
      rows.push_back(static_cast<int32_t>(order[k].first));  // < limit, which fits an int
      starts.push_back(static_cast<int32_t>(k));
    }
  }
  starts.push_back(static_cast<int32_t>(order.size()));
  plan->n = static_cast<int64_t>(order.size());
  plan->groups = static_cast<int64_t>(rows.size());
  plan->packed = std::move(rows);
  plan->packed.insert(plan->packed.end(), starts.begin(), starts.end());
  for (const auto& [row, pos] : order) plan->packed.push_back(pos);
  return true;
}

// ScatterUpdate / ScatterAdd / ScatterSub(ref, indices, updates): updates has shape
// indices.shape + params.shape[1:], or is a scalar applied to every addressed element.
// *row: elements per params row; *scalar: whether updates is a scalar.
inline bool CheckScatter(tgraph::plugin::Context& ctx, const std::vector<int64_t>& p_dims,
                         const tgraph::plugin::TensorView& indices,
                         const tgraph::plugin::TensorView& updates, int64_t* row, bool* scalar) {
  if (p_dims.empty()) {
    ctx.Fail(TG_INVALID_ARGUMENT, "params must be at least 1-D, got shape " + ShapeString(p_dims));
    return false;
  }
  const std::vector<int64_t> i_dims = indices.dims();
  std::vector<int64_t> want = i_dims;
  want.insert(want.end(), p_dims.begin() + 1, p_dims.end());
  *scalar = updates.rank() == 0;
  if (!*scalar && updates.dims() != want) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
             "got updates.shape " +
                 ShapeString(updates.dims()) + ", indices.shape " + ShapeString(i_dims) +
                 ", params.shape " + ShapeString(p_dims));
    return false;
  }
  *row = 1;
  for (size_t d = 1; d < p_dims.size(); ++d) *row *= p_dims[d];
  return true;
}

// SparseApply*(var, slots..., scalars..., grad, indices, scalars...): the checks after the
// slots' shapes, in the CPU plugin's order. `var` is the variable's dims, `names` the dense
// op's input names, `num_inputs` their count (indices not counted), `slots` how many lead,
// `grad` where the gradient is; in the sparse op, indices follows grad and every later
// input moves one place. *row: elements per var row.
inline bool CheckSparseApply(tgraph::plugin::Context& ctx, const std::vector<int64_t>& var,
                             const char* const* names, int num_inputs, int slots, int grad,
                             int64_t* row) {
  if (var.empty()) {
    ctx.Fail(TG_INVALID_ARGUMENT, "var must be at least 1 dimensional, but has shape []");
    return false;
  }
  for (int i = slots; i < num_inputs; ++i) {
    if (i == grad) continue;
    const tgraph::plugin::TensorView t = ctx.input(i < grad ? i : i + 1);
    if (t.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               std::string(names[i]) + " is not a scalar: " + ShapeString(t.dims()));
      return false;
    }
  }
  const tgraph::plugin::TensorView g = ctx.input(grad), indices = ctx.input(grad + 1);
  if (indices.rank() != 1) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "indices must be one-dimensional, but has shape " + ShapeString(indices.dims()));
    return false;
  }
  std::vector<int64_t> want = var;
  want[0] = indices.dim(0);
  if (g.dims() != want) {
    ctx.Fail(TG_INVALID_ARGUMENT, "grad must have shape [len(indices)] + var.shape[1:] = " +
                                      ShapeString(want) + ", but has shape " +
                                      ShapeString(g.dims()));
    return false;
  }
  *row = 1;
  for (size_t d = 1; d < var.size(); ++d) *row *= var[d];
  return true;
}

// UnsortedSegmentSum(data, segment_ids, num_segments): num_segments (host memory) a
// non-negative scalar, data.shape starting with segment_ids.shape, worded as the CPU plugin
// (plugins/cpu/array_helper_segment_ops.cc). *out_dims: [num_segments] + data.shape[rank of
// segment_ids:]; *inner: elements per output row. The ids themselves are checked by
// PlanRows(..., drop_negative = true, "segment_ids").
inline bool CheckUnsortedSegmentSum(tgraph::plugin::Context& ctx,
                                    const tgraph::plugin::TensorView& data,
                                    const tgraph::plugin::TensorView& ids,
                                    const tgraph::plugin::TensorView& num_segments,
                                    std::vector<int64_t>* out_dims, int64_t* inner) {
  if (num_segments.rank() != 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "num_segments should be a scalar, not shape " +
                                      ShapeString(num_segments.dims()));
    return false;
  }
  const int64_t num = IndexAt(num_segments, 0);
  if (num < 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "num_segments must be non-negative, got " + std::to_string(num));
    return false;
  }
  const std::vector<int64_t> dims = data.dims(), id_dims = ids.dims();
  if (dims.size() < id_dims.size() || !std::equal(id_dims.begin(), id_dims.end(), dims.begin())) {
    ctx.Fail(TG_INVALID_ARGUMENT, "data.shape = " + ShapeString(dims) +
                                      " does not start with segment_ids.shape = " +
                                      ShapeString(id_dims));
    return false;
  }
  *out_dims = {num};
  out_dims->insert(out_dims->end(), dims.begin() + static_cast<std::ptrdiff_t>(id_dims.size()),
                   dims.end());
  *inner = 1;
  for (size_t d = 1; d < out_dims->size(); ++d) *inner *= (*out_dims)[d];
  return true;
}

}  // namespace tgraph_device_common
