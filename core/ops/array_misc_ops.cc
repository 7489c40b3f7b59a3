// Miscellaneous array ops graph-mode TensorFlow code and older GraphDefs use: ClipByValue,
// EnsureShape, CheckNumerics{,V2}, Roll, Concat (v1: concat_dim first), LinSpace, Bucketize,
// LowerBound / UpperBound, Cross, TopK (v1: k an attr), InTopKV2 and Empty. Signatures,
// defaults and allowed dtypes are TensorFlow's.
#include <algorithm>
#include <optional>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

using shape_fns::ConstInts;

constexpr int64_t kUnknown = PartialShape::kUnknownDim;

Status EnsureShapeShape(InferenceContext& c) {
  PartialShape want;
  TG_RETURN_IF_ERROR(c.GetAttr("shape", &want));
  PartialShape merged;
  if (!c.input_shape(0).Merge(want, &merged).ok()) {
    return c.Error("Shape of tensor ", c.input_shape(0).ToString(),
                   " is not compatible with expected shape ", want.ToString(), ".");
  }
  c.set_output(0, merged);
  return Status::OK();
}

// Concat(concat_dim, values): the values' shapes with the concat_dim sizes added, when the
// axis is a constant and every rank known; otherwise the rank where one is known.
Status ConcatV1Shape(InferenceContext& c) {
  PartialShape unused;
  TG_RETURN_IF_ERROR(c.WithRank(0, 0, &unused));
  int rank = -1;
  for (int i = 1; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input_shape(i);
    if (!s.known_rank()) continue;
    if (rank >= 0 && s.rank() != rank) {
      return c.Error("Shape must be rank ", rank, " but is rank ", s.rank(),
                     " for the value ", i - 1, " of Concat");
    }
    rank = s.rank();
  }
  auto axis_v = ConstInts(c, 0);
  if (rank < 0) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (!axis_v || axis_v->size() != 1) {
    c.set_output(0, PartialShape::UnknownOfRank(rank));
    return Status::OK();
  }
  int64_t axis = (*axis_v)[0];
  if (axis < -rank || axis >= rank) {
    return c.Error("concat_dim ", axis, " is out of range for values of rank ", rank);
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> out(static_cast<size_t>(rank), kUnknown);
  int64_t total = 0;
  for (int i = 1; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input_shape(i);
    if (!s.known_rank()) {
      total = kUnknown;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      const int64_t v = s.dim(d);
      if (v < 0) continue;
      if (out[static_cast<size_t>(d)] >= 0 && out[static_cast<size_t>(d)] != v) {
        return c.Error("Dimension ", d, " in both shapes must be equal, but are ",
                       out[static_cast<size_t>(d)], " and ", v);
      }
      out[static_cast<size_t>(d)] = v;
    }
    const int64_t a = s.dim(static_cast<int>(axis));
    total = (total < 0 || a < 0) ? kUnknown : total + a;
  }
  out[static_cast<size_t>(axis)] = total;
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

Status LinSpaceShape(InferenceContext& c) {
  PartialShape unused;
  TG_RETURN_IF_ERROR(c.WithRank(0, 0, &unused));
  TG_RETURN_IF_ERROR(c.WithRank(1, 0, &unused));
  TG_RETURN_IF_ERROR(c.WithRank(2, 0, &unused));
  int64_t n = kUnknown;
  if (auto v = ConstInts(c, 2); v && v->size() == 1) {
    n = (*v)[0];
    if (n <= 0) return c.Error("Requires num > 0: ", n);
  }
  c.set_output(0, PartialShape{n});
  return Status::OK();
}

// Bincount: [size]; DenseBincount: [size] for a vector of values, [rows, size] for a matrix.
Status BincountShape(InferenceContext& c) {
  PartialShape size_shape;
  TG_RETURN_IF_ERROR(c.WithRank(1, 0, &size_shape));
  int64_t size = kUnknown;
  if (auto v = ConstInts(c, 1); v && v->size() == 1) {
    size = (*v)[0];
    if (size < 0) return c.Error("size (", size, ") must be non-negative");
  }
  const PartialShape& in = c.input_shape(0);
  if (c.op_type() == "DenseBincount" && in.known_rank()) {
    if (in.rank() == 2) {
      c.set_output(0, PartialShape{in.dim(0), size});
      return Status::OK();
    }
    if (in.rank() != 1) return c.Error("input must be 1-D or 2-D, got shape ", in.ToString());
  }
  c.set_output(0, PartialShape{size});
  return Status::OK();
}

// LowerBound / UpperBound: one index per value.
Status SearchSortedShape(InferenceContext& c) {
  c.set_output(0, c.input_shape(1));
  return Status::OK();
}

Status CrossShape(InferenceContext& c) {
  PartialShape merged;
  if (!c.input_shape(0).Merge(c.input_shape(1), &merged).ok()) {
    return c.Error("a and b must have the same shape, got ", c.input_shape(0).ToString(),
                   " and ", c.input_shape(1).ToString());
  }
  if (merged.known_rank()) {
    if (merged.rank() < 1 || (merged.dim(merged.rank() - 1) >= 0 &&
                              merged.dim(merged.rank() - 1) != 3)) {
      return c.Error("Dimension must be 3 but is ",
                     merged.rank() < 1 ? 0 : merged.dim(merged.rank() - 1),
                     " for the inner-most dimension of ", merged.ToString());
    }
  }
  c.set_output(0, merged);
  return Status::OK();
}

Status TopKV1Shape(InferenceContext& c) {
  int64_t k = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("k", &k));
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    c.set_output(1, PartialShape::Unknown());
    return Status::OK();
  }
  if (in.rank() < 1) return c.Error("input must be at least rank 1, got a scalar");
  const int64_t n = in.dim(in.rank() - 1);
  if (n >= 0 && k > n) {
    return c.Error("input must have last dimension >= k = ", k, " but is ", n);
  }
  std::vector<int64_t> out = in.dims();
  out.back() = k;
  c.set_output(0, PartialShape(out));
  c.set_output(1, PartialShape(out));
  return Status::OK();
}

Status InTopKV2Shape(InferenceContext& c) {
  PartialShape predictions, targets, unused;
  TG_RETURN_IF_ERROR(c.WithRank(0, 2, &predictions));
  TG_RETURN_IF_ERROR(c.WithRank(1, 1, &targets));
  TG_RETURN_IF_ERROR(c.WithRank(2, 0, &unused));
  int64_t batch = predictions.known_rank() ? predictions.dim(0) : kUnknown;
  if (batch < 0 && targets.known_rank()) batch = targets.dim(0);
  c.set_output(0, PartialShape{batch});
  return Status::OK();
}

Status EmptyShape(InferenceContext& c) {
  PartialShape shape;
  TG_RETURN_IF_ERROR(c.WithRank(0, 1, &shape));
  if (auto v = ConstInts(c, 0)) {
    for (int64_t d : *v) {
      if (d < 0) return c.Error("shape must not have negative dimensions, got ", d);
    }
    c.set_output(0, PartialShape(std::move(*v)));
  } else {
    c.set_output(0, shape.known_rank() && shape.dim(0) >= 0
                        ? PartialShape::UnknownOfRank(static_cast<int>(shape.dim(0)))
                        : PartialShape::Unknown());
  }
  return Status::OK();
}

// BatchMatMul (v1): no broadcasting, so the batch dimensions must agree.
Status BatchMatMulV1Shape(InferenceContext& c) {
  const PartialShape& x = c.input_shape(0);
  const PartialShape& y = c.input_shape(1);
  if (x.known_rank() && y.known_rank()) {
    if (x.rank() != y.rank()) {
      return c.Error("In[0] and In[1] has different ndims: ", x.ToString(), " vs. ",
                     y.ToString());
    }
    for (int i = 0; i + 2 < x.rank(); ++i) {
      if (x.dim(i) >= 0 && y.dim(i) >= 0 && x.dim(i) != y.dim(i)) {
        return c.Error("In[0].dim(", i, ") and In[1].dim(", i, ") must be the same: ",
                       x.ToString(), " vs ", y.ToString());
      }
    }
  }
  return BatchMatMulV2Shape(c);
}

OpDefBuilder CheckNumericsOp(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("tensor: T")
      .Output("output: T")
      .Attr("T: {bfloat16, half, float, double}")
      .Attr("message: string")
      .SetIsStateful()
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc(doc);
}

OpDefBuilder Bound(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("sorted_inputs: T")
      .Input("values: T")
      .Output("output: out_type")
      .Attr("T: type")
      .Attr("out_type: {int32, int64} = DT_INT32")
      .SetShapeFn(SearchSortedShape)
      .Doc(doc);
}

}  // namespace

Status RegisterArrayMiscOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("ClipByValue")
          .Input("t: T")
          .Input("clip_value_min: T")
          .Input("clip_value_max: T")
          .Output("output: T")
          .Attr("T: numbertype")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("max(min(t, clip_value_max), clip_value_min); the bounds are scalars or t's "
               "shape."),
      OpDefBuilder("EnsureShape")
          .Input("input: T")
          .Output("output: T")
          .Attr("shape: shape")
          .Attr("T: type")
          .SetShapeFn(EnsureShapeShape)
          .Doc("input, failing the run unless its shape is compatible with `shape`."),
      CheckNumericsOp("CheckNumerics",
                      "tensor, failing the run with `message` if it holds a NaN or an Inf."),
      CheckNumericsOp("CheckNumericsV2",
                      "CheckNumerics telling +Inf from -Inf in its message."),
      OpDefBuilder("Roll")
          .Input("input: T")
          .Input("shift: Tshift")
          .Input("axis: Taxis")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tshift: {int32, int64}")
          .Attr("Taxis: {int32, int64}")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("input rolled by shift[i] elements along axis[i] (shifts on one axis add up)."),
      OpDefBuilder("Concat")
          .Input("concat_dim: int32")
          .Input("values: N * T")
          .Output("output: T")
          .Attr("N: int >= 2")
          .Attr("T: type")
          .SetShapeFn(ConcatV1Shape)
          .Doc("values joined along concat_dim (ConcatV2 with the axis first)."),
      OpDefBuilder("LinSpace")
          .Input("start: T")
          .Input("stop: T")
          .Input("num: Tidx")
          .Output("output: T")
          .Attr("T: {bfloat16, half, float, double}")
          .Attr("Tidx: {int32, int64} = DT_INT32")
          .SetShapeFn(LinSpaceShape)
          .Doc("num evenly spaced values from start to stop inclusive."),
      OpDefBuilder("Bucketize")
          .Input("input: T")
          .Output("output: int32")
          .Attr("T: {int32, int64, float, double}")
          .Attr("boundaries: list(float)")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("The index of the bucket (between sorted boundaries) each value falls into."),
      Bound("LowerBound", "Per row, the first index of sorted_inputs whose value is >= each "
                          "value."),
      Bound("UpperBound", "Per row, the first index of sorted_inputs whose value is > each "
                          "value."),
      OpDefBuilder("Bincount")
          .Input("arr: int32")
          .Input("size: int32")
          .Input("weights: T")
          .Output("bins: T")
          .Attr("T: {int32, int64, float, double}")
          .SetShapeFn(BincountShape)
          .Doc("How often each value in [0, size) occurs in arr (or the sum of its weights)."),
      OpDefBuilder("DenseBincount")
          .Input("input: Tidx")
          .Input("size: Tidx")
          .Input("weights: T")
          .Output("output: T")
          .Attr("Tidx: {int32, int64}")
          .Attr("T: {int32, int64, float, double}")
          .Attr("binary_output: bool = false")
          .SetShapeFn(BincountShape)
          .Doc("Bincount of a vector, or of each row of a matrix; with binary_output, 1 where "
               "a value occurs."),
      OpDefBuilder("Cross")
          .Input("a: T")
          .Input("b: T")
          .Output("product: T")
          .Attr("T: realnumbertype")
          .SetShapeFn(CrossShape)
          .Doc("Cross products of the 3-vectors along the last dimension."),
      OpDefBuilder("TopK")
          .Input("input: T")
          .Output("values: T")
          .Output("indices: int32")
          .Attr("k: int >= 0")
          .Attr("sorted: bool = true")
          .Attr("T: realnumbertype")
          .SetShapeFn(TopKV1Shape)
          .Doc("TopKV2 with k an attr."),
      OpDefBuilder("InTopKV2")
          .Input("predictions: float")
          .Input("targets: T")
          .Input("k: T")
          .Output("precision: bool")
          .Attr("T: {int32, int64} = DT_INT32")
          .SetShapeFn(InTopKV2Shape)
          .Doc("Whether each row's target class is among its k highest predictions."),
      OpDefBuilder("BatchMatMul")
          .Input("x: T")
          .Input("y: T")
          .Output("output: T")
          .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
          .Attr("adj_x: bool = false")
          .Attr("adj_y: bool = false")
          .Attr("grad_x: bool = false")
          .Attr("grad_y: bool = false")
          .NewerThanTf1("grad_x")
          .NewerThanTf1("grad_y")
          .SetShapeFn(BatchMatMulV1Shape)
          .Doc("Batched matrix products of x and y with equal batch dimensions."),
      OpDefBuilder("BatchMatMulV3")
          .Input("x: Ta")
          .Input("y: Tb")
          .Output("output: Tout")
          .Attr("Ta: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
                "complex64, complex128}")
          .Attr("Tb: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
                "complex64, complex128}")
          .Attr("Tout: {bfloat16, half, float, double, int16, int32, int64, complex64, "
                "complex128}")
          .Attr("adj_x: bool = false")
          .Attr("adj_y: bool = false")
          .Attr("grad_x: bool = false")
          .Attr("grad_y: bool = false")
          .NewerThanTf1("grad_x")
          .NewerThanTf1("grad_y")
          .SetShapeFn(BatchMatMulV2Shape)
          .Doc("BatchMatMulV2 with the operand and result types as attrs."),
      OpDefBuilder("Empty")
          .Input("shape: int32")
          .Output("output: dtype")
          .Attr("dtype: type")
          .Attr("init: bool = false")
          .SetIsStateful()
          .SetShapeFn(EmptyShape)
          .Doc("A tensor of `shape` (zeros here, whatever `init`)."),
  });
}

}  // namespace tgraph
