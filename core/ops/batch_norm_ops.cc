// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3: what every Keras BatchNormalization
// layer freezes into; and their gradients FusedBatchNormGrad{,V2,V3}, which TensorFlow's own
// training graphs hold (tgraph's autodiff builds the gradient from element-wise ops and
// reductions instead). Signatures, attrs and defaults are TensorFlow's, so GraphDefs written
// by TF import here.
#include <algorithm>
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {


// x is [N, H, W, C] (NHWC), [N, C, H, W] (NCHW) or, for V3, the 5-D NDHWC / NCDHW; scale and
// offset are [C], and so are mean and variance unless training without a running average
// (then they may be empty). y has x's shape; the statistics outputs are [C]. V3's sixth
// output (reserve_space_3) is empty on the CPU.
Status FusedBatchNormShape(InferenceContext& c) {
  std::string format;
  bool is_training = true;
  float factor = 1.0f;
  TG_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  TG_RETURN_IF_ERROR(c.GetAttr("is_training", &is_training));
  if (c.attrs().count("exponential_avg_factor") != 0) {
    TG_RETURN_IF_ERROR(c.GetAttr("exponential_avg_factor", &factor));
  }
  const bool five_d = format == "NDHWC" || format == "NCDHW";
  const bool channels_first = format == "NCHW" || format == "NCDHW";
  PartialShape x;
  TG_RETURN_IF_ERROR(c.WithRank(0, five_d ? 5 : 4, &x));
  int64_t channels = x.dim(channels_first ? 1 : x.rank() - 1);
  const bool stats_needed = !is_training || factor != 1.0f;
  static const char* const kNames[] = {"x", "scale", "offset", "mean", "variance"};
  for (int i = 1; i < 5; ++i) {
    PartialShape v;
    TG_RETURN_IF_ERROR(c.WithRank(i, 1, &v));
    if (i >= 3 && !stats_needed) continue;
    const int64_t d = v.dim(0);
    if (channels >= 0 && d >= 0 && channels != d) {
      return c.Error(kNames[i], " must have as many elements as x has channels (", channels,
                     "), but has shape ", v.ToString(), " (x ", x.ToString(), ", data_format ",
                     format, ")");
    }
    if (channels < 0) channels = d;
  }
  std::vector<int64_t> y = x.dims();
  y[channels_first ? 1 : y.size() - 1] = channels;
  c.set_output(0, PartialShape(std::move(y)));
  for (int i = 1; i < 5; ++i) c.set_output(i, PartialShape{channels});
  if (c.num_outputs() > 5) c.set_output(5, PartialShape{0});
  return Status::OK();
}

OpDefBuilder FusedBatchNormOp(const std::string& name, bool versioned) {
  OpDefBuilder b(name);
  const char* u = versioned ? "U" : "T";
  b.Input("x: T")
      .Input(std::string("scale: ") + u)
      .Input(std::string("offset: ") + u)
      .Input(std::string("mean: ") + u)
      .Input(std::string("variance: ") + u)
      .Output("y: T")
      .Output(std::string("batch_mean: ") + u)
      .Output(std::string("batch_variance: ") + u)
      .Output(std::string("reserve_space_1: ") + u)
      .Output(std::string("reserve_space_2: ") + u);
  if (name == "FusedBatchNormV3") {
    b.Output("reserve_space_3: U")
        .Attr("T: {half, bfloat16, float}")
        .Attr("U: {bfloat16, float}");
  } else if (versioned) {
    b.Attr("T: {half, bfloat16, float}").Attr("U: {float}");
  } else {
    b.Attr("T: {float}");
  }
  b.Attr("epsilon: float = 0.0001")
      .Attr("exponential_avg_factor: float = 1.0")
      .NewerThanTf1("exponential_avg_factor")
      .Attr(name == "FusedBatchNormV3"
                ? "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'"
                : "data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .Attr("is_training: bool = true")
      .SetShapeFn(FusedBatchNormShape)
      .Doc("Batch normalization over every dimension but the channels: with is_training, by "
           "the batch's statistics (and their running averages out); otherwise by the given "
           "mean and variance.");
  return b;
}

// y_backprop and x alike, of rank 4 (5 for V3's 3-D formats); scale and the reserve spaces
// (the forward pass's mean and variance) vectors of its channels. x_backprop has x's shape,
// the scale and offset gradients are [C], the two trailing outputs placeholders: scalars, as
// TensorFlow's kernels make them (its shape function says [0]).
Status FusedBatchNormGradShape(InferenceContext& c) {
  std::string format;
  TG_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  const bool five_d = format == "NDHWC" || format == "NCDHW";
  const bool channels_first = format == "NCHW" || format == "NCDHW";
  PartialShape dy, x;
  TG_RETURN_IF_ERROR(c.WithRank(0, five_d ? 5 : 4, &dy));
  TG_RETURN_IF_ERROR(c.WithRank(1, five_d ? 5 : 4, &x));
  PartialShape merged;
  if (!dy.Merge(x, &merged).ok()) {
    return c.Error("y_backprop ", dy.ToString(), " and x ", x.ToString(), " must have one shape");
  }
  int64_t channels = merged.dim(channels_first ? 1 : merged.rank() - 1);
  static const char* const kNames[] = {"y_backprop", "x", "scale", "reserve_space_1",
                                       "reserve_space_2", "reserve_space_3"};
  for (int i = 2; i < std::min(c.num_inputs(), 5); ++i) {
    PartialShape v;
    TG_RETURN_IF_ERROR(c.WithRank(i, 1, &v));
    const int64_t d = v.dim(0);
    if (channels >= 0 && d >= 0 && channels != d) {
      return c.Error(kNames[i], " must have as many elements as x has channels (", channels,
                     "), but has shape ", v.ToString());
    }
    if (channels < 0) channels = d;
  }
  std::vector<int64_t> dx = merged.dims();
  if (!dx.empty()) dx[channels_first ? 1 : dx.size() - 1] = channels;
  c.set_output(0, PartialShape(std::move(dx)));
  c.set_output(1, PartialShape{channels});
  c.set_output(2, PartialShape{channels});
  c.set_output(3, PartialShape(std::vector<int64_t>{}));
  c.set_output(4, PartialShape(std::vector<int64_t>{}));
  return Status::OK();
}

OpDefBuilder FusedBatchNormGradOp(const std::string& name, int version) {
  OpDefBuilder b(name);
  const char* u = version > 1 ? "U" : "T";
  b.Input("y_backprop: T")
      .Input("x: T")
      .Input(version > 1 ? "scale: float" : "scale: T")
      .Input(std::string("reserve_space_1: ") + u)
      .Input(std::string("reserve_space_2: ") + u);
  if (version == 3) b.Input("reserve_space_3: U");
  b.Output("x_backprop: T")
      .Output(std::string("scale_backprop: ") + u)
      .Output(std::string("offset_backprop: ") + u)
      .Output(std::string(version == 3 ? "reserve_space_4: " : "reserve_space_3: ") + u)
      .Output(std::string(version == 3 ? "reserve_space_5: " : "reserve_space_4: ") + u);
  if (version > 1) {
    b.Attr("T: {half, bfloat16, float}").Attr("U: {float}");
  } else {
    b.Attr("T: {float}");
  }
  b.Attr("epsilon: float = 0.0001")
      .Attr(version == 3 ? "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'"
                         : "data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .Attr("is_training: bool = true")
      .SetShapeFn(FusedBatchNormGradShape)
      .Doc("The gradients of a batch normalization with respect to x, scale and offset, from "
           "the forward pass's mean and variance (reserve_space_1 and _2): the batch's when "
           "is_training, else the given ones.");
  return b;
}

}  // namespace

Status RegisterBatchNormOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      FusedBatchNormOp("FusedBatchNorm", /*versioned=*/false),
      FusedBatchNormOp("FusedBatchNormV2", /*versioned=*/true),
      FusedBatchNormOp("FusedBatchNormV3", /*versioned=*/true),
      FusedBatchNormGradOp("FusedBatchNormGrad", 1),
      FusedBatchNormGradOp("FusedBatchNormGradV2", 2),
      FusedBatchNormGradOp("FusedBatchNormGradV3", 3),
  });
}

}  // namespace tgraph
