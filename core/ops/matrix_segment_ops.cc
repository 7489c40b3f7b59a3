// Matrix-structure ops (MatrixBandPart, MatrixDiag*, MatrixDiagPart*, MatrixSetDiag*, Diag,
// DiagPart) and the segment reductions (Segment*, UnsortedSegment{Max,Min,Prod},
// SparseSegment* and their gradients' helpers). Signatures, defaults and allowed dtypes are
// TensorFlow's, so GraphDefs TensorFlow writes import; shape functions leave a dimension
// unknown where TensorFlow's do (a sorted segment op's output length depends on the ids).
#include <algorithm>
#include <optional>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

using shape_fns::ConstInts;

constexpr int64_t kUnknown = PartialShape::kUnknownDim;
constexpr const char* kAlign =
    "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'";

// The dims of `s` from `from` on (`s` of known rank).
std::vector<int64_t> DimsFrom(const PartialShape& s, int from) {
  return std::vector<int64_t>(s.dims().begin() + std::min(from, s.rank()), s.dims().end());
}
std::vector<int64_t> DimsTo(const PartialShape& s, int to) {
  return std::vector<int64_t>(s.dims().begin(), s.dims().begin() + std::max(0, to));
}

Status AtLeastRank(const InferenceContext& c, int i, int rank, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() < rank) {
    return c.Error(what, " must be at least rank ", rank, ", got shape ", s.ToString());
  }
  return Status::OK();
}

// k as (lower, upper) when input `i` is a constant scalar or 2-vector.
std::optional<std::pair<int64_t, int64_t>> ConstK(const InferenceContext& c, int i) {
  auto k = ConstInts(c, i);
  if (!k || k->empty() || k->size() > 2) return std::nullopt;
  return std::make_pair(k->front(), k->back());
}

Status MatrixBandPartShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 2, "input"));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

// MatrixDiagPart: [..., M, N] -> [..., min(M, N)].
Status MatrixDiagPartShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 2, "input"));
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int r = in.rank();
  const int64_t m = in.dim(r - 2), n = in.dim(r - 1);
  std::vector<int64_t> out = DimsTo(in, r - 2);
  out.push_back(m >= 0 && n >= 0 ? std::min(m, n) : kUnknown);
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// MatrixDiagPartV2/V3: [..., M, N] -> [..., num_diags (when k is a range), max_diag_len].
Status MatrixDiagPartV3Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 2, "input"));
  const PartialShape& in = c.input_shape(0);
  const auto k = ConstK(c, 1);
  if (!in.known_rank() || !k) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const auto [lo, hi] = *k;
  if (lo > hi) {
    return c.Error("lower_diag_index must not be larger than upper_diag_index: ", lo, " > ", hi);
  }
  const int r = in.rank();
  const int64_t m = in.dim(r - 2), n = in.dim(r - 1);
  std::vector<int64_t> out = DimsTo(in, r - 2);
  if (lo != hi) out.push_back(hi - lo + 1);
  out.push_back(m >= 0 && n >= 0
                    ? std::max<int64_t>(0, std::min(m + std::min<int64_t>(hi, 0),
                                                    n - std::max<int64_t>(lo, 0)))
                    : kUnknown);
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// MatrixDiag: [..., L] -> [..., L, L].
Status MatrixDiagShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 1, "diagonal"));
  const PartialShape& d = c.input_shape(0);
  if (!d.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> out = d.dims();
  out.push_back(d.dim(d.rank() - 1));
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// MatrixDiagV2/V3: the matrix's size follows from k, num_rows, num_cols and the diagonals'
// length as the kernel computes it, when all are constants.
Status MatrixDiagV3Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 1, "diagonal"));
  const PartialShape& d = c.input_shape(0);
  const auto k = ConstK(c, 1);
  if (!d.known_rank() || !k) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const auto [lo, hi] = *k;
  if (lo > hi) {
    return c.Error("lower_diag_index must not be larger than upper_diag_index: ", lo, " > ", hi);
  }
  const int r = d.rank();
  if (lo != hi && r < 2) {
    return c.Error("diagonal must be at least rank 2 for a range of diagonals, got shape ",
                   d.ToString());
  }
  std::vector<int64_t> out = DimsTo(d, lo == hi ? r - 1 : r - 2);
  const int64_t len = d.dim(r - 1);
  auto rows = ConstInts(c, 2), cols = ConstInts(c, 3);
  int64_t num_rows = kUnknown, num_cols = kUnknown;
  if (len >= 0 && rows && cols && rows->size() == 1 && cols->size() == 1) {
    const int64_t min_rows = len - std::min<int64_t>(hi, 0);
    const int64_t min_cols = len + std::max<int64_t>(lo, 0);
    num_rows = (*rows)[0];
    num_cols = (*cols)[0];
    if (num_rows == -1 && num_cols == -1) {
      num_rows = num_cols = std::max(min_rows, min_cols);
    } else if (num_rows == -1) {
      num_rows = min_rows;
    } else if (num_cols == -1) {
      num_cols = min_cols;
    }
  }
  out.push_back(num_rows);
  out.push_back(num_cols);
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

Status MatrixSetDiagShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 2, "input"));
  TG_RETURN_IF_ERROR(AtLeastRank(c, 1, 1, "diagonal"));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

// Diag: D -> D + D.
Status DiagShape(InferenceContext& c) {
  const PartialShape& d = c.input_shape(0);
  if (!d.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (d.rank() < 1) return c.Error("diagonal must be at least rank 1, got shape ", d.ToString());
  std::vector<int64_t> out = d.dims();
  out.insert(out.end(), d.dims().begin(), d.dims().end());
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// DiagPart: D + D -> D.
Status DiagPartShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int r = in.rank();
  if (r == 0 || r % 2 != 0) {
    return c.Error("Input must have even and non-zero rank, input rank is ", r);
  }
  std::vector<int64_t> out;
  for (int i = 0; i < r / 2; ++i) {
    int64_t a = in.dim(i), b = in.dim(i + r / 2);
    if (a >= 0 && b >= 0 && a != b) {
      return c.Error("Invalid shape ", in.ToString(), ": dimensions ", i, " and ", i + r / 2,
                     " do not match.");
    }
    out.push_back(a >= 0 ? a : b);
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// [dim0] + data.shape[1:] (unknown rank when data's is).
PartialShape RowsOf(int64_t dim0, const PartialShape& data) {
  if (!data.known_rank()) return PartialShape::Unknown();
  std::vector<int64_t> out{dim0};
  const std::vector<int64_t> rest = DimsFrom(data, 1);
  out.insert(out.end(), rest.begin(), rest.end());
  return PartialShape(std::move(out));
}

Status VectorInput(const InferenceContext& c, int i) {
  PartialShape unused;
  return c.WithRank(i, 1, &unused);
}

// Segment*(data, segment_ids): [?] + data.shape[1:].
Status SegmentReductionShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 1, "data"));
  TG_RETURN_IF_ERROR(VectorInput(c, 1));
  c.set_output(0, RowsOf(kUnknown, c.input_shape(0)));
  return Status::OK();
}

// SparseSegment*(data, indices, segment_ids[, num_segments]).
Status SparseSegmentReductionShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 1, "data"));
  TG_RETURN_IF_ERROR(VectorInput(c, 1));
  TG_RETURN_IF_ERROR(VectorInput(c, 2));
  int64_t rows = kUnknown;
  if (c.num_inputs() == 4) {
    PartialShape unused;
    TG_RETURN_IF_ERROR(c.WithRank(3, 0, &unused));
    if (auto v = ConstInts(c, 3); v && v->size() == 1) rows = (*v)[0];
  }
  c.set_output(0, RowsOf(rows, c.input_shape(0)));
  return Status::OK();
}

// SparseSegment*Grad(grad, indices, segment_ids, output_dim0): [output_dim0] + grad.shape[1:].
Status SparseSegmentGradShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(AtLeastRank(c, 0, 1, "grad"));
  TG_RETURN_IF_ERROR(VectorInput(c, 1));
  TG_RETURN_IF_ERROR(VectorInput(c, 2));
  PartialShape unused;
  TG_RETURN_IF_ERROR(c.WithRank(3, 0, &unused));
  int64_t rows = kUnknown;
  if (auto v = ConstInts(c, 3); v && v->size() == 1) rows = (*v)[0];
  c.set_output(0, RowsOf(rows, c.input_shape(0)));
  return Status::OK();
}

OpDefBuilder Segment(const char* name, const char* types, const char* doc) {
  return OpDefBuilder(name)
      .Input("data: T")
      .Input("segment_ids: Tindices")
      .Output("output: T")
      .Attr(std::string("T: ") + types)
      .Attr("Tindices: {int32, int64}")
      .SetShapeFn(SegmentReductionShape)
      .Doc(doc);
}

OpDefBuilder UnsortedSegment(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("data: T")
      .Input("segment_ids: Tindices")
      .Input("num_segments: Tnumsegments")
      .Output("output: T")
      .Attr(std::string("T: ") + (std::string(name) == "UnsortedSegmentProd" ? "numbertype"
                                                                            : "realnumbertype"))
      .Attr("Tindices: {int32, int64}")
      .Attr("Tnumsegments: {int32, int64} = DT_INT32")
      .SetShapeFn(UnsortedSegmentSumShape)
      .Doc(doc);
}

constexpr const char* kSparseSumTypes = "realnumbertype";
constexpr const char* kSparseMeanTypes = "{bfloat16, half, float, double}";

OpDefBuilder SparseSegment(const char* name, const char* types, bool with_num, const char* doc) {
  OpDefBuilder b(name);
  b.Input("data: T").Input("indices: Tidx").Input("segment_ids: Tsegmentids");
  if (with_num) b.Input("num_segments: Tnumsegments");
  b.Output("output: T")
      .Attr(std::string("T: ") + types)
      .Attr("Tidx: {int32, int64} = DT_INT32");
  if (with_num) b.Attr("Tnumsegments: {int32, int64} = DT_INT32");
  b.Attr("Tsegmentids: {int32, int64} = DT_INT32")
      .Attr("sparse_gradient: bool = false")
      .SetShapeFn(SparseSegmentReductionShape)
      .Doc(doc);
  return b;
}

OpDefBuilder SparseSegmentGrad(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("grad: T")
      .Input("indices: Tidx")
      .Input("segment_ids: Tsegmentids")
      .Input("output_dim0: int32")
      .Output("output: T")
      .Attr(std::string("T: ") + kSparseMeanTypes)
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .Attr("Tsegmentids: {int32, int64} = DT_INT32")
      .SetShapeFn(SparseSegmentGradShape)
      .Doc(doc);
}

}  // namespace

Status RegisterMatrixSegmentOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("MatrixBandPart")
          .Input("input: T")
          .Input("num_lower: Tindex")
          .Input("num_upper: Tindex")
          .Output("band: T")
          .Attr("T: type")
          .Attr("Tindex: {int32, int64} = DT_INT64")
          .SetShapeFn(MatrixBandPartShape)
          .Doc("input with the elements outside the band (num_lower below, num_upper above the "
               "diagonal; negative: all) set to zero."),
      OpDefBuilder("MatrixDiag")
          .Input("diagonal: T")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn(MatrixDiagShape)
          .Doc("Square matrices with the given main diagonals."),
      OpDefBuilder("MatrixDiagV2")
          .Input("diagonal: T")
          .Input("k: int32")
          .Input("num_rows: int32")
          .Input("num_cols: int32")
          .Input("padding_value: T")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn(MatrixDiagV3Shape)
          .Doc("Matrices with diagonals k[0]..k[1] given (LEFT_LEFT aligned), padding elsewhere."),
      OpDefBuilder("MatrixDiagV3")
          .Input("diagonal: T")
          .Input("k: int32")
          .Input("num_rows: int32")
          .Input("num_cols: int32")
          .Input("padding_value: T")
          .Output("output: T")
          .Attr("T: type")
          .Attr(kAlign)
          .SetShapeFn(MatrixDiagV3Shape)
          .Doc("Matrices with diagonals k[0]..k[1] given, padding elsewhere."),
      OpDefBuilder("MatrixDiagPart")
          .Input("input: T")
          .Output("diagonal: T")
          .Attr("T: type")
          .SetShapeFn(MatrixDiagPartShape)
          .Doc("The main diagonals of a batch of matrices."),
      OpDefBuilder("MatrixDiagPartV2")
          .Input("input: T")
          .Input("k: int32")
          .Input("padding_value: T")
          .Output("diagonal: T")
          .Attr("T: type")
          .SetShapeFn(MatrixDiagPartV3Shape)
          .Doc("Diagonals k[0]..k[1] of a batch of matrices (LEFT_LEFT aligned, padded)."),
      OpDefBuilder("MatrixDiagPartV3")
          .Input("input: T")
          .Input("k: int32")
          .Input("padding_value: T")
          .Output("diagonal: T")
          .Attr("T: type")
          .Attr(kAlign)
          .SetShapeFn(MatrixDiagPartV3Shape)
          .Doc("Diagonals k[0]..k[1] of a batch of matrices, aligned as `align`, padded."),
      OpDefBuilder("MatrixSetDiag")
          .Input("input: T")
          .Input("diagonal: T")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn(MatrixSetDiagShape)
          .Doc("input with its main diagonals replaced."),
      OpDefBuilder("MatrixSetDiagV2")
          .Input("input: T")
          .Input("diagonal: T")
          .Input("k: int32")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn(MatrixSetDiagShape)
          .Doc("input with diagonals k[0]..k[1] replaced (LEFT_LEFT aligned)."),
      OpDefBuilder("MatrixSetDiagV3")
          .Input("input: T")
          .Input("diagonal: T")
          .Input("k: int32")
          .Output("output: T")
          .Attr("T: type")
          .Attr(kAlign)
          .SetShapeFn(MatrixSetDiagShape)
          .Doc("input with diagonals k[0]..k[1] replaced, aligned as `align`."),
      OpDefBuilder("Diag")
          .Input("diagonal: T")
          .Output("output: T")
          .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
          .SetShapeFn(DiagShape)
          .Doc("output[i..., i...] = diagonal[i...], zero elsewhere (rank doubles)."),
      OpDefBuilder("DiagPart")
          .Input("input: T")
          .Output("diagonal: T")
          .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
          .SetShapeFn(DiagPartShape)
          .Doc("diagonal[i...] = input[i..., i...] (Diag's inverse)."),
      Segment("SegmentSum", "numbertype", "output[j] = sum of data[i] with segment_ids[i] == j "
                                          "(sorted ids)."),
      Segment("SegmentMean", "numbertype", "output[j] = mean of data[i] with segment_ids[i] == j "
                                           "(sorted ids; 0 for an empty segment)."),
      Segment("SegmentProd", "numbertype", "output[j] = product of data[i] with segment_ids[i] "
                                           "== j (sorted ids; 1 for an empty segment)."),
      Segment("SegmentMax", "realnumbertype", "output[j] = max of data[i] with segment_ids[i] "
                                              "== j (sorted ids; 0 for an empty segment)."),
      Segment("SegmentMin", "realnumbertype", "output[j] = min of data[i] with segment_ids[i] "
                                              "== j (sorted ids; 0 for an empty segment)."),
      UnsortedSegment("UnsortedSegmentMax", "output[j] = max of data[i...] with segment_ids[i...] "
                                            "== j (lowest value for an empty segment)."),
      UnsortedSegment("UnsortedSegmentMin", "output[j] = min of data[i...] with segment_ids[i...] "
                                            "== j (highest value for an empty segment)."),
      UnsortedSegment("UnsortedSegmentProd", "output[j] = product of data[i...] with "
                                             "segment_ids[i...] == j (1 for an empty segment)."),
      SparseSegment("SparseSegmentSum", kSparseSumTypes, false,
                    "output[j] = sum of data[indices[i]] with segment_ids[i] == j."),
      SparseSegment("SparseSegmentMean", kSparseMeanTypes, false,
                    "output[j] = mean of data[indices[i]] with segment_ids[i] == j."),
      SparseSegment("SparseSegmentSqrtN", kSparseMeanTypes, false,
                    "output[j] = sum of data[indices[i]] with segment_ids[i] == j over the "
                    "square root of their count."),
      SparseSegment("SparseSegmentSumWithNumSegments", kSparseSumTypes, true,
                    "SparseSegmentSum with num_segments output rows."),
      SparseSegment("SparseSegmentMeanWithNumSegments", kSparseMeanTypes, true,
                    "SparseSegmentMean with num_segments output rows."),
      SparseSegment("SparseSegmentSqrtNWithNumSegments", kSparseMeanTypes, true,
                    "SparseSegmentSqrtN with num_segments output rows."),
      SparseSegmentGrad("SparseSegmentSumGrad",
                        "output[indices[i]] += grad[segment_ids[i]] (SparseSegmentSum's "
                        "gradient, output_dim0 rows)."),
      SparseSegmentGrad("SparseSegmentMeanGrad",
                        "output[indices[i]] += grad[segment_ids[i]] / count(segment_ids[i])."),
      SparseSegmentGrad("SparseSegmentSqrtNGrad",
                        "output[indices[i]] += grad[segment_ids[i]] / "
                        "sqrt(count(segment_ids[i]))."),
  });
}

}  // namespace tgraph
