"""tf.nn.max_pool3d / avg_pool3d (MaxPool3D, AvgPool3D) and the detection ops of tf.image:
non_max_suppression (NonMaxSuppressionV3), non_max_suppression_with_scores (V5, Soft-NMS),
non_max_suppression_overlaps (NonMaxSuppressionWithOverlaps),
combined_non_max_suppression (CombinedNonMaxSuppression) and crop_and_resize (CropAndResize), with TF's names, arguments and defaults. Re-exported by tgraph.nn and
tgraph.image."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor


def _window5(v: Any, what: str) -> list:
    """ksize / strides of a 3-D pooling as TF 2 accepts them: an int or 1, 3 or 5 values."""
    if isinstance(v, (int, np.integer)):
        v = [int(v)]
    v = [int(x) for x in v]
    if len(v) == 1:
        return [1, v[0], v[0], v[0], 1]
    if len(v) == 3:
        return [1] + v + [1]
    if len(v) == 5:
        return v
    raise ValueError(f"{what} must be an int or a list of 1, 3 or 5 ints, got {v}")


def max_pool3d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002 - TF's name
               data_format: str = "NDHWC", name: Optional[str] = None) -> Tensor:
    """Max pooling over the depth, height and width of a 5-D input (MaxPool3D)."""
    return apply_op("MaxPool3D", name=name or "MaxPool3D", input=input,
                    ksize=_window5(ksize, "ksize"), strides=_window5(strides, "strides"),
                    padding=padding, data_format=data_format)


def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002 - TF's name
               data_format: str = "NDHWC", name: Optional[str] = None) -> Tensor:
    """Average pooling over the depth, height and width of a 5-D input, padding excluded
    from the average (AvgPool3D)."""
    return apply_op("AvgPool3D", name=name or "AvgPool3D", input=input,
                    ksize=_window5(ksize, "ksize"), strides=_window5(strides, "strides"),
                    padding=padding, data_format=data_format)


def _int32(v: Any) -> Any:
    return v if isinstance(v, Tensor) else np.asarray(v, dtype=np.int32)


def _float32(v: Any) -> Any:
    return v if isinstance(v, Tensor) else np.asarray(v, dtype=np.float32)


def non_max_suppression(boxes: Any, scores: Any, max_output_size: Any,
                        iou_threshold: Any = 0.5, score_threshold: Any = float("-inf"),
                        name: Optional[str] = None) -> Tensor:
    """Indices of the boxes greedy NMS keeps, best first (NonMaxSuppressionV3)."""
    return apply_op("NonMaxSuppressionV3", name=name or "non_max_suppression", boxes=boxes,
                    scores=scores, max_output_size=_int32(max_output_size),
                    iou_threshold=_float32(iou_threshold),
                    score_threshold=_float32(score_threshold))


def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: Any,
                                    iou_threshold: Any = 0.5,
                                    score_threshold: Any = float("-inf"),
                                    soft_nms_sigma: Any = 0.0,
                                    name: Optional[str] = None) -> Any:
    """(selected_indices, selected_scores) of NMS, Soft-NMS when soft_nms_sigma > 0
    (NonMaxSuppressionV5)."""
    out = apply_op("NonMaxSuppressionV5", name=name or "non_max_suppression_with_scores",
                   boxes=boxes, scores=scores, max_output_size=_int32(max_output_size),
                   iou_threshold=_float32(iou_threshold),
                   score_threshold=_float32(score_threshold),
                   soft_nms_sigma=_float32(soft_nms_sigma), pad_to_max_output_size=False)
    return out[0], out[1]


def non_max_suppression_overlaps(overlaps: Any, scores: Any, max_output_size: Any,
                                 overlap_threshold: Any = 0.5,
                                 score_threshold: Any = float("-inf"),
                                 name: Optional[str] = None) -> Tensor:
    """NMS over given pairwise overlaps (NonMaxSuppressionWithOverlaps)."""
    return apply_op("NonMaxSuppressionWithOverlaps",
                    name=name or "non_max_suppression_overlaps", overlaps=overlaps,
                    scores=scores, max_output_size=_int32(max_output_size),
                    overlap_threshold=_float32(overlap_threshold),
                    score_threshold=_float32(score_threshold))


def combined_non_max_suppression(boxes: Any, scores: Any, max_output_size_per_class: Any,
                                 max_total_size: Any, iou_threshold: Any = 0.5,
                                 score_threshold: Any = float("-inf"), pad_per_class: bool = False,
                                 clip_boxes: bool = True, name: Optional[str] = None) -> Any:
    """(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections): per image, NMS of each
    class, then the best max_total_size detections of all classes
    (CombinedNonMaxSuppression)."""
    out = apply_op("CombinedNonMaxSuppression", name=name or "combined_non_max_suppression",
                   boxes=boxes, scores=scores,
                   max_output_size_per_class=_int32(max_output_size_per_class),
                   max_total_size=_int32(max_total_size), iou_threshold=_float32(iou_threshold),
                   score_threshold=_float32(score_threshold), pad_per_class=pad_per_class,
                   clip_boxes=clip_boxes)
    return tuple(out)


def crop_and_resize(image: Any, boxes: Any, box_ind: Any = None, crop_size: Any = None,
                    method: str = "bilinear", extrapolation_value: float = 0.0,
                    name: Optional[str] = None, box_indices: Any = None) -> Tensor:
    """Crops of `image` [batch, h, w, depth] at the normalized `boxes` [n, 4] of the images
    `box_ind` (TF 2: `box_indices`), resized to `crop_size` (float32 out, CropAndResize)."""
    if box_ind is None:
        box_ind = box_indices
    if box_ind is None or crop_size is None:
        raise TypeError("crop_and_resize needs box_indices (box_ind) and crop_size")
    return apply_op("CropAndResize", name=name or "CropAndResize", image=image,
                    boxes=_float32(boxes), box_ind=_int32(box_ind),
                    crop_size=_int32(crop_size), method=method,
                    extrapolation_value=float(extrapolation_value))
