"""Random tensors (tf.random_normal, tf.random_uniform, tf.truncated_normal, ...), built by
the C API's initializer builders so that graph and op seeds follow TF 1.x's rules."""
from __future__ import annotations

from typing import Any, Optional

from tgraph import _c, dtypes, errors
from tgraph.graph import get_default_graph
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor


def _random(init: Any, shape: Any, dtype: Any, name: Optional[str]) -> Tensor:
    g = get_default_graph()
    if name:
        # TF names the ops "<name>/..." with the result "<name>"; tgraph's builder names
        # them after the op kind, so a given name becomes an enclosing scope.
        with g.name_scope(name):
            return init(shape, dtype)
    return init(shape, dtype)


def random_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = dtypes.float32,
                  seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Normal random values (mean + stddev * N(0, 1)), seeded by TF 1.x's rules."""
    from tgraph.initializers import RandomNormal
    return _random(RandomNormal(mean, stddev, seed, dtype), shape, dtype, name)


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0,
                     dtype: Any = dtypes.float32, seed: Optional[int] = None,
                     name: Optional[str] = None) -> Tensor:
    """Normal random values redrawn beyond two standard deviations."""
    from tgraph.initializers import TruncatedNormal
    return _random(TruncatedNormal(mean, stddev, seed, dtype), shape, dtype, name)


def random_uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
                   seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Uniform random values in [minval, maxval), seeded by TF 1.x's rules."""
    from tgraph.initializers import RandomUniform
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        import numpy as np
        from tgraph.ops.array_ops import _int_tensor
        np_dt = dtype.as_numpy_dtype
        kw = {} if seed is None else {"seed": int(seed), "seed2": 0}
        return apply_op("RandomUniformInt", name=name or "random_uniform",
                        shape=_int_tensor(list(shape), "shape"),
                        minval=np.asarray(minval, np_dt), maxval=np.asarray(maxval, np_dt), **kw)
    return _random(RandomUniform(minval, maxval, seed, dtype), shape, dtype, name)


def random_shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """`value` shuffled along its first dimension."""
    kw = {} if seed is None else {"seed": int(seed), "seed2": 0}
    return apply_op("RandomShuffle", name=name or "RandomShuffle", value=value, **kw)


def set_random_seed(seed: int) -> None:
    """The default graph's seed: random ops built afterwards are deterministic per session."""
    g = get_default_graph()
    st = _c.status()
    _c.lib.TG_GraphSetRandomSeed(g._handle, int(seed), st)
    errors.check(st)
