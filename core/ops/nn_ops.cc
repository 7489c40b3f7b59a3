// Neural-network ops: batched matrix products, bias, 2-D convolution, pooling, softmax and the
// cross-entropy losses. Signatures, attr names, defaults and type lists are TensorFlow's, so
// GraphDefs written by TF import here. (MatMul lives in math_ops.cc.)
#include <string>
#include <vector>

#include "core/base/checked_math.h"
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// ---- helpers ----------------------------------------------------------------------------

// Input `input` must have rank >= `min_rank`. Unknown rank stays unknown (*out unknown).
Status WithRankAtLeast(const InferenceContext& c, int input, int min_rank, PartialShape* out) {
  const PartialShape& shape = c.input_shape(input);
  if (shape.known_rank() && shape.rank() < min_rank) {
    return c.Error("input ", input, " must have rank at least ", min_rank, " but has shape ",
                   shape.ToString());
  }
  *out = shape;
  return Status::OK();
}

// Two dims that must agree where both are known; the known one wins.
Status MergeDim(const InferenceContext& c, int64_t a, int64_t b, const std::string& what,
                int64_t* out) {
  if (a >= 0 && b >= 0 && a != b) {
    return c.Error(what, " must be equal, but are ", a, " and ", b);
  }
  *out = a >= 0 ? a : b;
  return Status::OK();
}

constexpr int64_t kUnknownDim = PartialShape::kUnknownDim;

enum class Padding { kSame, kValid, kExplicit };

Status GetPadding(const InferenceContext& c, Padding* padding) {
  std::string s;
  TG_RETURN_IF_ERROR(c.GetAttr("padding", &s));
  if (s == "SAME") {
    *padding = Padding::kSame;
  } else if (s == "VALID") {
    *padding = Padding::kValid;
  } else if (s == "EXPLICIT") {
    *padding = Padding::kExplicit;
  } else {
    return c.Error("padding must be 'SAME', 'VALID' or 'EXPLICIT', got '", s, "'");
  }
  return Status::OK();
}

// The size of one spatial output dim; `in` or `k` may be -1 (unknown), giving -1.
Status WindowedOutputSize(const InferenceContext& c, const char* dim_name, int64_t in, int64_t k,
                          int64_t dilation, int64_t stride, Padding padding, int64_t pad_before,
                          int64_t pad_after, int64_t* out) {
  if (stride <= 0) {
    return c.Error("stride for the ", dim_name, " dimension must be > 0, got ", stride);
  }
  if (dilation <= 0) {
    return c.Error("dilation for the ", dim_name, " dimension must be > 0, got ", dilation);
  }
  if (k == 0 || k < -1) {
    return c.Error("window size for the ", dim_name, " dimension must be > 0, got ", k);
  }
  if (in < 0 || k < 0) {
    *out = -1;
    return Status::OK();
  }
  // Checked: window, stride and pads are attrs from the graph (found by the op_run fuzzer:
  // a stride of INT64_MAX overflowed `in + stride - 1`). in, k, dilation, stride >= 0 here.
  int64_t effective = 0, padded = in, size = 0;
  const auto too_large = [&] {
    return c.Error("the output size for the ", dim_name, " dimension does not fit in int64 ",
                   "(input size ", in, ", window ", k, ", dilation ", dilation, ", stride ", stride,
                   ", padding ", pad_before, " + ", pad_after, ")");
  };
  if (!CheckedMul(k - 1, dilation, &effective) || !CheckedAdd(effective, 1, &effective)) {
    return too_large();
  }
  if (padding == Padding::kExplicit &&
      (!CheckedAdd(padded, pad_before, &padded) || !CheckedAdd(padded, pad_after, &padded))) {
    return too_large();
  }
  // SAME: ceil(in / stride); VALID, EXPLICIT: (padded - effective + stride) / stride, with
  // the sum formed only where it cannot overflow (padded - effective cannot: both >= 0).
  if (padding == Padding::kSame) {
    size = in / stride + (in % stride != 0 ? 1 : 0);
  } else {
    const int64_t room = padded - effective;
    size = room >= 0 ? room / stride + 1 : (room + stride) / stride;
  }
  if (size < 0) {
    return c.Error("computed output size for the ", dim_name, " dimension would be negative ",
                   "(input size ", in, ", effective window size ", effective, ", stride ", stride,
                   ")");
  }
  *out = size;
  return Status::OK();
}

// Reads a list(int) attr that must have exactly four entries, all > 0 (strides, ksize,
// dilations).
Status GetFourPositive(const InferenceContext& c, const char* attr, std::vector<int64_t>* v) {
  TG_RETURN_IF_ERROR(c.GetAttr(attr, v));
  if (v->size() != 4) {
    return c.Error("attr '", attr, "' must contain 4 values, but has ", v->size());
  }
  for (size_t i = 0; i < 4; ++i) {
    if ((*v)[i] <= 0) {
      return c.Error("attr '", attr, "' must be > 0 in every dimension, got [", (*v)[0], ", ",
                     (*v)[1], ", ", (*v)[2], ", ", (*v)[3], "]");
    }
  }
  return Status::OK();
}

// Explicit paddings: 8 values (before/after for each of the 4 dims) when padding is
// EXPLICIT, none otherwise; batch and channel paddings must be zero; none negative.
Status GetExplicitPaddings(const InferenceContext& c, Padding padding, int n_dim, int c_dim,
                           std::vector<int64_t>* pads) {
  TG_RETURN_IF_ERROR(c.GetAttr("explicit_paddings", pads));
  if (padding != Padding::kExplicit) {
    if (!pads->empty()) {
      return c.Error("explicit_paddings must be empty unless padding is 'EXPLICIT', got ",
                     pads->size(), " values");
    }
    pads->assign(8, 0);
    return Status::OK();
  }
  if (pads->size() != 8) {
    return c.Error("explicit_paddings must contain 8 values for a 4-D input, but has ",
                   pads->size());
  }
  for (int64_t p : *pads) {
    if (p < 0) return c.Error("explicit_paddings must be non-negative, got ", p);
  }
  for (int d : {n_dim, c_dim}) {
    if ((*pads)[2 * static_cast<size_t>(d)] != 0 || (*pads)[2 * static_cast<size_t>(d) + 1] != 0) {
      return c.Error("explicit_paddings in the batch and channel dimensions must be zero");
    }
  }
  return Status::OK();
}

// Positions of N, H, W, C for a 4-D data_format.
struct Layout {
  int n, h, w, c;
};

Status GetLayout(const InferenceContext& c, Layout* layout, bool* known) {
  std::string format;
  TG_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  *known = true;
  if (format == "NHWC") {
    *layout = {0, 1, 2, 3};
  } else if (format == "NCHW") {
    *layout = {0, 2, 3, 1};
  } else if (format == "NCHW_VECT_C") {
    *known = false;  // 5-D with a vectorised channel; shapes left unknown
  } else {
    return c.Error("unknown data_format '", format, "'");
  }
  return Status::OK();
}

// ---- shape functions ---------------------------------------------------------------------

}  // namespace

// [..., m, k] x [..., k, n] -> [broadcast(...), m, n], after the optional adjoints.
Status BatchMatMulV2Shape(InferenceContext& c) {
  PartialShape x, y;
  TG_RETURN_IF_ERROR(WithRankAtLeast(c, 0, 2, &x));
  TG_RETURN_IF_ERROR(WithRankAtLeast(c, 1, 2, &y));
  bool adj_x = false, adj_y = false;
  TG_RETURN_IF_ERROR(c.GetAttr("adj_x", &adj_x));
  TG_RETURN_IF_ERROR(c.GetAttr("adj_y", &adj_y));
  if (!x.known_rank() || !y.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int rx = x.rank(), ry = y.rank();
  const int64_t m = x.dim(adj_x ? rx - 1 : rx - 2);
  const int64_t k_x = x.dim(adj_x ? rx - 2 : rx - 1);
  const int64_t k_y = y.dim(adj_y ? ry - 1 : ry - 2);
  const int64_t n = y.dim(adj_y ? ry - 2 : ry - 1);
  if (k_x >= 0 && k_y >= 0 && k_x != k_y) {
    return c.Error("Dimensions must be equal, but are ", k_x, " and ", k_y,
                   ", for inputs with shapes ", x.ToString(), " and ", y.ToString(),
                   " (adj_x=", adj_x ? "true" : "false", ", adj_y=", adj_y ? "true" : "false", ")");
  }
  PartialShape x_batch(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 2));
  PartialShape y_batch(std::vector<int64_t>(y.dims().begin(), y.dims().end() - 2));
  PartialShape batch;
  Status s = shape_fns::BroadcastShapes(x_batch, y_batch, &batch);
  if (!s.ok()) return c.Error("batch dimensions do not broadcast: ", s.message());
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(m);
  dims.push_back(n);
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

namespace {

// Output = value's shape, whose channel dim must match the 1-D bias.
Status BiasAddShape(InferenceContext& c) {
  std::string format;
  TG_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  const bool nchw = format == "NCHW";
  PartialShape value, bias;
  TG_RETURN_IF_ERROR(WithRankAtLeast(c, 0, nchw ? 3 : 2, &value));
  TG_RETURN_IF_ERROR(c.WithRank(1, 1, &bias));
  if (!value.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = value.dims();
  const size_t channel = nchw ? 1 : dims.size() - 1;
  TG_RETURN_IF_ERROR(MergeDim(c, dims[channel], bias.dim(0),
                              "the channel dimension of value and the size of bias",
                              &dims[channel]));
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// input [N, H, W, C] (or NCHW) and filter [KH, KW, C / groups, OC]; for a depthwise
// convolution filter [KH, KW, C, M] and C * M output channels.
Status Conv2DShapeImpl(InferenceContext& c, bool depthwise) {
  Layout l{};
  bool layout_known = false;
  TG_RETURN_IF_ERROR(GetLayout(c, &l, &layout_known));
  if (!layout_known) return c.Error("data_format must be 'NHWC' or 'NCHW'");
  std::vector<int64_t> strides, dilations, pads;
  TG_RETURN_IF_ERROR(GetFourPositive(c, "strides", &strides));
  TG_RETURN_IF_ERROR(GetFourPositive(c, "dilations", &dilations));
  const size_t ln = static_cast<size_t>(l.n), lc = static_cast<size_t>(l.c);
  const size_t lh = static_cast<size_t>(l.h), lw = static_cast<size_t>(l.w);
  if (strides[ln] != 1 || strides[lc] != 1) {
    return c.Error("strides in the batch and depth dimensions must be 1");
  }
  if (dilations[ln] != 1 || dilations[lc] != 1) {
    return c.Error("dilations in the batch and depth dimensions must be 1");
  }
  Padding padding;
  TG_RETURN_IF_ERROR(GetPadding(c, &padding));
  TG_RETURN_IF_ERROR(GetExplicitPaddings(c, padding, l.n, l.c, &pads));
  PartialShape input, filter;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &input));
  TG_RETURN_IF_ERROR(c.WithRank(1, 4, &filter));
  const int64_t in_depth = input.dim(l.c), filter_in_depth = filter.dim(2);
  if (depthwise && in_depth >= 0 && filter_in_depth >= 0 && in_depth != filter_in_depth) {
    return c.Error("input depth ", in_depth, " must equal the filter's input depth ",
                   filter_in_depth, " (input ", input.ToString(), ", filter ", filter.ToString(),
                   ")");
  }
  if (!depthwise && in_depth >= 0 && filter_in_depth >= 0) {
    if (filter_in_depth == 0 || in_depth % filter_in_depth != 0) {
      return c.Error("input depth ", in_depth, " must be a multiple of the filter's input depth ",
                     filter_in_depth, " (input ", input.ToString(), ", filter ",
                     filter.ToString(), ")");
    }
  }
  int64_t out_h = 0, out_w = 0;
  TG_RETURN_IF_ERROR(WindowedOutputSize(c, "height", input.dim(l.h), filter.dim(0), dilations[lh],
                                        strides[lh], padding, pads[2 * lh], pads[2 * lh + 1],
                                        &out_h));
  TG_RETURN_IF_ERROR(WindowedOutputSize(c, "width", input.dim(l.w), filter.dim(1), dilations[lw],
                                        strides[lw], padding, pads[2 * lw], pads[2 * lw + 1],
                                        &out_w));
  std::vector<int64_t> out(4);
  out[ln] = input.dim(l.n);
  out[lh] = out_h;
  out[lw] = out_w;
  out[lc] = filter.dim(3);
  if (depthwise) {
    const int64_t depth = in_depth >= 0 ? in_depth : filter_in_depth;
    out[lc] = depth >= 0 && filter.dim(3) >= 0 ? depth * filter.dim(3) : kUnknownDim;
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// Conv3D: [N, D, H, W, C] * [KD, KH, KW, C, OC] -> [N, OD, OH, OW, OC] (NDHWC; NCDHW moves C
// to dim 1). Five strides and dilations, 1 on batch and channels.
Status Conv3DShape(InferenceContext& c) {
  std::string format;
  TG_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  const bool nchw = format == "NCDHW";
  std::vector<int64_t> strides, dilations;
  TG_RETURN_IF_ERROR(c.GetAttr("strides", &strides));
  TG_RETURN_IF_ERROR(c.GetAttr("dilations", &dilations));
  if (strides.size() != 5 || dilations.size() != 5) {
    return c.Error("strides and dilations must have 5 values, got ", strides.size(), " and ",
                   dilations.size());
  }
  const size_t cd = nchw ? 1 : 4, sp = nchw ? 2 : 1;  // channel dim, first spatial dim
  if (strides[0] != 1 || strides[cd] != 1 || dilations[0] != 1 || dilations[cd] != 1) {
    return c.Error("strides and dilations in the batch and depth dimensions must be 1");
  }
  Padding padding;
  TG_RETURN_IF_ERROR(GetPadding(c, &padding));
  PartialShape input, filter;
  TG_RETURN_IF_ERROR(c.WithRank(0, 5, &input));
  TG_RETURN_IF_ERROR(c.WithRank(1, 5, &filter));
  const int64_t in_depth = input.dim(static_cast<int>(cd)), filter_in_depth = filter.dim(3);
  if (in_depth >= 0 && filter_in_depth >= 0 && (filter_in_depth == 0 || in_depth % filter_in_depth != 0)) {
    return c.Error("input depth ", in_depth, " must be a multiple of the filter's input depth ",
                   filter_in_depth, " (input ", input.ToString(), ", filter ", filter.ToString(), ")");
  }
  std::vector<int64_t> out(5, kUnknownDim);
  out[0] = input.dim(0);
  out[cd] = filter.dim(4);
  const char* names[3] = {"depth", "height", "width"};
  for (size_t k = 0; k < 3; ++k) {
    TG_RETURN_IF_ERROR(WindowedOutputSize(c, names[k], input.dim(static_cast<int>(sp + k)),
                                          filter.dim(static_cast<int>(k)), dilations[sp + k],
                                          strides[sp + k], padding, 0, 0, &out[sp + k]));
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// Pooling over a 4-D input: every dim is windowed by ksize/strides (batch and depth windows
// of 1 leave those dims as they are).
Status PoolShape(InferenceContext& c, bool has_explicit) {
  Layout l{};
  bool layout_known = false;
  TG_RETURN_IF_ERROR(GetLayout(c, &l, &layout_known));
  std::vector<int64_t> ksize, strides, pads;
  TG_RETURN_IF_ERROR(GetFourPositive(c, "ksize", &ksize));
  TG_RETURN_IF_ERROR(GetFourPositive(c, "strides", &strides));
  Padding padding;
  TG_RETURN_IF_ERROR(GetPadding(c, &padding));
  if (!has_explicit && padding == Padding::kExplicit) {
    return c.Error("padding 'EXPLICIT' is not supported by ", c.op_type());
  }
  if (!layout_known) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (has_explicit) {
    TG_RETURN_IF_ERROR(GetExplicitPaddings(c, padding, l.n, l.c, &pads));
  } else {
    pads.assign(8, 0);
  }
  PartialShape input;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &input));
  static const char* const kNames[4] = {"batch", "height", "width", "depth"};
  const int order[4] = {l.n, l.h, l.w, l.c};
  std::vector<int64_t> out(4);
  for (int i = 0; i < 4; ++i) {
    const size_t d = static_cast<size_t>(order[i]);
    TG_RETURN_IF_ERROR(WindowedOutputSize(c, kNames[i], input.dim(order[i]), ksize[d], 1,
                                          strides[d], padding, pads[2 * d], pads[2 * d + 1],
                                          &out[d]));
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

Status AvgPoolShape(InferenceContext& c) { return PoolShape(c, /*has_explicit=*/false); }

Status SoftmaxShape(InferenceContext& c) {
  PartialShape logits;
  TG_RETURN_IF_ERROR(WithRankAtLeast(c, 0, 1, &logits));
  c.set_output(0, logits);
  return Status::OK();
}

// features and labels broadcast to [batch, classes]: loss [batch], backprop [batch, classes].
Status SoftmaxCrossEntropyShape(InferenceContext& c) {
  PartialShape merged;
  const PartialShape& f = c.input_shape(0);
  const PartialShape& l = c.input_shape(1);
  PartialShape out;
  if (f.known_rank() && f.rank() == 2 && f.Merge(l, &merged).ok()) {
    out = merged;
  } else {
    Status s = shape_fns::BroadcastShapes(f, l, &out);
    if (!s.ok()) {
      return c.Error("features and labels must be broadcastable: ", s.message());
    }
    if (!out.known_rank()) {
      if ((f.known_rank() && f.rank() > 2) || (l.known_rank() && l.rank() > 2)) {
        return c.Error("features and labels must broadcast to rank 2, but have shapes ",
                       f.ToString(), " and ", l.ToString());
      }
      out = PartialShape::UnknownOfRank(2);
    } else if (out.rank() != 2) {
      return c.Error("features and labels must broadcast to rank 2, but have shapes ",
                     f.ToString(), " and ", l.ToString());
    }
  }
  c.set_output(0, PartialShape{out.dim(0)});
  c.set_output(1, out);
  return Status::OK();
}

// features [batch, classes], labels [batch].
Status SparseSoftmaxCrossEntropyShape(InferenceContext& c) {
  PartialShape features, labels;
  TG_RETURN_IF_ERROR(c.WithRank(0, 2, &features));
  TG_RETURN_IF_ERROR(c.WithRank(1, 1, &labels));
  int64_t batch = 0;
  TG_RETURN_IF_ERROR(MergeDim(c, features.dim(0), labels.dim(0),
                              "the batch sizes of features and labels", &batch));
  c.set_output(0, PartialShape{batch});
  c.set_output(1, PartialShape{batch, features.dim(1)});
  return Status::OK();
}

}  // namespace

Status MaxPoolShape(InferenceContext& c) { return PoolShape(c, /*has_explicit=*/true); }

// Shared with _FusedConv2D (fused_ops.cc).
Status Conv2DShape(InferenceContext& c) { return Conv2DShapeImpl(c, /*depthwise=*/false); }
Status DepthwiseConv2dShape(InferenceContext& c) { return Conv2DShapeImpl(c, /*depthwise=*/true); }

// ExtractImagePatches: [N, H, W, D] -> [N, out_h, out_w, KH * KW * D], each output pixel
// one window (dilated by `rates`) flattened in (row, column, depth) order.
Status ExtractImagePatchesShape(InferenceContext& c) {
  std::vector<int64_t> ksizes, strides, rates;
  TG_RETURN_IF_ERROR(GetFourPositive(c, "ksizes", &ksizes));
  TG_RETURN_IF_ERROR(GetFourPositive(c, "strides", &strides));
  TG_RETURN_IF_ERROR(GetFourPositive(c, "rates", &rates));
  if (ksizes[0] != 1 || ksizes[3] != 1 || strides[0] != 1 || strides[3] != 1 || rates[0] != 1 ||
      rates[3] != 1) {
    return c.Error("ExtractImagePatches takes windows, strides and rates over the rows and "
                   "columns only: their batch and depth entries must be 1");
  }
  Padding padding;
  TG_RETURN_IF_ERROR(GetPadding(c, &padding));
  PartialShape input;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &input));
  std::vector<int64_t> out = {input.dim(0), 0, 0, kUnknownDim};
  TG_RETURN_IF_ERROR(WindowedOutputSize(c, "rows", input.dim(1), ksizes[1], rates[1], strides[1],
                                        padding, 0, 0, &out[1]));
  TG_RETURN_IF_ERROR(WindowedOutputSize(c, "cols", input.dim(2), ksizes[2], rates[2], strides[2],
                                        padding, 0, 0, &out[2]));
  if (input.dim(3) >= 0) out[3] = ksizes[1] * ksizes[2] * input.dim(3);
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// MaxPoolWithArgmax: NHWC windows over height and width; the pooled values and their argmax
// have one shape.
Status MaxPoolWithArgmaxShape(InferenceContext& c) {
  std::vector<int64_t> ksize, strides;
  TG_RETURN_IF_ERROR(GetFourPositive(c, "ksize", &ksize));
  TG_RETURN_IF_ERROR(GetFourPositive(c, "strides", &strides));
  Padding padding;
  TG_RETURN_IF_ERROR(GetPadding(c, &padding));
  PartialShape input;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &input));
  std::vector<int64_t> out = {input.dim(0), 0, 0, input.dim(3)};
  TG_RETURN_IF_ERROR(WindowedOutputSize(c, "height", input.dim(1), ksize[1], 1, strides[1], padding,
                                        0, 0, &out[1]));
  TG_RETURN_IF_ERROR(WindowedOutputSize(c, "width", input.dim(2), ksize[2], 1, strides[2], padding,
                                        0, 0, &out[2]));
  c.set_output(0, PartialShape(out));
  c.set_output(1, PartialShape(std::move(out)));
  return Status::OK();
}

// The gradient of ExtractImagePatches: the image's shape, from input_sizes when constant.
Status ExtractImagePatchesGradShape(InferenceContext& c) {
  PartialShape sizes;
  TG_RETURN_IF_ERROR(c.WithRank(1, 1, &sizes));
  const Tensor* value = c.input_value(1);
  if (value == nullptr || value->dtype() != DT_INT32) {
    c.set_output(0, PartialShape::UnknownOfRank(4));
    return Status::OK();
  }
  if (value->NumElements() != 4) {
    return c.Error("input_sizes must have 4 entries, got ", value->NumElements());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < 4; ++i) dims.push_back(value->flat<int32_t>()[i]);
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// Inputs of one shape (an activation's gradient and its features or outputs); the output too.
Status SameShapePairShape(InferenceContext& c) {
  PartialShape merged;
  if (!c.input_shape(0).Merge(c.input_shape(1), &merged).ok()) {
    return c.Error("the two inputs must have one shape, but are ", c.input_shape(0).ToString(),
                   " and ", c.input_shape(1).ToString());
  }
  c.set_output(0, merged);
  return Status::OK();
}

// LRNGrad: three 4-D inputs of one shape (input_grads, input_image, output_image).
Status LrnGradShape(InferenceContext& c) {
  PartialShape merged = PartialShape::UnknownOfRank(4);
  for (int i = 0; i < 3; ++i) {
    PartialShape in;
    TG_RETURN_IF_ERROR(c.WithRank(i, 4, &in));
    if (!merged.Merge(in, &merged).ok()) {
      return c.Error("input_grads, input_image and output_image must have one shape, but input ",
                     i, " is ", in.ToString());
    }
  }
  c.set_output(0, merged);
  return Status::OK();
}

Status RegisterNnOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      // grad_x / grad_y arrived in TF 2.12 (with MatMul's grad_a / grad_b).
      OpDefBuilder("BatchMatMulV2")
          .Input("x: T").Input("y: T").Output("output: T")
          .Attr("T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, "
                "uint32, uint64, complex64, complex128}")
          .Attr("adj_x: bool = false")
          .Attr("adj_y: bool = false")
          .Attr("grad_x: bool = false")
          .Attr("grad_y: bool = false")
          .NewerThanTf1("grad_x")
          .NewerThanTf1("grad_y")
          .SetShapeFn(BatchMatMulV2Shape)
          .Doc("Batched matrix products of x and y, broadcasting the batch dimensions."),
      OpDefBuilder("BiasAdd")
          .Attr("T: numbertype")
          .Input("value: T").Input("bias: T")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Output("output: T")
          .SetShapeFn(BiasAddShape)
          .Doc("Adds the 1-D bias to value's channel dimension."),
      OpDefBuilder("Conv2D")
          .Input("input: T").Input("filter: T").Output("output: T")
          .Attr("T: {half, bfloat16, float, double, int32}")
          .Attr("strides: list(int)")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(Conv2DShape)
          .Doc("2-D convolution of a 4-D input with a 4-D filter."),
      OpDefBuilder("Conv3D")
          .Input("input: T").Input("filter: T").Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int) >= 5")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
          .SetShapeFn(Conv3DShape)
          .Doc("3-D convolution of a 5-D input with a 5-D filter."),
      OpDefBuilder("DepthwiseConv2dNative")
          .Input("input: T").Input("filter: T").Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(DepthwiseConv2dShape)
          .Doc("Depthwise 2-D convolution: each input channel with its own channel_multiplier "
               "filters (filter [KH, KW, C, M], C * M output channels)."),
      OpDefBuilder("MaxPool")
          .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, "
                "qint8} = DT_FLOAT")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
          .Input("input: T")
          .Output("output: T")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(MaxPoolShape)
          .Doc("Max pooling over a 4-D input."),
      OpDefBuilder("AvgPool")
          .Input("value: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(AvgPoolShape)
          .Doc("Average pooling over a 4-D input (padding excluded from the average)."),
      OpDefBuilder("Softmax")
          .Input("logits: T")
          .Output("softmax: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(SoftmaxShape)
          .Doc("Softmax over the last dimension."),
      OpDefBuilder("LogSoftmax")
          .Input("logits: T")
          .Output("logsoftmax: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(SoftmaxShape)
          .Doc("Log-softmax over the last dimension."),
      OpDefBuilder("SoftmaxCrossEntropyWithLogits")
          .Input("features: T")
          .Input("labels: T")
          .Output("loss: T")
          .Output("backprop: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(SoftmaxCrossEntropyShape)
          .Doc("Softmax cross-entropy loss per row, and its gradient."),
      OpDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
          .Input("features: T")
          .Input("labels: Tlabels")
          .Output("loss: T")
          .Output("backprop: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("Tlabels: {int32, int64} = DT_INT64")
          .SetShapeFn(SparseSoftmaxCrossEntropyShape)
          .Doc("Softmax cross-entropy loss per row with class-index labels, and its gradient."),
      OpDefBuilder("LeakyRelu")
          .Input("features: T").Output("activations: T")
          .Attr("alpha: float = 0.2")
          .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("features where positive, else alpha * features."),
      OpDefBuilder("Selu")
          .Input("features: T").Output("activations: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("scale * features where positive, else scale * alpha * (exp(features) - 1)."),
      OpDefBuilder("LeakyReluGrad")
          .Input("gradients: T").Input("features: T").Output("backprops: T")
          .Attr("alpha: float = 0.2")
          .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
          .SetShapeFn(SameShapePairShape)
          .Doc("gradients where features > 0, else alpha * gradients."),
      OpDefBuilder("SeluGrad")
          .Input("gradients: T").Input("outputs: T").Output("backprops: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(SameShapePairShape)
          .Doc("gradients * (outputs + scale * alpha) where outputs < 0, else gradients * scale."),
      OpDefBuilder("LRN")
          .Input("input: T").Output("output: T")
          .Attr("depth_radius: int = 5")
          .Attr("bias: float = 1")
          .Attr("alpha: float = 1")
          .Attr("beta: float = 0.5")
          .Attr("T: {half, bfloat16, float} = DT_FLOAT")
          .SetShapeFn([](InferenceContext& c) {
            PartialShape in;
            TG_RETURN_IF_ERROR(c.WithRank(0, 4, &in));
            c.set_output(0, in);
            return Status::OK();
          })
          .Doc("Local response normalization over the depth of a 4-D NHWC input: input / "
               "(bias + alpha * sum of the squares within depth_radius channels) ^ beta."),
      OpDefBuilder("LRNGrad")
          .Input("input_grads: T").Input("input_image: T").Input("output_image: T")
          .Output("output: T")
          .Attr("depth_radius: int = 5")
          .Attr("bias: float = 1")
          .Attr("alpha: float = 1")
          .Attr("beta: float = 0.5")
          .Attr("T: {half, bfloat16, float} = DT_FLOAT")
          .SetShapeFn(LrnGradShape)
          .Doc("The gradient of LRN with respect to its input."),
      OpDefBuilder("MaxPoolWithArgmax")
          .Input("input: T").Output("output: T").Output("argmax: Targmax")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("Targmax: {int32, int64} = DT_INT64")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("include_batch_in_index: bool = false")
          .Attr("T: realnumbertype")
          .SetShapeFn(MaxPoolWithArgmaxShape)
          .Doc("MaxPool of an NHWC input, and where each maximum was: the flat index ((b * H + "
               "y) * W + x) * C + c, without b unless include_batch_in_index."),
      OpDefBuilder("MaxPoolGradWithArgmax")
          .Input("input: T").Input("grad: T").Input("argmax: Targmax").Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("include_batch_in_index: bool = false")
          .Attr("Targmax: {int32, int64}")
          .Attr("T: realnumbertype")
          .SetShapeFn([](InferenceContext& c) {
            PartialShape in;
            TG_RETURN_IF_ERROR(c.WithRank(0, 4, &in));
            c.set_output(0, in);
            return Status::OK();
          })
          .Doc("The gradient of MaxPoolWithArgmax: each grad element added at its argmax."),
      OpDefBuilder("ExtractImagePatches")
          .Input("images: T").Output("patches: T")
          .Attr("ksizes: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("rates: list(int) >= 4")
          .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, "
                "uint32, uint64, complex64, complex128, bool}")
          .Attr("padding: {'SAME', 'VALID'}")
          .SetShapeFn(ExtractImagePatchesShape)
          .Doc("The image's windows (dilated by rates) as the depth of each output pixel, in "
               "(row, column, depth) order; positions in the padding are zero."),
      OpDefBuilder("_ExtractImagePatchesGrad")
          .Input("grad: T").Input("input_sizes: int32").Output("output: T")
          .Attr("ksizes: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("rates: list(int) >= 4")
          .Attr("T: {bfloat16, half, float, double}")
          .Attr("padding: {'SAME', 'VALID'}")
          .SetShapeFn(ExtractImagePatchesGradShape)
          .Doc("tgraph's gradient of ExtractImagePatches: each patch element's gradient summed "
               "into the image position it was read from."),
      OpDefBuilder("L2Loss")
          .Input("t: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("sum(t ** 2) / 2."),
  });
}

}  // namespace tgraph
