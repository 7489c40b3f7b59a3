// Split, SplitV and BroadcastTo: array ops that Keras models (LSTM gates, attention heads,
// broadcasting in layers) freeze into. Signatures, attrs and defaults are TensorFlow's.
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

using shape_fns::ConstInts;

constexpr int64_t kUnknown = PartialShape::kUnknownDim;

// "[1, -1, 2]" for messages about size lists (where -1 is a value, not an unknown dim).
std::string ShapeListString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// The split axis (input `axis_input`, a constant scalar) normalised into [0, rank) for
// `value`; *known is false when it is not a constant (or value's rank is unknown).
Status SplitAxis(const InferenceContext& c, int axis_input, const PartialShape& value,
                 bool* known, int64_t* axis) {
  const PartialShape& a = c.input_shape(axis_input);
  if (a.known_rank() && a.rank() != 0) {
    return c.Error("split_dim must be a scalar, but has shape ", a.ToString());
  }
  auto v = ConstInts(c, axis_input);
  *known = v.has_value() && v->size() == 1 && value.known_rank();
  if (!*known) return Status::OK();
  const int64_t rank = value.rank();
  *axis = (*v)[0];
  if (*axis < -rank || *axis >= rank) {
    return c.Error("split_dim ", *axis, " is out of range for a tensor of rank ", rank,
                   " (expected [", -rank, ", ", rank, "))");
  }
  if (*axis < 0) *axis += rank;
  return Status::OK();
}

// Split(split_dim, value): num_split equal pieces along split_dim.
Status SplitShape(InferenceContext& c) {
  int64_t num_split = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("num_split", &num_split));
  const PartialShape& value = c.input_shape(1);
  bool known = false;
  int64_t axis = 0;
  TG_RETURN_IF_ERROR(SplitAxis(c, 0, value, &known, &axis));
  PartialShape out = value.known_rank() ? PartialShape::UnknownOfRank(value.rank())
                                        : PartialShape::Unknown();
  if (known) {
    std::vector<int64_t> dims = value.dims();
    const int64_t d = dims[static_cast<size_t>(axis)];
    if (d >= 0 && d % num_split != 0) {
      return c.Error("dimension ", axis, " of value (", d, ", shape ", value.ToString(),
                     ") is not divisible by num_split ", num_split);
    }
    dims[static_cast<size_t>(axis)] = d >= 0 ? d / num_split : kUnknown;
    out = PartialShape(std::move(dims));
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
  return Status::OK();
}

// SplitV(value, size_splits, split_dim): pieces of the given sizes; one size may be -1 (the
// rest of the dimension).
Status SplitVShape(InferenceContext& c) {
  int64_t num_split = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("num_split", &num_split));
  const PartialShape& value = c.input_shape(0);
  const PartialShape& sizes_shape = c.input_shape(1);
  if (sizes_shape.known_rank() &&
      (sizes_shape.rank() != 1 || (sizes_shape.dim(0) >= 0 && sizes_shape.dim(0) != num_split))) {
    return c.Error("size_splits must be a vector of num_split (", num_split,
                   ") values, but has shape ", sizes_shape.ToString());
  }
  bool known = false;
  int64_t axis = 0;
  TG_RETURN_IF_ERROR(SplitAxis(c, 2, value, &known, &axis));
  auto sizes = ConstInts(c, 1);
  if (!known || !sizes) {
    const PartialShape out = value.known_rank() ? PartialShape::UnknownOfRank(value.rank())
                                                : PartialShape::Unknown();
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
    return Status::OK();
  }
  const int64_t d = value.dim(static_cast<int>(axis));
  int64_t total = 0, inferred = -1;
  for (size_t i = 0; i < sizes->size(); ++i) {
    const int64_t s = (*sizes)[i];
    if (s == -1) {
      if (inferred >= 0) return c.Error("size_splits may hold only one -1, got ", ShapeListString(*sizes));
      inferred = static_cast<int64_t>(i);
    } else if (s < 0) {
      return c.Error("size_splits must be >= 0 or -1, got ", ShapeListString(*sizes));
    } else {
      total += s;
    }
  }
  if (d >= 0 && (inferred < 0 ? total != d : total > d)) {
    return c.Error("size_splits ", ShapeListString(*sizes), " must sum to dimension ", axis,
                   " of value (", d, ", shape ", value.ToString(), ")");
  }
  for (size_t i = 0; i < sizes->size(); ++i) {
    std::vector<int64_t> dims = value.dims();
    int64_t s = (*sizes)[i];
    if (static_cast<int64_t>(i) == inferred) s = d >= 0 ? d - total : kUnknown;
    dims[static_cast<size_t>(axis)] = s;
    c.set_output(static_cast<int>(i), PartialShape(std::move(dims)));
  }
  return Status::OK();
}

// BroadcastTo(input, shape): the constant shape (or a rank from its length), which input
// must broadcast to.
Status BroadcastToShape(InferenceContext& c) {
  const PartialShape& shape_in = c.input_shape(1);
  if (shape_in.known_rank() && shape_in.rank() != 1) {
    return c.Error("shape must be a vector, but has shape ", shape_in.ToString());
  }
  auto target = ConstInts(c, 1);
  if (!target) {
    c.set_output(0, shape_in.known_rank() && shape_in.dim(0) >= 0
                        ? PartialShape::UnknownOfRank(static_cast<int>(shape_in.dim(0)))
                        : PartialShape::Unknown());
    return Status::OK();
  }
  for (int64_t d : *target) {
    if (d < 0) return c.Error("shape must hold non-negative sizes, got ", ShapeListString(*target));
  }
  const PartialShape& input = c.input_shape(0);
  PartialShape want(*target), out;
  if (input.known_rank()) {
    bool ok = input.rank() <= want.rank();
    for (int i = 0; ok && i < input.rank(); ++i) {
      const int64_t d = input.dim(input.rank() - 1 - i);
      const int64_t w = want.dim(want.rank() - 1 - i);
      ok = d < 0 || d == 1 || d == w;
    }
    if (!ok) {
      return c.Error("input of shape ", input.ToString(), " does not broadcast to ",
                     want.ToString());
    }
  }
  c.set_output(0, std::move(want));
  return Status::OK();
}

}  // namespace

Status RegisterArraySplitOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("Split")
          .Input("split_dim: int32")
          .Input("value: T")
          .Output("output: num_split * T")
          .Attr("num_split: int >= 1")
          .Attr("T: type")
          .SetShapeFn(SplitShape)
          .Doc("value split into num_split equal pieces along split_dim."),
      OpDefBuilder("SplitV")
          .Input("value: T")
          .Input("size_splits: Tlen")
          .Input("split_dim: int32")
          .Output("output: num_split * T")
          .Attr("num_split: int >= 1")
          .Attr("T: type")
          .Attr("Tlen: {int8, int32, int64} = DT_INT64")
          .SetShapeFn(SplitVShape)
          .Doc("value split along split_dim into pieces of size_splits (one may be -1)."),
      OpDefBuilder("BroadcastTo")
          .Input("input: T")
          .Input("shape: Tidx")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tidx: {int32, int64} = DT_INT32")
          .SetShapeFn(BroadcastToShape)
          .Doc("input broadcast (NumPy rules) to shape."),
  });
}

}  // namespace tgraph
