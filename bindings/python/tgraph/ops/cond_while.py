"""tf.cond, tf.case and tf.while_loop as TensorFlow 1.x builds them (control flow v1: Switch
and Merge, Enter, Exit, NextIteration and LoopCond in the graph itself), over the C API's
builders TG_NewCond / TG_CondElse / TG_FinishCond and TG_NewWhile / TG_WhileSetCond /
TG_FinishWhile.

The branch and body functions run while a builder is open: every op they create lands
inside the branch or loop (the C API brings outside tensors in, and gives ops without inputs
the pivot as a control input). If one of them raises, the builder is aborted (its name scope
and context closed; ops already added stay in the graph, unused) and the exception
propagates.
"""
from __future__ import annotations

import builtins
from typing import Any, Callable, List, Optional

from tgraph import _c, _nest, errors
from tgraph.graph import get_default_graph
from tgraph.tensor import Tensor, _graph_of, _is_tensorlike, convert_to_tensor
from tgraph.tensor_shape import TensorShape

_lib = _c.lib


def _graph_for(values: Any) -> Any:
    return _graph_of([v for v in _nest.flatten(values) if _is_tensorlike(v)]) or \
        get_default_graph()


# ---- tf.cond ----

def _branch(g: Any, fn: Callable[[], Any], pivot_name: str) -> Any:
    """Runs a branch function inside the open branch: (its result, the result's tensors)."""
    from tgraph.operation import Operation
    from tgraph.ops.control_flow_ops import with_dependencies
    result = fn()
    if result is None:
        return None, None
    flat: List[Tensor] = []
    for v in _nest.flatten(result):
        if isinstance(v, Operation):
            # TensorFlow's proxy for an op: the branch's pivot, once the op ran.
            pivot = g.get_operation_by_name(pivot_name).outputs[0]
            flat.append(with_dependencies([v], pivot))
        else:
            flat.append(convert_to_tensor(v))  # constants are made inside the branch
    return result, flat


def _unpack_if_singleton(x: Any) -> Any:
    return x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x


def cond(pred: Any, true_fn: Optional[Callable[[], Any]] = None,
         false_fn: Optional[Callable[[], Any]] = None, strict: bool = False,
         name: Optional[str] = None, fn1: Optional[Callable[[], Any]] = None,
         fn2: Optional[Callable[[], Any]] = None) -> Any:
    """`true_fn()` if `pred` else `false_fn()`, decided when the graph runs (TF 1.x's
    tf.cond).

    Both functions are called once, now, to build their branch; only the ops of the branch
    taken run (a stateful op such as `assign_add` in the other branch does not). They must
    return the same nested structure (tensors, Python values, or Operations, which stand for
    the branch's pivot after the op ran) with the same dtypes. Nodes are named as in
    TensorFlow: `cond/Switch`, `cond/switch_t`, `cond/switch_f`, `cond/pred_id`, the branch
    ops under `cond/`, and one `cond/Merge`, `cond/Merge_1`, ... per result.

    Args:
      pred: a scalar bool tensor (not a Python bool).
      true_fn, false_fn: callables without arguments (fn1 / fn2: their deprecated names).
      strict: if False (TF's default), a result that is a list or tuple of one element is
        returned as that element.
      name: the name scope ("cond" by default; made unique).

    Returns:
      The merged results, in the structure `true_fn` returned.

    Raises:
      TypeError: a missing or non-callable function, a Python bool as `pred`, results of
        different sequence types.
      ValueError: a non-bool `pred`, a function returning None or nothing, results of
        different structures or dtypes.
      Whatever `true_fn` or `false_fn` raise (the cond is abandoned).
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    g = _graph_for(pred)
    with g.name_scope(name or "cond") as scope:
        if isinstance(pred, builtins.bool):
            raise TypeError("'pred' must not be a Python bool.")
        pred_t = convert_to_tensor(pred)
        st = _c.status()
        # scope ends with '/': the builder re-enters the scope opened here.
        handle = _lib.TG_NewCond(g._handle, pred_t._tf_output, _c.cstr(scope), st)
        errors.check_build(st)
        try:
            orig_t, res_t = _branch(g, true_fn, scope + "switch_t")
            if orig_t is None:
                raise ValueError("'true_fn' must have a return value.")
            _lib.TG_CondElse(handle, _c.output_array([t._tf_output for t in res_t]),
                             len(res_t), st)
            errors.check_build(st)
            orig_f, res_f = _branch(g, false_fn, scope + "switch_f")
            if orig_f is None:
                raise ValueError("'false_fn' must have a return value.")
            if not strict:
                orig_t, orig_f = _unpack_if_singleton(orig_t), _unpack_if_singleton(orig_f)
            try:
                _nest.assert_same_structure(orig_t, orig_f)
            except TypeError as e:
                raise TypeError(f"Incompatible return types of 'true_fn' and 'false_fn': {e}") \
                    from None
            except ValueError as e:
                raise ValueError("Incompatible return values of 'true_fn' and 'false_fn': "
                                 f"{e}") from None
            if not res_t:
                raise ValueError("'true_fn' and 'false_fn' must return at least one result.")
            for x, y in zip(res_t, res_f):
                if x.dtype.base_dtype != y.dtype.base_dtype:
                    raise ValueError("Outputs of 'true_fn' and 'false_fn' must have the same "
                                     f"type(s). Received {x.dtype.name} from 'true_fn' and "
                                     f"{y.dtype.name} from 'false_fn'.")
        except BaseException:
            _lib.TG_AbortCond(handle)
            raise
        outs = (_c.TG_Output * len(res_f))()
        _lib.TG_FinishCond(handle, _c.output_array([t._tf_output for t in res_f]), len(res_f),
                           outs, st)  # deletes the builder, whatever the outcome
        errors.check_build(st)
        merged = _nest.pack_sequence_as(orig_t, [g._tensor(o) for o in outs])
        return merged if strict else _unpack_if_singleton(merged)


# ---- tf.case ----

def _assert_at_most_n_true(predicates: List[Tensor], n: int, msg: str) -> Any:
    from tgraph.ops import array_ops, math_ops
    from tgraph.op_def_lib import apply_op
    from tgraph import dtypes
    preds_c = array_ops.stack(list(predicates), name="preds_c")
    num_true = math_ops.reduce_sum(math_ops.cast(preds_c, dtypes.int32), name="num_true_conds")
    condition = math_ops.less_equal(num_true, convert_to_tensor(n, name="n_true_conds"))
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    data = [convert_to_tensor(f"{msg}: more than {n} conditions ({names}) evaluated as True:"),
            preds_c]
    return apply_op("Assert", name="Assert", condition=condition, data=data,
                    summarize=len(predicates))


def case(pred_fn_pairs: Any, default: Optional[Callable[[], Any]] = None,
         exclusive: bool = False, strict: bool = False, name: str = "case") -> Any:
    """The result of the first callable whose predicate is true, else `default()` (TF 1.x's
    tf.case): a chain of `tf.cond`s, in the order of the pairs.

    Args:
      pred_fn_pairs: a list of (scalar bool tensor, callable) pairs, or a dict (taken in the
        order of the predicates' names, as TensorFlow does).
      default: the callable when no predicate holds. Without it the last pair's callable
        is the default, and running the graph when none holds fails (InvalidArgumentError).
      exclusive: if True, running the graph when more than one predicate holds fails.
      strict, name: as for `tf.cond` / the name scope.
    """
    from tgraph.graph import control_dependencies
    from tgraph.ops import array_ops
    from tgraph.op_def_lib import apply_op
    if not isinstance(pred_fn_pairs, (list, builtins.tuple, dict)):
        raise TypeError("'pred_fn_pairs' must be a list, tuple, or dict. "
                        f"Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, dict):
        pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    else:
        pairs = list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, builtins.tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if pred.dtype.base_dtype.name != "bool":
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    if default is not None and not callable(default):
        raise TypeError("'default' must be callable.")
    predicates = [p for p, _ in pairs]
    actions = [f for _, f in pairs]
    g = _graph_for(predicates)
    with g.name_scope(name or "case"):
        if default is None:
            if not predicates:
                raise ValueError("'pred_fn_pairs' must not be empty without a 'default'.")
            k = len(predicates) - 1
            last_pred, last_action = predicates[k], actions[k]
            others = predicates[:k]
            predicates, actions = predicates[:k], actions[:k]

            def default() -> Any:  # noqa: F811 (TensorFlow's default action)
                checks = [apply_op("Assert", name="Assert", condition=last_pred, data=[
                    convert_to_tensor("Input error: None of conditions evaluated as True:"),
                    array_ops.stack(predicates + [last_pred], name="preds_c")])]
                if others:
                    checks.append(_assert_at_most_n_true(
                        others, 0, "Implementation error: selected default action "
                        f"#{k} was called, but some of other predicates are True: "))
                with control_dependencies(checks):
                    return last_action()

        fn = default
        for pred, action in reversed(list(zip(predicates, actions))):
            fn = (lambda p, a, f: lambda: cond(p, a, f, strict=strict))(pred, action, fn)
        if exclusive and len(predicates) > 1:
            with control_dependencies([_assert_at_most_n_true(
                    predicates, 1, "Input error: exclusive=True")]):
                return fn()
        return fn()


# ---- tf.while_loop ----

def _shape_le(a: TensorShape, b: TensorShape) -> bool:
    """a is at least as specific as b (every known dimension of b is a's)."""
    if b.dims is None:
        return True
    if a.dims is None or len(a.dims) != len(b.dims):
        return False
    return all(db.value is None or da.value == db.value for da, db in zip(a.dims, b.dims))


def _build_loop(g: Any, scope: str, cond_fn: Callable[..., Any], body: Callable[..., Any],
                loop_vars: Any, shape_invariants: Any, parallel_iterations: int,
                return_same_structure: bool) -> Any:
    flat_in = [convert_to_tensor(v) for v in _nest.flatten(loop_vars)]
    if shape_invariants is not None:
        invariants = _nest.flatten(shape_invariants)
        if len(invariants) != len(flat_in):
            raise ValueError("'shape_invariants' must have the structure of 'loop_vars'.")
        for t, inv in zip(flat_in, invariants):
            inv = TensorShape(inv) if not isinstance(inv, TensorShape) else inv
            if not _shape_le(t.shape, inv):
                raise ValueError(f"The shape invariant specified for {t.name} is not "
                                 "compatible with the initial shape of the loop variable. It "
                                 f"enters the loop with shape {t.shape}, but the specified "
                                 f"shape invariant is {inv}.")
            if not _shape_le(inv, t.shape):
                raise NotImplementedError(
                    f"tgraph: a shape invariant less specific than the shape a loop variable "
                    f"enters with ({inv} for {t.name} of shape {t.shape}) is not supported")
    st = _c.status()
    n = len(flat_in)
    w = _lib.TG_NewWhile(g._handle, _c.output_array([t._tf_output for t in flat_in]), n,
                         _c.cstr(scope), int(parallel_iterations), st)
    errors.check_build(st)
    try:
        merges = [g._tensor(_lib.TG_WhileCondInput(w, i)) for i in range(n)]
        pred = convert_to_tensor(cond_fn(*_nest.pack_sequence_as(loop_vars, merges)))
        _lib.TG_WhileSetCond(w, pred._tf_output, st)
        errors.check_build(st)
        body_in = [g._tensor(_lib.TG_WhileBodyInput(w, i)) for i in range(n)]
        packed = _nest.pack_sequence_as(loop_vars, body_in)
        result = body(*packed)
        if not _nest.is_nested(result):
            result = [result]
        _nest.assert_same_structure(list(packed), list(result))
        flat_res = _nest.flatten(result)
        if len(flat_res) != n:
            raise ValueError("Number of inputs and outputs of 'body' must match 'loop_vars'. "
                             f"Got {n} for the number of inputs/outputs, and {len(flat_res)} "
                             "for 'loop_vars'.")
        # Python values become constants inside the body, of their loop variable's dtype.
        nexts = [v if isinstance(v, Tensor) else
                 convert_to_tensor(v) if _is_tensorlike(v) else
                 convert_to_tensor(v, dtype=m.dtype.base_dtype)
                 for v, m in zip(flat_res, merges)]
        for t, m, nx in zip(flat_in, merges, nexts):
            if not _shape_le(nx.shape, m.shape):
                raise ValueError(
                    f"Input tensor '{t.name}' enters the loop with shape {t.shape}, but has "
                    f"shape {nx.shape} after one iteration. To allow the shape to vary across "
                    "iterations, use the `shape_invariants` argument of tf.while_loop to "
                    "specify a less-specific shape.")
    except BaseException:
        _lib.TG_AbortWhile(w)
        raise
    outs = (_c.TG_Output * n)()
    _lib.TG_FinishWhile(w, _c.output_array([t._tf_output for t in nexts]), outs, st)
    errors.check_build(st)  # the builder is deleted, whatever the outcome
    exits = _nest.pack_sequence_as(result, [g._tensor(o) for o in outs])
    if return_same_structure:
        return exits
    return exits[0] if n == 1 else exits


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,
               shape_invariants: Any = None, parallel_iterations: int = 10,
               back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None,
               maximum_iterations: Any = None, return_same_structure: bool = False) -> Any:
    """Repeats `body` while `cond` is true (TF 1.x's tf.while_loop, control flow v1).

    `cond(*loop_vars)` and `body(*loop_vars)` are called once, now, with the loop variables
    as the loop sees them (`loop_vars` is a list or tuple, possibly nested, of tensors or
    values convertible to tensors): `cond` returns a scalar bool tensor, `body` the next
    values in the same structure and dtypes (a single value for a single variable is
    accepted). Tensors from outside used in them enter the loop as loop invariants. Nodes
    are TensorFlow's: `while/Enter`, `while/Merge`, `while/LoopCond`, `while/Switch`,
    `while/Identity`, `while/NextIteration`, `while/Exit` (`_1`, `_2`, ... per loop
    variable), the frame `while/while_context`.

    Args:
      shape_invariants: TensorShapes per loop variable; they may not be less specific than
        the shapes the variables enter with (tgraph keeps a loop variable's shape fixed).
      parallel_iterations: how many iterations may run at once (>= 1).
      back_prop, swap_memory: accepted for compatibility; tgraph has no gradients through
        loops yet (tf.gradients raises LookupError) and keeps everything in memory.
      name: the name scope ("while" by default; made unique).
      maximum_iterations: stop after this many iterations at most (a scalar; an
        `iteration_counter` loop variable is added as in TensorFlow).
      return_same_structure: return the structure of `loop_vars` even for one variable.

    Returns:
      The loop variables' values after the loop, in the structure `body` returned (the
      tensor itself for a single variable unless `return_same_structure`).

    Raises:
      TypeError: `cond` or `body` not callable, `parallel_iterations` < 1, results of
        another sequence type.
      ValueError: no loop variables, a body result of another structure, dtype or
        incompatible shape, a non-bool condition.
      Whatever `cond` or `body` raise (the loop is abandoned).
    """
    from tgraph.ops import math_ops
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    g = _graph_for(loop_vars)
    with g.as_default(), g.name_scope(name or "while") as scope:
        if not isinstance(loop_vars, (list, builtins.tuple)) or not loop_vars:
            if isinstance(loop_vars, (list, builtins.tuple)) or loop_vars is None:
                raise ValueError("'loop_vars' must be provided.")
            loop_vars = [loop_vars]
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError("'maximum_iterations' must be a scalar. Received shape: "
                                 f"{maximum_iterations.shape}")
            from tgraph.tensor import constant
            counter = constant(0, dtype=maximum_iterations.dtype, name="iteration_counter")
            orig_cond, orig_body, limit = cond, body, maximum_iterations
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])
                cond = lambda i, lv: math_ops.logical_and(i < limit, orig_cond(lv))  # noqa: E731
                body = lambda i, lv: (i + 1, orig_body(lv))  # noqa: E731
            else:
                loop_vars = (counter, loop_vars)
                cond = lambda i, lv: math_ops.logical_and(i < limit, orig_cond(*lv))  # noqa: E731
                body = lambda i, lv: (i + 1, orig_body(*lv))  # noqa: E731
            if shape_invariants is not None:
                shape_invariants = (TensorShape([]), shape_invariants)
        result = _build_loop(g, scope, cond, body, loop_vars, shape_invariants,
                             parallel_iterations, return_same_structure)
        return result[1] if maximum_iterations is not None else result
