"""tf.io / tf.image codecs: decode_jpeg, decode_and_crop_jpeg, decode_png, decode_bmp,
decode_image, encode_jpeg, encode_png, and extract_jpeg_shape with TensorFlow's names,
arguments and defaults (DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeBmp, DecodeImage,
EncodeJpeg, EncodePng, ExtractJpegShape).
None of them has a gradient, as in TensorFlow."""
from __future__ import annotations

from typing import Any, Optional

from tgraph import dtypes
from tgraph.graph import get_default_graph
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor


def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                dct_method: str = "", name: Optional[str] = None) -> Tensor:
    """A JPEG image (a scalar string) decoded to a uint8 [height, width, channels] tensor;
    channels 0 keeps the file's, 1 gives gray, 3 RGB; ratio 2, 4 or 8 downscales while
    decoding."""
    return apply_op("DecodeJpeg", name=name or "DecodeJpeg", contents=contents,
                    channels=channels, ratio=ratio, fancy_upscaling=fancy_upscaling,
                    try_recover_truncated=try_recover_truncated,
                    acceptable_fraction=acceptable_fraction, dct_method=dct_method)


def decode_and_crop_jpeg(contents: Any, crop_window: Any, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "",
                         name: Optional[str] = None) -> Tensor:
    """The window crop_window = [y, x, height, width] of a JPEG image, decoded alone
    (DecodeAndCropJpeg)."""
    return apply_op("DecodeAndCropJpeg", name=name or "DecodeAndCropJpeg", contents=contents,
                    crop_window=crop_window, channels=channels, ratio=ratio,
                    fancy_upscaling=fancy_upscaling,
                    try_recover_truncated=try_recover_truncated,
                    acceptable_fraction=acceptable_fraction, dct_method=dct_method)


def decode_png(contents: Any, channels: int = 0, dtype: Any = dtypes.uint8,
               name: Optional[str] = None) -> Tensor:
    """A PNG image decoded to [height, width, channels] of uint8 or uint16; channels 0 keeps
    the file's, 1 gray, 3 RGB, 4 RGBA."""
    return apply_op("DecodePng", name=name or "DecodePng", contents=contents,
                    channels=channels, dtype=dtypes.as_dtype(dtype))


def decode_bmp(contents: Any, channels: int = 0, name: Optional[str] = None) -> Tensor:
    """An uncompressed BMP image decoded to a uint8 [height, width, channels] tensor."""
    return apply_op("DecodeBmp", name=name or "DecodeBmp", contents=contents,
                    channels=channels)


def decode_image(contents: Any, channels: Optional[int] = None, dtype: Any = dtypes.uint8,
                 name: Optional[str] = None, expand_animations: bool = True) -> Tensor:
    """A JPEG, PNG or BMP image, its format found from the bytes, decoded to [height, width,
    channels] of dtype (uint8, uint16, or float32 in [0, 1]). The static shape is rank 3 when
    expand_animations is off (a GIF, not decoded by tgraph, would be 4-D otherwise)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.uint8, dtypes.uint16, dtypes.float32):
        raise ValueError(f"decode_image: dtype {dtype.name} is not supported by tgraph (TF "
                         "converts from uint16 with convert_image_dtype)")
    channels = 0 if channels is None else channels
    with get_default_graph().name_scope(name or "decode_image"):
        image = apply_op("DecodeImage", name="DecodeImage", contents=contents,
                         channels=channels, dtype=dtype, expand_animations=expand_animations)
        if not expand_animations:
            image.set_shape([None, None, channels if channels else None])
        return image


def encode_png(image: Any, compression: int = -1, name: Optional[str] = None) -> Tensor:
    """A uint8 or uint16 [height, width, channels] image (1 to 4 channels) as a PNG string;
    compression -1 (zlib's default) to 9."""
    return apply_op("EncodePng", name=name or "EncodePng", image=image,
                    compression=compression)


def encode_jpeg(image: Any, format: str = "", quality: int = 95,  # noqa: A002 (TF's name)
                progressive: bool = False, optimize_size: bool = False,
                chroma_downsampling: bool = True, density_unit: str = "in",
                x_density: int = 300, y_density: int = 300, xmp_metadata: str = "",
                name: Optional[str] = None) -> Tensor:
    """A uint8 [height, width, channels] image (1 or 3 channels) as a JPEG string."""
    return apply_op("EncodeJpeg", name=name or "EncodeJpeg", image=image, format=format,
                    quality=quality, progressive=progressive, optimize_size=optimize_size,
                    chroma_downsampling=chroma_downsampling, density_unit=density_unit,
                    x_density=x_density, y_density=y_density, xmp_metadata=xmp_metadata)


def extract_jpeg_shape(contents: Any, output_type: Any = dtypes.int32,
                       name: Optional[str] = None) -> Tensor:
    """A JPEG's [height, width, channels] from its header, without decoding the image."""
    return apply_op("ExtractJpegShape", name=name or "ExtractJpegShape", contents=contents,
                    output_type=dtypes.as_dtype(output_type))
