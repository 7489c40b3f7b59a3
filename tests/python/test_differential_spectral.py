"""Complex numbers and Fourier transforms through the Python API (tf.complex, tf.math.real /
imag / angle / conj, tf.abs of complex tensors, tf.signal.fft / ifft / rfft / irfft in 1, 2
and 3 dimensions), built with tgraph and with real TensorFlow (tf.compat.v1) on the same inputs:
values and gradients must agree (test_differential_ops.py's run_both and check). TensorFlow has
no gradient for RFFT3D / IRFFT3D; tgraph's are checked against the exact gradients of NumPy's
transforms (the maps are linear, so each basis vector gives one gradient entry)."""
import numpy as np
import pytest

import tgraph
from test_differential_ops import check, tf1
from tf_compare import assert_close

R = np.random.RandomState(5)
RE = R.randn(3, 8).astype(np.float32)
IM = R.randn(3, 8).astype(np.float32)


def weights(shape, dtype=np.float32):
    n = int(np.prod(shape))
    return np.linspace(0.5, 1.5, n).reshape(shape).astype(dtype)


def loss(m, y):
    """sum(w1 * re(y) + w2 * im(y)) for complex y, sum(w * y) for real y: every element's
    gradient matters."""
    shape = y.shape.as_list()
    if y.dtype.is_complex:
        rd = y.dtype.real_dtype.as_numpy_dtype
        return (m.reduce_sum(m.math.real(y) * weights(shape, rd)) +
                m.reduce_sum(m.math.imag(y) * weights(shape, rd)[::-1].copy()))
    return m.reduce_sum(y * weights(shape, y.dtype.as_numpy_dtype))


def with_grads(m, outputs, wrt):
    fetches = dict(outputs)
    for k, y in outputs.items():
        for i, g in enumerate(m.gradients(loss(m, y), wrt)):
            assert g is not None, f"no gradient for {k} w.r.t. input {i}"
            fetches[f"d{k}/d{i}"] = m.convert_to_tensor(g)
    return fetches


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_complex_parts_and_gradients(dtype):
    re, im = RE.astype(dtype), IM.astype(dtype)
    tol = 2e-5 if dtype == np.float32 else 1e-10

    def build(m):
        a, b = m.constant(re), m.constant(im)
        z = m.complex(a, b)
        w = m.complex(a, b[0])  # broadcast
        outs = {"z": z, "w": w, "real": m.math.real(z), "imag": m.math.imag(z),
                "angle": m.math.angle(z), "abs": m.abs(z), "conj": m.math.conj(z),
                "tconj": m.conj(z), "treal": m.real(z), "timag": m.imag(z)}
        return with_grads(m, outs, [a, b])
    check(build, tol=tol)


def test_gradients_with_respect_to_a_complex_tensor():
    z0 = (RE + 1j * IM).astype(np.complex64)

    def build(m):
        z = m.constant(z0)
        outs = {"abs": m.abs(z), "angle": m.math.angle(z), "conj": m.math.conj(z),
                "real": m.math.real(z), "imag": m.math.imag(z), "fft": m.signal.fft(z),
                "ifft": m.signal.ifft(z), "fft2d": m.signal.fft2d(z), "ifft2d": m.signal.ifft2d(z)}
        return with_grads(m, outs, [z])
    check(build, tol=2e-4)


def test_real_inputs_to_the_complex_functions():
    def build(m):
        x = m.constant(RE)
        return {"real": m.math.real(x), "imag": m.math.imag(x), "conj": m.math.conj(x),
                "angle": m.math.angle(x), "abs": m.abs(x)}
    check(build)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_complex_transforms_and_gradients(rank, dtype):
    shape = {1: (2, 3, 7), 2: (2, 5, 6), 3: (2, 3, 4, 5)}[rank]
    z0 = (R.randn(*shape) + 1j * R.randn(*shape)).astype(dtype)
    sfx = {1: "", 2: "2d", 3: "3d"}[rank]
    tol = 2e-4 if dtype == np.complex64 else 1e-9

    def build(m):
        z = m.constant(z0)
        outs = {"fft": getattr(m.signal, "fft" + sfx)(z), "ifft": getattr(m.signal, "ifft" + sfx)(z)}
        return with_grads(m, outs, [z])
    check(build, tol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rank,shape", [(1, (3, 8)), (1, (2, 7)), (2, (2, 4, 6)), (2, (3, 5))])
def test_real_transforms_and_gradients(rank, shape, dtype):
    """TensorFlow's gradients of RFFT / IRFFT hold when fft_length is the input's size."""
    x0 = R.randn(*shape).astype(dtype)
    sfx = "" if rank == 1 else "2d"
    tol = 2e-4 if dtype == np.float32 else 1e-9
    n = list(shape[-rank:])

    def build(m):
        x = m.constant(x0)
        spec = getattr(m.signal, "rfft" + sfx)(x)
        bins = m.constant(np.fft.rfftn(x0, axes=tuple(range(-rank, 0))).astype(
            np.complex64 if dtype == np.float32 else np.complex128))
        outs = {"rfft": spec,
                "irfft": getattr(m.signal, "irfft" + sfx)(bins, fft_length=n),
                "roundtrip": getattr(m.signal, "irfft" + sfx)(spec, fft_length=n)}
        fetches = with_grads(m, {"rfft": spec, "roundtrip": outs["roundtrip"]}, [x])
        fetches.update(with_grads(m, {"irfft": outs["irfft"]}, [bins]))
        return fetches
    check(build, tol=tol)


def test_default_fft_length_and_cropping():
    x0 = R.randn(2, 10).astype(np.float32)

    def build(m):
        x = m.constant(x0)
        spec = m.signal.rfft(x)
        return {"rfft": spec, "crop": m.signal.rfft(x, fft_length=[6]),
                "pad": m.signal.rfft(x, fft_length=[16]), "irfft": m.signal.irfft(spec),
                "irfft_odd": m.signal.irfft(spec, fft_length=[9]),
                "spectral": m.spectral.rfft(x)}
    check(build, tol=2e-4)


def _numpy_gradient(fn, x, w):
    """The gradient of sum(w * re(fn(x))) (+ im part, as loss()) for a linear fn, TF's
    convention for complex x: dL/dre + 1j dL/dim."""
    def total(v):
        y = fn(v)
        if np.iscomplexobj(y):
            return np.sum(w * y.real) + np.sum(w[::-1] * y.imag)
        return np.sum(w * y)
    g = np.zeros(x.shape, np.complex128 if np.iscomplexobj(x) else np.float64)
    for idx in np.ndindex(*x.shape):
        e = np.zeros(x.shape, g.dtype)
        e[idx] = 1
        g[idx] = total(e)
        if np.iscomplexobj(x):
            e[idx] = 1j
            g[idx] += 1j * total(e)
    return g


def test_rfft3d_irfft3d_gradients_against_numpy():
    x0 = R.randn(2, 3, 4, 5)
    b0 = R.randn(2, 3, 4, 3) + 1j * R.randn(2, 3, 4, 3)
    axes = (-3, -2, -1)
    with tgraph.Graph().as_default():
        x = tgraph.constant(x0)
        b = tgraph.constant(b0)
        spec = tgraph.signal.rfft3d(x)
        sig = tgraph.signal.irfft3d(b, fft_length=[3, 4, 5])
        gx = tgraph.gradients(loss(tgraph, spec), [x])[0]
        gb = tgraph.gradients(loss(tgraph, sig), [b])[0]
        with tgraph.Session() as sess:
            spec_v, sig_v, gx_v, gb_v = sess.run([spec, sig, gx, gb])
    np.testing.assert_allclose(spec_v, np.fft.rfftn(x0, axes=axes), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sig_v, np.fft.irfftn(b0, s=[3, 4, 5], axes=axes), atol=1e-10)
    np.testing.assert_allclose(
        gx_v, _numpy_gradient(lambda v: np.fft.rfftn(v, axes=axes), x0, weights(spec_v.shape, np.float64)),
        atol=1e-9)
    np.testing.assert_allclose(
        gb_v, _numpy_gradient(lambda v: np.fft.irfftn(v, s=[3, 4, 5], axes=axes), b0,
                              weights(sig_v.shape, np.float64)),
        atol=1e-9)


def test_frame_windows_and_stft():
    """tf.signal.frame (with pad_end, along another axis), the Hann and Hamming windows
    (periodic and symmetric) and tf.signal.stft (the default power-of-two fft_length, and an
    fft_length past the frame, zero-padded), with the gradients of frame and stft."""
    audio = R.randn(2, 300).astype(np.float32)
    columns = R.randn(50, 3).astype(np.float32)

    def build(m):
        x = m.constant(audio)
        c = m.constant(columns)
        grads = with_grads(m, {"frame": m.signal.frame(x, 64, 32),
                               "frame_pad": m.signal.frame(x, 64, 40, pad_end=True),
                               "stft": m.signal.stft(x, 64, 32),
                               "stft_pad": m.signal.stft(x, 50, 25, fft_length=64, pad_end=True)},
                           [x])
        grads.update(with_grads(m, {"frame_axis0": m.signal.frame(c, 8, 5, axis=0)}, [c]))
        grads.update({"hann": m.signal.hann_window(64), "hann_odd": m.signal.hann_window(9),
                      "hann_sym": m.signal.hann_window(7, periodic=False),
                      "hamming": m.signal.hamming_window(10),
                      "hann64": m.signal.hann_window(16, dtype=m.float64),
                      "one": m.signal.hann_window(1)})
        return grads
    check(build, tol=2e-4)


def test_unknown_lengths():
    """Shapes known only when run: frame's frame count and padding, rfft / irfft's default
    fft_length (from the input's dynamic shape)."""
    audio = R.randn(2, 230).astype(np.float32)
    results = []
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            x = m.placeholder(m.float32, [2, None])
            spec = m.signal.rfft(x)
            fetches = {"frame": m.signal.frame(x, 64, 32),
                       "frame_pad": m.signal.frame(x, 64, 40, pad_end=True),
                       "rfft": spec, "irfft": m.signal.irfft(spec)}
            with m.Session() as sess:
                results.append(sess.run(fetches, {x: audio}))
    assert_close(results[0], results[1], 2e-4)


def test_mel_spectrogram():
    """linear_to_mel_weight_matrix (the defaults, and a 16 kHz 64-band float64 one) and the
    log-mel spectrogram of an audio model's front end, with its gradient."""
    audio = R.randn(2, 1000).astype(np.float32)

    def build(m):
        x = m.constant(audio)
        mel = m.signal.linear_to_mel_weight_matrix(40, 257, 16000, 20.0, 7600.0)
        power = m.abs(m.signal.stft(x, 400, 160, fft_length=512)) ** 2
        log_mel = m.log(m.tensordot(power, mel, 1) + 1e-6)
        out = with_grads(m, {"log_mel": log_mel}, [x])
        out.update({"default": m.signal.linear_to_mel_weight_matrix(),
                    "wide": m.signal.linear_to_mel_weight_matrix(64, 129, 16000.0, 0.0, 8000.0,
                                                                  dtype=m.float64),
                    "mel": mel})
        return out
    check(build, tol=2e-4)


@pytest.mark.parametrize("rank", [1, 2])
def test_cropped_and_padded_transform_gradients_against_numpy(rank):
    """Inputs longer or shorter than fft_length (TensorFlow's kernels refuse the shorter ones,
    and its gradients assume equal lengths): the values and the gradients are NumPy's
    rfftn / irfftn's, which crop and zero-pad the same way."""
    axes = tuple(range(-rank, 0))
    x0 = R.randn(2, 6, 5)[(0,) if rank == 1 else slice(None)]
    b0 = R.randn(2, 3, 5) + 1j * R.randn(2, 3, 5)
    b0 = b0[0] if rank == 1 else b0
    lengths = {1: ([8], [4]), 2: ([4, 7], [2, 6])}[rank]   # (rfft: crop, pad; irfft: crop, pad)
    irfft_lengths = {1: ([6], [12]), 2: ([4, 6], [2, 12])}[rank]
    sfx = "" if rank == 1 else "2d"
    with tgraph.Graph().as_default():
        x = tgraph.constant(x0)
        b = tgraph.constant(b0)
        outs = []
        for n in lengths:
            y = getattr(tgraph.signal, "rfft" + sfx)(x, fft_length=n)
            outs.append((y, tgraph.gradients(loss(tgraph, y), [x])[0], x0, n, np.fft.rfftn))
        for n in irfft_lengths:
            y = getattr(tgraph.signal, "irfft" + sfx)(b, fft_length=n)
            outs.append((y, tgraph.gradients(loss(tgraph, y), [b])[0], b0, n, np.fft.irfftn))
        with tgraph.Session() as sess:
            got = sess.run([(y, g) for y, g, *_ in outs])
    for (y, g), (_, _, v0, n, fn) in zip(got, outs):
        want = fn(v0, s=n, axes=axes)
        np.testing.assert_allclose(y, want, atol=1e-10)
        np.testing.assert_allclose(
            g, _numpy_gradient(lambda v: fn(v, s=n, axes=axes), v0, weights(want.shape, np.float64)),
            atol=1e-9)
