"""The image codecs through the binding's TF names (tf.io.* and tf.image.*) against real
TensorFlow (tf.compat.v1): the same encoded bytes decode to the same pixels, encoders'
output decodes back, and neither side has a gradient."""
import numpy as np
import pytest

import tgraph

tf1 = pytest.importorskip("tensorflow.compat.v1")
tf1.disable_v2_behavior()

RNG = np.random.RandomState(3)
Y, X = np.mgrid[0:21, 0:30]
IMG = np.clip(np.stack([np.sin(X / 4 + k) * np.cos(Y / 5) * 100 + 128 for k in range(3)], -1)
              + RNG.randn(21, 30, 3) * 5, 0, 255).astype(np.uint8)


def run(m, build):
    g = m.Graph()
    with g.as_default():
        fetches = build(m)
        with m.Session() as sess:
            return sess.run(fetches)


def run_both(build):
    return run(tgraph, build), run(tf1, build)


def test_encoded_in_tf_decoded_by_both():
    jpeg = run(tf1, lambda m: m.io.encode_jpeg(IMG, quality=90))
    png = run(tf1, lambda m: m.image.encode_png(IMG[..., :2]))

    def build(m):
        return {"jpeg": m.io.decode_jpeg(jpeg), "gray": m.image.decode_jpeg(jpeg, channels=1),
                "accurate": m.io.decode_jpeg(jpeg, dct_method="INTEGER_ACCURATE"),
                "small": m.io.decode_jpeg(jpeg, ratio=2),
                "crop": m.image.decode_and_crop_jpeg(jpeg, [2, 3, 10, 12]),
                "png": m.io.decode_png(png), "png16": m.io.decode_png(png, dtype=m.uint16),
                "rgba": m.image.decode_png(png, channels=4),
                "image": m.io.decode_image(jpeg, dtype=m.float32),
                "image3": m.image.decode_image(png, channels=3, expand_animations=False),
                "shape": m.io.extract_jpeg_shape(jpeg)}
    a, b = run_both(build)
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]), err_msg=k)
        assert np.asarray(a[k]).dtype == np.asarray(b[k]).dtype, k


def test_static_shapes_match_tf():
    def shapes(m):
        g = m.Graph()
        with g.as_default():
            s = m.placeholder(m.string, [])
            return [m.io.decode_jpeg(s, channels=3).shape.as_list(),
                    m.io.decode_png(s).shape.as_list(),
                    m.io.decode_image(s, expand_animations=False).shape.as_list(),
                    m.io.decode_image(s, channels=1, expand_animations=False).shape.as_list(),
                    m.io.extract_jpeg_shape(s).shape.as_list()]
    assert shapes(tgraph) == shapes(tf1)


def test_encoders_round_trip():
    def build(m):
        return [m.io.decode_png(m.io.encode_png(IMG, compression=9)),
                m.io.decode_jpeg(m.image.encode_jpeg(IMG, quality=100, chroma_downsampling=False)),
                m.io.decode_png(m.io.encode_png(IMG.astype(np.uint16) * 257), dtype=m.uint16)]
    a, b = run_both(build)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a[0], IMG)


def test_no_gradient_and_bad_bytes_fail():
    g = tgraph.Graph()
    with g.as_default():
        x = tgraph.placeholder(tgraph.uint8, [4, 4, 3])
        enc = tgraph.io.encode_png(x)
        dec = tgraph.cast(tgraph.io.decode_png(enc), tgraph.float32)
        assert tgraph.gradients(tgraph.reduce_sum(dec), [x]) == [None]
        bad = tgraph.io.decode_jpeg(tgraph.constant(b"\xff\xd8\xff broken"), name="bad_jpeg")
        with tgraph.Session() as sess, pytest.raises(tgraph.errors.InvalidArgumentError,
                                                     match="bad_jpeg"):
            sess.run(bad)


def test_color_functions_match_tf():
    rgb = RNG.rand(2, 5, 6, 3).astype(np.float32)

    def build(m):
        return [m.image.rgb_to_hsv(rgb), m.image.hsv_to_rgb(rgb),
                m.image.adjust_contrast(rgb, 1.6), m.image.adjust_hue(rgb, 0.3),
                m.image.adjust_saturation(rgb, 0.4),
                # uint8 images: adjusted in float32, converted back saturated
                m.image.adjust_contrast(IMG, 2.5), m.image.adjust_hue(IMG, -0.2),
                m.image.adjust_saturation(IMG, 3.0),
                m.image.convert_image_dtype(IMG, m.float32),
                m.image.convert_image_dtype(rgb * 1.5, m.uint8, saturate=True)]
    a, b = run_both(build)
    for i, (x, y) in enumerate(zip(a, b)):
        assert x.dtype == y.dtype, i
        if x.dtype == np.uint8:  # float rounding may move a value across a level
            assert np.max(np.abs(x.astype(int) - y.astype(int))) <= 1, i
        else:
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6, err_msg=str(i))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rgb_to_hsv_gradient_matches_tf(dtype):
    x = RNG.rand(3, 4, 3).astype(dtype)
    x[0, 0] = [0.2, 0.2, 0.7]  # ties: which channel counts as the largest / smallest
    x[0, 1] = [0.6, 0.6, 0.1]
    w = RNG.randn(3, 4, 3).astype(dtype)

    def build(m):
        v = m.constant(x)
        return m.gradients(m.reduce_sum(m.image.rgb_to_hsv(v) * w), [v])[0]
    a, b = run_both(build)
    np.testing.assert_allclose(a, b, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-5)


def test_hsv_to_rgb_has_no_gradient():
    g = tgraph.Graph()
    with g.as_default():
        x = tgraph.placeholder(tgraph.float32, [2, 3])
        assert tgraph.gradients(tgraph.reduce_sum(tgraph.image.hsv_to_rgb(x)), [x]) == [None]
