"""tf.image's color functions: rgb_to_hsv, hsv_to_rgb (RGBToHSV, HSVToRGB), adjust_contrast
(AdjustContrastv2), adjust_hue (AdjustHue), adjust_saturation (AdjustSaturation), and
convert_image_dtype between integer and float images as TF scales them (integers span
[0, 1]). Integer images are adjusted in float32 and converted back with saturation, as TF
does."""
from __future__ import annotations

from typing import Any, Callable, Optional

from tgraph import dtypes
from tgraph.graph import get_default_graph
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False,
                        name: Optional[str] = None) -> Tensor:
    """image converted to dtype: an integer type's range maps to [0, 1] of a float type
    (cast, then times 1 / max), a float image to an integer type by times (max + 0.5) and a
    cast (clipped to the type's range first when saturate); float to float is a cast."""
    from tgraph.ops import array_ops, math_ops
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    src = image.dtype
    for d in (src, dtype):
        if not (d.is_floating or d.is_integer):
            raise TypeError(f"convert_image_dtype: {d.name} is not an integer or float type")
    if dtype == src:
        return array_ops.identity(image, name=name)
    with get_default_graph().name_scope(name or "convert_image"):
        if src.is_integer and dtype.is_integer:
            raise NotImplementedError("convert_image_dtype between integer types is not "
                                      "supported by tgraph yet")
        if src.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype)
        if src.is_integer:
            return math_ops.multiply(math_ops.cast(image, dtype), 1.0 / float(src.max))
        scaled = math_ops.multiply(image, float(dtype.max) + 0.5)
        if saturate:
            scaled = math_ops.clip_by_value(scaled, float(dtype.min), float(dtype.max))
        return math_ops.cast(scaled, dtype)


def rgb_to_hsv(images: Any, name: Optional[str] = None) -> Tensor:
    """RGB in [0, 1] (last dimension 3) to hue, saturation and value in [0, 1]."""
    return apply_op("RGBToHSV", name=name or "RGBToHSV", images=images)


def hsv_to_rgb(images: Any, name: Optional[str] = None) -> Tensor:
    """Hue, saturation and value (last dimension 3) to RGB."""
    return apply_op("HSVToRGB", name=name or "HSVToRGB", images=images)


def _adjust(images: Any, scope: str, name: Optional[str],
            op: Callable[[Tensor], Tensor]) -> Tensor:
    """op on images as float (half and float32 as they are), converted back to their dtype."""
    with get_default_graph().name_scope(name or scope):
        images = convert_to_tensor(images, name="images")
        orig = images.dtype
        flt = images if orig in (dtypes.float16, dtypes.float32) else \
            convert_image_dtype(images, dtypes.float32)
        return convert_image_dtype(op(flt), orig, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any, name: Optional[str] = None) -> Tensor:
    """Each channel of each image moved from its mean by contrast_factor:
    (x - mean) * contrast_factor + mean."""
    return _adjust(images, "adjust_contrast", name, lambda x: apply_op(
        "AdjustContrastv2", name="AdjustContrastv2", images=x,
        contrast_factor=convert_to_tensor(contrast_factor, dtype=dtypes.float32)))


def adjust_hue(image: Any, delta: Any, name: Optional[str] = None) -> Tensor:
    """RGB images with the hue turned by delta, a fraction of the color wheel in [-1, 1]."""
    return _adjust(image, "adjust_hue", name, lambda x: apply_op(
        "AdjustHue", name="AdjustHue", images=x,
        delta=convert_to_tensor(delta, dtype=dtypes.float32)))


def adjust_saturation(image: Any, saturation_factor: Any,
                      name: Optional[str] = None) -> Tensor:
    """RGB images with the HSV saturation multiplied by saturation_factor."""
    return _adjust(image, "adjust_saturation", name, lambda x: apply_op(
        "AdjustSaturation", name="AdjustSaturation", images=x,
        scale=convert_to_tensor(saturation_factor, dtype=dtypes.float32)))
