"""tf.Session / tf.InteractiveSession over TG_Session: nested fetches, feed_dict, options
and run metadata."""
from __future__ import annotations

import collections
import ctypes
import threading
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from tgraph import _c, _tensor_conv, dtypes, errors

_lib = _c.lib


class _FetchPlan:
    """The unique tensors and ops a fetch structure names, and how to rebuild the structure
    from their values."""

    def __init__(self, graph: Any, fetches: Any) -> None:
        self.tensors: List[Any] = []
        self.ops: List[Any] = []
        self._tensor_index: Dict[int, int] = {}
        self._op_ids: set = set()
        self.graph = graph
        self.build = self._plan(fetches)
        nt, no = len(self.tensors), len(self.ops)
        # The arrays TG_SessionRun reads, made once per plan.
        self.outputs = (_c.TG_Output * nt)(*[t._tf_output for t in self.tensors]) if nt else None
        self.targets = (ctypes.c_void_p * no)(*[o._handle for o in self.ops]) if no else None

    def _element(self, f: Any) -> Any:
        from tgraph.operation import Operation
        try:
            el = self.graph.as_graph_element(f, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(f"Fetch argument {f!r} has invalid type {type(f)}, must be a string "
                            f"or Tensor. ({e})") from None
        except ValueError as e:
            raise ValueError(f"Fetch argument {f!r} cannot be interpreted as a Tensor. "
                             f"({e})") from None
        except KeyError as e:
            raise ValueError(f"Fetch argument {f!r} cannot be interpreted as a Tensor. "
                             f"({e.args[0]})") from None
        if isinstance(el, Operation):
            if id(el) not in self._op_ids:
                self._op_ids.add(id(el))
                self.ops.append(el)
            return lambda values: None
        key = id(el)
        if key not in self._tensor_index:
            self._tensor_index[key] = len(self.tensors)
            self.tensors.append(el)
        i = self._tensor_index[key]
        return lambda values: values[i]

    def _plan(self, f: Any) -> Any:
        if f is None:
            raise TypeError(f"Fetch argument {f!r} has invalid type {type(f)}")
        if isinstance(f, (list, tuple)) and not hasattr(f, "_as_graph_element"):
            subs = [self._plan(x) for x in f]
            if isinstance(f, tuple) and hasattr(f, "_fields"):  # namedtuple
                cls = type(f)
                return lambda v: cls(*[s(v) for s in subs])
            if isinstance(f, tuple):
                return lambda v: tuple(s(v) for s in subs)
            return lambda v: [s(v) for s in subs]
        if isinstance(f, collections.abc.Mapping):
            items = [(k, self._plan(x)) for k, x in f.items()]
            cls = type(f)

            def build(v: Any) -> Any:
                pairs = [(k, s(v)) for k, s in items]
                if cls is collections.defaultdict:
                    d = collections.defaultdict(f.default_factory)
                    d.update(pairs)
                    return d
                try:
                    return cls(pairs)
                except TypeError:
                    return dict(pairs)
            return build
        return self._element(f)


# RewriterConfig's switches -> the plan-time rewrites they govern here. TF's dependency
# optimizer also removes Identity and NoOp nodes, which tgraph does as "identity_removal".
_REWRITER_SWITCHES = {
    "constant_folding": ("constant_folding",),
    "arithmetic_optimization": ("arithmetic_optimization",),
    "dependency_optimization": ("dependency_optimization", "identity_removal"),
    "remapping": ("remapping",),
    "common_subgraph_elimination": ("common_subgraph_elimination",),
    # Both of TF's mixed-precision switches name tgraph's one: bfloat16 on the CPU (off by
    # default, as in TF; ON turns it on).
    "auto_mixed_precision": ("auto_mixed_precision",),
    "auto_mixed_precision_onednn_bfloat16": ("auto_mixed_precision",),
}
# Names in RewriterConfig.optimizers (TF's meta-optimizer names) -> the same.
_OPTIMIZER_NAMES = {"constfold": "constant_folding", "arithmetic": "arithmetic_optimization",
                    "dependency": "dependency_optimization", "remap": "remapping",
                    "common_subgraph_elimination": "common_subgraph_elimination",
                    "auto_mixed_precision": "auto_mixed_precision",
                    "auto_mixed_precision_onednn_bfloat16": "auto_mixed_precision_onednn_bfloat16"}


def _set_rewrite(opts: Any, name: str, on: bool) -> None:
    st = _c.status()
    _lib.TG_SetSessionRewrite(opts, _c.cstr(name), 1 if on else 0, st)
    errors.check(st)


def _apply_rewriter_config(opts: Any, config: Any) -> None:
    """config.graph_options.rewrite_options, as TensorFlow reads it: disable_meta_optimizer
    turns every rewrite off; a non-empty `optimizers` list runs only those; else each
    switch set OFF turns its rewrites off and ON/AGGRESSIVE on (DEFAULT keeps the session's
    default: on, but auto_mixed_precision off)."""
    graph_options = getattr(config, "graph_options", None)
    if graph_options is None or not graph_options.HasField("rewrite_options"):
        return
    rc = graph_options.rewrite_options
    off = rc.DESCRIPTOR.enum_types_by_name["Toggle"].values_by_name["OFF"].number
    if rc.disable_meta_optimizer:
        _set_rewrite(opts, "all", False)
        return
    if len(rc.optimizers):
        _set_rewrite(opts, "all", False)
        for name in rc.optimizers:
            if name in _OPTIMIZER_NAMES:
                for rewrite in _REWRITER_SWITCHES[_OPTIMIZER_NAMES[name]]:
                    _set_rewrite(opts, rewrite, True)
        return
    for field, rewrites in _REWRITER_SWITCHES.items():
        toggle = getattr(rc, field)
        if toggle != 0:  # DEFAULT leaves the session's default
            for rewrite in rewrites:
                _set_rewrite(opts, rewrite, toggle != off)


class BaseSession:
    def __init__(self, target: str = "", graph: Any = None, config: Any = None) -> None:
        from tgraph.graph import get_default_graph
        _c.ensure_plugins()
        self._graph = graph if graph is not None else get_default_graph()
        self._config = config
        opts = _lib.TG_NewSessionOptions()
        try:
            if config is not None:
                if getattr(config, "inter_op_parallelism_threads", 0):
                    _lib.TG_SetSessionInterOpThreads(opts, config.inter_op_parallelism_threads)
                if getattr(config, "intra_op_parallelism_threads", 0):
                    _lib.TG_SetSessionIntraOpThreads(opts, config.intra_op_parallelism_threads)
                if getattr(config, "allow_soft_placement", False):
                    _lib.TG_SetSessionAllowSoftPlacement(opts, 1)
                if getattr(config, "log_device_placement", False):
                    _lib.TG_SetSessionLogDevicePlacement(opts, 1)
                _apply_rewriter_config(opts, config)
            st = _c.status()
            self._handle = _lib.TG_NewSession(self._graph._handle, opts, st)
            errors.check(st)
        finally:
            _lib.TG_DeleteSessionOptions(opts)
        self._graph._session_handles.add(self._handle)
        self._closed = False
        self._delete = _lib.TG_DeleteSession
        self._ctx: List[Any] = []
        self._plans: Dict[Any, _FetchPlan] = {}
        self._feed_info: Dict[Any, Any] = {}
        self._run_plans: Dict[Any, "_RunPlan"] = {}

    @property
    def graph(self) -> Any:
        return self._graph

    @property
    def graph_def(self) -> Any:
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return ""

    def list_devices(self) -> List[Any]:
        Dev = collections.namedtuple("_DeviceAttributes", ["name", "device_type",
                                                           "memory_limit_bytes", "incarnation"])
        return [Dev(_c.pystr(_lib.TG_SessionDeviceName(self._handle, i)),
                    _c.pystr(_lib.TG_SessionDeviceType(self._handle, i)), 0, 0)
                for i in range(_lib.TG_SessionNumDevices(self._handle))]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        st = _c.status()
        _lib.TG_CloseSession(self._handle, st)
        errors.check(st)

    def __del__(self) -> None:
        h = getattr(self, "_handle", None)
        g = getattr(self, "_graph", None)
        if h and g is not None and h in g._session_handles:
            g._session_handles.discard(h)
            self._delete(h, None)
        self._handle = None

    # ---- run ----

    def _feed_key(self, key: Any) -> Any:
        """(tensor, dtype, numpy dtype, static dims or None, the tensor's shape version, dtype
        enum or None for strings, static shape fully defined, (index, dim) of the known
        dims) for a feed_dict key, cached."""
        from tgraph.variables import Variable
        try:
            info = self._feed_info.get(key)
        except TypeError:
            info = None
        if info is not None and info[4] == info[0]._shape_version:
            return info
        k = key._ref() if isinstance(key, Variable) else key
        try:
            t = self._graph.as_graph_element(k, allow_tensor=True, allow_operation=False)
        except Exception as e:
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e}") from None
        dt = t.dtype.base_dtype
        shape = t.shape
        dims = None if shape.dims is None else tuple(-1 if d.value is None else d.value
                                                      for d in shape.dims)
        info = (t, dt, np.dtype(dt.as_numpy_dtype), dims, t._shape_version,
                dt.as_datatype_enum if dt != dtypes.string else None,
                dims is not None and -1 not in dims,
                () if dims is None else tuple((i, d) for i, d in enumerate(dims) if d != -1))
        try:
            self._feed_info[key] = info
        except TypeError:
            pass
        return info

    def _feeds(self, feed_dict: Any) -> Tuple[List[Any], List[int]]:
        keys: List[Any] = []
        handles: List[int] = []
        if not feed_dict:
            return keys, handles
        try:
            for key, value in feed_dict.items():
                info = self._feed_key(key)
                handles.append(_feed_tensor(info, value))
                keys.append(info[0])
        except BaseException:
            for h in handles:
                _lib.TG_DeleteTensor(h)
            raise
        return keys, handles

    def run(self, fetches: Any, feed_dict: Any = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Runs the graph fragment needed for `fetches` (a tensor, op or name, or nested lists,
        tuples, dicts and namedtuples of them), with feed_dict's values in place of tensors.
        Fetched tensors come back as numpy arrays, ops as None, in the fetches' structure."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if options is None and run_metadata is None:
            rp = self._run_plan_for(fetches, feed_dict)
            if rp is not None:
                out = rp.run(self, feed_dict.values() if feed_dict else ())
                if out is not _STALE:
                    return out
                self._run_plans.clear()  # made before a feed's set_shape: made again next run
        plan = self._plan_for(fetches)
        feed_keys, feed_handles = self._feeds(feed_dict)
        values = self._run(plan, feed_keys, feed_handles, options, run_metadata)
        return plan.build(values)

    def _run_plan_for(self, fetches: Any, feed_dict: Any) -> Optional["_RunPlan"]:
        """The run plan of these fetches and feed keys (a loop's repeated run), cached; None
        where the general path must run: unhashable fetches or keys, a feed_dict that is not
        a dict, or anything the plan cannot resolve (the general path then raises the error
        it always raised, in its order)."""
        fkey = _fetch_key(fetches)
        if feed_dict:
            if not isinstance(feed_dict, dict):
                return None
            key = (fkey, tuple(feed_dict))
        else:
            key = (fkey, None)
        try:
            rp = self._run_plans.get(key)
        except TypeError:  # unhashable (a dict of fetches, a list inside, an array)
            return None
        if rp is None:
            try:
                rp = _RunPlan(self, self._plan_for(fetches), key[1] or ())
            except Exception:
                return None
            if len(self._run_plans) >= 256:
                self._run_plans.clear()
            self._run_plans[key] = rp
        return rp

    def _plan_for(self, fetches: Any) -> "_FetchPlan":
        """The fetch plan, cached for a fetch that is one tensor or op or a list/tuple of
        hashable items (the common loop `sess.run([loss, train_op], feed)`)."""
        key = _fetch_key(fetches)
        try:
            plan = self._plans.get(key)
        except TypeError:  # unhashable (a dict, a list inside)
            return _FetchPlan(self._graph, fetches)
        if plan is None:
            plan = _FetchPlan(self._graph, fetches)
            if len(self._plans) >= 256:
                self._plans.clear()
            self._plans[key] = plan
        return plan

    def _run(self, plan: "_FetchPlan", feed_keys: List[Any], feed_handles: List[int],
             options: Any, run_metadata: Any) -> List[Any]:
        nf, nt, no = len(feed_keys), len(plan.tensors), len(plan.ops)
        outputs, targets = plan.outputs, plan.targets
        if nf == 1:
            inputs = ctypes.byref(feed_keys[0]._tf_output)
            input_values = ctypes.byref(ctypes.c_void_p(feed_handles[0]))
        elif nf:
            inputs = (_c.TG_Output * nf)(*[t._tf_output for t in feed_keys])
            input_values = (ctypes.c_void_p * nf)(*feed_handles)
        else:
            inputs = input_values = None
        out_values = (ctypes.c_void_p * nt)() if nt else None
        run_opts = meta = None
        if options is not None and getattr(options, "trace_level", 0):
            run_opts = _lib.TG_NewRunOptions()
            _lib.TG_SetRunOptionsTraceLevel(run_opts, int(options.trace_level))
        if run_metadata is not None:
            meta = _lib.TG_NewRunMetadata()
        st = _c.status()
        try:
            _lib.TG_SessionRun(self._handle, run_opts, inputs, input_values, nf, outputs,
                               out_values, nt, targets, no, meta, st)
        finally:
            for h in feed_handles:
                _lib.TG_DeleteTensor(h)
            if run_opts:
                _lib.TG_DeleteRunOptions(run_opts)
        try:
            code = _lib.TG_GetCode(st)
            if code != 0:
                msg = _c.pystr(_lib.TG_Message(st))
                if self._closed and code == errors.FAILED_PRECONDITION:
                    raise RuntimeError("Attempted to use a closed Session.")
                errors.raise_status(code, msg)
            if meta:
                _fill_run_metadata(meta, run_metadata)
        finally:
            if meta:
                _lib.TG_DeleteRunMetadata(meta)
        return _to_numpy_all([out_values[i] for i in range(nt)])

    def make_callable(self, fetches: Any, feed_list: Any = None, accept_options: bool = False
                      ) -> Any:
        """A function running `fetches` with positional values for feed_list's tensors, as
        `run(fetches, dict(zip(feed_list, values)))` does in TF (its checks and errors),
        through a run plan made here (the one `run` caches: fetches flattened and feeds
        resolved once, one TG_SessionRun a call). With `options` or `run_metadata` keywords a
        call takes run's general path."""
        if feed_list is not None and not isinstance(feed_list, (list, tuple)):
            raise TypeError("`feed_list` must be a list or tuple.")
        keys = tuple(feed_list or ())
        plan = self._plan_for(fetches)  # bad fetches raise now, as in TF
        holder = [_RunPlan(self, plan, keys)]  # bad feed keys too
        nf = len(keys)

        def call(*args: Any, **kwargs: Any) -> Any:
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            if len(args) != nf:
                raise ValueError(f"Expected {nf} feed values, got {len(args)}")
            options, run_metadata = kwargs.get("options"), kwargs.get("run_metadata")
            if options is None and run_metadata is None:
                out = holder[0].run(self, args)
                if out is not _STALE:
                    return out
                # A feed's set_shape since the plan was made: resolve the feeds again.
                holder[0] = _RunPlan(self, plan, keys)
                return holder[0].run(self, args)
            feed_keys, handles = self._feeds(dict(zip(keys, args)))
            return plan.build(self._run(plan, feed_keys, handles, options, run_metadata))
        return call

    # ---- context managers ----

    def as_default(self) -> Any:
        return _default_session_context(self)

    def __enter__(self) -> "BaseSession":
        ctx_g = self._graph.as_default()
        ctx_s = _default_session_context(self)
        ctx_g.__enter__()
        ctx_s.__enter__()
        self._ctx.append((ctx_g, ctx_s))
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        ctx_g, ctx_s = self._ctx.pop()
        ctx_s.__exit__(exc_type, exc, tb)
        ctx_g.__exit__(exc_type, exc, tb)
        self.close()


def _feed_array(value: Any, dt: dtypes.DType, t: Any) -> np.ndarray:
    if dt == dtypes.string:
        arr = np.asarray(value, dtype=object)
        return arr
    np_dt = dt.as_numpy_dtype
    if isinstance(value, np.ndarray) and value.dtype == np_dt:
        return value
    try:
        arr = np.asarray(value, dtype=np_dt)
    except (TypeError, ValueError) as e:
        raise ValueError(f"Cannot feed value {value!r} to Tensor {t.name!r} of dtype "
                         f"{dt.name}: {e}") from None
    src = np.asarray(value)
    if src.dtype.kind in "SUO" and np.dtype(np_dt).kind not in "SUO":
        raise ValueError(f"Cannot feed value of dtype {src.dtype} to Tensor {t.name!r} of "
                         f"dtype {dt.name}")
    return arr


def _fill_run_metadata(meta: int, run_metadata: Any) -> None:
    """Copies a traced run's per-node stats into RunMetadata.step_stats (one DeviceStepStats
    per device, nodes in completion order)."""
    step_stats = getattr(run_metadata, "step_stats", None)
    if step_stats is None:
        return
    step_stats.Clear()
    by_device: Dict[str, Any] = {}
    for i in range(_lib.TG_RunMetadataNumNodes(meta)):
        device = _c.pystr(_lib.TG_RunMetadataNodeDevice(meta, i))
        dev = by_device.get(device)
        if dev is None:
            dev = by_device[device] = step_stats.dev_stats.add(device=device)
        start = _lib.TG_RunMetadataNodeStartNs(meta, i)
        dur = _lib.TG_RunMetadataNodeDurationNs(meta, i)
        name = _c.pystr(_lib.TG_RunMetadataNodeName(meta, i))
        op = _c.pystr(_lib.TG_RunMetadataNodeOpType(meta, i))
        dev.node_stats.add(node_name=name, all_start_nanos=start, op_start_rel_nanos=0,
                           op_end_rel_nanos=dur, all_end_rel_nanos=dur,
                           all_start_micros=start // 1000, op_end_rel_micros=dur // 1000,
                           all_end_rel_micros=dur // 1000, timeline_label=f"{name} = {op}()",
                           thread_id=_lib.TG_RunMetadataNodeThreadId(meta, i))


def _fetch_key(fetches: Any) -> Any:
    """The cache key of a fetch structure: a list or tuple (namedtuples included) with its
    type, since equal items in another container type (or two namedtuple types, which
    compare equal) must give that type back."""
    t = type(fetches)
    if t is list or t is tuple or isinstance(fetches, (list, tuple)):
        return (t, *fetches)
    return fetches


def _check_feed_value(value: Any, t: Any) -> None:
    from tgraph.tensor import Tensor
    from tgraph.variables import Variable
    if isinstance(value, (Tensor, Variable)):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. "
                        "Acceptable feed values include Python scalars, strings, "
                        "lists, numpy ndarrays, or TensorHandles. For reference, "
                        f"the tensor object was {value!r} which was passed to the "
                        f"argument `feed_dict` with key {t!r}.")


def _feed_tensor(info: Any, value: Any) -> int:
    """A new TG_Tensor of a feed's value (the caller deletes it), after TF's checks: not a
    graph tensor, the key's dtype, a shape the key's static shape admits. `info` is
    BaseSession._feed_key's tuple."""
    t, dt, np_dt, dims, _, enum, fully_defined, known = info
    if type(value) is np.ndarray and (value.dtype is np_dt or value.dtype == np_dt):
        arr = value
    else:
        _check_feed_value(value, t)
        arr = _feed_array(value, dt, t)
    if dims is not None:
        shape = arr.shape
        bad = shape != dims if fully_defined else len(shape) != len(dims)
        if not bad and not fully_defined:
            for i, d in known:
                if shape[i] != d:
                    bad = True
                    break
        if bad:
            raise ValueError(f"Cannot feed value of shape {shape!r} for Tensor "
                             f"{t.name!r}, which has shape {str(t.shape)!r}")
    return (_tensor_conv.from_numpy(arr, dt) if enum is None
            else _tensor_conv.from_numpy_fast(arr, enum))


_STALE = object()  # _RunPlan.run: a feed's static shape changed since the plan was made
_TG_SessionRun = _lib.TG_SessionRun
_TG_DeleteTensor = _lib.TG_DeleteTensor
_TG_GetCode = _lib.TG_GetCode


class _RunPlan:
    """What a repeated `run` with the same fetches and the same feed_dict keys needs, made
    once: the fetch plan, the feeds' resolved tensors and checks (BaseSession._feed_key),
    the TG_Output array of the feeds, and reusable ctypes arrays for the feed and fetched
    handles. A run through it converts the feed values, makes one TG_SessionRun call and
    wraps the fetched tensors; errors are raised as by the general path."""

    __slots__ = ("plan", "feeds", "inputs", "nf", "nt", "no", "_pool")

    def __init__(self, sess: "BaseSession", plan: _FetchPlan, keys: Tuple[Any, ...]) -> None:
        self.plan = plan
        self.feeds = [sess._feed_key(k) for k in keys]
        self.nf, self.nt, self.no = len(self.feeds), len(plan.tensors), len(plan.ops)
        self.inputs = ((_c.TG_Output * self.nf)(*[f[0]._tf_output for f in self.feeds])
                       if self.nf else None)
        # (feed handles, fetched handles) array pairs: popped for a run, pushed back after
        # (list.pop and append are atomic, so concurrent runs each get their own pair).
        self._pool: List[Any] = []

    def run(self, sess: "BaseSession", values: Any) -> Any:
        handles: List[int] = []
        try:
            for info, value in zip(self.feeds, values):
                if info[0]._shape_version != info[4]:
                    for h in handles:
                        _TG_DeleteTensor(h)
                    return _STALE
                handles.append(_feed_tensor(info, value))
        except BaseException:
            for h in handles:
                _TG_DeleteTensor(h)
            raise
        nf, nt = self.nf, self.nt
        try:
            in_values, out_values = self._pool.pop()
        except IndexError:
            in_values = (ctypes.c_void_p * nf)() if nf else None
            out_values = (ctypes.c_void_p * nt)() if nt else None
        for i, h in enumerate(handles):
            in_values[i] = h
        plan = self.plan
        st = _c.status()
        try:
            _TG_SessionRun(sess._handle, None, self.inputs, in_values, nf, plan.outputs,
                           out_values, nt, plan.targets, self.no, None, st)
        finally:
            for h in handles:
                _TG_DeleteTensor(h)
        code = _TG_GetCode(st)
        if code != 0:
            self._pool.append((in_values, out_values))
            msg = _c.pystr(_lib.TG_Message(st))
            if sess._closed and code == errors.FAILED_PRECONDITION:
                raise RuntimeError("Attempted to use a closed Session.")
            errors.raise_status(code, msg)
        fetched = [out_values[i] for i in range(nt)]
        self._pool.append((in_values, out_values))
        return plan.build(_to_numpy_all(fetched))


def _to_numpy_all(handles: List[int]) -> List[Any]:
    """The fetched handles as numpy values (each taken over by its array); if one cannot be
    converted, the handles after it are deleted before the error propagates."""
    out = []
    try:
        for h in handles:
            out.append(_tensor_conv.to_numpy(h))
    except BaseException:
        for h in handles[len(out) + 1:]:
            _TG_DeleteTensor(h)
        raise
    return out


class Session(BaseSession):
    """tf.Session(target='', graph=None, config=None)."""


class InteractiveSession(BaseSession):
    """A session that makes itself the default session (and its graph the default graph)
    until it is closed, so that Tensor.eval() and Operation.run() need no session."""

    def __init__(self, target: str = "", graph: Any = None, config: Any = None) -> None:
        super().__init__(target, graph, config)
        self._default_ctx = _default_session_context(self)
        self._default_ctx.__enter__()
        self._graph_ctx = self._graph.as_default()
        self._graph_ctx.__enter__()

    def close(self) -> None:
        if not self._closed and getattr(self, "_default_ctx", None) is not None:
            self._graph_ctx.__exit__(None, None, None)
            self._default_ctx.__exit__(None, None, None)
            self._default_ctx = None
        super().close()


# ---- the default session ----

_local = threading.local()


def _session_stack() -> List[Any]:
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


class _default_session_context:
    def __init__(self, sess: Any) -> None:
        self._sess = sess

    def __enter__(self) -> Any:
        _session_stack().append(self._sess)
        return self._sess

    def __exit__(self, *exc: Any) -> None:
        stack = _session_stack()
        if self._sess in stack:
            # The innermost occurrence: InteractiveSession may close out of order.
            for i in range(len(stack) - 1, -1, -1):
                if stack[i] is self._sess:
                    del stack[i]
                    break


def get_default_session() -> Optional[Any]:
    """The innermost session made default (`with sess:` or an InteractiveSession), or None."""
    stack = _session_stack()
    return stack[-1] if stack else None


def _reset_default_session() -> None:
    pass


def _run_using(session: Any, fetch: Any, feed_dict: Any, graph: Any, what: str) -> Any:
    if session is None:
        session = get_default_session()
        if session is None:
            if what == "tensor":
                raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                                 "registered. Use `with sess.as_default()` or pass an explicit "
                                 "session to `eval(session=sess)`")
            raise ValueError("Cannot execute operation using `run()`: No default session is "
                             "registered. Use `with sess.as_default():` or pass an explicit "
                             "session to `run(session=sess)`")
    if session.graph is not graph:
        kind = "tensor" if what == "tensor" else "operation"
        verb = "evaluate" if what == "tensor" else "execute"
        raise ValueError(f"Cannot use the given session to {verb} {kind}: the {kind}'s graph "
                         "is different from the session's graph.")
    return session.run(fetch, feed_dict)
