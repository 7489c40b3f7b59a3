"""Complex numbers and Fourier transforms under TF's Python names: tf.complex, tf.math.real /
imag / angle / conj, tf.abs of complex tensors (ComplexAbs), tf.signal.fft / ifft / rfft /
irfft in 1, 2 and 3 dimensions (tf.spectral.* and tf.fft* in TF 1.x), and tf.signal.frame,
hann_window, hamming_window and stft built from other ops."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tgraph import dtypes
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor


def _complex_of(real: dtypes.DType) -> dtypes.DType:
    return dtypes.complex128 if real.base_dtype == dtypes.float64 else dtypes.complex64


def complex(real: Any, imag: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001
    """real + imag * 1j (float32 -> complex64, float64 -> complex128), with broadcasting."""
    real = convert_to_tensor(real, name="real")
    imag = convert_to_tensor(imag, name="imag")
    if real.dtype.base_dtype != imag.dtype.base_dtype:
        raise TypeError(f"real and imag must have the same dtype, got {real.dtype.name} and "
                        f"{imag.dtype.name}")
    if real.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(f"complex takes float32 or float64 parts, got {real.dtype.name}")
    return apply_op("Complex", name=name or "Complex", real=real, imag=imag,
                    Tout=_complex_of(real.dtype))


def real(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The real part of a complex tensor; a real tensor is returned as is."""
    input = convert_to_tensor(input, name="input")
    if input.dtype.is_complex:
        return apply_op("Real", name=name or "Real", input=input, Tout=input.dtype.real_dtype)
    return input


def imag(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real one."""
    from tgraph.ops.array_ops import zeros_like
    input = convert_to_tensor(input, name="input")
    if input.dtype.is_complex:
        return apply_op("Imag", name=name or "Imag", input=input, Tout=input.dtype.real_dtype)
    return zeros_like(input, name=name)


def angle(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The argument of each complex element; pi for negative and 0 for other real values."""
    from tgraph.ops.array_ops import ones_like, where, zeros_like
    from tgraph.ops.math_ops import less
    input = convert_to_tensor(input, name="input")
    if input.dtype.is_complex:
        return apply_op("Angle", name=name or "Angle", input=input, Tout=input.dtype.real_dtype)
    return where(less(input, 0), np.pi * ones_like(input), zeros_like(input), name=name)


def conj(x: Any, name: Optional[str] = None) -> Tensor:
    """The complex conjugate; real and integer tensors are returned as is."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_complex:
        return apply_op("Conj", name=name or "Conj", input=x)
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError(f"conj expects a numeric tensor, got {x.dtype.name}")


def complex_abs(x: Any, name: Optional[str] = None) -> Tensor:
    """|x| of a complex tensor, as a real one (tf.abs's op for complex inputs)."""
    x = convert_to_tensor(x, name="x")
    return apply_op("ComplexAbs", name=name or "ComplexAbs", x=x, Tout=x.dtype.real_dtype)


def conjugate_transpose(x: Any, perm: Any, name: Optional[str] = None) -> Tensor:
    return apply_op("ConjugateTranspose", name=name or "transpose", x=x, perm=perm)


def _complex_transform(op: str):
    def fn(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
        input = convert_to_tensor(input, name="input")
        if not input.dtype.is_complex:
            raise TypeError(f"{op.lower()} expects a complex64 or complex128 tensor, got "
                            f"{input.dtype.name}")
        return apply_op(op, name=name or op, input=input)
    fn.__name__ = op.lower()
    fn.__doc__ = f"TF's {op}: the transform of the inner-most dimensions."
    return fn


def _static_inner(t: Tensor, rank: int):
    """The static sizes of t's inner-most `rank` dimensions, or None where unknown."""
    shape = t.shape
    if shape.ndims is None or shape.ndims < rank:
        return None
    return shape.as_list()[shape.ndims - rank:]


def _fft_length(t: Tensor, rank: int, inverse: bool, fft_length: Any) -> Any:
    """fft_length as TF's wrappers infer it: the input's inner dimensions (2 * (n - 1) for the
    last one of an inverse real transform), from the static shape when known."""
    if fft_length is not None:
        return convert_to_tensor(fft_length, dtype=dtypes.int32, name="fft_length")
    inner = _static_inner(t, rank)
    if inner is not None and all(d is not None for d in inner):
        if inverse:
            inner[-1] = max(0, 2 * (inner[-1] - 1))
        return convert_to_tensor(np.array(inner, np.int32), name="fft_length")
    from tgraph.ops.array_ops import shape as shape_of
    from tgraph.ops.array_ops import concat, strided_slice
    from tgraph.ops.math_ops import maximum
    dims = strided_slice(shape_of(t), [-rank], [0], end_mask=1)
    if inverse:
        last = maximum(0, 2 * (dims[-1] - 1))
        dims = concat([dims[:-1], last[None]], 0)
    return dims


def _real_transform(op: str, rank: int):
    def fn(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(input_tensor, name="input_tensor")
        if x.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(f"{op.lower()} expects a float32 or float64 tensor, got "
                            f"{x.dtype.name}")
        length = _fft_length(x, rank, False, fft_length)
        return apply_op(op, name=name or op, input=x, fft_length=length,
                        Tcomplex=_complex_of(x.dtype))
    fn.__name__ = op.lower()
    fn.__doc__ = f"TF's {op}: the real-input transform of the inner-most dimensions."
    return fn


def _inverse_real_transform(op: str, rank: int):
    def fn(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(input_tensor, name="input_tensor")
        if not x.dtype.is_complex:
            raise TypeError(f"{op.lower()} expects a complex64 or complex128 tensor, got "
                            f"{x.dtype.name}")
        length = _fft_length(x, rank, True, fft_length)
        return apply_op(op, name=name or op, input=x, fft_length=length,
                        Treal=x.dtype.real_dtype)
    fn.__name__ = op.lower()
    fn.__doc__ = f"TF's {op}: the real signal of the given unique bins."
    return fn


fft = _complex_transform("FFT")
ifft = _complex_transform("IFFT")
fft2d = _complex_transform("FFT2D")
ifft2d = _complex_transform("IFFT2D")
fft3d = _complex_transform("FFT3D")
ifft3d = _complex_transform("IFFT3D")
rfft = _real_transform("RFFT", 1)
irfft = _inverse_real_transform("IRFFT", 1)
rfft2d = _real_transform("RFFT2D", 2)
irfft2d = _inverse_real_transform("IRFFT2D", 2)
rfft3d = _real_transform("RFFT3D", 3)
irfft3d = _inverse_real_transform("IRFFT3D", 3)


# ---- tf.signal's framing, windows and short-time Fourier transform (built from other ops) ----

def frame(signal: Any, frame_length: int, frame_step: int, pad_end: bool = False,
          pad_value: Any = 0, axis: int = -1, name: Optional[str] = None) -> Tensor:
    """Overlapping frames of `frame_length` samples every `frame_step` samples along `axis`:
    that axis becomes [num_frames, frame_length] (tf.signal.frame). With pad_end the last
    frames run past the end, padded with pad_value."""
    from tgraph.ops.array_ops import gather, pad
    from tgraph.ops.array_ops import shape as shape_of
    from tgraph.ops.math_ops import floordiv, maximum, range_
    signal = convert_to_tensor(signal, name="signal")
    rank = signal.shape.ndims
    if rank is None:
        raise ValueError("frame needs a signal of known rank")
    axis = axis + rank if axis < 0 else axis
    samples = signal.shape.as_list()[axis]
    if samples is None:
        samples = shape_of(signal)[axis]
    if pad_end:
        # ceil(samples / frame_step) frames; the signal padded to cover the last one.
        num_frames = -floordiv(-samples, frame_step) if isinstance(samples, Tensor) else \
            -(-samples // frame_step)
        needed = (num_frames - 1) * frame_step + frame_length
        extra = maximum(0, needed - samples) if isinstance(samples, Tensor) else \
            max(0, needed - samples)
        paddings = [[0, 0]] * rank
        paddings[axis] = [0, extra]
        if isinstance(extra, Tensor):
            from tgraph.ops.array_ops import stack
            paddings = stack([stack([0, 0]) if i != axis else stack([0, extra])
                              for i in range(rank)])
        signal = pad(signal, paddings, constant_values=pad_value)
    else:
        num_frames = maximum(0, 1 + floordiv(samples - frame_length, frame_step)) \
            if isinstance(samples, Tensor) else max(0, 1 + (samples - frame_length) // frame_step)
    starts = range_(0, num_frames) * frame_step
    indices = starts[:, None] + range_(0, frame_length)[None, :]
    if axis == 0:
        # Gathered along a second axis, so that the gradient is a dense tensor (as TF's
        # frame's is) rather than the IndexedSlices of a gather along axis 0.
        from tgraph.ops.array_ops import expand_dims, squeeze
        frames = gather(expand_dims(signal, 0), indices, axis=1)
        return squeeze(frames, [0], name=name or "frame")
    return gather(signal, indices, axis=axis, name=name or "frame")


def _raised_cosine_window(window_length: int, periodic: bool, dtype: Any, a: float, b: float,
                          name: str) -> Tensor:
    """a - b * cos(2 pi n / N) with TF's N: window_length for a periodic window of even
    length, window_length - 1 otherwise."""
    from tgraph.ops.array_ops import ones
    from tgraph.ops.math_ops import cast, range_
    from tgraph.ops.math_more_ops import cos
    dtype = dtypes.as_dtype(dtype)
    if window_length == 1:
        return ones([1], dtype, name=name)
    even = 1 - window_length % 2
    n = cast(window_length + int(periodic) * even - 1, dtype)
    count = cast(range_(0, window_length), dtype)
    cos_arg = convert_to_tensor(2 * np.pi, dtype=dtype) * count / n
    return convert_to_tensor(a, dtype=dtype) - convert_to_tensor(b, dtype=dtype) * cos(cos_arg)


def hann_window(window_length: int, periodic: bool = True, dtype: Any = dtypes.float32,
                name: Optional[str] = None) -> Tensor:
    return _raised_cosine_window(window_length, periodic, dtype, 0.5, 0.5, name or "hann_window")


def hamming_window(window_length: int, periodic: bool = True, dtype: Any = dtypes.float32,
                   name: Optional[str] = None) -> Tensor:
    return _raised_cosine_window(window_length, periodic, dtype, 0.54, 0.46,
                                 name or "hamming_window")


def stft(signals: Any, frame_length: int, frame_step: int, fft_length: Optional[int] = None,
         window_fn: Any = hann_window, pad_end: bool = False,
         name: Optional[str] = None) -> Tensor:
    """The short-time Fourier transform of the inner-most axis: windowed frames, each RFFT'd
    to fft_length // 2 + 1 bins (fft_length: the smallest power of two >= frame_length)."""
    signals = convert_to_tensor(signals, name="signals")
    if fft_length is None:
        fft_length = 1 << max(0, int(frame_length - 1).bit_length())
    framed = frame(signals, frame_length, frame_step, pad_end=pad_end, axis=-1)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=framed.dtype)
    return rfft(framed, [fft_length], name=name)


def _hertz_to_mel(frequencies_hertz: Any) -> Tensor:
    """HTK's mel scale: 1127 * log(1 + f / 700)."""
    from tgraph.ops.math_ops import log
    return 1127.0 * log(1.0 + (frequencies_hertz / 700.0))


def linear_to_mel_weight_matrix(num_mel_bins: int = 20, num_spectrogram_bins: int = 129,
                                sample_rate: Any = 8000, lower_edge_hertz: float = 125.0,
                                upper_edge_hertz: float = 3800.0, dtype: Any = dtypes.float32,
                                name: Optional[str] = None) -> Tensor:
    """The [num_spectrogram_bins, num_mel_bins] matrix that maps a linear-frequency magnitude
    spectrogram to mel bands: triangles, linear in mel, between num_mel_bins + 2 equally spaced
    mel edges; the DC bin gets no weight (HTK's convention, as tf.signal's)."""
    from tgraph.ops.array_ops import expand_dims, pad, reshape, split
    from tgraph.ops.math_ops import cast, linspace, maximum, minimum
    dtype = dtypes.as_dtype(dtype)
    if num_mel_bins <= 0:
        raise ValueError("num_mel_bins must be positive. Got: %s" % num_mel_bins)
    if lower_edge_hertz < 0.0:
        raise ValueError("lower_edge_hertz must be non-negative. Got: %s" % lower_edge_hertz)
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError("lower_edge_hertz %.1f >= upper_edge_hertz %.1f" %
                         (lower_edge_hertz, upper_edge_hertz))
    if not isinstance(sample_rate, Tensor):
        if sample_rate <= 0.0:
            raise ValueError("sample_rate must be positive. Got: %s" % sample_rate)
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency "
                             "(sample_rate / 2). Got %s for sample_rate: %s"
                             % (upper_edge_hertz, sample_rate))
    if not dtype.is_floating:
        raise ValueError("dtype must be a floating point type. Got: %s" % dtype)
    sample_rate = cast(sample_rate, dtype)
    lower = convert_to_tensor(lower_edge_hertz, dtype=dtype, name="lower_edge_hertz")
    upper = convert_to_tensor(upper_edge_hertz, dtype=dtype, name="upper_edge_hertz")
    zero = convert_to_tensor(0.0, dtype=dtype)
    nyquist = sample_rate / 2.0
    # The DC bin is left out of the triangles, then given a zero row.
    linear_frequencies = linspace(zero, nyquist, num_spectrogram_bins)[1:]
    spectrogram_bins_mel = expand_dims(_hertz_to_mel(linear_frequencies), 1)
    band_edges_mel = frame(linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2),
                           frame_length=3, frame_step=1)
    lower_mel, center_mel, upper_mel = (reshape(t, [1, num_mel_bins])
                                        for t in split(band_edges_mel, 3, axis=1))
    lower_slopes = (spectrogram_bins_mel - lower_mel) / (center_mel - lower_mel)
    upper_slopes = (upper_mel - spectrogram_bins_mel) / (upper_mel - center_mel)
    weights = maximum(zero, minimum(lower_slopes, upper_slopes))
    return pad(weights, [[1, 0], [0, 0]], name=name or "linear_to_mel_weight_matrix")
