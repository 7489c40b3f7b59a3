// The ops 3-D CNNs and object-detection models use beyond the first families: 3-D pooling
// (MaxPool3D, AvgPool3D and their gradients' ops, MaxPool3DGradGrad) and the detection ops (NonMaxSuppression
// V1-V5, NonMaxSuppressionWithOverlaps, CropAndResize and its two gradients' ops). Signatures, attrs, defaults and type
// lists are TensorFlow's, so GraphDefs written by TF import here.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

constexpr int64_t kUnknownDim = PartialShape::kUnknownDim;

// The channel dim and the first spatial dim of a 5-D tensor in `format`.
Status Layout5(const InferenceContext& c, size_t* channel, size_t* spatial) {
  std::string format;
  TG_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  const bool channels_first = format == "NCDHW";
  *channel = channels_first ? 1 : 4;
  *spatial = channels_first ? 2 : 1;
  return Status::OK();
}

// The output size of one pooled dim (-1 when the input's is unknown).
Status PooledSize(const InferenceContext& c, const char* dim, int64_t in, int64_t k, int64_t s,
                  bool same, int64_t* out) {
  if (k <= 0 || s <= 0) {
    return c.Error("ksize and strides must be positive, got ", k, " and ", s, " for the ", dim,
                   " dimension");
  }
  if (in < 0) {
    *out = kUnknownDim;
  } else if (same) {
    *out = in / s + (in % s != 0);
  } else if (in < k) {
    return c.Error("the ", dim, " window (", k, ") is larger than the input (", in,
                   ") with VALID padding: the output size would be negative");
  } else {
    *out = (in - k) / s + 1;
  }
  return Status::OK();
}

// Reads ksize and strides (5 values each); `*same` is the padding.
Status Pool3DAttrs(const InferenceContext& c, size_t channel, std::vector<int64_t>* ksize,
                   std::vector<int64_t>* strides, bool* same) {
  std::string padding;
  TG_RETURN_IF_ERROR(c.GetAttr("ksize", ksize));
  TG_RETURN_IF_ERROR(c.GetAttr("strides", strides));
  TG_RETURN_IF_ERROR(c.GetAttr("padding", &padding));
  if (ksize->size() != 5 || strides->size() != 5) {
    return c.Error("ksize and strides must have 5 values, got ", ksize->size(), " and ",
                   strides->size());
  }
  // Windows over the batch or channels are the kernel's to refuse (UNIMPLEMENTED, as TF).
  (void)channel;
  *same = padding == "SAME";
  return Status::OK();
}

// MaxPool3D / AvgPool3D: a 5-D input pooled over depth, height and width.
Status Pool3DShape(InferenceContext& c) {
  size_t channel = 0, spatial = 0;
  TG_RETURN_IF_ERROR(Layout5(c, &channel, &spatial));
  std::vector<int64_t> ksize, strides;
  bool same = false;
  TG_RETURN_IF_ERROR(Pool3DAttrs(c, channel, &ksize, &strides, &same));
  PartialShape input;
  TG_RETURN_IF_ERROR(c.WithRank(0, 5, &input));
  std::vector<int64_t> out = input.dims();
  const char* names[3] = {"depth", "height", "width"};
  for (size_t k = 0; k < 3; ++k) {
    const size_t d = spatial + k;
    TG_RETURN_IF_ERROR(PooledSize(c, names[k], input.dim(static_cast<int>(d)), ksize[d],
                                  strides[d], same, &out[d]));
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// MaxPool3DGrad: orig_input's shape.
Status MaxPool3DGradShape(InferenceContext& c) {
  PartialShape input;
  TG_RETURN_IF_ERROR(c.WithRank(0, 5, &input));
  c.set_output(0, input);
  return Status::OK();
}

// MaxPool3DGradGrad: orig_output's shape.
Status MaxPool3DGradGradShape(InferenceContext& c) {
  PartialShape output;
  TG_RETURN_IF_ERROR(c.WithRank(1, 5, &output));
  c.set_output(0, output);
  return Status::OK();
}

// AvgPool3DGrad: the 5-D shape held by orig_input_shape.
Status AvgPool3DGradShape(InferenceContext& c) {
  const PartialShape& sizes = c.input_shape(0);
  if (sizes.known_rank() && (sizes.rank() != 1 || (sizes.dim(0) >= 0 && sizes.dim(0) != 5))) {
    return c.Error("orig_input_shape must be a vector of 5 values, but has shape ",
                   sizes.ToString());
  }
  if (auto v = shape_fns::ConstInts(c, 0); v && v->size() == 5) {
    c.set_output(0, PartialShape(*v));
  } else {
    c.set_output(0, PartialShape::UnknownOfRank(5));
  }
  return Status::OK();
}

// Input `i` must be a scalar (unknown rank passes).
Status Scalar(const InferenceContext& c, int i, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() != 0) {
    return c.Error(what, " must be a scalar, but has shape ", s.ToString());
  }
  return Status::OK();
}

// boxes [num_boxes, 4] and scores [num_boxes]; the thresholds from input 3 on are scalars.
Status CheckNmsInputs(const InferenceContext& c, int first_threshold, int num_thresholds) {
  PartialShape boxes, scores;
  TG_RETURN_IF_ERROR(c.WithRank(0, 2, &boxes));
  TG_RETURN_IF_ERROR(c.WithRank(1, 1, &scores));
  if (boxes.dim(1) >= 0 && boxes.dim(1) != 4) {
    return c.Error("boxes must have 4 columns, but has shape ", boxes.ToString());
  }
  if (boxes.dim(0) >= 0 && scores.dim(0) >= 0 && boxes.dim(0) != scores.dim(0)) {
    return c.Error("boxes ", boxes.ToString(), " and scores ", scores.ToString(),
                   " must have the same number of boxes");
  }
  TG_RETURN_IF_ERROR(Scalar(c, 2, "max_output_size"));
  for (int i = first_threshold; i < first_threshold + num_thresholds; ++i) {
    TG_RETURN_IF_ERROR(Scalar(c, i, "each threshold"));
  }
  return Status::OK();
}

// The selected indices: as many as were selected, or max_output_size when padded (its value
// when constant).
PartialShape SelectedShape(const InferenceContext& c, bool padded) {
  if (padded) {
    if (auto v = shape_fns::ConstInts(c, 2); v && v->size() == 1 && (*v)[0] >= 0) {
      return PartialShape{(*v)[0]};
    }
  }
  return PartialShape{kUnknownDim};
}

Status NmsV1Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(CheckNmsInputs(c, 3, 0));
  c.set_output(0, SelectedShape(c, false));
  return Status::OK();
}

Status NmsV2Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(CheckNmsInputs(c, 3, 1));
  c.set_output(0, SelectedShape(c, false));
  return Status::OK();
}

Status NmsV3Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(CheckNmsInputs(c, 3, 2));
  c.set_output(0, SelectedShape(c, false));
  return Status::OK();
}

Status NmsV4Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(CheckNmsInputs(c, 3, 2));
  bool pad = false;
  TG_RETURN_IF_ERROR(c.GetAttr("pad_to_max_output_size", &pad));
  c.set_output(0, SelectedShape(c, pad));
  c.set_output(1, PartialShape(std::vector<int64_t>{}));
  return Status::OK();
}

Status NmsV5Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(CheckNmsInputs(c, 3, 3));
  bool pad = false;
  TG_RETURN_IF_ERROR(c.GetAttr("pad_to_max_output_size", &pad));
  c.set_output(0, SelectedShape(c, pad));
  c.set_output(1, SelectedShape(c, pad));
  c.set_output(2, PartialShape(std::vector<int64_t>{}));
  return Status::OK();
}

// overlaps [num_boxes, num_boxes], scores [num_boxes].
Status NmsWithOverlapsShape(InferenceContext& c) {
  PartialShape overlaps, scores;
  TG_RETURN_IF_ERROR(c.WithRank(0, 2, &overlaps));
  TG_RETURN_IF_ERROR(c.WithRank(1, 1, &scores));
  const int64_t a = overlaps.dim(0), b = overlaps.dim(1), n = scores.dim(0);
  if ((a >= 0 && b >= 0 && a != b) || (a >= 0 && n >= 0 && a != n)) {
    return c.Error("overlaps must be square with a row per score, but overlaps is ",
                   overlaps.ToString(), " and scores ", scores.ToString());
  }
  TG_RETURN_IF_ERROR(Scalar(c, 2, "max_output_size"));
  TG_RETURN_IF_ERROR(Scalar(c, 3, "overlap_threshold"));
  TG_RETURN_IF_ERROR(Scalar(c, 4, "score_threshold"));
  c.set_output(0, PartialShape{kUnknownDim});
  return Status::OK();
}

// boxes [batch, num_boxes, q, 4], scores [batch, num_boxes, classes] -> nmsed_boxes
// [batch, n, 4], nmsed_scores and nmsed_classes [batch, n], valid_detections [batch], with
// n = max_total_size, or min(max_total_size, max_output_size_per_class * classes) when
// pad_per_class (unknown unless the sizes are constants).
Status CombinedNmsShape(InferenceContext& c) {
  PartialShape boxes, scores;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &boxes));
  TG_RETURN_IF_ERROR(c.WithRank(1, 3, &scores));
  if (boxes.dim(3) >= 0 && boxes.dim(3) != 4) {
    return c.Error("boxes must end in 4 coordinates, but has shape ", boxes.ToString());
  }
  for (int i = 2; i < 6; ++i) TG_RETURN_IF_ERROR(Scalar(c, i, "each size and threshold"));
  const int64_t batch = boxes.dim(0) >= 0 ? boxes.dim(0) : scores.dim(0);
  int64_t n = kUnknownDim;
  bool pad = false;
  TG_RETURN_IF_ERROR(c.GetAttr("pad_per_class", &pad));
  auto per_class = shape_fns::ConstInts(c, 2), total = shape_fns::ConstInts(c, 3);
  if (total && total->size() == 1) {
    if ((*total)[0] <= 0) return c.Error("max_total_size must be > 0, got ", (*total)[0]);
    if (!pad) {
      n = (*total)[0];
    } else if (per_class && per_class->size() == 1 && scores.dim(2) >= 0) {
      n = std::min((*total)[0], std::min<int64_t>(INT32_MAX, (*per_class)[0] * scores.dim(2)));
    }
  }
  c.set_output(0, PartialShape{batch, n, 4});
  c.set_output(1, PartialShape{batch, n});
  c.set_output(2, PartialShape{batch, n});
  c.set_output(3, PartialShape{batch});
  return Status::OK();
}

// image [batch, h, w, depth], boxes [num_boxes, 4], box_ind [num_boxes], crop_size [2]
// -> [num_boxes, crop_height, crop_width, depth].
Status CropAndResizeShape(InferenceContext& c) {
  PartialShape image, boxes, box_ind, crop_size;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &image));
  TG_RETURN_IF_ERROR(c.WithRank(1, 2, &boxes));
  TG_RETURN_IF_ERROR(c.WithRank(2, 1, &box_ind));
  TG_RETURN_IF_ERROR(c.WithRank(3, 1, &crop_size));
  if (boxes.dim(1) >= 0 && boxes.dim(1) != 4) {
    return c.Error("boxes must have 4 columns, but has shape ", boxes.ToString());
  }
  if (crop_size.dim(0) >= 0 && crop_size.dim(0) != 2) {
    return c.Error("crop_size must have 2 values, but has shape ", crop_size.ToString());
  }
  int64_t num_boxes = boxes.dim(0);
  if (num_boxes >= 0 && box_ind.dim(0) >= 0 && num_boxes != box_ind.dim(0)) {
    return c.Error("boxes ", boxes.ToString(), " and box_ind ", box_ind.ToString(),
                   " must have the same number of boxes");
  }
  if (num_boxes < 0) num_boxes = box_ind.dim(0);
  int64_t crop_h = kUnknownDim, crop_w = kUnknownDim;
  if (auto v = shape_fns::ConstInts(c, 3); v && v->size() == 2) {
    if ((*v)[0] <= 0 || (*v)[1] <= 0) {
      return c.Error("crop dimensions must be positive, got [", (*v)[0], ", ", (*v)[1], "]");
    }
    crop_h = (*v)[0];
    crop_w = (*v)[1];
  }
  c.set_output(0, PartialShape{num_boxes, crop_h, crop_w, image.dim(3)});
  return Status::OK();
}

// CropAndResizeGradImage: grads [num_boxes, h, w, depth] -> the 4-D shape in image_size.
Status CropAndResizeGradImageShape(InferenceContext& c) {
  PartialShape grads;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &grads));
  const PartialShape& size = c.input_shape(3);
  if (size.known_rank() && (size.rank() != 1 || (size.dim(0) >= 0 && size.dim(0) != 4))) {
    return c.Error("image_size must be a vector of 4 values, but has shape ", size.ToString());
  }
  if (auto v = shape_fns::ConstInts(c, 3); v && v->size() == 4) {
    c.set_output(0, PartialShape(*v));
  } else {
    c.set_output(0, PartialShape::UnknownOfRank(4));
  }
  return Status::OK();
}

// CropAndResizeGradBoxes: boxes' shape [num_boxes, 4].
Status CropAndResizeGradBoxesShape(InferenceContext& c) {
  PartialShape boxes;
  TG_RETURN_IF_ERROR(c.WithRank(2, 2, &boxes));
  c.set_output(0, PartialShape{boxes.dim(0), 4});
  return Status::OK();
}

}  // namespace

Status RegisterDetectionPool3DOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("MaxPool3D")
          .Input("input: T").Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("T: {half, bfloat16, float}")
          .SetShapeFn(Pool3DShape)
          .Doc("Max pooling over the depth, height and width of a 5-D input."),
      OpDefBuilder("AvgPool3D")
          .Input("input: T").Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(Pool3DShape)
          .Doc("Average pooling over the depth, height and width of a 5-D input (padding "
               "excluded from the average)."),
      OpDefBuilder("MaxPool3DGrad")
          .Input("orig_input: TInput").Input("orig_output: TInput").Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("T: {half, bfloat16, float} = DT_FLOAT")
          .Attr("TInput: {half, bfloat16, float} = DT_FLOAT")
          .SetShapeFn(MaxPool3DGradShape)
          .Doc("The gradient of MaxPool3D: each window's gradient to every input element "
               "equal to the window's maximum."),
      OpDefBuilder("MaxPool3DGradGrad")
          .Input("orig_input: T").Input("orig_output: T").Input("grad: T").Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                "uint32, uint64}")
          .SetShapeFn(MaxPool3DGradGradShape)
          .Doc("The gradient of MaxPool3DGrad with respect to its grad: per window, grad at "
               "the window's first maximum."),
      OpDefBuilder("AvgPool3DGrad")
          .Input("orig_input_shape: int32").Input("grad: T").Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(AvgPool3DGradShape)
          .Doc("The gradient of AvgPool3D: each window's gradient spread evenly over the "
               "input elements it covers."),
      OpDefBuilder("NonMaxSuppression")
          .Input("boxes: float").Input("scores: float").Input("max_output_size: int32")
          .Output("selected_indices: int32")
          .Attr("iou_threshold: float = 0.5")
          .SetShapeFn(NmsV1Shape)
          .Doc("Greedy non-maximum suppression: indices of the highest-scoring boxes, each "
               "overlapping every earlier one by at most iou_threshold."),
      OpDefBuilder("NonMaxSuppressionV2")
          .Input("boxes: T").Input("scores: T").Input("max_output_size: int32")
          .Input("iou_threshold: T_threshold")
          .Output("selected_indices: int32")
          .Attr("T: {half, float} = DT_FLOAT")
          .Attr("T_threshold: {half, float} = DT_FLOAT")
          .SetShapeFn(NmsV2Shape)
          .Doc("NonMaxSuppression with the IoU threshold as an input."),
      OpDefBuilder("NonMaxSuppressionV3")
          .Input("boxes: T").Input("scores: T").Input("max_output_size: int32")
          .Input("iou_threshold: T_threshold").Input("score_threshold: T_threshold")
          .Output("selected_indices: int32")
          .Attr("T: {half, float} = DT_FLOAT")
          .Attr("T_threshold: {half, float} = DT_FLOAT")
          .SetShapeFn(NmsV3Shape)
          .Doc("NonMaxSuppressionV2 that drops boxes scoring at most score_threshold."),
      OpDefBuilder("NonMaxSuppressionV4")
          .Input("boxes: T").Input("scores: T").Input("max_output_size: int32")
          .Input("iou_threshold: T_threshold").Input("score_threshold: T_threshold")
          .Output("selected_indices: int32").Output("valid_outputs: int32")
          .Attr("T: {half, float} = DT_FLOAT")
          .Attr("T_threshold: {half, float} = DT_FLOAT")
          .Attr("pad_to_max_output_size: bool = false")
          .SetShapeFn(NmsV4Shape)
          .Doc("NonMaxSuppressionV3 with the number selected, optionally padded with zeros "
               "to max_output_size."),
      OpDefBuilder("NonMaxSuppressionV5")
          .Input("boxes: T").Input("scores: T").Input("max_output_size: int32")
          .Input("iou_threshold: T").Input("score_threshold: T").Input("soft_nms_sigma: T")
          .Output("selected_indices: int32").Output("selected_scores: T")
          .Output("valid_outputs: int32")
          .Attr("T: {half, float} = DT_FLOAT")
          .Attr("pad_to_max_output_size: bool = false")
          .SetShapeFn(NmsV5Shape)
          .Doc("NonMaxSuppressionV4 with Soft-NMS (Gaussian decay of overlapping boxes' "
               "scores when soft_nms_sigma > 0) and the selected boxes' scores."),
      OpDefBuilder("NonMaxSuppressionWithOverlaps")
          .Input("overlaps: float").Input("scores: float").Input("max_output_size: int32")
          .Input("overlap_threshold: float").Input("score_threshold: float")
          .Output("selected_indices: int32")
          .SetShapeFn(NmsWithOverlapsShape)
          .Doc("NonMaxSuppressionV3 with the pairwise overlaps given instead of boxes."),
      OpDefBuilder("CombinedNonMaxSuppression")
          .Input("boxes: float").Input("scores: float")
          .Input("max_output_size_per_class: int32").Input("max_total_size: int32")
          .Input("iou_threshold: float").Input("score_threshold: float")
          .Output("nmsed_boxes: float").Output("nmsed_scores: float")
          .Output("nmsed_classes: float").Output("valid_detections: int32")
          .Attr("pad_per_class: bool = false")
          .Attr("clip_boxes: bool = true")
          .SetShapeFn(CombinedNmsShape)
          .Doc("Per image, NMS of every class's boxes, then the best max_total_size of all "
               "classes' selections (boxes, scores, classes), zero-padded, and how many are "
               "real."),
      OpDefBuilder("CropAndResize")
          .Input("image: T").Input("boxes: float").Input("box_ind: int32")
          .Input("crop_size: int32").Output("crops: float")
          .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
          .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
          .Attr("extrapolation_value: float = 0")
          .SetShapeFn(CropAndResizeShape)
          .Doc("Crops of image (boxes in normalized coordinates) resized to crop_size by "
               "bilinear or nearest sampling; samples outside the image are "
               "extrapolation_value."),
      OpDefBuilder("CropAndResizeGradImage")
          .Input("grads: float").Input("boxes: float").Input("box_ind: int32")
          .Input("image_size: int32").Output("output: T")
          .Attr("T: {float, half, double}")
          .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
          .SetShapeFn(CropAndResizeGradImageShape)
          .Doc("The gradient of CropAndResize with respect to its image."),
      OpDefBuilder("CropAndResizeGradBoxes")
          .Input("grads: float").Input("image: T").Input("boxes: float").Input("box_ind: int32")
          .Output("output: float")
          .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
          .Attr("method: {'bilinear'} = 'bilinear'")
          .SetShapeFn(CropAndResizeGradBoxesShape)
          .Doc("The gradient of CropAndResize with respect to its boxes (of bilinear "
               "sampling, also used for nearest as TF does)."),
  });
}

}  // namespace tgraph
