"""Comparing results of the same graph run by tgraph and by TensorFlow (the differential
tests): nested dicts, lists and tuples of arrays must agree in shape, dtype and value."""
import numpy as np


def assert_close(a, b, tol=1e-4):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_close(a[k], b[k], tol)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_close(x, y, tol)
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
