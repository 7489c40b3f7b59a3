// Array ops that re-lay elements out, as frozen TF models use them: PadV2 (a constant other
// than zero), MirrorPad, ReverseV2, SpaceToDepth / DepthToSpace and SpaceToBatchND /
// BatchToSpaceND (what TF1 lowers dilated convolutions to). Signatures, attrs and defaults
// are TensorFlow's.
#include <string>
#include <vector>

#include "core/base/checked_math.h"
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

using shape_fns::ConstInts;

constexpr int64_t kUnknown = PartialShape::kUnknownDim;

// Input 0 padded by the constant [rank, 2] paddings in input 1 (PadV2, MirrorPad). With
// `mirror_limit` >= 0 each padding must be at most dim - mirror_limit (REFLECT: dim - 1,
// SYMMETRIC: dim).
Status PaddedShape(InferenceContext& c, int64_t mirror_limit) {
  const PartialShape& input = c.input_shape(0);
  const PartialShape& pads_shape = c.input_shape(1);
  if (pads_shape.known_rank() &&
      (pads_shape.rank() != 2 || (pads_shape.dim(1) >= 0 && pads_shape.dim(1) != 2) ||
       (input.known_rank() && pads_shape.dim(0) >= 0 && pads_shape.dim(0) != input.rank()))) {
    return c.Error("paddings must be a matrix of shape [rank, 2] for input ", input.ToString(),
                   ", but has shape ", pads_shape.ToString());
  }
  auto pads = ConstInts(c, 1);
  int64_t rank = input.known_rank() ? input.rank() : kUnknown;
  if (rank < 0 && pads_shape.known_rank() && pads_shape.dim(0) >= 0) rank = pads_shape.dim(0);
  if (!pads || rank < 0) {
    c.set_output(0, rank >= 0 ? PartialShape::UnknownOfRank(static_cast<int>(rank))
                              : PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims(static_cast<size_t>(rank), kUnknown);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t before = (*pads)[static_cast<size_t>(2 * d)];
    const int64_t after = (*pads)[static_cast<size_t>(2 * d + 1)];
    if (before < 0 || after < 0) {
      return c.Error("paddings must be non-negative, got ", before, " and ", after,
                     " for dimension ", d);
    }
    const int64_t in = input.known_rank() ? input.dim(static_cast<int>(d)) : kUnknown;
    if (in < 0) continue;
    if (mirror_limit >= 0 && (before > in - mirror_limit || after > in - mirror_limit)) {
      return c.Error("paddings ", before, " and ", after, " of dimension ", d,
                     " must be no greater than ", in - mirror_limit, " (input ",
                     input.ToString(), ")");
    }
    int64_t out = 0;
    if (!CheckedAdd(in, before, &out) || !CheckedAdd(out, after, &out)) {
      return c.Error("dimension ", d, " of ", input.ToString(), " padded by ", before, " and ",
                     after, " does not fit in int64");
    }
    dims[static_cast<size_t>(d)] = out;
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status PadV2Shape(InferenceContext& c) {
  const PartialShape& value = c.input_shape(2);
  if (value.known_rank() && value.rank() != 0) {
    return c.Error("constant_values must be a scalar, but has shape ", value.ToString());
  }
  return PaddedShape(c, -1);
}

Status MirrorPadShape(InferenceContext& c) {
  std::string mode;
  TG_RETURN_IF_ERROR(c.GetAttr("mode", &mode));
  return PaddedShape(c, mode == "REFLECT" ? 1 : 0);
}

// MirrorPadGrad: the padded gradient folded back, input dims minus the constant paddings.
Status MirrorPadGradShape(InferenceContext& c) {
  const PartialShape& input = c.input_shape(0);
  auto pads = ConstInts(c, 1);
  if (!input.known_rank() || !pads) {
    c.set_output(0, input.known_rank() ? PartialShape::UnknownOfRank(input.rank())
                                       : PartialShape::Unknown());
    return Status::OK();
  }
  if (pads->size() != 2 * static_cast<size_t>(input.rank())) {
    return c.Error("paddings must be a [", input.rank(), ", 2] matrix for input ",
                   input.ToString());
  }
  std::vector<int64_t> dims = input.dims();
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t p = 0;
    if (!CheckedAdd((*pads)[2 * d], (*pads)[2 * d + 1], &p)) {
      return c.Error("paddings of dimension ", d, " do not fit in int64");
    }
    if (dims[d] >= 0) {
      if (p > dims[d]) return c.Error("paddings exceed dimension ", d, " of ", input.ToString());
      if (!CheckedSub(dims[d], p, &dims[d])) {
        return c.Error("paddings of dimension ", d, " do not fit in int64");
      }
    }
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// ReverseV2: the input's shape; constant axes must be in range and distinct.
Status ReverseV2Shape(InferenceContext& c) {
  const PartialShape& input = c.input_shape(0);
  auto axes = ConstInts(c, 1);
  if (axes && input.known_rank()) {
    const int64_t rank = input.rank();
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t a : *axes) {
      if (a < -rank || a >= rank) {
        return c.Error("axis ", a, " is out of range for a tensor of rank ", rank);
      }
      const size_t k = static_cast<size_t>(a < 0 ? a + rank : a);
      if (seen[k]) return c.Error("axis ", a, " is given more than once");
      seen[k] = true;
    }
  }
  c.set_output(0, input);
  return Status::OK();
}

// ReverseSequence: the input's shape; seq_dim and batch_dim distinct and in range,
// seq_lengths a vector as long as the batch dimension.
Status ReverseSequenceShape(InferenceContext& c) {
  const PartialShape& input = c.input_shape(0);
  int64_t seq_dim = 0, batch_dim = 0;
  TG_RETURN_IF_ERROR(c.GetAttr("seq_dim", &seq_dim));
  TG_RETURN_IF_ERROR(c.GetAttr("batch_dim", &batch_dim));
  PartialShape lengths;
  TG_RETURN_IF_ERROR(c.WithRank(1, 1, &lengths));
  if (input.known_rank()) {
    const int64_t rank = input.rank();
    if (seq_dim == batch_dim) return c.Error("seq_dim and batch_dim are both ", seq_dim);
    for (int64_t d : {seq_dim, batch_dim}) {
      if (d < 0 || d >= rank) return c.Error("dimension ", d, " is out of range for rank ", rank);
    }
    const int64_t batch = input.dim(static_cast<int>(batch_dim));
    const int64_t n = lengths.dim(0);
    if (batch >= 0 && n >= 0 && batch != n) {
      return c.Error("seq_lengths has ", n, " entries but the batch dimension ", batch_dim,
                     " is ", batch);
    }
  }
  c.set_output(0, input);
  return Status::OK();
}

// SpaceToDepth / DepthToSpace, NHWC: [N, H, W, C] <-> [N, H / b, W / b, C * b * b].
Status SpaceDepthShape(InferenceContext& c, bool to_depth) {
  int64_t b = 0;
  std::string format;
  TG_RETURN_IF_ERROR(c.GetAttr("block_size", &b));
  TG_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  PartialShape in;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &in));
  const bool nchw = format == "NCHW";
  if (format == "NCHW_VECT_C") {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int hd = nchw ? 2 : 1, wd = nchw ? 3 : 2, cd = nchw ? 1 : 3;
  std::vector<int64_t> dims = in.dims();
  auto div = [&](int d, int64_t by, const char* what) -> Status {
    int64_t& v = dims[static_cast<size_t>(d)];
    if (v < 0) return Status::OK();
    if (v % by != 0) {
      return c.Error(what, " ", v, " is not divisible by ", by, " (input ", in.ToString(),
                     ", block_size ", b, ")");
    }
    v /= by;
    return Status::OK();
  };
  auto mul = [&](int d, int64_t by) -> Status {
    int64_t& v = dims[static_cast<size_t>(d)];
    if (v >= 0 && !CheckedMul(v, by, &v)) {
      return c.Error("input ", in.ToString(), " with block_size ", b, " gives a dimension that "
                     "does not fit in int64");
    }
    return Status::OK();
  };
  int64_t b2 = 0;
  if (b < 1 || !CheckedMul(b, b, &b2)) return c.Error("block_size ", b, " is out of range");
  if (to_depth) {
    TG_RETURN_IF_ERROR(div(hd, b, "height"));
    TG_RETURN_IF_ERROR(div(wd, b, "width"));
    TG_RETURN_IF_ERROR(mul(cd, b2));
  } else {
    TG_RETURN_IF_ERROR(div(cd, b2, "depth"));
    TG_RETURN_IF_ERROR(mul(hd, b));
    TG_RETURN_IF_ERROR(mul(wd, b));
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status SpaceToDepthShape(InferenceContext& c) { return SpaceDepthShape(c, true); }
Status DepthToSpaceShape(InferenceContext& c) { return SpaceDepthShape(c, false); }

// SpaceToBatchND / BatchToSpaceND: input [N, spatial (M dims)..., rest...], block_shape [M],
// paddings / crops [M, 2]. To batch: N * prod(block), (spatial + pads) / block. To space:
// N / prod(block), spatial * block - crops.
Status SpaceBatchShape(InferenceContext& c, bool to_batch) {
  const PartialShape& input = c.input_shape(0);
  auto block = ConstInts(c, 1);
  auto pads = ConstInts(c, 2);
  if (!input.known_rank() || !block || !pads) {
    c.set_output(0, input.known_rank() ? PartialShape::UnknownOfRank(input.rank())
                                       : PartialShape::Unknown());
    return Status::OK();
  }
  const size_t m = block->size();
  if (pads->size() != 2 * m || input.rank() < static_cast<int>(m) + 1) {
    return c.Error("block_shape ", m, " values, ", to_batch ? "paddings" : "crops", " ",
                   pads->size(), " values and input ", input.ToString(),
                   " do not fit: need [M], [M, 2] and rank >= M + 1");
  }
  std::vector<int64_t> dims = input.dims();
  int64_t prod = 1;
  for (size_t i = 0; i < m; ++i) {
    const int64_t b = (*block)[i], p0 = (*pads)[2 * i], p1 = (*pads)[2 * i + 1];
    if (b < 1) return c.Error("block_shape must be positive, got ", b);
    if (p0 < 0 || p1 < 0) return c.Error(to_batch ? "paddings" : "crops", " must be non-negative");
    if (!CheckedMul(prod, b, &prod)) return c.Error("the block_shape product does not fit in int64");
    int64_t& d = dims[i + 1];
    if (d < 0) continue;
    const auto too_large = [&] {
      return c.Error("spatial dimension ", i, " of ", input.ToString(), " with block_shape ", b,
                     " and ", to_batch ? "paddings " : "crops ", p0, ", ", p1,
                     " does not fit in int64");
    };
    if (to_batch) {
      int64_t padded = 0;
      if (!CheckedAdd(d, p0, &padded) || !CheckedAdd(padded, p1, &padded)) return too_large();
      if (padded % b != 0) {
        return c.Error("padded spatial dimension ", i, " (", padded,
                       ") is not divisible by block_shape ", b);
      }
      d = padded / b;
    } else {
      int64_t scaled = 0, crops = 0;
      if (!CheckedMul(d, b, &scaled) || !CheckedAdd(p0, p1, &crops)) return too_large();
      if (scaled < crops) return c.Error("crops are larger than spatial dimension ", i);
      d = scaled - crops;
    }
  }
  int64_t& n = dims[0];
  if (n >= 0) {
    if (!to_batch && n % prod != 0) {
      return c.Error("batch ", n, " is not divisible by the block_shape product ", prod);
    }
    if (to_batch && !CheckedMul(n, prod, &n)) {
      return c.Error("batch ", n, " times the block_shape product ", prod, " does not fit in int64");
    }
    if (!to_batch) n /= prod;
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status SpaceToBatchNDShape(InferenceContext& c) { return SpaceBatchShape(c, true); }
Status BatchToSpaceNDShape(InferenceContext& c) { return SpaceBatchShape(c, false); }

}  // namespace

Status RegisterArrayLayoutOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("PadV2")
          .Input("input: T").Input("paddings: Tpaddings").Input("constant_values: T")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tpaddings: {int32, int64} = DT_INT32")
          .SetShapeFn(PadV2Shape)
          .Doc("input padded with constant_values ([rank, 2] paddings: before, after)."),
      OpDefBuilder("MirrorPad")
          .Input("input: T").Input("paddings: Tpaddings").Output("output: T")
          .Attr("T: type")
          .Attr("Tpaddings: {int32, int64} = DT_INT32")
          .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
          .SetShapeFn(MirrorPadShape)
          .Doc("input padded with its own mirror image (REFLECT leaves the edge out, "
               "SYMMETRIC repeats it)."),
      OpDefBuilder("MirrorPadGrad")
          .Input("input: T").Input("paddings: Tpaddings").Output("output: T")
          .Attr("T: type")
          .Attr("Tpaddings: {int32, int64} = DT_INT32")
          .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
          .SetShapeFn(MirrorPadGradShape)
          .Doc("The gradient of MirrorPad: each padded position's gradient added back to the "
               "input position it mirrors."),
      OpDefBuilder("ReverseV2")
          .Input("tensor: T").Input("axis: Tidx").Output("output: T")
          .Attr("Tidx: {int32, int64} = DT_INT32")
          .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, "
                "half, float, double, complex64, complex128, string}")
          .SetShapeFn(ReverseV2Shape)
          .Doc("tensor with the given axes reversed."),
      OpDefBuilder("ReverseSequence")
          .Input("input: T").Input("seq_lengths: Tlen").Output("output: T")
          .Attr("seq_dim: int")
          .Attr("batch_dim: int = 0")
          .Attr("T: type")
          .Attr("Tlen: {int32, int64} = DT_INT64")
          .SetShapeFn(ReverseSequenceShape)
          .Doc("For each b along batch_dim, the first seq_lengths[b] elements along seq_dim "
               "reversed; the rest as they are (bidirectional RNNs)."),
      OpDefBuilder("SpaceToDepth")
          .Input("input: T").Output("output: T")
          .Attr("T: type")
          .Attr("block_size: int >= 2")
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
          .SetShapeFn(SpaceToDepthShape)
          .Doc("block_size x block_size spatial blocks moved into the depth dimension."),
      OpDefBuilder("DepthToSpace")
          .Input("input: T").Output("output: T")
          .Attr("T: type")
          .Attr("block_size: int >= 2")
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
          .SetShapeFn(DepthToSpaceShape)
          .Doc("Depth moved into block_size x block_size spatial blocks."),
      OpDefBuilder("SpaceToBatchND")
          .Input("input: T").Input("block_shape: Tblock_shape").Input("paddings: Tpaddings")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tblock_shape: {int32, int64} = DT_INT32")
          .Attr("Tpaddings: {int32, int64} = DT_INT32")
          .SetShapeFn(SpaceToBatchNDShape)
          .Doc("Spatial blocks of the padded input moved into the batch dimension."),
      OpDefBuilder("BatchToSpaceND")
          .Input("input: T").Input("block_shape: Tblock_shape").Input("crops: Tcrops")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tblock_shape: {int32, int64} = DT_INT32")
          .Attr("Tcrops: {int32, int64} = DT_INT32")
          .SetShapeFn(BatchToSpaceNDShape)
          .Doc("The inverse of SpaceToBatchND: batch moved back into spatial blocks, then "
               "cropped."),
  });
}

}  // namespace tgraph
