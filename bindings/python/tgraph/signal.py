"""tf.signal: the Fourier transforms under TF's tf.signal names (tf.spectral in TF 1.x), framing,
windows and the short-time Fourier transform."""
# noqa: F401 - re-exports
from tgraph.ops.spectral_ops import (fft, fft2d, fft3d, ifft, ifft2d, ifft3d,  # noqa: F401
                                     irfft, irfft2d, irfft3d, rfft, rfft2d, rfft3d)
from tgraph.ops.spectral_ops import (frame, hamming_window, hann_window,  # noqa: F401,E402
                                     linear_to_mel_weight_matrix, stft)
