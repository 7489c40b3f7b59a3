// Backpropagation ops of convolution and pooling: what the gradients of Conv2D,
// DepthwiseConv2dNative, MaxPool and AvgPool build. Signatures, attr names, defaults and type
// lists are TensorFlow's, so GraphDefs written by TF import here. The output shapes come from
// the shape vector input (input_sizes, filter_sizes, orig_input_shape) when it is a
// constant, or from orig_input.
#include <optional>
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// Input `i` must be a vector; its values when it is a constant int32/int64 (each >= 0).
Status ShapeVectorInput(const InferenceContext& c, int i, const char* what,
                        std::optional<std::vector<int64_t>>* out) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() != 1) {
    return c.Error(what, " must be a vector, but has shape ", s.ToString());
  }
  *out = shape_fns::ConstInts(c, i);
  if (!*out) return Status::OK();
  for (size_t k = 0; k < (*out)->size(); ++k) {
    const int64_t v = (**out)[k];
    if (v < 0) return c.Error(what, "[", k, "] = ", v, " must be non-negative");
  }
  return Status::OK();
}

// Output 0 is the rank-`rank` shape held by vector input `i` (unknown dims where not
// constant).
Status RankNFromShapeInput(InferenceContext& c, int i, const char* what, int rank) {
  std::optional<std::vector<int64_t>> dims;
  TG_RETURN_IF_ERROR(ShapeVectorInput(c, i, what, &dims));
  if (!dims) {
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.dim(0) >= 0 && s.dim(0) != rank) {
      return c.Error(what, " must have ", rank, " elements, but has shape ", s.ToString());
    }
    c.set_output(0, PartialShape::UnknownOfRank(rank));
    return Status::OK();
  }
  if (dims->size() != static_cast<size_t>(rank)) {
    return c.Error(what, " must have ", rank, " elements, but has ", dims->size());
  }
  c.set_output(0, PartialShape(std::move(*dims)));
  return Status::OK();
}


// Conv3DBackpropInputV2 / FilterV2: the 5-D shape of input_sizes / filter_sizes.
Status Conv3DBackpropInputShape(InferenceContext& c) { return RankNFromShapeInput(c, 0, "input_sizes", 5); }
Status Conv3DBackpropFilterShape(InferenceContext& c) { return RankNFromShapeInput(c, 1, "filter_sizes", 5); }

// input_sizes holds the whole input shape (4 values) or, as TF also accepts, only its height
// and width (2 values): batch then comes from out_backprop, depth from the filter.
Status Conv2DBackpropInputShape(InferenceContext& c) {
  PartialShape filter, out_backprop;
  TG_RETURN_IF_ERROR(c.WithRank(1, 4, &filter));
  TG_RETURN_IF_ERROR(c.WithRank(2, 4, &out_backprop));
  std::optional<std::vector<int64_t>> sizes;
  TG_RETURN_IF_ERROR(ShapeVectorInput(c, 0, "input_sizes", &sizes));
  if (!sizes || sizes->size() == 4) return Rank4FromShapeInput(c, 0, "input_sizes");
  if (sizes->size() != 2) {
    return c.Error("input_sizes must have 4 or 2 elements, but has ", sizes->size());
  }
  std::string format;
  TG_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  const int64_t batch = out_backprop.dim(0), depth = filter.dim(2);
  const int64_t h = (*sizes)[0], w = (*sizes)[1];
  c.set_output(0, format == "NCHW" ? PartialShape{batch, depth, h, w}
                                   : PartialShape{batch, h, w, depth});
  return Status::OK();
}

Status Conv2DBackpropFilterShape(InferenceContext& c) {
  PartialShape input, out_backprop;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &input));
  TG_RETURN_IF_ERROR(c.WithRank(2, 4, &out_backprop));
  return Rank4FromShapeInput(c, 1, "filter_sizes");
}

// The gradient has orig_input's shape.
Status MaxPoolGradShape(InferenceContext& c) {
  PartialShape orig_input, orig_output, grad;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &orig_input));
  TG_RETURN_IF_ERROR(c.WithRank(1, 4, &orig_output));
  TG_RETURN_IF_ERROR(c.WithRank(2, 4, &grad));
  PartialShape merged;
  if (!orig_output.Merge(grad, &merged).ok()) {
    return c.Error("orig_output and grad must have the same shape, but have ",
                   orig_output.ToString(), " and ", grad.ToString());
  }
  c.set_output(0, orig_input);
  return Status::OK();
}

Status AvgPoolGradShape(InferenceContext& c) {
  PartialShape grad;
  TG_RETURN_IF_ERROR(c.WithRank(1, 4, &grad));
  return Rank4FromShapeInput(c, 0, "orig_input_shape");
}

}  // namespace

Status Rank4FromShapeInput(InferenceContext& c, int i, const char* what) {
  return RankNFromShapeInput(c, i, what, 4);
}

Status RegisterNnBackpropOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      // explicit_paddings (and padding 'EXPLICIT') arrived in TF 1.14, int32 in TF 2.x: as
      // for Conv2D, the attr is left out of exported GraphDefs while it holds its default.
      OpDefBuilder("Conv2DBackpropInput")
          .Input("input_sizes: int32")
          .Input("filter: T")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double, int32}")
          .Attr("strides: list(int)")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(Conv2DBackpropInputShape)
          .Doc("The gradient of Conv2D with respect to its input."),
      OpDefBuilder("Conv3DBackpropInputV2")
          .Input("input_sizes: Tshape")
          .Input("filter: T")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int) >= 5")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .SetShapeFn(Conv3DBackpropInputShape)
          .Doc("The gradient of Conv3D with respect to its input."),
      OpDefBuilder("Conv3DBackpropFilterV2")
          .Input("input: T")
          .Input("filter_sizes: int32")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int) >= 5")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
          .SetShapeFn(Conv3DBackpropFilterShape)
          .Doc("The gradient of Conv3D with respect to its filter."),
      OpDefBuilder("Conv2DBackpropFilter")
          .Input("input: T")
          .Input("filter_sizes: int32")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int)")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(Conv2DBackpropFilterShape)
          .Doc("The gradient of Conv2D with respect to its filter."),
      OpDefBuilder("DepthwiseConv2dNativeBackpropInput")
          .Input("input_sizes: int32")
          .Input("filter: T")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(Conv2DBackpropInputShape)
          .Doc("The gradient of DepthwiseConv2dNative with respect to its input."),
      OpDefBuilder("DepthwiseConv2dNativeBackpropFilter")
          .Input("input: T")
          .Input("filter_sizes: int32")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(Conv2DBackpropFilterShape)
          .Doc("The gradient of DepthwiseConv2dNative with respect to its filter."),
      OpDefBuilder("MaxPoolGrad")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Input("orig_input: T")
          .Input("orig_output: T")
          .Input("grad: T")
          .Output("output: T")
          .Attr("T: realnumbertype = DT_FLOAT")
          .NewerThanTf1("explicit_paddings")
          .SetShapeFn(MaxPoolGradShape)
          .Doc("The gradient of MaxPool: grad routed to the first maximum of each window."),
      OpDefBuilder("AvgPoolGrad")
          .Input("orig_input_shape: int32")
          .Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(AvgPoolGradShape)
          .Doc("The gradient of AvgPool: grad spread evenly over each window's input elements."),
  });
}

}  // namespace tgraph
