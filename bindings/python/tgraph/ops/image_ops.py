"""tf.image: resizing (ResizeBilinear, ResizeNearestNeighbor) with TF 1.x's names and
defaults."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tgraph.graph import get_default_graph
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor


class ResizeMethod:
    """tf.image.ResizeMethod of TF 1.x (resize_images' `method`)."""
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


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


def resize_images(images: Any, size: Any, method: int = ResizeMethod.BILINEAR,
                  align_corners: bool = False, preserve_aspect_ratio: bool = False,
                  name: Optional[str] = None) -> Tensor:
    """TF 1.x's tf.image.resize_images for BILINEAR and NEAREST_NEIGHBOR: a 3-D image gets a
    batch dimension for the op and loses it after."""
    from tgraph.ops import array_ops
    if preserve_aspect_ratio:
        raise NotImplementedError("resize_images with preserve_aspect_ratio")
    ops = {ResizeMethod.BILINEAR: resize_bilinear,
           ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor}
    if method not in ops:
        raise NotImplementedError(f"resize_images: method {method} (only BILINEAR and "
                                  "NEAREST_NEIGHBOR)")
    with get_default_graph().name_scope(name or "resize"):
        images = convert_to_tensor(images, name="images")
        rank = images.shape.ndims
        if rank is None or rank not in (3, 4):
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        if rank == 3:
            images = array_ops.expand_dims(images, 0)
        out = ops[method](images, size, align_corners=align_corners)
        return array_ops.squeeze(out, axis=[0]) if rank == 3 else out
