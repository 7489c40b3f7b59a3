"""The complex-number ops (Complex, Real, Imag, Angle, ComplexAbs, Conj, ConjugateTranspose)
and the Fourier transforms (FFT, IFFT, RFFT, IRFFT in 1, 2 and 3 dimensions), differentially
against TensorFlow: each case builds a TF1 graph with the exact raw op, runs it in TensorFlow,
writes the GraphDef, runs it with `tgraph run` and compares every output (test_model_ops.py's
check). RFFT / IRFFT are run with fft_length equal to, shorter than and longer than the input
(TensorFlow crops and zero-pads), and IRFFT on bins whose DC and Nyquist imaginary parts are
not zero. Their OpDefs match TensorFlow's (test_list_op_defs.py's comparison)."""
import numpy as np
import pytest
import tensorflow as tf

from test_list_op_defs import test_op_def_matches_tensorflow as op_def_matches
from test_model_ops import RAW, check, ph, rng

COMPLEX_PARTS = ["Complex", "Real", "Imag", "Angle", "ComplexAbs", "Conj", "ConjugateTranspose"]
TRANSFORMS = [p + s for s in ("", "2D", "3D") for p in ("FFT", "IFFT", "RFFT", "IRFFT")]
SUFFIX = {1: "", 2: "2D", 3: "3D"}
COMPLEX_OF = {np.float32: np.complex64, np.float64: np.complex128}
TF_DTYPE = {np.float32: tf.float32, np.float64: tf.float64, np.complex64: tf.complex64,
            np.complex128: tf.complex128}


def tol(dtype):
    return 2e-4 if dtype in (np.float32, np.complex64) else 1e-10


def cplx(shape, seed, dtype):
    r = rng(seed)
    return (r.randn(*shape) + 1j * r.randn(*shape)).astype(dtype)


@pytest.mark.parametrize("name", COMPLEX_PARTS + TRANSFORMS)
def test_op_def(name):
    op_def_matches(name)


@pytest.mark.parametrize("real", [np.float32, np.float64])
def test_complex_parts(tmp_path, real):
    ctype = COMPLEX_OF[real]
    z = cplx((3, 4), 1, ctype)
    z[0, :3] = [0, -1, -2j]  # the axes and the origin
    re = rng(2).randn(3, 4).astype(real)
    im = rng(3).randn(4).astype(real)  # broadcast along rows
    t = tol(real)

    def build():
        v = ph("z", z)
        rt = TF_DTYPE[real]
        return [RAW.Complex(real=ph("re", re), imag=ph("im", im), Tout=TF_DTYPE[ctype]),
                RAW.Real(input=v, Tout=rt), RAW.Imag(input=v, Tout=rt),
                RAW.Angle(input=v, Tout=rt), RAW.ComplexAbs(x=v, Tout=rt), RAW.Conj(input=v),
                RAW.ConjugateTranspose(x=v, perm=[1, 0])]
    check(tmp_path, build, {"z:0": z, "re:0": re, "im:0": im}, rtol=t, atol=t)


def test_conjugate_transpose_of_real_and_integer(tmp_path):
    x = rng(4).randn(2, 3, 4).astype(np.float32)
    i = np.arange(24, dtype=np.int64).reshape(4, 3, 2)
    check(tmp_path, lambda: [RAW.ConjugateTranspose(x=ph("x", x), perm=[2, 0, 1]),
                             RAW.ConjugateTranspose(x=ph("i", i), perm=np.array([1, 2, 0], np.int64))],
          {"x:0": x, "i:0": i})


# Shapes per rank: odd, even and prime lengths, a batch of one, a transform of length 1.
SHAPES = {1: [(16,), (3, 7), (2, 1), (2, 3, 12)],
          2: [(5, 6), (2, 3, 4), (1, 7, 1)],
          3: [(2, 3, 4), (2, 2, 3, 5)]}


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_complex_transforms(tmp_path, rank, ctype):
    xs = [cplx(s, 10 + i, ctype) for i, s in enumerate(SHAPES[rank])]
    feeds = {f"x{i}:0": x for i, x in enumerate(xs)}
    t = tol(ctype)

    def build():
        outs = []
        for i, x in enumerate(xs):
            v = ph(f"x{i}", x)
            outs += [getattr(RAW, "FFT" + SUFFIX[rank])(input=v),
                     getattr(RAW, "IFFT" + SUFFIX[rank])(input=v)]
        return outs
    check(tmp_path, build, feeds, rtol=t, atol=t * 10)


# (input shape, fft_length): equal and cropped, odd and even lengths. TensorFlow's kernels
# refuse inputs shorter than fft_length (tf.signal.rfft pads them in Python); tgraph's
# zero-pad them, which the C++ tests check against the definition.
REAL_CASES = {1: [((2, 8), [8]), ((3, 7), [7]), ((2, 6), [4]), ((4, 9), [9]), ((1, 4), [1])],
              2: [((4, 6, 5), [6, 5]), ((2, 5, 6), [3, 4]), ((8, 6), [8, 6]), ((2, 3, 4), [3, 3])],
              3: [((2, 2, 3, 4), [2, 3, 4]), ((2, 4, 3, 6), [3, 2, 5]), ((3, 4, 5), [3, 4, 5])]}


@pytest.mark.parametrize("real", [np.float32, np.float64])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_rfft(tmp_path, rank, real):
    cases = REAL_CASES[rank]
    xs = [rng(20 + i).randn(*shape).astype(real) for i, (shape, _) in enumerate(cases)]
    feeds = {f"x{i}:0": x for i, x in enumerate(xs)}
    t = tol(real)

    def build():
        return [getattr(RAW, "RFFT" + SUFFIX[rank])(input=ph(f"x{i}", x),
                                                    fft_length=np.array(n, np.int32),
                                                    Tcomplex=TF_DTYPE[COMPLEX_OF[real]])
                for i, (x, (_, n)) in enumerate(zip(xs, cases))]
    check(tmp_path, build, feeds, rtol=t, atol=t * 10)


# (input shape, fft_length): as many bins as fft_length / 2 + 1, or more (cropped).
IRFFT_CASES = {1: [((2, 5), [8]), ((3, 4), [7]), ((2, 6), [4]), ((1, 1), [1]), ((2, 9), [9])],
               2: [((2, 4, 3), [4, 4]), ((5, 4), [5, 5]), ((2, 3, 4), [2, 6]), ((6, 5), [4, 6])],
               3: [((2, 2, 3, 3), [2, 3, 4]), ((1, 5, 2, 2), [4, 2, 3])]}


@pytest.mark.parametrize("real", [np.float32, np.float64])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_irfft(tmp_path, rank, real):
    """Arbitrary bins: the imaginary parts of the DC and Nyquist bins are ignored."""
    ctype = COMPLEX_OF[real]
    cases = IRFFT_CASES[rank]
    xs = [cplx(shape, 30 + i, ctype) for i, (shape, _) in enumerate(cases)]
    feeds = {f"x{i}:0": x for i, x in enumerate(xs)}
    t = tol(real)

    def build():
        return [getattr(RAW, "IRFFT" + SUFFIX[rank])(input=ph(f"x{i}", x),
                                                     fft_length=np.array(n, np.int32),
                                                     Treal=TF_DTYPE[real])
                for i, (x, (_, n)) in enumerate(zip(xs, cases))]
    check(tmp_path, build, feeds, rtol=t, atol=t * 10)


def test_empty_tensors(tmp_path):
    """(TensorFlow's RFFT / IRFFT of an empty signal padded to fft_length return uninitialized
    memory; tgraph's return zeros, checked in the C++ tests.)"""
    z = np.zeros((0, 4), np.complex64)
    e = np.zeros((0, 6), np.float32)
    b = np.zeros((0, 3), np.complex64)

    def build():
        v = ph("z", z)
        return [RAW.FFT(input=v), RAW.IFFT2D(input=v),
                RAW.RFFT(input=ph("e", e), fft_length=np.array([4], np.int32)),
                RAW.IRFFT(input=ph("b", b), fft_length=np.array([4], np.int32)),
                RAW.ComplexAbs(x=RAW.FFT(input=ph("z2", z)))]
    check(tmp_path, build, {"z:0": z, "z2:0": z, "e:0": e, "b:0": b})


def test_spectrogram_graph(tmp_path):
    """tf.signal.stft's shape of graph: frames, a Hann window, RFFT, magnitude."""
    audio = rng(40).randn(2, 400).astype(np.float32)

    def build():
        x = ph("audio", audio)
        frames = tf.signal.frame(x, 64, 32)
        window = tf.signal.hann_window(64)
        spec = RAW.RFFT(input=frames * window, fft_length=np.array([64], np.int32))
        return [RAW.ComplexAbs(x=spec, Tout=tf.float32)]
    check(tmp_path, build, {"audio:0": audio}, rtol=2e-4, atol=2e-4)
