"""Nested structures (lists, tuples, namedtuples, dicts) of tensors, as tf.nest sees them:
what tf.cond and tf.while_loop take and return. Dicts flatten in sorted key order, as in
TensorFlow; everything that is not a list, tuple or dict is a leaf."""
from __future__ import annotations

from typing import Any, Callable, List


def is_nested(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict))


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(x: Any) -> List[Any]:
    if isinstance(x, dict):
        return [x[k] for k in sorted(x)]
    return list(x)


def flatten(x: Any) -> List[Any]:
    """The leaves of x, depth first (a leaf alone gives [x])."""
    if not is_nested(x):
        return [x]
    out: List[Any] = []
    for c in _children(x):
        out.extend(flatten(c))
    return out


def _rebuild(like: Any, items: List[Any]) -> Any:
    if isinstance(like, dict):
        keys = sorted(like)
        return type(like)((k, v) for k, v in zip(keys, items)) if type(like) is not dict \
            else dict(zip(keys, items))
    if _is_namedtuple(like):
        return type(like)(*items)
    if isinstance(like, tuple):
        return tuple(items)
    return list(items)


def pack_sequence_as(structure: Any, flat: List[Any]) -> Any:
    """flat's items in the shape of structure (len(flat) == len(flatten(structure)))."""
    flat = list(flat)
    if len(flat) != len(flatten(structure)):
        raise ValueError(f"Could not pack sequence. Structure had {len(flatten(structure))} "
                         f"atoms, but flat_sequence had {len(flat)} items.")
    pos = [0]

    def build(s: Any) -> Any:
        if not is_nested(s):
            v = flat[pos[0]]
            pos[0] += 1
            return v
        return _rebuild(s, [build(c) for c in _children(s)])

    return build(structure)


def map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])


def assert_same_structure(a: Any, b: Any) -> None:
    """ValueError where the nesting or the lengths differ, TypeError where the sequence types
    do (TensorFlow's nest.assert_same_structure with check_types)."""
    def walk(x: Any, y: Any) -> None:
        if is_nested(x) != is_nested(y):
            raise ValueError("The two structures don't have the same nested structure.\n\n"
                             f"First structure: {a!r}\n\nSecond structure: {b!r}")
        if not is_nested(x):
            return
        if type(x) is not type(y) and not (isinstance(x, list) and isinstance(y, list)):
            raise TypeError("The two structures don't have the same sequence type. Input "
                            f"structure has type {type(x)!r}, while shallow structure has "
                            f"type {type(y)!r}.")
        if isinstance(x, dict) and sorted(x) != sorted(y):
            raise ValueError("The two dictionaries don't have the same set of keys. First "
                             f"structure has keys {sorted(x)}, while second structure has "
                             f"keys {sorted(y)}.")
        cx, cy = _children(x), _children(y)
        if len(cx) != len(cy):
            raise ValueError("The two structures don't have the same number of elements.\n\n"
                             f"First structure: {a!r}\n\nSecond structure: {b!r}")
        for p, q in zip(cx, cy):
            walk(p, q)

    walk(a, b)
