// The host side of the data-movement kernels every device plugin has (Reshape, ExpandDims,
// Squeeze, Fill, Tile, Pad, GatherV2): argument checks and output shapes, failing the node with the same
// messages on every device. Element-count limits (CheckIntSized) stay in the plugins: their
// messages name the plugin's kernels (PlanTile and PlanPad take the plugin's as an argument).
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// The per-element cost of a kernel whose output is a view of its input (Identity, Reshape,
// Squeeze, ExpandDims): the call costs, not the elements, so the plan does not count a view
// of a big weight as work worth handing to another thread (the CPU plugin's the same).
inline constexpr double kViewCostPerElementNs = 1e-6;

// Reshape(tensor, shape): the output dims, one -1 inferred; false after failing the node.
inline bool ReshapeDims(tgraph::plugin::Context& ctx, const tgraph::plugin::TensorView& in,
                        const tgraph::plugin::TensorView& shape, std::vector<int64_t>* dims) {
  if (shape.rank() > 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "shape must be a vector, got shape " +
                                      ShapeString(shape.dims()));
    return false;
  }
  dims->clear();
  int unknown = -1;
  int64_t product = 1;
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    const int64_t d = IndexAt(shape, i);
    if (d == -1) {
      if (unknown >= 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "only one input size may be -1, not both " +
                                          std::to_string(unknown) + " and " + std::to_string(i));
        return false;
      }
      unknown = static_cast<int>(i);
    } else if (d < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "size " + std::to_string(i) +
                                        " must be non-negative, not " + std::to_string(d));
      return false;
    } else {
      product *= d;
    }
    dims->push_back(d);
  }
  const int64_t n = in.num_elements();
  if (unknown >= 0) {
    if (product == 0 || n % product != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Input to reshape is a tensor with " + std::to_string(n) +
                                        " values, which cannot be reshaped to " +
                                        ShapeString(*dims));
      return false;
    }
    (*dims)[static_cast<size_t>(unknown)] = n / product;
    product = n;
  }
  if (product != n) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Input to reshape is a tensor with " + std::to_string(n) +
                                      " values, but the requested shape has " +
                                      std::to_string(product) + " (shape " +
                                      ShapeString(in.dims()) + " to " + ShapeString(*dims) + ")");
    return false;
  }
  return true;
}

// ExpandDims(input, dim): the input's dims with a 1 inserted at `dim` (in [-rank - 1, rank]).
inline bool ExpandDimsDims(tgraph::plugin::Context& ctx, const tgraph::plugin::TensorView& in,
                           const tgraph::plugin::TensorView& dim_t, std::vector<int64_t>* dims) {
  if (dim_t.num_elements() != 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "'dim' must be a tensor with a single value, got shape " +
                                      ShapeString(dim_t.dims()));
    return false;
  }
  const int64_t dim = IndexAt(dim_t, 0);
  *dims = in.dims();
  const int64_t rank = static_cast<int64_t>(dims->size());
  if (dim < -rank - 1 || dim > rank) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Tried to expand dim index " + std::to_string(dim) +
                                      " for tensor with " + std::to_string(rank) +
                                      " dimensions.");
    return false;
  }
  dims->insert(dims->begin() + (dim < 0 ? dim + rank + 1 : dim), 1);
  return true;
}

// Fill(dims, value): the output dims and element count (saturating past 2^31 - 1, which
// CheckIntSized refuses anyway).
inline bool FillDims(tgraph::plugin::Context& ctx, const tgraph::plugin::TensorView& dims_t,
                     const tgraph::plugin::TensorView& value, std::vector<int64_t>* dims,
                     int64_t* n) {
  if (dims_t.rank() != 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "dims must be a vector, got shape " +
                                      ShapeString(dims_t.dims()));
    return false;
  }
  if (value.rank() != 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "value must be a scalar, got shape " +
                                      ShapeString(value.dims()));
    return false;
  }
  dims->clear();
  *n = 1;
  for (int64_t i = 0; i < dims_t.num_elements(); ++i) {
    const int64_t d = IndexAt(dims_t, i);
    if (d < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "dims[" + std::to_string(i) + "] = " + std::to_string(d) +
                                        " must be non-negative");
      return false;
    }
    dims->push_back(d);
    *n = d == 0 || *n <= 0x7fffffff ? *n * d : *n;
  }
  return true;
}

// Tile(input, multiples): the output dims and element count (saturating as FillDims').
inline bool TileDims(tgraph::plugin::Context& ctx, const std::vector<int64_t>& in_dims,
                     const tgraph::plugin::TensorView& mult, std::vector<int64_t>* out_dims,
                     int64_t* n) {
  if (mult.rank() != 1 || mult.num_elements() != static_cast<int64_t>(in_dims.size())) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Expected multiples argument to be a vector of length " +
                                      std::to_string(in_dims.size()) + " but got shape " +
                                      ShapeString(mult.dims()));
    return false;
  }
  out_dims->clear();
  *n = 1;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    const int64_t m = IndexAt(mult, static_cast<int64_t>(d));
    if (m < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected multiples[" + std::to_string(d) +
                                        "] >= 0, but got " + std::to_string(m));
      return false;
    }
    out_dims->push_back(in_dims[d] * m);
    *n = out_dims->back() == 0 || *n <= 0x7fffffff ? *n * out_dims->back() : *n;
  }
  return true;
}

// Pad(input, paddings): paddings a host [rank, 2] matrix of non-negative values (the CPU
// plugin's checks and messages). The output dims, its element count (saturating as
// FillDims'), the pads before each dim, and *identity when every pad is 0.
inline bool PadDims(tgraph::plugin::Context& ctx, const std::vector<int64_t>& dims,
                    const tgraph::plugin::TensorView& paddings, std::vector<int64_t>* out_dims,
                    std::vector<int64_t>* before, int64_t* n, bool* identity) {
  const size_t r = dims.size();
  if (paddings.rank() != 2 || paddings.dim(0) != static_cast<int64_t>(r) ||
      paddings.dim(1) != 2) {
    ctx.Fail(TG_INVALID_ARGUMENT, "paddings must be a matrix of shape [" + std::to_string(r) +
                                      ",2] for an input of rank " + std::to_string(r) +
                                      ", but has shape " + ShapeString(paddings.dims()));
    return false;
  }
  out_dims->assign(r, 0);
  before->assign(r, 0);
  *n = 1;
  *identity = true;
  for (size_t i = 0; i < r; ++i) {
    const int64_t b = IndexAt(paddings, static_cast<int64_t>(2 * i));
    const int64_t a = IndexAt(paddings, static_cast<int64_t>(2 * i + 1));
    if (b < 0 || a < 0 || b > (int64_t{1} << 60) || a > (int64_t{1} << 60)) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Paddings must be non-negative: " + std::to_string(b) + " " +
                                        std::to_string(a));
      return false;
    }
    (*out_dims)[i] = dims[i] + b + a;
    (*before)[i] = b;
    *identity = *identity && b == 0 && a == 0;
    *n = (*out_dims)[i] == 0 || *n <= 0x7fffffff ? *n * (*out_dims)[i] : *n;
  }
  return true;
}

// Fills a device's pad shape struct (int fields rank and n, int arrays out, in and before,
// as the OpenCL source's and cuda_launch.h's PadShape) for counts that fit ints. Dims of
// size 1 in and out are dropped; UNIMPLEMENTED past the arrays' length.
template <class PadShape>
bool FillPadShape(tgraph::plugin::Context& ctx, const std::vector<int64_t>& in_dims,
                  const std::vector<int64_t>& out_dims, const std::vector<int64_t>& before,
                  int64_t n, PadShape* s) {
  using Int = decltype(s->rank);
  constexpr size_t kMaxRank = std::size(PadShape{}.out);
  *s = PadShape{};
  for (size_t d = 0; d < out_dims.size(); ++d) {
    if (out_dims[d] == 1) continue;
    if (static_cast<size_t>(s->rank) == kMaxRank) {
      ctx.Fail(TG_UNIMPLEMENTED, "Pad of " + ShapeString(in_dims) + " needs more than " +
                                     std::to_string(kMaxRank) + " dims of size other than 1");
      return false;
    }
    s->out[s->rank] = static_cast<Int>(out_dims[d]);
    s->in[s->rank] = static_cast<Int>(in_dims[d]);
    s->before[s->rank] = static_cast<Int>(before[d]);
    ++s->rank;
  }
  s->n = static_cast<Int>(n);
  return true;
}

// Fills a device's tile shape struct (int fields rank and n, int arrays out and in, as the
// OpenCL source's and cuda_launch.h's TileShape) for a tile whose counts fit ints. Output
// dims of size 1 are dropped (coordinate 0 in and out); an untiled dim is merged into the
// kept dim before it ((c1 % in1) * in2 + c2 is (c1 * in2 + c2) % (in1 * in2)).
template <class TileShape>
bool MergeTileDims(tgraph::plugin::Context& ctx, const std::vector<int64_t>& in_dims,
                   const std::vector<int64_t>& out_dims, int64_t n, TileShape* s) {
  using Int = decltype(s->rank);
  constexpr size_t kMaxRank = std::size(TileShape{}.out);
  *s = TileShape{};
  for (size_t d = 0; d < out_dims.size(); ++d) {
    if (out_dims[d] == 1) continue;
    if (s->rank > 0 && out_dims[d] == in_dims[d]) {
      s->out[s->rank - 1] *= static_cast<Int>(out_dims[d]);
      s->in[s->rank - 1] *= static_cast<Int>(in_dims[d]);
      continue;
    }
    if (static_cast<size_t>(s->rank) == kMaxRank) {
      ctx.Fail(TG_UNIMPLEMENTED, "Tile of " + ShapeString(in_dims) + " needs more than " +
                                     std::to_string(kMaxRank) + " dims after merging");
      return false;
    }
    s->out[s->rank] = static_cast<Int>(out_dims[d]);
    s->in[s->rank] = static_cast<Int>(in_dims[d]);
    ++s->rank;
  }
  s->n = static_cast<Int>(n);
  return true;
}

// Tile and Pad as a device kernel takes them, from the node's inputs to the shape struct
// (TileShape / PadShape above): the checks, the output dims, and (Pad with no padding) the
// input itself as the output. `check_int_sized(ctx, n, what)` is the plugin's element-count
// limit (its message names the plugin's kernels). True when the caller allocates `out_dims`
// and launches over s->n elements (none when s->n is 0); false when the node failed or its
// output is already set.
template <class TileShape, class CheckIntSized>
bool PlanTile(tgraph::plugin::Context& ctx, CheckIntSized check_int_sized,
              std::vector<int64_t>* out_dims, TileShape* s) {
  const tgraph::plugin::TensorView in = ctx.input(0);
  const std::vector<int64_t> in_dims = in.dims();
  int64_t n = 1;
  return TileDims(ctx, in_dims, ctx.input(1), out_dims, &n) &&
         check_int_sized(ctx, n, "the output") &&
         check_int_sized(ctx, in.num_elements(), "input") &&
         MergeTileDims(ctx, in_dims, *out_dims, n, s);
}

template <class PadShape, class CheckIntSized>
bool PlanPad(tgraph::plugin::Context& ctx, CheckIntSized check_int_sized,
             std::vector<int64_t>* out_dims, PadShape* s) {
  const tgraph::plugin::TensorView in = ctx.input(0);
  const std::vector<int64_t> in_dims = in.dims();
  std::vector<int64_t> before;
  int64_t n = 1;
  bool identity = false;
  if (!PadDims(ctx, in_dims, ctx.input(1), out_dims, &before, &n, &identity)) return false;
  if (identity) {
    ctx.SetOutputAlias(0, in, in_dims);
    return false;
  }
  return check_int_sized(ctx, n, "the output") &&
         check_int_sized(ctx, in.num_elements(), "input") &&
         FillPadShape(ctx, in_dims, *out_dims, before, n, s);
}

// GatherV2(params, indices, axis) with batch_dims b: params viewed as [batch, outer, limit,
// inner] (batch = params' first b dims, which indices share), indices as [batch, nidx]; the
// output [batch, outer, nidx, inner] is y[b, o, k, q] = params[b, o, indices[b, k], q]. With
// b = 0, batch is 1. A device kernel walks output element i as q = i % inner, r = i / inner,
// k = r % nidx, bo = r / nidx (= b * outer + o), and reads index (bo / outer) * nidx + k.
struct GatherPlan {
  std::vector<int64_t> out_dims;
  int64_t outer = 1;  // params' dims between the batch dims and the axis
  int64_t inner = 1;
  int64_t nidx = 0;   // indices per batch element (all of them when batch_dims is 0)
  int64_t limit = 0;  // params' size along the axis: indices must be in [0, limit)
  int64_t n = 0;      // output elements
};

// The checks and codes are the CPU plugin's (device conformance compares them).
inline bool PlanGatherV2(tgraph::plugin::Context& ctx, int64_t batch_dims_attr,
                         const tgraph::plugin::TensorView& params,
                         const tgraph::plugin::TensorView& indices,
                         const tgraph::plugin::TensorView& axis_t, GatherPlan* plan) {
  if (axis_t.num_elements() != 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "axis must be a scalar, got shape " +
                                      ShapeString(axis_t.dims()));
    return false;
  }
  const std::vector<int64_t> pd = params.dims(), id = indices.dims();
  const int64_t rank = static_cast<int64_t>(pd.size());
  const int64_t i_rank = static_cast<int64_t>(id.size());
  if (rank < 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "params must be at least 1 dimensional");
    return false;
  }
  int64_t axis = IndexAt(axis_t, 0);
  if (axis < -rank || axis >= rank) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Expected axis in the range [" + std::to_string(-rank) +
                                      ", " + std::to_string(rank) + "), but got " +
                                      std::to_string(axis));
    return false;
  }
  if (axis < 0) axis += rank;
  const int64_t batch_dims = batch_dims_attr < 0 ? batch_dims_attr + i_rank : batch_dims_attr;
  if (batch_dims < 0 || batch_dims > i_rank) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Expected batch_dims in the range [" +
                                      std::to_string(-i_rank) + ", " + std::to_string(i_rank) +
                                      "], but got " + std::to_string(batch_dims_attr));
    return false;
  }
  if (batch_dims >= rank || axis < batch_dims) {
    ctx.Fail(TG_INVALID_ARGUMENT, "batch_dims (" + std::to_string(batch_dims) +
                                      ") must be less than rank(params) (" +
                                      std::to_string(rank) + ") and at most axis (" +
                                      std::to_string(axis) + ")");
    return false;
  }
  const size_t bd = static_cast<size_t>(batch_dims);
  for (size_t i = 0; i < bd; ++i) {
    if (pd[i] != id[i]) {
      ctx.Fail(TG_INVALID_ARGUMENT, "params.shape[" + std::to_string(i) + "]: " +
                                        std::to_string(pd[i]) + " should be equal to indices.shape[" +
                                        std::to_string(i) + "]: " + std::to_string(id[i]));
      return false;
    }
  }
  int64_t batch = 1;
  plan->outer = 1;
  plan->inner = 1;
  plan->out_dims.clear();
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = pd[static_cast<size_t>(d)];
    if (d < batch_dims) batch *= size;
    if (d >= batch_dims && d < axis) plan->outer *= size;
    if (d > axis) plan->inner *= size;
    if (d == axis) plan->out_dims.insert(plan->out_dims.end(), id.begin() + batch_dims, id.end());
    if (d != axis) plan->out_dims.push_back(size);
  }
  plan->nidx = Product(std::vector<int64_t>(id.begin() + batch_dims, id.end()));
  plan->limit = pd[static_cast<size_t>(axis)];
  plan->n = batch * plan->outer * plan->nidx * plan->inner;
  return true;
}

// Squeeze(input) with squeeze_dims `axes`: the input's dims without the listed size-1 dims
// (every size-1 dim when `axes` is empty).
inline bool SqueezeDims(tgraph::plugin::Context& ctx, const std::vector<int64_t>& dims,
                        const std::vector<int64_t>& axes, std::vector<int64_t>* out) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<bool> squeeze(dims.size(), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "squeeze dimension " + std::to_string(a) +
                                        " is out of range for a tensor of rank " +
                                        std::to_string(rank) + " (expected [" +
                                        std::to_string(-rank) + ", " + std::to_string(rank) +
                                        "))");
      return false;
    }
    const size_t axis = static_cast<size_t>(a < 0 ? a + rank : a);
    if (dims[axis] != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Can not squeeze dim[" + std::to_string(axis) +
                                        "], expected a dimension of 1, got " +
                                        std::to_string(dims[axis]));
      return false;
    }
    squeeze[axis] = true;
  }
  out->clear();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!(axes.empty() ? dims[i] == 1 : squeeze[i])) out->push_back(dims[i]);
  }
  return true;
}

// Fails a gather whose index at flat position `bad` of indices (dims `index_dims`) is
// `value`, not in [0, limit): "indices[1,2] = 7 is not in [0, 5)", as the CPU plugin words it
// (`name` for other index inputs: "segment_ids[3] = 9 is not in [0, 4)").
inline void FailBadIndex(tgraph::plugin::Context& ctx, const std::vector<int64_t>& index_dims,
                         int64_t bad, int64_t value, int64_t limit,
                         const char* name = "indices") {
  std::string where;
  int64_t flat = bad;
  for (size_t d = index_dims.size(); d-- > 0;) {
    where = std::to_string(flat % index_dims[d]) + (where.empty() ? "" : ",") + where;
    flat /= index_dims[d];
  }
  std::string message = name;
  message.append("[").append(where).append("] = ").append(std::to_string(value));
  message.append(" is not in [0, ").append(std::to_string(limit)).append(")");
  ctx.Fail(TG_INVALID_ARGUMENT, message);
}

// Every index of host-memory `indices` checked against [0, limit) and narrowed to int: the
// positions a device gather reads. The first bad one fails the node (FailBadIndex).
inline bool CheckedPositions(tgraph::plugin::Context& ctx,
                             const tgraph::plugin::TensorView& indices, int64_t limit,
                             std::vector<int32_t>* pos) {
  const int64_t count = indices.num_elements();
  pos->resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t v = IndexAt(indices, i);
    if (v < 0 || v >= limit) {
      FailBadIndex(ctx, indices.dims(), i, v, limit);
      return false;
    }
    (*pos)[static_cast<size_t>(i)] = static_cast<int32_t>(v);
  }
  return true;
}

// AddN(inputs): every input has input 0's dims (no broadcasting, as in TensorFlow), worded
// as the CPU plugin (plugins/cpu/add_n.cc). *dims: those dims.
inline bool CheckAddNShapes(tgraph::plugin::Context& ctx, std::vector<int64_t>* dims) {
  if (ctx.num_inputs() < 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "AddN needs at least one input");
    return false;
  }
  *dims = ctx.input(0).dims();
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const std::vector<int64_t> d = ctx.input(i).dims();
    if (d != *dims) {
      std::string message = "inputs to AddN must all have the same shape, but input 0 has shape ";
      message.append(ShapeString(*dims)).append(" and input ").append(std::to_string(i));
      message.append(" has shape ").append(ShapeString(d));
      ctx.Fail(TG_INVALID_ARGUMENT, message);
      return false;
    }
  }
  return true;
}

}  // namespace tgraph_device_common
