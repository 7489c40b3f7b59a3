"""The image codec ops (DecodeJpeg, DecodePng, DecodeBmp, DecodeImage, ExtractJpegShape,
EncodeJpeg, EncodePng), differentially against TensorFlow: each case builds a TF1 graph with
the exact raw ops on encoded images (fed as scalar strings through `tgraph run --feed`, or as
a Const in the graph), runs it in TensorFlow and with `tgraph run`, and compares: PNG, BMP
and JPEG decoding bit-exact (libjpeg-turbo on both sides, TensorFlow's default DCT); the
encoders through a decode of their output in the same graph. Bad bytes must fail the node,
naming it. The OpDefs must match TensorFlow's (test_list_op_defs.py's comparison)."""
import io
import struct
import subprocess

import numpy as np
import pytest
import tensorflow as tf
from PIL import Image

from test_list_op_defs import test_op_def_matches_tensorflow as op_def_matches
from test_model_ops import RAW, TOOL, V1, check, rng, run_tensorflow, run_tgraph

OPS = ["DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage", "ExtractJpegShape", "EncodePng",
       "EncodeJpeg"]


@pytest.mark.parametrize("name", OPS)
def test_op_def(name):
    op_def_matches(name)


def picture(h, w, c, seed=0, dtype=np.uint8):
    """A smooth image with some noise (JPEG's blocks and chroma both matter)."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    top = np.iinfo(dtype).max
    planes = [(np.sin(x / 5 + k) * np.cos(y / 7 - k) * 0.4 + 0.5) for k in range(c)]
    img = np.stack(planes, -1) * top + rng(seed).randn(h, w, c) * top * 0.03
    return np.clip(img, 0, top).astype(dtype)


def encoded(op, image, **attrs):
    return getattr(tf.raw_ops, op)(image=image, **attrs).numpy()


def pil_bytes(img, fmt, **kw):
    out = io.BytesIO()
    img.save(out, fmt, **kw)
    return out.getvalue()


def string_feed(name, data):
    """The feed of a scalar string (numpy 'S' would drop trailing NULs: none here)."""
    assert not data.endswith(b"\0")
    return {name + ":0": np.array(data)}


def string_placeholder(name):
    return V1.placeholder(tf.string, [], name=name)


def bmp(px, top_down=False):
    """An uncompressed BMP of px (h, w, 1 | 3 | 4; 1: 8-bit gray indices, else RGB(A))."""
    h, w, c = px.shape
    row = (c * w + 3) // 4 * 4
    bgr = px[..., ::-1] if c == 3 else (px[..., [2, 1, 0, 3]] if c == 4 else px)
    data = b"".join(bgr[y].tobytes().ljust(row, b"\0")
                    for y in (range(h) if top_down else range(h - 1, -1, -1)))
    header = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    header += struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, 8 * c, 0, len(data),
                          2835, 2835, 0, 0)
    return header + data


# ---- JPEG ----

def jpegs():
    rgb = picture(37, 53, 3, 1)
    gray = picture(20, 31, 1, 2)
    cmyk = Image.fromarray(picture(16, 24, 4, 3), "CMYK")
    return {
        "rgb": encoded("EncodeJpeg", rgb),
        "rgb_q50_444": encoded("EncodeJpeg", rgb, quality=50, chroma_downsampling=False),
        "progressive": encoded("EncodeJpeg", rgb, progressive=True, optimize_size=True),
        "gray": encoded("EncodeJpeg", gray),
        "pil_420": pil_bytes(Image.fromarray(rgb), "JPEG", quality=80),
        "cmyk": pil_bytes(cmyk, "JPEG", quality=90),
    }


@pytest.mark.parametrize("kind", ["rgb", "rgb_q50_444", "progressive", "gray", "pil_420", "cmyk"])
def test_decode_jpeg(tmp_path, kind):
    data = jpegs()[kind]

    def build():
        s = string_placeholder("s")
        # libjpeg converts CMYK to RGB only (gray fails in TensorFlow too)
        outs = [RAW.DecodeJpeg(contents=s, channels=c)
                for c in ((0, 3) if kind == "cmyk" else (0, 1, 3))]
        outs += [RAW.DecodeJpeg(contents=s, dct_method=m) for m in
                 ("INTEGER_FAST", "INTEGER_ACCURATE")]
        outs += [RAW.DecodeJpeg(contents=s, ratio=r) for r in (2, 4, 8)]
        outs += [RAW.DecodeJpeg(contents=s, fancy_upscaling=False, channels=3),
                 RAW.DecodeImage(contents=s, channels=3),
                 RAW.DecodeImage(contents=s, dtype=tf.float32),
                 RAW.DecodeImage(contents=s, dtype=tf.uint16, expand_animations=False),
                 RAW.DecodePng(contents=s),  # TF's DecodePng decodes JPEGs too
                 RAW.ExtractJpegShape(contents=s),
                 RAW.ExtractJpegShape(contents=s, output_type=tf.int64)]
        return outs
    check(tmp_path, build, string_feed("s", data), rtol=0, atol=0)


def test_decode_truncated_jpeg_with_recovery(tmp_path):
    """The rows decoded before the data ran out are TensorFlow's; what the decoder fills in
    after that depends on the libjpeg-turbo version (TensorFlow bundles its own), so only
    the first MCU row is compared."""
    data = jpegs()["rgb"]
    data = data[:len(data) * 2 // 3]

    def build():
        s = tf.constant(data)
        image = RAW.DecodeJpeg(contents=s, try_recover_truncated=True, acceptable_fraction=0.1)
        return [image[:8], tf.shape(image)]
    check(tmp_path, build, {})


# ---- PNG ----

def pngs():
    rgb = picture(9, 13, 3, 4)
    pal = Image.fromarray(rgb).convert("P", palette=Image.ADAPTIVE, colors=16)
    pal_t = pal.copy()
    pal_t.info["transparency"] = 3
    gray_t = Image.fromarray(picture(7, 11, 1, 5)[..., 0], "L")
    return {
        "rgb": encoded("EncodePng", rgb),
        "rgba": encoded("EncodePng", picture(9, 13, 4, 6)),
        "gray": encoded("EncodePng", picture(9, 13, 1, 7)),
        "gray_alpha": encoded("EncodePng", picture(9, 13, 2, 8)),
        "rgb16": encoded("EncodePng", picture(9, 13, 3, 9, np.uint16)),
        "rgba16": encoded("EncodePng", picture(5, 6, 4, 10, np.uint16)),
        "gray16": encoded("EncodePng", picture(5, 6, 1, 11, np.uint16)),
        "palette": pil_bytes(pal, "PNG"),
        "palette_trns": pil_bytes(pal_t, "PNG", transparency=3),
        "gray_trns": pil_bytes(gray_t, "PNG", transparency=40),
        "bits1": pil_bytes(Image.fromarray(picture(8, 19, 1, 12)[..., 0] > 128), "PNG"),
    }


@pytest.mark.parametrize("kind", ["rgb", "rgba", "gray", "gray_alpha", "rgb16", "rgba16",
                                  "gray16", "palette", "palette_trns", "gray_trns", "bits1"])
def test_decode_png(tmp_path, kind):
    data = pngs()[kind]

    def build():
        s = string_placeholder("s")
        outs = []
        for c in (0, 1, 3, 4):
            outs += [RAW.DecodePng(contents=s, channels=c),
                     RAW.DecodePng(contents=s, channels=c, dtype=tf.uint16)]
        outs += [RAW.DecodeImage(contents=s, dtype=tf.float32),
                 RAW.DecodeImage(contents=s, dtype=tf.uint16, channels=3),
                 RAW.DecodeJpeg(contents=s)]  # TF's DecodeJpeg decodes PNGs too
        if "16" in kind:  # 16-bit PNGs as uint8: TF's result is compared in its own test
            outs = [o for o in outs if o.dtype != tf.uint8]
        return outs
    check(tmp_path, build, string_feed("s", data), rtol=0, atol=0)


# ---- BMP ----

@pytest.mark.parametrize("c", [1, 3, 4])
@pytest.mark.parametrize("top_down", [False, True])
def test_decode_bmp(tmp_path, c, top_down):
    """TensorFlow 2.21 crashes on a top-down BMP (negative height): tgraph's decode of one is
    compared with TensorFlow's of the same pixels stored bottom-up."""
    px = picture(5, 7, c, 13 + c)  # 7 pixels: padded rows for c = 1, 3

    def graph_of(data):
        graph = tf.Graph()
        with graph.as_default():
            s = tf.constant(data)
            outs = [RAW.DecodeBmp(contents=s, channels=k) for k in (0, 3, 4)]
            outs += [RAW.DecodeImage(contents=s, dtype=tf.float32),
                     RAW.DecodeImage(contents=s, dtype=tf.uint16)]
        return graph, [t.name for t in outs]
    graph, fetches = graph_of(bmp(px))
    expected = run_tensorflow(graph, {}, fetches)
    got = run_tgraph(tmp_path, graph_of(bmp(px, top_down))[0], {}, fetches)
    for name, e, g in zip(fetches, expected, got):
        assert g.dtype == e.dtype and g.shape == e.shape, name
        np.testing.assert_array_equal(g, e, err_msg=name)
    if c == 1:
        np.testing.assert_array_equal(expected[0], px)


def test_decode_png16_as_uint8(tmp_path):
    data = pngs()["rgb16"]

    def build():
        s = string_placeholder("s")
        return [RAW.DecodePng(contents=s), RAW.DecodeImage(contents=s),
                RAW.DecodePng(contents=s, channels=1)]
    check(tmp_path, build, string_feed("s", data), rtol=0, atol=0)


# ---- encoders: their output decoded in the same graph ----

@pytest.mark.parametrize("attrs", [{}, {"quality": 30}, {"progressive": True},
                                   {"optimize_size": True}, {"chroma_downsampling": False},
                                   {"format": "rgb", "density_unit": "cm", "x_density": 72,
                                    "y_density": 96, "xmp_metadata": "<x:xmpmeta/>"}])
def test_encode_jpeg_round_trip(tmp_path, attrs):
    x = picture(19, 26, 3, 20)
    g = picture(12, 9, 1, 21)

    def build():
        v = V1.placeholder(tf.uint8, x.shape, name="x")
        gv = V1.placeholder(tf.uint8, g.shape, name="g")
        enc = RAW.EncodeJpeg(image=v, **attrs)
        genc = RAW.EncodeJpeg(image=gv, **{k: a for k, a in attrs.items() if k != "format"})
        return [RAW.DecodeJpeg(contents=enc), RAW.DecodeJpeg(contents=genc),
                RAW.ExtractJpegShape(contents=enc), tf.strings.length(enc) > 100]
    check(tmp_path, build, {"x:0": x, "g:0": g}, rtol=0, atol=0)


@pytest.mark.parametrize("compression", [-1, 0, 9])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_encode_png_round_trip(tmp_path, compression, dtype):
    images = [picture(6, 8, c, 30 + c, dtype) for c in (1, 2, 3, 4)]

    def build():
        outs = []
        for i, img in enumerate(images):
            v = V1.placeholder(tf.as_dtype(dtype), img.shape, name=f"x{i}")
            enc = RAW.EncodePng(image=v, compression=compression)
            outs.append(RAW.DecodePng(contents=enc, dtype=tf.as_dtype(dtype)))
        return outs
    check(tmp_path, build, {f"x{i}:0": img for i, img in enumerate(images)}, rtol=0, atol=0)


# ---- bad bytes fail the node, naming it ----

@pytest.mark.parametrize("op,data,fragment", [
    ("DecodeJpeg", b"not an image at all", "Unknown image file format"),
    ("DecodeJpeg", "truncated", "Invalid JPEG data"),
    ("DecodePng", "png_truncated", "Invalid PNG data"),
    ("DecodeBmp", "png", "Trying to decode PNG format using DecodeBmp op"),
    ("DecodeImage", b"BM\x01\x02", "BMP data"),
    ("ExtractJpegShape", "png", "Invalid JPEG data"),
])
def test_bad_bytes_fail_the_node(tmp_path, op, data, fragment):
    if data == "truncated":
        data = jpegs()["rgb"][:300]
    elif data == "png_truncated":
        data = pngs()["rgb"][:60]
    elif data == "png":
        data = pngs()["rgb"]
    graph = tf.Graph()
    with graph.as_default():
        s = tf.constant(data)
        out = getattr(RAW, op)(contents=s, name="the_decoder")
    with V1.Session(graph=graph) as sess, pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(out)
    (tmp_path / "graph.pb").write_bytes(graph.as_graph_def().SerializeToString())
    done = subprocess.run([TOOL, "run", str(tmp_path / "graph.pb"), "--fetch", out.name],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "the_decoder" in done.stderr and fragment in done.stderr, done.stderr


# ---- color ops ----

COLOR_OPS = ["RGBToHSV", "HSVToRGB", "AdjustContrastv2", "AdjustHue", "AdjustSaturation"]


@pytest.mark.parametrize("name", COLOR_OPS)
def test_color_op_def(name):
    op_def_matches(name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, "bfloat16"])
def test_rgb_hsv(tmp_path, dtype):
    x = rng(40).rand(2, 4, 5, 3)
    x[0, 0, :3] = [[0.5, 0.5, 0.5], [0, 0, 0], [1, 0, 0.5]]  # gray, black, a negative hue
    tf_dtype = tf.bfloat16 if dtype == "bfloat16" else tf.as_dtype(dtype)
    tol = {tf.float32: 1e-6, tf.float64: 1e-12, tf.float16: 2e-3, tf.bfloat16: 2e-2}[tf_dtype]

    def build():
        v = tf.cast(V1.placeholder(tf.float64, x.shape, name="x"), tf_dtype)
        hsv = RAW.RGBToHSV(images=v)
        return [tf.cast(hsv, tf.float64), tf.cast(RAW.HSVToRGB(images=v), tf.float64),
                tf.cast(RAW.HSVToRGB(images=hsv), tf.float64)]
    check(tmp_path, build, {"x:0": x}, rtol=tol, atol=tol)


def test_adjust_ops(tmp_path):
    """float only: TensorFlow's CPU kernels of these take no other type."""
    x = rng(41).rand(2, 6, 5, 3).astype(np.float32)
    tol = 1e-5

    def build():
        v = V1.placeholder(tf.float32, x.shape, name="x")
        outs = [RAW.AdjustContrastv2(images=v, contrast_factor=f) for f in (0.3, 1.7)]
        outs += [RAW.AdjustContrastv2(images=v[0], contrast_factor=-1.0)]  # one 3-D image
        outs += [RAW.AdjustHue(images=v, delta=d) for d in (0.2, -0.45, 0.0, 1.3)]
        outs += [RAW.AdjustSaturation(images=v, scale=s) for s in (0.0, 0.5, 1.8)]
        return outs
    check(tmp_path, build, {"x:0": x}, rtol=tol, atol=tol)


# ---- DecodeAndCropJpeg, EncodeJpegVariableQuality ----

@pytest.mark.parametrize("name", ["DecodeAndCropJpeg", "EncodeJpegVariableQuality"])
def test_crop_and_variable_quality_op_defs(name):
    op_def_matches(name)


@pytest.mark.parametrize("kind", ["rgb", "gray", "progressive", "cmyk"])
def test_decode_and_crop_jpeg(tmp_path, kind):
    """libjpeg's cropped decoding, as TensorFlow's: near the window's left edge its pixels
    may differ from a full decode's (windows [16, 16, 16, 16] and [1, 1, ...] do)."""
    data = jpegs()[kind]
    h, w = RAW.ExtractJpegShape(contents=data).numpy()[:2]
    windows = [[0, 0, h, w], [3, 5, h - 9, w - 11], [min(9, h - 8), 7, 8, 8],
               [h // 2, w // 2, h // 2, 5], [1, 1, h - 2, w - 2], [h - 1, w - 1, 1, 1]]

    def build():
        s = string_placeholder("s")
        outs = [RAW.DecodeAndCropJpeg(contents=s, crop_window=np.int32(c)) for c in windows]
        outs += [RAW.DecodeAndCropJpeg(contents=s, crop_window=np.int32([2, 3, 4, 5]),
                                       ratio=2, fancy_upscaling=False),
                 RAW.DecodeAndCropJpeg(contents=s, crop_window=np.int32([1, 2, 5, 6]),
                                       channels=3, dct_method="INTEGER_ACCURATE")]
        return outs
    check(tmp_path, build, string_feed("s", data), rtol=0, atol=0)


def test_decode_and_crop_jpeg_bad_window_fails(tmp_path):
    data = jpegs()["rgb"]
    graph = tf.Graph()
    with graph.as_default():
        out = RAW.DecodeAndCropJpeg(contents=tf.constant(data),
                                    crop_window=np.int32([0, 0, 38, 53]), name="cropper")
    with V1.Session(graph=graph) as sess, pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(out)
    (tmp_path / "graph.pb").write_bytes(graph.as_graph_def().SerializeToString())
    done = subprocess.run([TOOL, "run", str(tmp_path / "graph.pb"), "--fetch", out.name],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "cropper" in done.stderr and "crop window" in done.stderr, done.stderr


@pytest.mark.parametrize("quality", [0, 35, 100])
def test_encode_jpeg_variable_quality(tmp_path, quality):
    x = picture(19, 26, 3, 22)

    def build():
        v = V1.placeholder(tf.uint8, x.shape, name="x")
        q = V1.placeholder(tf.int32, [], name="q")
        return [RAW.DecodeJpeg(contents=RAW.EncodeJpegVariableQuality(images=v, quality=q))]
    check(tmp_path, build, {"x:0": x, "q:0": np.int32(quality)}, rtol=0, atol=0)


def test_inception_style_preprocessing(tmp_path):
    """The head of Inception's classify_image_graph_def.pb: the JPEG's bytes fed to
    DecodeJpeg/contents, then Cast, ExpandDims, ResizeBilinear to 299 x 299 and scaling."""
    data = jpegs()["pil_420"]

    def build():
        s = V1.placeholder(tf.string, [], name="DecodeJpeg/contents")
        image = RAW.DecodeJpeg(contents=s, channels=3, name="DecodeJpeg")
        x = tf.expand_dims(tf.cast(image, tf.float32), 0)
        x = RAW.ResizeBilinear(images=x, size=np.int32([299, 299]))
        return [tf.multiply(tf.subtract(x, 128.0), 1 / 128.0), image]
    (tmp_path / "DecodeJpeg").mkdir()  # run_tgraph's .npy of the feed goes there
    check(tmp_path, build, string_feed("DecodeJpeg/contents", data), rtol=1e-6, atol=1e-6)
