"""tf.io: the image codecs (tgraph.ops.image_codec_ops) under TF's tf.io names."""
from tgraph.ops.image_codec_ops import (  # noqa: F401
    decode_and_crop_jpeg, decode_bmp, decode_image, decode_jpeg, decode_png, encode_jpeg,
    encode_png, extract_jpeg_shape)
