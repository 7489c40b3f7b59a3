"""Stateless random tensors (tf.random.stateless_uniform, stateless_normal,
stateless_truncated_normal, tf.random.experimental.stateless_split / stateless_fold_in): the
numbers are a pure function of the seed pair and match TensorFlow's bit for bit. Built as TF
2.x's Python builds them: StatelessRandomGetKeyCounter(seed) feeding the V2 op with the
auto-select algorithm, then the scale and shift (Sub, Mul, AddV2 on the op's output)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from tgraph import dtypes
from tgraph.graph import get_default_graph
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor

_AUTO_SELECT = 3  # TensorFlow's Algorithm.AUTO_SELECT: Philox on CPU
_ALGS = {"philox": 1, "auto_select": 3}


def _alg_id(alg: Any) -> int:
    if alg is None:
        return _AUTO_SELECT
    if isinstance(alg, str):
        if alg.lower() not in _ALGS:
            raise ValueError(f"Unsupported random algorithm {alg!r} (this runtime has philox "
                             "and auto_select)")
        return _ALGS[alg.lower()]
    if int(alg) not in _ALGS.values():
        raise ValueError(f"Unsupported random algorithm id {alg!r}")
    return int(alg)


def _shape(shape: Any) -> Any:
    from tgraph.ops.array_ops import _int_tensor
    if isinstance(shape, (list, tuple)) and not shape:
        return np.zeros([0], np.int32)  # a scalar's shape
    return _int_tensor(list(shape) if isinstance(shape, tuple) else shape, "shape")


def _seed(seed: Any) -> Tensor:
    seed = convert_to_tensor(seed, name="seed")
    if seed.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"seed must be int32 or int64, got {seed.dtype!r}")
    return seed


def _key_counter_alg(seed: Any, alg: Any) -> Tuple[Tensor, Tensor, Any]:
    key, counter = apply_op("StatelessRandomGetKeyCounter", seed=_seed(seed))
    return key, counter, np.int32(_alg_id(alg))


def stateless_random_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                             dtype: Any = dtypes.float32, name: Optional[str] = None,
                             alg: Any = "auto_select") -> Tensor:
    """Uniform values in [minval, maxval) from a seed pair (TensorFlow's numbers). Integer
    dtypes need both bounds, or neither for the dtype's whole range."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError("For integer dtype {}, minval and maxval must be both `None` or "
                             "both non-`None`; got minval={} and maxval={}".format(
                                 dtype, minval, maxval))
        if minval is not None and dtype in (dtypes.uint32, dtypes.uint64):
            raise ValueError(f"Invalid dtype for bounded uniform integers: {dtype!r}")
    elif maxval is None:
        maxval = 1
    with get_default_graph().name_scope(name or "stateless_random_uniform") as scope:
        shape = _shape(shape)
        if dtype.is_integer and minval is None:
            key, counter, alg_id = _key_counter_alg(seed, alg)
            return apply_op("StatelessRandomUniformFullIntV2", name=scope,
                            shape=shape, key=key, counter=counter, alg=alg_id, dtype=dtype)
        minval = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        key, counter, alg_id = _key_counter_alg(seed, alg)
        if dtype.is_integer:
            return apply_op("StatelessRandomUniformIntV2", name=scope, shape=shape,
                            key=key, counter=counter, alg=alg_id, minval=minval, maxval=maxval)
        rnd = apply_op("StatelessRandomUniformV2", shape=shape, key=key, counter=counter,
                       alg=alg_id, dtype=dtype)
        scaled = apply_op("Mul", name="mul", x=rnd, y=apply_op("Sub", name="sub", x=maxval,
                                                                 y=minval))
        return apply_op("AddV2", name=scope, x=scaled, y=minval)


def _scaled(op: str, default_name: str, shape: Any, seed: Any, mean: Any, stddev: Any,
            dtype: Any, name: Optional[str], alg: Any) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    with get_default_graph().name_scope(name or default_name) as scope:
        shape = _shape(shape)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        key, counter, alg_id = _key_counter_alg(seed, alg)
        rnd = apply_op(op, shape=shape, key=key, counter=counter, alg=alg_id, dtype=dtype)
        return apply_op("AddV2", name=scope,
                        x=apply_op("Mul", name="mul", x=rnd, y=stddev), y=mean)


def stateless_random_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                            dtype: Any = dtypes.float32, name: Optional[str] = None,
                            alg: Any = "auto_select") -> Tensor:
    """Normal values (mean + stddev * N(0, 1)) from a seed pair (TensorFlow's numbers)."""
    return _scaled("StatelessRandomNormalV2", "stateless_random_normal", shape, seed, mean,
                   stddev, dtype, name, alg)


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = dtypes.float32, name: Optional[str] = None,
                               alg: Any = "auto_select") -> Tensor:
    """Normal values redrawn beyond two standard deviations, from a seed pair."""
    return _scaled("StatelessTruncatedNormalV2", "stateless_truncated_normal", shape, seed,
                   mean, stddev, dtype, name, alg)


def stateless_split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """`num` new seed pairs ([num, 2], the seed's dtype) derived from `seed`."""
    seed = _seed(seed)
    return stateless_random_uniform([num, 2], seed, dtype=seed.dtype, minval=None, maxval=None,
                                    alg=alg)


def stateless_fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """A new seed pair from `seed` and the integer `data`: [draw(seed), data]."""
    from tgraph.ops.array_ops import stack
    data = convert_to_tensor(data)
    first = stateless_random_uniform([], seed, dtype=data.dtype, minval=None, maxval=None,
                                     alg=alg)
    return stack([first, data])


def stateless_shuffle(value: Any, seed: Any, alg: Any = "auto_select",
                      name: Optional[str] = None) -> Tensor:
    """`value`'s rows (dimension 0) permuted as TensorFlow permutes them for `seed`."""
    with get_default_graph().name_scope(name or "stateless_shuffle") as scope:
        value = convert_to_tensor(value, name="value")
        key, counter, alg_id = _key_counter_alg(seed, alg)
        return apply_op("StatelessShuffle", name=scope, value=value, key=key, counter=counter,
                        alg=alg_id)
