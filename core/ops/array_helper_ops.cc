// Shape and index ops that gradient functions and optimizers build (BroadcastGradientArgs,
// segment sums, permutations, ...). Signatures are TensorFlow's; so are the shape functions,
// which leave a dimension unknown wherever TensorFlow's do (e.g. Unique's output length).
#include <algorithm>
#include <optional>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

using shape_fns::ConstInts;

constexpr int64_t kUnknown = PartialShape::kUnknownDim;

// `data` must start with the dims of `prefix` (whose rank is known); *rest gets data's
// remaining dims (unknown when data's rank is). An error names both shapes otherwise.
Status SplitPrefix(const InferenceContext& c, const PartialShape& data, const PartialShape& prefix,
                   const char* data_name, const char* prefix_name, PartialShape* rest) {
  if (!data.known_rank()) {
    *rest = PartialShape::Unknown();
    return Status::OK();
  }
  if (data.rank() < prefix.rank()) {
    return c.Error(data_name, ".shape = ", data.ToString(), " does not start with ", prefix_name,
                   ".shape = ", prefix.ToString());
  }
  for (int i = 0; i < prefix.rank(); ++i) {
    const int64_t a = data.dim(i), b = prefix.dim(i);
    if (a >= 0 && b >= 0 && a != b) {
      return c.Error(data_name, ".shape = ", data.ToString(), " does not start with ",
                     prefix_name, ".shape = ", prefix.ToString());
    }
  }
  *rest = PartialShape(std::vector<int64_t>(data.dims().begin() + prefix.rank(), data.dims().end()));
  return Status::OK();
}

// [d0] + rest, unknown rank when rest's rank is unknown.
PartialShape Prepend(int64_t d0, const PartialShape& rest) {
  if (!rest.known_rank()) return PartialShape::Unknown();
  std::vector<int64_t> dims{d0};
  dims.insert(dims.end(), rest.dims().begin(), rest.dims().end());
  return PartialShape(std::move(dims));
}

Status BroadcastGradientArgsShape(InferenceContext& c) {
  PartialShape unused;
  TG_RETURN_IF_ERROR(c.WithRank(0, 1, &unused));
  TG_RETURN_IF_ERROR(c.WithRank(1, 1, &unused));
  c.set_output(0, PartialShape{kUnknown});
  c.set_output(1, PartialShape{kUnknown});
  return Status::OK();
}

Status InvertPermutationShape(InferenceContext& c) {
  PartialShape x;
  TG_RETURN_IF_ERROR(c.WithRank(0, 1, &x));
  c.set_output(0, std::move(x));
  return Status::OK();
}

// [max index + 1 when every indices input is constant] + the common trailing data shape.
Status DynamicStitchShape(InferenceContext& c) {
  const int n = c.num_inputs() / 2;
  bool all_constant = true;
  int64_t max_index = -1;
  PartialShape extra = PartialShape::Unknown();
  for (int i = 0; i < n; ++i) {
    auto values = ConstInts(c, i);
    if (!values) all_constant = false;
    const PartialShape& indices = c.input_shape(i);
    if (!indices.known_rank()) continue;
    PartialShape rest;
    TG_RETURN_IF_ERROR(SplitPrefix(c, c.input_shape(n + i), indices, "data", "indices", &rest));
    PartialShape merged;
    if (!extra.Merge(rest, &merged).ok()) {
      return c.Error("data[", i, "].shape[", indices.rank(), ":] = ", rest.ToString(),
                     " does not match the trailing shape ", extra.ToString(),
                     " of the other data inputs");
    }
    extra = std::move(merged);
    if (values) {
      for (int64_t v : *values) max_index = std::max(max_index, v);
    }
  }
  c.set_output(0, Prepend(all_constant ? max_index + 1 : kUnknown, extra));
  return Status::OK();
}

Status ConcatOffsetShape(InferenceContext& c) {
  for (int i = 1; i < c.num_inputs(); ++i) c.set_output(i - 1, c.input_shape(i));
  return Status::OK();
}

Status ShapeNShape(InferenceContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input_shape(i);
    c.set_output(i, PartialShape{s.known_rank() ? s.rank() : kUnknown});
  }
  return Status::OK();
}

// The output's shape is the value of input 0 (TensorFlow's MakeShapeFromShapeTensor).
Status StridedSliceGradShape(InferenceContext& c) {
  PartialShape shape;
  TG_RETURN_IF_ERROR(c.WithRank(0, 1, &shape));
  auto dims = ConstInts(c, 0);
  if (!dims) {
    c.set_output(0, shape.dim(0) < 0 ? PartialShape::Unknown()
                                     : PartialShape::UnknownOfRank(static_cast<int>(shape.dim(0))));
    return Status::OK();
  }
  for (size_t i = 0; i < dims->size(); ++i) {
    if ((*dims)[i] < -1) return c.Error("shape[", i, "] = ", (*dims)[i], " must be >= -1");
  }
  c.set_output(0, PartialShape(std::move(*dims)));
  return Status::OK();
}

Status UniqueShape(InferenceContext& c) {
  PartialShape x;
  TG_RETURN_IF_ERROR(c.WithRank(0, 1, &x));
  c.set_output(0, PartialShape{kUnknown});
  c.set_output(1, std::move(x));
  return Status::OK();
}

OpDefBuilder ScanOp(const char* name, const char* what) {
  return OpDefBuilder(name)
      .Input("x: T")
      .Input("axis: Tidx")
      .Attr("exclusive: bool = false")
      .Attr("reverse: bool = false")
      .Output("out: T")
      .Attr("T: numbertype")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc(what);
}

}  // namespace

// [num_segments] + data.shape[rank(segment_ids):].
Status UnsortedSegmentSumShape(InferenceContext& c) {
  PartialShape unused;
  TG_RETURN_IF_ERROR(c.WithRank(2, 0, &unused));
  const PartialShape& ids = c.input_shape(1);
  if (!ids.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  PartialShape rest;
  TG_RETURN_IF_ERROR(SplitPrefix(c, c.input_shape(0), ids, "data", "segment_ids", &rest));
  int64_t num = kUnknown;
  if (auto v = ConstInts(c, 2); v && v->size() == 1) {
    num = (*v)[0];
    if (num < 0) return c.Error("num_segments must be non-negative, got ", num);
  }
  c.set_output(0, Prepend(num, rest));
  return Status::OK();
}

Status RegisterArrayHelperOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("BroadcastGradientArgs")
          .Input("s0: T")
          .Input("s1: T")
          .Output("r0: T")
          .Output("r1: T")
          .Attr("T: {int32, int64} = DT_INT32")
          .SetShapeFn(BroadcastGradientArgsShape)
          .Doc("The axes to sum each side's gradient over for a broadcasting binary op."),
      OpDefBuilder("UnsortedSegmentSum")
          .Input("data: T")
          .Input("segment_ids: Tindices")
          .Input("num_segments: Tnumsegments")
          .Output("output: T")
          .Attr("T: numbertype")
          .Attr("Tindices: {int32, int64}")
          .Attr("Tnumsegments: {int32, int64} = DT_INT32")
          .SetShapeFn(UnsortedSegmentSumShape)
          .Doc("output[j] = sum of data[i...] where segment_ids[i...] == j."),
      OpDefBuilder("InvertPermutation")
          .Input("x: T")
          .Output("y: T")
          .Attr("T: {int32, int64} = DT_INT32")
          .SetShapeFn(InvertPermutationShape)
          .Doc("y[x[i]] = i."),
      OpDefBuilder("DynamicStitch")
          .Input("indices: N * int32")
          .Input("data: N * T")
          .Output("merged: T")
          .Attr("N: int >= 1")
          .Attr("T: type")
          .SetShapeFn(DynamicStitchShape)
          .Doc("merged[indices[m][i...]] = data[m][i...]; later inputs win."),
      // TensorFlow leaves the winner among duplicate indices unspecified here (its CPU kernel
      // stitches in parallel); tgraph's kernels are DynamicStitch's, so later inputs win.
      OpDefBuilder("ParallelDynamicStitch")
          .Input("indices: N * int32")
          .Input("data: N * T")
          .Output("merged: T")
          .Attr("N: int >= 1")
          .Attr("T: type")
          .SetShapeFn(DynamicStitchShape)
          .Doc("DynamicStitch with no promise about which duplicate index wins."),
      OpDefBuilder("ConcatOffset")
          .Input("concat_dim: int32")
          .Input("shape: N * shape_type")
          .Output("offset: N * shape_type")
          .Attr("N: int >= 2")
          .Attr("shape_type: {int32, int64} = DT_INT32")
          .SetShapeFn(ConcatOffsetShape)
          .Doc("Where each input of a concat starts in its output."),
      OpDefBuilder("ShapeN")
          .Input("input: N * T")
          .Output("output: N * out_type")
          .Attr("N: int >= 1")
          .Attr("T: type")
          .Attr("out_type: {int32, int64} = DT_INT32")
          .SetShapeFn(ShapeNShape)
          .Doc("The shapes of N tensors."),
      OpDefBuilder("StridedSliceGrad")
          .Input("shape: Index")
          .Input("begin: Index")
          .Input("end: Index")
          .Input("strides: Index")
          .Input("dy: T")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Index: {int32, int64}")
          .Attr("begin_mask: int = 0")
          .Attr("end_mask: int = 0")
          .Attr("ellipsis_mask: int = 0")
          .Attr("new_axis_mask: int = 0")
          .Attr("shrink_axis_mask: int = 0")
          .SetShapeFn(StridedSliceGradShape)
          .Doc("Zeros of `shape` with dy scattered where StridedSlice read its output."),
      ScanOp("Cumsum", "Cumulative sum along axis (optionally exclusive and/or reversed)."),
      ScanOp("Cumprod", "Cumulative product along axis (optionally exclusive and/or reversed)."),
      OpDefBuilder("Unique")
          .Input("x: T")
          .Output("y: T")
          .Output("idx: out_idx")
          .Attr("T: type")
          .Attr("out_idx: {int32, int64} = DT_INT32")
          .SetShapeFn(UniqueShape)
          .Doc("The distinct values of x in order of first occurrence, and x[i] == y[idx[i]]."),
  });
}

}  // namespace tgraph
