"""tf.signal: the Fourier transforms under TF's tf.signal names (tf.spectral in TF 1.x)."""
# noqa: F401 - re-exports
from tgraph.ops.spectral_ops import (fft, fft2d, fft3d, ifft, ifft2d, ifft3d,  # noqa: F401
                                     irfft, irfft2d, irfft3d, rfft, rfft2d, rfft3d)
