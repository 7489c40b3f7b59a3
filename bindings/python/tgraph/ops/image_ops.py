"""tf.image: resizing (ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea) with
TF 1.x's names and defaults, and resize_images composed as TF composes it."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tgraph import dtypes
from tgraph.graph import get_default_graph
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, constant_value, convert_to_tensor


class ResizeMethod:
    """tf.image.ResizeMethod of TF 1.x (resize_images' `method`)."""
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# TF 2's names of the same methods, which TF 1.x's resize_images accepts too.
_METHOD_NAMES = {"bilinear": ResizeMethod.BILINEAR, "nearest": ResizeMethod.NEAREST_NEIGHBOR,
                 "bicubic": ResizeMethod.BICUBIC, "area": ResizeMethod.AREA}


def _size(size: Any) -> Any:
    return size if isinstance(size, Tensor) else np.asarray(size, dtype=np.int32)


def resize_bilinear(images: Any, size: Any, align_corners: bool = False,
                    name: Optional[str] = None, half_pixel_centers: bool = False) -> Tensor:
    """`images` [batch, height, width, channels] resized to `size` by bilinear
    interpolation (float32 out, ResizeBilinear)."""
    return apply_op("ResizeBilinear", name=name or "ResizeBilinear", images=images,
                    size=_size(size), align_corners=align_corners,
                    half_pixel_centers=half_pixel_centers)


def resize_nearest_neighbor(images: Any, size: Any, align_corners: bool = False,
                            name: Optional[str] = None,
                            half_pixel_centers: bool = False) -> Tensor:
    """`images` [batch, height, width, channels] resized to `size`, each output pixel the
    nearest input pixel (ResizeNearestNeighbor)."""
    return apply_op("ResizeNearestNeighbor", name=name or "ResizeNearestNeighbor",
                    images=images, size=_size(size), align_corners=align_corners,
                    half_pixel_centers=half_pixel_centers)


def resize_bicubic(images: Any, size: Any, align_corners: bool = False,
                   name: Optional[str] = None, half_pixel_centers: bool = False) -> Tensor:
    """`images` [batch, height, width, channels] resized to `size` by bicubic interpolation
    (Keys' kernel over 4x4 pixels; float32 out, ResizeBicubic)."""
    return apply_op("ResizeBicubic", name=name or "ResizeBicubic", images=images,
                    size=_size(size), align_corners=align_corners,
                    half_pixel_centers=half_pixel_centers)


def resize_area(images: Any, size: Any, align_corners: bool = False,
                name: Optional[str] = None) -> Tensor:
    """`images` [batch, height, width, channels] resized to `size`, each output pixel the
    mean of the input area it covers (float32 out, ResizeArea; no gradient, as in TF)."""
    return apply_op("ResizeArea", name=name or "ResizeArea", images=images, size=_size(size),
                    align_corners=align_corners)


_RESIZERS = {ResizeMethod.BILINEAR: resize_bilinear,
             ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
             ResizeMethod.BICUBIC: resize_bicubic,
             ResizeMethod.AREA: resize_area}


def _static_size(size: Tensor) -> list:
    """[new_height, new_width] where known from the graph (a Const, or a Pack of scalar
    Consts), None where not: TF's constant_value_as_shape for resize_images' static shape."""
    value = constant_value(size)
    if value is not None and value.size == 2:
        return [int(v) for v in value.reshape(-1)]
    if size.op.type == "Pack" and len(size.op.inputs) == 2:
        parts = [constant_value(t) for t in size.op.inputs]
        return [int(p.reshape(())) if p is not None and p.size == 1 else None for p in parts]
    return [None, None]


def resize_images(images: Any, size: Any, method: Any = ResizeMethod.BILINEAR,
                  align_corners: bool = False, preserve_aspect_ratio: bool = False,
                  name: Optional[str] = None) -> Tensor:
    """TF 1.x's tf.image.resize_images (tf.image.resize): `images` [batch, height, width,
    channels] or one [height, width, channels] image resized to `size` = [new_height,
    new_width] by `method` (a ResizeMethod, or TF 2's name 'bilinear', 'nearest', 'bicubic',
    'area'). With preserve_aspect_ratio the image is scaled by one factor so that it fits in
    `size`. Returned unchanged when its size already is `size`, as in TF; otherwise float32,
    except NEAREST_NEIGHBOR, which keeps the dtype."""
    from tgraph.ops import array_ops, math_ops
    if isinstance(method, str):
        if method not in _METHOD_NAMES:
            raise ValueError(f"Resize method is not implemented: {method}")
        method = _METHOD_NAMES[method]
    if method not in _RESIZERS:
        raise ValueError(f"Resize method is not implemented: {method}")
    with get_default_graph().name_scope(name or "resize"):
        images = convert_to_tensor(images, name="images")
        rank = images.shape.ndims
        if rank is None:
            raise ValueError("'images' contains no shape.")
        if rank not in (3, 4):
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        if rank == 3:
            images = array_ops.expand_dims(images, 0)
        height, width = images.shape.as_list()[1:3]
        try:
            size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor")
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        wanted = constant_value(size)
        if preserve_aspect_ratio and wanted is not None and None not in (height, width):
            # Everything known at build time: the same float32 arithmetic as below, done here
            # (TF's shape inference evaluates it, so its static shape is the result's).
            f32 = np.float32
            factor = min(f32(wanted[0]) / f32(height), f32(wanted[1]) / f32(width))
            size = convert_to_tensor(np.array([np.round(factor * f32(height)),
                                               np.round(factor * f32(width))], np.int32),
                                     name="size")
        elif preserve_aspect_ratio:
            # One factor for both dimensions: the smaller of the two ratios, rounded as TF.
            shape = array_ops.shape(images)
            cur_h = math_ops.cast(shape[1], dtypes.float32)
            cur_w = math_ops.cast(shape[2], dtypes.float32)
            factor = math_ops.minimum(math_ops.cast(size[0], dtypes.float32) / cur_h,
                                      math_ops.cast(size[1], dtypes.float32) / cur_w)
            new_h = math_ops.cast(math_ops.round(factor * cur_h), dtypes.int32)
            new_w = math_ops.cast(math_ops.round(factor * cur_w), dtypes.int32)
            size = convert_to_tensor(array_ops.stack([new_h, new_w]), dtype=dtypes.int32,
                                     name="size")
        new_h, new_w = _static_size(size)
        if None not in (height, width, new_h, new_w) and (height, width) == (new_h, new_w):
            return array_ops.squeeze(images, axis=[0]) if rank == 3 else images
        out = _RESIZERS[method](images, size, align_corners=align_corners)
        out.set_shape([None, new_h, new_w, None])
        return array_ops.squeeze(out, axis=[0]) if rank == 3 else out


resize = resize_images


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: str,
                    name: Optional[str] = None) -> Tensor:
    """Each output pixel's depth holds one window of `images` (ExtractImagePatches)."""
    return apply_op("ExtractImagePatches", name=name or "ExtractImagePatches", images=images,
                    ksizes=list(sizes), strides=list(strides), rates=list(rates),
                    padding=padding)


def extract_image_patches(images: Any, ksizes: Any = None, strides: Any = None,
                          rates: Any = None, padding: Any = None, name: Optional[str] = None,
                          sizes: Any = None) -> Tensor:
    """TF 1.x's name of extract_patches (ksizes, or sizes)."""
    return extract_patches(images, ksizes if ksizes is not None else sizes, strides, rates,
                           padding, name)


# The detection ops (detection_pool3d_ops.py).
from tgraph.ops.detection_pool3d_ops import (  # noqa: E402,F401
    combined_non_max_suppression, crop_and_resize, non_max_suppression,
    non_max_suppression_overlaps, non_max_suppression_with_scores)


# The codecs, also tf.image's (tf.image.decode_jpeg and the others; tf.io has them too).
from tgraph.ops.image_codec_ops import (  # noqa: E402,F401
    decode_and_crop_jpeg, decode_bmp, decode_image, decode_jpeg, decode_png, encode_jpeg,
    encode_png, extract_jpeg_shape)
from tgraph.ops.image_color_ops import (adjust_contrast, adjust_hue,  # noqa: E402,F401
                                        adjust_saturation, convert_image_dtype, hsv_to_rgb,
                                        rgb_to_hsv)
