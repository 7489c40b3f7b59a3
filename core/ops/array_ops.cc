// Array ops: constants, placeholders, identity, and the ops that move elements around
// (reshape, transpose, concat, slice, gather, ...). Signatures, attr names, defaults and
// type lists are TensorFlow's, so GraphDefs written by TF import here. Shape functions use
// constant inputs (Const producers) where TF does: a Reshape to a constant shape has a static
// shape, a Reshape to a computed shape only a rank.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/base/checked_math.h"
#include "core/graph/proto_convert.h"
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

using shape_fns::ConstInts;

constexpr int64_t kUnknown = PartialShape::kUnknownDim;

// ---- helpers over constant inputs -------------------------------------------------------

// A scalar numeric constant as double (Range's start/limit/delta).
std::optional<double> ConstScalarAsDouble(const InferenceContext& c, int i) {
  const Tensor* t = c.input_value(i);
  if (t == nullptr || t->NumElements() != 1) return std::nullopt;
  switch (t->dtype()) {
    case DT_FLOAT: return static_cast<double>(t->flat<float>()[0]);
    case DT_DOUBLE: return t->flat<double>()[0];
    case DT_INT32: return static_cast<double>(t->flat<int32_t>()[0]);
    case DT_INT64: return static_cast<double>(t->flat<int64_t>()[0]);
    default: return std::nullopt;
  }
}

Status RankExactly(const InferenceContext& c, int i, int rank, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() != rank) {
    return c.Error(what, " must be rank ", rank, " but has shape ", s.ToString());
  }
  return Status::OK();
}

// The static length of a vector input (its dim 0), or -1 when unknown.
int64_t VectorLength(const InferenceContext& c, int i) {
  const PartialShape& s = c.input_shape(i);
  if (!s.known_rank()) return kUnknown;
  if (s.rank() == 0) return 1;
  return s.dim(0);
}

// Normalizes `axis` into [0, rank) (or [0, rank] with `inclusive`); an error on overflow.
Status CanonicalAxis(const InferenceContext& c, int64_t axis, int64_t rank, bool inclusive,
                     const char* what, int64_t* out) {
  const int64_t hi = inclusive ? rank + 1 : rank;
  if (axis < -hi || axis >= hi) {
    return c.Error(what, " ", axis, " is out of range for a tensor of rank ", rank,
                   " (expected [", -hi, ", ", hi, "))");
  }
  *out = axis < 0 ? axis + hi : axis;
  return Status::OK();
}

// Merges two dims: unknown adapts; two different known sizes are an error.
bool MergeDim(int64_t a, int64_t b, int64_t* out) {
  if (a < 0) { *out = b; return true; }
  if (b < 0 || a == b) { *out = a; return true; }
  return false;
}

// ---- Const, placeholders ------------------------------------------------------------------

// Output shape from the `value` tensor, which must agree with `dtype` and be decodable:
// a malformed constant fails when the node is made, not when it first runs.
Status ConstShape(InferenceContext& c) {
  auto it = c.attrs().find("value");
  if (it == c.attrs().end() || it->second.value_case() != tf::AttrValue::kTensor) {
    return c.Error("attr 'value' must be a tensor");
  }
  const tf::TensorProto& value = it->second.tensor();
  DataType dtype;
  TG_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
  if (static_cast<int>(value.dtype()) != static_cast<int>(dtype)) {
    return c.Error("attr 'value' holds a tensor of dtype ",
                   DataTypeName(static_cast<DataType>(value.dtype())), " but attr 'dtype' is ",
                   DataTypeName(dtype));
  }
  Status valid = ValidateTensorProto(value);
  if (!valid.ok()) return c.Error("attr 'value': ", valid.message());
  TG_ASSIGN_OR_RETURN(PartialShape shape, ShapeFromProto(value.tensor_shape()));
  c.set_output(0, std::move(shape));
  return Status::OK();
}

// The default must fit the declared shape; the output has the declared shape, which may be
// less specific than the default's (a feed may use another size).
Status PlaceholderWithDefaultShape(InferenceContext& c) {
  PartialShape declared;
  TG_RETURN_IF_ERROR(c.GetAttr("shape", &declared));
  if (!c.input_shape(0).IsCompatibleWith(declared)) {
    return c.Error("default value of shape ", c.input_shape(0).ToString(),
                   " is not compatible with the declared shape ", declared.ToString());
  }
  c.set_output(0, std::move(declared));
  return Status::OK();
}

// ---- Reshape, Squeeze, ExpandDims ---------------------------------------------------------

Status ReshapeShape(InferenceContext& c) {
  // A scalar shape is TF's legacy spelling of a one-element shape.
  if (c.input_shape(1).known_rank() && c.input_shape(1).rank() > 1) {
    return c.Error("shape must be a vector, but has shape ", c.input_shape(1).ToString());
  }
  const PartialShape& in = c.input_shape(0);
  auto sizes = ConstInts(c, 1);
  if (!sizes) {
    const int64_t n = VectorLength(c, 1);
    c.set_output(0, n < 0 ? PartialShape::Unknown()
                          : PartialShape::UnknownOfRank(static_cast<int>(n)));
    return Status::OK();
  }
  std::vector<int64_t> dims = *sizes;
  int unknown_index = -1;
  int64_t product = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown_index >= 0) {
        return c.Error("can only infer one unknown dimension, but shape ",
                       PartialShape(dims).ToString(), " has dimensions ", unknown_index,
                       " and ", i, " set to -1");
      }
      unknown_index = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return c.Error("size ", i, " must be non-negative, not ", dims[i]);
    } else {
      if (dims[i] != 0 && product > std::numeric_limits<int64_t>::max() / dims[i]) {
        return c.Error("shape ", PartialShape(dims).ToString(), " has too many elements");
      }
      product *= dims[i];
    }
  }
  const int64_t n = in.NumElements();  // -1 when not fully known
  if (unknown_index >= 0) {
    if (n >= 0) {
      if (product == 0) {
        return c.Error("cannot infer the missing input size for an empty tensor unless all "
                       "specified input sizes are non-zero (reshaping ", in.ToString(), " to ",
                       PartialShape(dims).ToString(), ")");
      }
      if (n % product != 0) {
        return c.Error("cannot reshape a tensor with ", n, " elements to shape ",
                       PartialShape(dims).ToString(), " (the known sizes multiply to ", product,
                       ", which does not divide ", n, ")");
      }
      dims[static_cast<size_t>(unknown_index)] = n / product;
    } else {
      dims[static_cast<size_t>(unknown_index)] = kUnknown;
    }
  } else if (n >= 0 && n != product) {
    return c.Error("cannot reshape a tensor with ", n, " elements to shape ",
                   PartialShape(dims).ToString(), " (", product, " elements)");
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status SqueezeShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  std::vector<int64_t> axes;
  TG_RETURN_IF_ERROR(c.GetAttr("squeeze_dims", &axes));
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int rank = in.rank();
  std::vector<bool> squeeze(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int64_t axis;
    TG_RETURN_IF_ERROR(CanonicalAxis(c, a, rank, false, "squeeze dimension", &axis));
    squeeze[static_cast<size_t>(axis)] = true;
  }
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = in.dim(i);
    if (axes.empty()) {
      if (d == 1) continue;
      if (d < 0) {  // may or may not be squeezed away
        c.set_output(0, PartialShape::Unknown());
        return Status::OK();
      }
    } else if (squeeze[static_cast<size_t>(i)]) {
      if (d >= 0 && d != 1) {
        return c.Error("can not squeeze dim[", i, "], expected a dimension of 1, got ", d,
                       " (input shape ", in.ToString(), ")");
      }
      continue;
    }
    out.push_back(d);
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

Status ExpandDimsShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  const PartialShape& dim_shape = c.input_shape(1);
  if (dim_shape.known_rank() && dim_shape.NumElements() >= 0 && dim_shape.NumElements() != 1) {
    return c.Error("'dim' must be a scalar or a one-element vector, but has shape ",
                   dim_shape.ToString());
  }
  auto dim = ConstInts(c, 1);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (!dim || dim->size() != 1) {
    c.set_output(0, PartialShape::UnknownOfRank(in.rank() + 1));
    return Status::OK();
  }
  int64_t axis;
  TG_RETURN_IF_ERROR(CanonicalAxis(c, (*dim)[0], in.rank(), true, "dim", &axis));
  std::vector<int64_t> out = in.dims();
  out.insert(out.begin() + axis, 1);
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// ---- Transpose ----------------------------------------------------------------------------

Status TransposeShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(RankExactly(c, 1, 1, "perm"));
  const PartialShape& in = c.input_shape(0);
  int64_t rank = in.known_rank() ? in.rank() : VectorLength(c, 1);
  const int64_t perm_len = VectorLength(c, 1);
  if (in.known_rank() && perm_len >= 0 && perm_len != in.rank()) {
    return c.Error("perm has ", perm_len, " entries but the input ", in.ToString(), " has rank ",
                   in.rank());
  }
  auto perm = ConstInts(c, 1);
  if (!perm) {
    c.set_output(0, rank < 0 ? PartialShape::Unknown()
                             : PartialShape::UnknownOfRank(static_cast<int>(rank)));
    return Status::OK();
  }
  rank = static_cast<int64_t>(perm->size());
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  std::vector<int64_t> out(static_cast<size_t>(rank), kUnknown);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = (*perm)[static_cast<size_t>(i)];
    if (p < 0 || p >= rank) {
      return c.Error("perm[", i, "] = ", p, " is out of range [0, ", rank, ")");
    }
    if (seen[static_cast<size_t>(p)]) {
      return c.Error("perm ", PartialShape(*perm).ToString(), " names dimension ", p, " twice");
    }
    seen[static_cast<size_t>(p)] = true;
    if (in.known_rank()) out[static_cast<size_t>(i)] = in.dim(static_cast<int>(p));
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// ---- ConcatV2, Pack, Unpack -----------------------------------------------------------------

Status ConcatV2Shape(InferenceContext& c) {
  const int n = c.num_inputs() - 1;  // values..., axis
  TG_RETURN_IF_ERROR(RankExactly(c, n, 0, "axis"));
  int rank = -1;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = c.input_shape(i);
    if (!s.known_rank()) continue;
    if (s.rank() == 0) return c.Error("can't concatenate scalars (use Pack instead)");
    if (rank >= 0 && s.rank() != rank) {
      return c.Error("all values must have the same rank, but earlier inputs have rank ", rank,
                     " and input ", i, " has shape ", s.ToString());
    }
    rank = s.rank();
  }
  if (rank < 0) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  auto axis_value = ConstInts(c, n);
  if (!axis_value || axis_value->size() != 1) {
    c.set_output(0, PartialShape::UnknownOfRank(rank));
    return Status::OK();
  }
  int64_t axis;
  TG_RETURN_IF_ERROR(CanonicalAxis(c, (*axis_value)[0], rank, false, "axis", &axis));
  std::vector<int64_t> out(static_cast<size_t>(rank), kUnknown);
  int64_t axis_sum = 0;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = c.input_shape(i);
    if (!s.known_rank()) {
      axis_sum = kUnknown;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      if (!MergeDim(out[static_cast<size_t>(d)], s.dim(d), &out[static_cast<size_t>(d)])) {
        return c.Error("dimension ", d, " of the values must match (except on axis ", axis,
                       "), but input ", i, " has shape ", s.ToString(), " where others have ",
                       PartialShape(out).ToString());
      }
    }
    const int64_t a = s.dim(static_cast<int>(axis));
    axis_sum = (axis_sum < 0 || a < 0) ? kUnknown : axis_sum + a;
  }
  out[static_cast<size_t>(axis)] = axis_sum;
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

Status PackShape(InferenceContext& c) {
  PartialShape merged;
  for (int i = 0; i < c.num_inputs(); ++i) {
    PartialShape next;
    if (!merged.Merge(c.input_shape(i), &next).ok()) {
      return c.Error("shapes of all inputs must match, but input ", i, " has shape ",
                     c.input_shape(i).ToString(), " where earlier inputs have ",
                     merged.ToString());
    }
    merged = std::move(next);
  }
  int64_t axis_attr = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("axis", &axis_attr));
  if (!merged.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  int64_t axis;
  TG_RETURN_IF_ERROR(CanonicalAxis(c, axis_attr, merged.rank(), true, "axis", &axis));
  std::vector<int64_t> out = merged.dims();
  out.insert(out.begin() + axis, c.num_inputs());
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

Status UnpackShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  int64_t num = 0, axis_attr = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("num", &num));
  TG_RETURN_IF_ERROR(c.GetAttr("axis", &axis_attr));
  PartialShape out = PartialShape::Unknown();
  if (in.known_rank()) {
    if (in.rank() == 0) return c.Error("input must be at least rank 1 to unpack");
    int64_t axis;
    TG_RETURN_IF_ERROR(CanonicalAxis(c, axis_attr, in.rank(), false, "axis", &axis));
    const int64_t d = in.dim(static_cast<int>(axis));
    if (d >= 0 && d != num) {
      return c.Error("dimension ", axis, " of the input ", in.ToString(), " is ", d,
                     " but attr 'num' is ", num);
    }
    std::vector<int64_t> dims = in.dims();
    dims.erase(dims.begin() + axis);
    out = PartialShape(std::move(dims));
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
  return Status::OK();
}

// ---- Slice, StridedSlice --------------------------------------------------------------------

Status SliceShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(RankExactly(c, 1, 1, "begin"));
  TG_RETURN_IF_ERROR(RankExactly(c, 2, 1, "size"));
  const PartialShape& in = c.input_shape(0);
  int64_t rank = in.known_rank() ? in.rank() : kUnknown;
  for (int i : {1, 2}) {
    const int64_t len = VectorLength(c, i);
    if (len < 0) continue;
    if (rank >= 0 && len != rank) {
      return c.Error(i == 1 ? "begin" : "size", " has ", len,
                     " entries but the input has shape ", in.ToString());
    }
    rank = len;
  }
  if (rank < 0) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  auto begin = ConstInts(c, 1);
  auto size = ConstInts(c, 2);
  std::vector<int64_t> out(static_cast<size_t>(rank), kUnknown);
  if (size) {
    for (int64_t i = 0; i < rank; ++i) {
      const auto ui = static_cast<size_t>(i);
      const int64_t s = (*size)[ui];
      const int64_t d = in.known_rank() ? in.dim(static_cast<int>(i)) : kUnknown;
      const int64_t b = begin ? (*begin)[ui] : kUnknown;
      if (s < -1) return c.Error("size[", i, "] = ", s, " must be -1 or non-negative");
      if (begin && b < 0) return c.Error("begin[", i, "] = ", b, " must be non-negative");
      if (s == -1) {
        if (d >= 0 && begin) {
          if (b > d) {
            return c.Error("begin[", i, "] = ", b, " is past the end of dimension ", i,
                           " (size ", d, ")");
          }
          out[ui] = d - b;
        }
      } else {
        if (d >= 0 && begin && (b > d || s > d - b)) {  // b + s > d, without overflow
          return c.Error("slice of size ", s, " from ", b, " is out of bounds for dimension ", i,
                         " of size ", d);
        }
        out[ui] = s;
      }
    }
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// TensorFlow's strided-slice semantics over a partial shape (the plugin's kernel carries the
// same algorithm over full shapes): sparse spec (begin/end/strides with masks, at most one
// ellipsis, new axes) to dense spec (one entry per input dim), then per-dim sizes.
Status StridedSliceShape(InferenceContext& c) {
  for (int i = 1; i <= 3; ++i) {
    TG_RETURN_IF_ERROR(RankExactly(c, i, 1, i == 1 ? "begin" : i == 2 ? "end" : "strides"));
  }
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  TG_RETURN_IF_ERROR(c.GetAttr("begin_mask", &begin_mask));
  TG_RETURN_IF_ERROR(c.GetAttr("end_mask", &end_mask));
  TG_RETURN_IF_ERROR(c.GetAttr("ellipsis_mask", &ellipsis_mask));
  TG_RETURN_IF_ERROR(c.GetAttr("new_axis_mask", &new_axis_mask));
  TG_RETURN_IF_ERROR(c.GetAttr("shrink_axis_mask", &shrink_axis_mask));
  // In unsigned arithmetic: a mask of INT64_MIN minus one overflowed (found by fuzz/op_run).
  if (const auto e = static_cast<uint64_t>(ellipsis_mask); e & (e - 1)) {
    return c.Error("multiple ellipses in slice spec not allowed");
  }
  const int64_t lens[3] = {VectorLength(c, 1), VectorLength(c, 2), VectorLength(c, 3)};
  int64_t sparse_len = kUnknown;
  for (int64_t l : lens) {
    if (l < 0) continue;
    if (sparse_len >= 0 && l != sparse_len) {
      return c.Error("begin, end and strides must have the same length, but have ", lens[0],
                     ", ", lens[1], " and ", lens[2]);
    }
    sparse_len = l;
  }
  if (sparse_len > 62) return c.Error("slice spec has ", sparse_len, " entries (at most 62)");
  const PartialShape& in = c.input_shape(0);
  auto begin = ConstInts(c, 1);
  auto end = ConstInts(c, 2);
  auto strides = ConstInts(c, 3);
  if (!in.known_rank() || !begin || !end || !strides) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int sparse = static_cast<int>(begin->size());
  const int dense = in.rank();
  auto bit = [](int64_t mask, int i) { return (mask >> i) & 1; };
  bool ellipsis_seen = false;
  int64_t ellipsis = ellipsis_mask;
  int sparse_dims = sparse;
  for (int i = 0; i < sparse; ++i) ellipsis_seen |= bit(ellipsis_mask, i) != 0;
  if (!ellipsis_seen) {  // an implied ellipsis covers the remaining dims
    ellipsis |= int64_t{1} << sparse;
    ++sparse_dims;
  }
  int new_axes_after_ellipsis = 0;
  {
    bool after = false;
    for (int i = 0; i < sparse_dims; ++i) {
      if (bit(ellipsis, i)) after = true;
      else if (after && bit(new_axis_mask, i)) ++new_axes_after_ellipsis;
    }
  }
  struct Dense {
    int64_t begin = 0, end = 0, stride = 1;
    bool begin_masked = false, end_masked = false, shrink = false;
  };
  std::vector<Dense> spec(static_cast<size_t>(dense));
  constexpr int kNewAxis = -1, kShrink = -2;
  std::vector<int> gather;  // per sparse entry: dense index, kNewAxis or kShrink
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (bit(ellipsis, i)) {
      const int next = std::min(dense - (sparse_dims - i) + 1 + new_axes_after_ellipsis, dense);
      for (; full < next; ++full) {
        Dense& d = spec[static_cast<size_t>(full)];
        d.begin_masked = d.end_masked = true;
        gather.push_back(full);
      }
    } else if (bit(new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full >= dense) {
        return c.Error("index out of range using input dim ", full, "; input has only ", dense,
                       " dims");
      }
      Dense& d = spec[static_cast<size_t>(full)];
      d.begin = (*begin)[static_cast<size_t>(i)];
      d.end = (*end)[static_cast<size_t>(i)];
      d.stride = (*strides)[static_cast<size_t>(i)];
      d.begin_masked = bit(begin_mask, i) != 0;
      d.end_masked = bit(end_mask, i) != 0;
      d.shrink = bit(shrink_axis_mask, i) != 0;
      gather.push_back(d.shrink ? kShrink : full);
      ++full;
    }
  }
  std::vector<int64_t> processing(static_cast<size_t>(dense));
  for (int i = 0; i < dense; ++i) {
    Dense& d = spec[static_cast<size_t>(i)];
    if (d.stride == 0) return c.Error("strides[", i, "] must be non-zero");
    const int64_t dim = in.dim(i);
    if (d.shrink && d.stride <= 0) {
      return c.Error("only stride 1 allowed on non-range indexing");
    }
    if (dim < 0) {
      processing[static_cast<size_t>(i)] = d.shrink ? 1 : kUnknown;
      continue;
    }
    int64_t b, e;
    if (d.shrink) {
      b = d.begin < 0 ? dim + d.begin : d.begin;
      e = b + 1;
      if (b < 0 || b >= dim) {
        return c.Error("slice index ", d.begin, " of dimension ", i, " out of bounds");
      }
    } else {
      const int64_t lo = d.stride > 0 ? 0 : -1;
      const int64_t hi = d.stride > 0 ? dim : dim - 1;
      auto canonical = [&](int64_t x, bool masked, bool is_end) {
        if (masked) return (d.stride > 0) != is_end ? lo : hi;
        const int64_t fwd = x < 0 ? dim + x : x;
        return std::clamp(fwd, lo, hi);
      };
      b = canonical(d.begin, d.begin_masked, false);
      e = canonical(d.end, d.end_masked, true);
    }
    const int64_t len = e - b;
    int64_t size;
    if (len == 0 || ((len < 0) != (d.stride < 0))) {
      size = 0;
    } else {
      size = len / d.stride + (len % d.stride != 0 ? 1 : 0);
    }
    processing[static_cast<size_t>(i)] = size;
  }
  std::vector<int64_t> out;
  for (int g : gather) {
    if (g == kNewAxis) out.push_back(1);
    else if (g >= 0) out.push_back(processing[static_cast<size_t>(g)]);
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// ---- Tile, Pad ----------------------------------------------------------------------------

Status TileShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(RankExactly(c, 1, 1, "multiples"));
  const PartialShape& in = c.input_shape(0);
  const int64_t len = VectorLength(c, 1);
  if (in.known_rank() && len >= 0 && len != in.rank()) {
    return c.Error("multiples has ", len, " entries but the input ", in.ToString(),
                   " has rank ", in.rank());
  }
  const int64_t rank = in.known_rank() ? in.rank() : len;
  if (rank < 0) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  auto mult = ConstInts(c, 1);
  std::vector<int64_t> out(static_cast<size_t>(rank), kUnknown);
  for (int64_t i = 0; i < rank; ++i) {
    const auto ui = static_cast<size_t>(i);
    const int64_t m = mult ? (*mult)[ui] : kUnknown;
    if (mult && m < 0) return c.Error("multiples[", i, "] = ", m, " must be non-negative");
    const int64_t d = in.known_rank() ? in.dim(static_cast<int>(i)) : kUnknown;
    if (m == 0 || d == 0) out[ui] = 0;
    else if (m > 0 && d > 0) {
      if (!CheckedMul(d, m, &out[ui])) {
        return c.Error("tiling dimension ", i, " of size ", d, " by ", m, " does not fit in int64");
      }
    }
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

Status PadShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  const PartialShape& p = c.input_shape(1);
  if (p.known_rank() && (p.rank() != 2 || (p.dim(1) >= 0 && p.dim(1) != 2))) {
    return c.Error("paddings must be a matrix with 2 columns, but has shape ", p.ToString());
  }
  int64_t rank = in.known_rank() ? in.rank() : kUnknown;
  if (p.known_rank() && p.dim(0) >= 0) {
    if (rank >= 0 && p.dim(0) != rank) {
      return c.Error("paddings has ", p.dim(0), " rows but the input ", in.ToString(),
                     " has rank ", rank);
    }
    rank = p.dim(0);
  }
  if (rank < 0) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  auto pads = ConstInts(c, 1);
  std::vector<int64_t> out(static_cast<size_t>(rank), kUnknown);
  for (int64_t i = 0; i < rank; ++i) {
    const auto ui = static_cast<size_t>(i);
    const int64_t d = in.known_rank() ? in.dim(static_cast<int>(i)) : kUnknown;
    if (!pads) continue;
    const int64_t before = (*pads)[2 * ui], after = (*pads)[2 * ui + 1];
    if (before < 0 || after < 0) {
      return c.Error("paddings must be non-negative, but row ", i, " is [", before, ", ", after,
                     "]");
    }
    if (d >= 0 && (!CheckedAdd(d, before, &out[ui]) || !CheckedAdd(out[ui], after, &out[ui]))) {
      return c.Error("padding dimension ", i, " of size ", d, " by [", before, ", ", after,
                     "] does not fit in int64");
    }
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// ---- Fill, Range, OneHot ------------------------------------------------------------------

Status FillShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(RankExactly(c, 0, 1, "dims"));
  TG_RETURN_IF_ERROR(RankExactly(c, 1, 0, "value"));
  auto dims = ConstInts(c, 0);
  if (!dims) {
    const int64_t n = VectorLength(c, 0);
    c.set_output(0, n < 0 ? PartialShape::Unknown()
                          : PartialShape::UnknownOfRank(static_cast<int>(n)));
    return Status::OK();
  }
  for (size_t i = 0; i < dims->size(); ++i) {
    if ((*dims)[i] < 0) return c.Error("dims[", i, "] = ", (*dims)[i], " must be non-negative");
  }
  c.set_output(0, PartialShape(std::move(*dims)));
  return Status::OK();
}

Status RangeShape(InferenceContext& c) {
  for (int i = 0; i < 3; ++i) {
    TG_RETURN_IF_ERROR(RankExactly(c, i, 0, i == 0 ? "start" : i == 1 ? "limit" : "delta"));
  }
  auto start = ConstScalarAsDouble(c, 0);
  auto limit = ConstScalarAsDouble(c, 1);
  auto delta = ConstScalarAsDouble(c, 2);
  if (!start || !limit || !delta) {
    c.set_output(0, PartialShape{kUnknown});
    return Status::OK();
  }
  if (*delta == 0) return c.Error("requires delta != 0");
  if (*delta > 0 && *start > *limit) {
    return c.Error("requires start <= limit when delta > 0: ", *start, "/", *limit);
  }
  if (*delta < 0 && *start < *limit) {
    return c.Error("requires start >= limit when delta < 0: ", *start, "/", *limit);
  }
  const DataType t = c.input_type(0);
  int64_t size;
  if (t == DT_INT32 || t == DT_INT64) {
    // Exact, in 128 bits: limit - start and |delta| of int64 values may not fit in int64.
    auto exact = [&](int i) {
      const Tensor* v = c.input_value(i);
      return v->dtype() == DT_INT64 ? static_cast<__int128>(v->flat<int64_t>()[0])
                                    : static_cast<__int128>(v->flat<int32_t>()[0]);
    };
    const __int128 s = exact(0), l = exact(1), d = exact(2);
    const __int128 span = l > s ? l - s : s - l;
    const __int128 step = d > 0 ? d : -d;
    const __int128 n = (span + step - 1) / step;
    if (n > std::numeric_limits<int64_t>::max()) return c.Error("the range has too many elements");
    size = static_cast<int64_t>(n);
  } else {
    const double n = std::ceil(std::abs((*limit - *start) / *delta));
    // NaN and infinite bounds, or more elements than int64 holds (the cast would be undefined).
    if (!(n >= 0 && n < 9.2e18)) {
      return c.Error("the range from ", *start, " to ", *limit, " by ", *delta,
                     " does not have a representable number of elements");
    }
    size = static_cast<int64_t>(n);
  }
  c.set_output(0, PartialShape{size});
  return Status::OK();
}

Status OneHotShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(RankExactly(c, 1, 0, "depth"));
  TG_RETURN_IF_ERROR(RankExactly(c, 2, 0, "on_value"));
  TG_RETURN_IF_ERROR(RankExactly(c, 3, 0, "off_value"));
  int64_t axis = -1;
  TG_RETURN_IF_ERROR(c.GetAttr("axis", &axis));
  if (axis < -1) return c.Error("expected axis to be -1 or between [0, rank], got ", axis);
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (axis > in.rank()) {
    return c.Error("expected axis to be -1 or between [0, ", in.rank(), "], got ", axis);
  }
  int64_t depth = kUnknown;
  if (auto d = ConstInts(c, 1); d && d->size() == 1) {
    depth = (*d)[0];
    if (depth < 0) return c.Error("depth must be non-negative, got ", depth);
  }
  std::vector<int64_t> out = in.dims();
  out.insert(axis == -1 ? out.end() : out.begin() + axis, depth);
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// ---- Shape, Size, Rank ----------------------------------------------------------------------

Status ShapeShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  c.set_output(0, PartialShape{in.known_rank() ? in.rank() : kUnknown});
  return Status::OK();
}

// ---- Gather -------------------------------------------------------------------------------

Status GatherShape(InferenceContext& c) {
  const PartialShape& params = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (params.known_rank() && params.rank() < 1) {
    return c.Error("params must be at least 1 dimensional, but has shape ", params.ToString());
  }
  if (!params.known_rank() || !indices.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> out = indices.dims();
  out.insert(out.end(), params.dims().begin() + 1, params.dims().end());
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// Where: [number of true elements (unknown), rank of the input].
Status WhereShape(InferenceContext& c) {
  const PartialShape& input = c.input_shape(0);
  c.set_output(0, PartialShape({-1, input.known_rank() ? input.rank() : -1}));
  return Status::OK();
}

Status GatherV2Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(RankExactly(c, 2, 0, "axis"));
  const PartialShape& params = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  int64_t batch_dims = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("batch_dims", &batch_dims));
  if (params.known_rank() && params.rank() < 1) {
    return c.Error("params must be at least 1 dimensional, but has shape ", params.ToString());
  }
  if (!params.known_rank() || !indices.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims < 0 || batch_dims > indices.rank()) {
    return c.Error("batch_dims must be in [", -indices.rank(), ", ", indices.rank(),
                   "] for indices of shape ", indices.ToString());
  }
  if (batch_dims >= params.rank()) {
    return c.Error("batch_dims (", batch_dims, ") must be less than the rank of params ",
                   params.ToString());
  }
  auto axis_value = ConstInts(c, 2);
  if (!axis_value || axis_value->size() != 1) {
    c.set_output(0, PartialShape::UnknownOfRank(
                        static_cast<int>(params.rank() + indices.rank() - 1 - batch_dims)));
    return Status::OK();
  }
  int64_t axis;
  TG_RETURN_IF_ERROR(CanonicalAxis(c, (*axis_value)[0], params.rank(), false, "axis", &axis));
  if (axis < batch_dims) {
    return c.Error("axis (", axis, ") must be greater than or equal to batch_dims (", batch_dims,
                   ")");
  }
  for (int64_t i = 0; i < batch_dims; ++i) {
    int64_t merged;
    if (!MergeDim(params.dim(static_cast<int>(i)), indices.dim(static_cast<int>(i)), &merged)) {
      return c.Error("params ", params.ToString(), " and indices ", indices.ToString(),
                     " must agree on the first ", batch_dims, " (batch) dimensions");
    }
  }
  std::vector<int64_t> out(params.dims().begin(), params.dims().begin() + axis);
  out.insert(out.end(), indices.dims().begin() + batch_dims, indices.dims().end());
  out.insert(out.end(), params.dims().begin() + axis + 1, params.dims().end());
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

}  // namespace

Status RegisterArrayOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("Const")
          .Output("output: dtype")
          .Attr("value: tensor")
          .Attr("dtype: type")
          .SetShapeFn(ConstShape)
          .Doc("A constant tensor."),
      OpDefBuilder("Placeholder")
          .Output("output: dtype")
          .Attr("dtype: type")
          .Attr("shape: shape = { unknown_rank: true }")
          .SetShapeFn(shape_fns::ShapeFromAttr)
          .Doc("A tensor that must be fed."),
      OpDefBuilder("PlaceholderWithDefault")
          .Input("input: dtype")
          .Output("output: dtype")
          .Attr("dtype: type")
          .Attr("shape: shape")
          .SetShapeFn(PlaceholderWithDefaultShape)
          .Doc("Passes `input` through unless the output is fed."),
      OpDefBuilder("Identity")
          .Input("input: T")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Returns its input."),
      OpDefBuilder("StopGradient")
          .Input("input: T")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Returns its input; no gradient flows back through it."),
      // Keras writes one after every activation with a custom gradient (swish, gelu): in
      // frozen EfficientNets, one per layer.
      OpDefBuilder("IdentityN")
          .Input("input: T")
          .Output("output: T")
          .Attr("T: list(type) >= 1")
          .SetShapeFn(shape_fns::UnchangedShapes)
          .Doc("Returns its inputs, each as the output of the same index."),
      OpDefBuilder("Reshape")
          .Input("tensor: T")
          .Input("shape: Tshape")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .SetShapeFn(ReshapeShape)
          .Doc("The same elements with another shape; one size may be -1 (inferred)."),
      OpDefBuilder("Squeeze")
          .Input("input: T")
          .Output("output: T")
          .Attr("T: type")
          .Attr("squeeze_dims: list(int) >= 0 = []")
          .SetShapeFn(SqueezeShape)
          .Doc("Removes dimensions of size 1 (all of them, or those in squeeze_dims)."),
      OpDefBuilder("ExpandDims")
          .Input("input: T")
          .Input("dim: Tdim")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tdim: {int32, int64} = DT_INT32")
          .SetShapeFn(ExpandDimsShape)
          .Doc("Inserts a dimension of size 1 at `dim`."),
      OpDefBuilder("Transpose")
          .Input("x: T")
          .Input("perm: Tperm")
          .Output("y: T")
          .Attr("T: type")
          .Attr("Tperm: {int32, int64} = DT_INT32")
          .SetShapeFn(TransposeShape)
          .Doc("Permutes the dimensions: y.shape[i] = x.shape[perm[i]]."),
      OpDefBuilder("ConcatV2")
          .Input("values: N * T")
          .Input("axis: Tidx")
          .Output("output: T")
          .Attr("N: int >= 2")
          .Attr("T: type")
          .Attr("Tidx: {int32, int64} = DT_INT32")
          .SetShapeFn(ConcatV2Shape)
          .Doc("Concatenates tensors along one dimension."),
      OpDefBuilder("Pack")
          .Input("values: N * T")
          .Output("output: T")
          .Attr("N: int >= 1")
          .Attr("T: type")
          .Attr("axis: int = 0")
          .SetShapeFn(PackShape)
          .Doc("Stacks N tensors of one shape into a tensor one rank higher."),
      OpDefBuilder("Unpack")
          .Input("value: T")
          .Output("output: num * T")
          .Attr("num: int >= 0")
          .Attr("T: type")
          .Attr("axis: int = 0")
          .SetShapeFn(UnpackShape)
          .Doc("Splits a tensor into `num` tensors along `axis`."),
      OpDefBuilder("Slice")
          .Input("input: T")
          .Input("begin: Index")
          .Input("size: Index")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Index: {int32, int64}")
          .SetShapeFn(SliceShape)
          .Doc("A contiguous slice: input[begin : begin + size] (size -1: to the end)."),
      OpDefBuilder("StridedSlice")
          .Input("input: T")
          .Input("begin: Index")
          .Input("end: Index")
          .Input("strides: Index")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Index: {int32, int64}")
          .Attr("begin_mask: int = 0")
          .Attr("end_mask: int = 0")
          .Attr("ellipsis_mask: int = 0")
          .Attr("new_axis_mask: int = 0")
          .Attr("shrink_axis_mask: int = 0")
          .SetShapeFn(StridedSliceShape)
          .Doc("NumPy-style strided slicing (input[b:e:s, ..., tf.newaxis, i])."),
      OpDefBuilder("Tile")
          .Input("input: T")
          .Input("multiples: Tmultiples")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tmultiples: {int32, int64} = DT_INT32")
          .SetShapeFn(TileShape)
          .Doc("Repeats the input multiples[i] times along dimension i."),
      OpDefBuilder("Pad")
          .Input("input: T")
          .Input("paddings: Tpaddings")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tpaddings: {int32, int64} = DT_INT32")
          .SetShapeFn(PadShape)
          .Doc("Pads with zeros: paddings[i] = [before, after] for dimension i."),
      OpDefBuilder("Fill")
          .Input("dims: index_type")
          .Input("value: T")
          .Output("output: T")
          .Attr("T: type")
          .Attr("index_type: {int32, int64} = DT_INT32")
          .SetShapeFn(FillShape)
          .Doc("A tensor of shape `dims` filled with the scalar `value`."),
      OpDefBuilder("ZerosLike")
          .Input("x: T")
          .Output("y: T")
          .Attr("T: type")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Zeros of x's shape and type."),
      OpDefBuilder("OnesLike")
          .Input("x: T")
          .Output("y: T")
          .Attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, "
                "int64, uint64, complex64, complex128, bool}")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Ones of x's shape and type."),
      OpDefBuilder("Shape")
          .Input("input: T")
          .Output("output: out_type")
          .Attr("T: type")
          .Attr("out_type: {int32, int64} = DT_INT32")
          .SetShapeFn(ShapeShape)
          .Doc("The shape of a tensor, as a vector."),
      OpDefBuilder("Size")
          .Input("input: T")
          .Output("output: out_type")
          .Attr("T: type")
          .Attr("out_type: {int32, int64} = DT_INT32")
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("The number of elements of a tensor."),
      OpDefBuilder("Rank")
          .Input("input: T")
          .Output("output: int32")
          .Attr("T: type")
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("The rank of a tensor."),
      OpDefBuilder("Range")
          .Input("start: Tidx")
          .Input("limit: Tidx")
          .Input("delta: Tidx")
          .Output("output: Tidx")
          .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, "
                "uint32} = DT_INT32")
          .SetShapeFn(RangeShape)
          .Doc("[start, start + delta, ...] up to but excluding limit."),
      OpDefBuilder("OneHot")
          .Input("indices: TI")
          .Input("depth: int32")
          .Input("on_value: T")
          .Input("off_value: T")
          .Output("output: T")
          .Attr("axis: int = -1")
          .Attr("T: type")
          .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
          .SetShapeFn(OneHotShape)
          .Doc("A one-hot encoding of indices along a new dimension of size depth."),
      OpDefBuilder("GatherV2")
          .Input("params: Tparams")
          .Input("indices: Tindices")
          .Input("axis: Taxis")
          .Output("output: Tparams")
          .Attr("batch_dims: int = 0")
          .Attr("Tparams: type")
          .Attr("Tindices: {int16, int32, int64}")
          .Attr("Taxis: {int32, int64}")
          .SetShapeFn(GatherV2Shape)
          .Doc("Gathers slices of params along axis at indices."),
      OpDefBuilder("Where")
          .Input("input: T")
          .Output("index: int64")
          .Attr("T: type = DT_BOOL")
          .SetShapeFn(WhereShape)
          .Doc("The coordinates of the true elements of input, [num_true, rank]."),
      OpDefBuilder("Gather")
          .Input("params: Tparams")
          .Input("indices: Tindices")
          .Output("output: Tparams")
          .Attr("validate_indices: bool = true")
          .Attr("Tparams: type")
          .Attr("Tindices: {int32, int64}")
          .SetShapeFn(GatherShape)
          .Doc("Gathers rows of params at indices (embedding lookup)."),
  });
}

}  // namespace tgraph
