"""tf.Graph, the default-graph stack, and the graph-building contexts (name_scope,
control_dependencies, device, colocate_with), all kept by the C API's graph."""
from __future__ import annotations

import contextlib
import ctypes
import threading
import weakref
from typing import Any, Dict, Iterator, List, Optional

from tgraph import _c, errors

_lib = _c.lib


class GraphKeys:
    """TensorFlow's standard collection names."""
    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    UPDATE_OPS = "update_ops"
    SUMMARIES = "summaries"
    TRAIN_OP = "train_op"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    GLOBAL_STEP = "global_step"
    INIT_OP = "init_op"
    SAVERS = "savers"
    QUEUE_RUNNERS = "queue_runners"
    ACTIVATIONS = "activations"
    WEIGHTS = "weights"
    BIASES = "biases"


def _check() -> int:
    return _c.status()


# TG_Graph handle -> its Graph, for callbacks from the library that name a graph by handle
# (gradient functions registered with tf.RegisterGradient).
_graphs_by_handle: "weakref.WeakValueDictionary[int, Graph]" = weakref.WeakValueDictionary()


def _graph_of_handle(handle: int) -> Optional["Graph"]:
    return _graphs_by_handle.get(handle)


class Graph:
    """A dataflow graph (a TG_Graph). Operations are created in the default graph unless
    another one is made the default with `as_default()`."""

    def __init__(self) -> None:
        self._handle = _lib.TG_NewGraph()
        _graphs_by_handle[self._handle] = self
        self._ops: Dict[int, Any] = {}
        self._variables: Dict[int, Any] = {}
        # Collection items the C API cannot hold (arbitrary Python objects), per key.
        self._py_collections: Dict[str, List[Any]] = {}
        self._lock = threading.RLock()
        self._device_fns: List[Any] = []
        self._delete = _lib.TG_DeleteGraph
        # TG_Session handles of sessions on this graph not deleted yet: a graph collected in
        # the same garbage cycle as its sessions deletes them first (the C API needs the
        # graph to outlive them).
        self._session_handles: set = set()
        self._delete_session = _lib.TG_DeleteSession
        self._optimizers: List[Any] = []  # kept alive: their slots belong to the graph
        # op type -> gradient type, for ops built inside gradient_override_map.
        self._gradient_override_map: Dict[str, str] = {}

    def __del__(self) -> None:
        h = getattr(self, "_handle", None)
        if h:
            for s in list(getattr(self, "_session_handles", ())):
                self._delete_session(s, None)
            self._session_handles.clear()
            self._delete(h)
            self._handle = None

    # ---- wrappers of C handles (one Python object per operation / variable) ----

    def _op(self, handle: int) -> Any:
        op = self._ops.get(handle)
        if op is None:
            from tgraph.operation import Operation
            op = Operation(handle, self)
            self._ops[handle] = op
        return op

    def _tensor(self, out: _c.TG_Output) -> Any:
        return self._op(out.oper).outputs[out.index]

    def _variable(self, handle: int) -> Any:
        v = self._variables.get(handle)
        if v is None:
            from tgraph.variables import Variable
            v = Variable._from_handle(handle, self)
            self._variables[handle] = v
        return v

    # ---- operations and tensors ----

    def get_operations(self) -> List[Any]:
        pos = ctypes.c_size_t(0)
        ops = []
        while True:
            h = _lib.TG_GraphNextOperation(self._handle, ctypes.byref(pos))
            if not h:
                return ops
            ops.append(self._op(h))

    def get_operation_by_name(self, name: str) -> Any:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        h = _lib.TG_GraphOperationByName(self._handle, _c.cstr(name))
        if not h:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
        return self._op(h)

    def _get_operation_by_name_unsafe(self, name: str) -> Any:
        return self.get_operation_by_name(name)

    def get_tensor_by_name(self, name: str) -> Any:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj: Any, allow_tensor: bool = True,
                         allow_operation: bool = True) -> Any:
        from tgraph.operation import Operation
        from tgraph.tensor import Tensor
        from tgraph.variables import Variable
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                op_name, _, index = obj.rpartition(":")
                try:
                    idx = int(index)
                except ValueError:
                    raise ValueError(f"The name {obj!r} looks a like a Tensor name, but is not a "
                                     "valid one. Tensor names must be of the form "
                                     "\"<op_name>:<output_index>\".") from None
                h = _lib.TG_GraphOperationByName(self._handle, _c.cstr(op_name))
                if not h:
                    raise KeyError(f"The name {obj!r} refers to a Tensor which does not exist. "
                                   f"The operation, {op_name!r}, does not exist in the graph.")
                op = self._op(h)
                if idx < 0 or idx >= len(op.outputs):
                    raise KeyError(f"The name {obj!r} refers to a Tensor which does not exist. "
                                   f"The operation, {op_name!r}, exists but only has "
                                   f"{len(op.outputs)} outputs.")
                return op.outputs[idx]
            if ":" not in obj and allow_operation:
                h = _lib.TG_GraphOperationByName(self._handle, _c.cstr(obj))
                if not h:
                    raise KeyError(f"The name {obj!r} refers to an Operation not in the graph.")
                return self._op(h)
            if ":" not in obj and allow_tensor:
                h = _lib.TG_GraphOperationByName(self._handle, _c.cstr(obj))
                if h:
                    raise ValueError(f"The name {obj!r} refers to an Operation, not a Tensor. "
                                     f"Tensor names must be of the form "
                                     f"\"<op_name>:<output_index>\".")
                raise KeyError(f"The name {obj!r} refers to an Operation not in the graph.")
            raise ValueError(f"Can not convert {obj!r} to a graph element.")
        if isinstance(obj, Variable):
            obj = obj._as_graph_element() if allow_tensor else obj.op
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        if hasattr(obj, "_as_graph_element"):
            return self.as_graph_element(obj._as_graph_element(), allow_tensor, allow_operation)
        types = " or ".join(t for t, ok in (("Tensor", allow_tensor),
                                            ("Operation", allow_operation)) if ok)
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types}.")

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        buf = _c.Buffer()
        st = _check()
        _lib.TG_GraphUniqueName(self._handle, _c.cstr(name), 1 if mark_as_used else 0,
                                buf.handle, st)
        errors.check(st)
        return bytes(buf).decode()

    def get_name_scope(self) -> str:
        return _c.pystr(_lib.TG_GraphCurrentNameScope(self._handle))

    @property
    def version(self) -> int:
        return _lib.TG_GraphNumOperations(self._handle)

    @property
    def finalized(self) -> bool:
        return bool(_lib.TG_GraphIsFinalized(self._handle))

    def finalize(self) -> None:
        _lib.TG_GraphFinalize(self._handle)

    @property
    def graph_def_versions(self) -> Any:
        return self.as_graph_def().versions

    @property
    def seed(self) -> Optional[int]:
        v = ctypes.c_int64()
        return v.value if _lib.TG_GraphGetRandomSeed(self._handle, ctypes.byref(v)) else None

    @seed.setter
    def seed(self, value: int) -> None:
        st = _check()
        _lib.TG_GraphSetRandomSeed(self._handle, int(value), st)
        errors.check(st)

    # ---- GraphDef ----

    def _graph_def_bytes(self) -> bytes:
        buf = _c.Buffer()
        st = _check()
        _lib.TG_GraphToGraphDef(self._handle, buf.handle, st)
        errors.check(st)
        return bytes(buf)

    def as_graph_def(self, from_version: Optional[int] = None, add_shapes: bool = False) -> Any:
        """The graph as a GraphDef protobuf message (tgraph.GraphDef)."""
        from tgraph.proto import graph_pb2
        gd = graph_pb2.GraphDef()
        gd.ParseFromString(self._graph_def_bytes())
        if add_shapes:
            for node in gd.node:
                op = self.get_operation_by_name(node.name)
                if op.outputs:
                    node.attr["_output_shapes"].list.shape.extend(
                        [t.shape.as_proto() for t in op.outputs])
        return gd

    # ---- the default graph ----

    @contextlib.contextmanager
    def as_default(self) -> Iterator["Graph"]:
        stack = _default_stack()
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    # ---- building contexts ----

    @contextlib.contextmanager
    def name_scope(self, name: Optional[str]) -> Iterator[str]:
        """Opens a name scope (made unique) and yields it with a trailing '/' ("" at the top
        level after name_scope(None) or "")."""
        st = _check()
        _lib.TG_GraphPushNameScope(self._handle, _c.cstr(name or ""), st)
        errors.check(st)
        try:
            scope = self.get_name_scope()
            yield scope + "/" if scope else ""
        finally:
            st = _check()
            _lib.TG_GraphPopNameScope(self._handle, st)

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Any) -> Iterator[None]:
        st = _check()
        if control_inputs is None:
            _lib.TG_GraphPushClearControlDependencies(self._handle, st)
        else:
            ops = [self._control_op(c) for c in control_inputs]
            arr = (ctypes.c_void_p * len(ops))(*[o._handle for o in ops])
            _lib.TG_GraphPushControlDependencies(self._handle, arr, len(ops), st)
        errors.check(st)
        try:
            yield
        finally:
            _lib.TG_GraphPopControlDependencies(self._handle, _check())

    def _control_op(self, c: Any) -> Any:
        from tgraph.operation import Operation
        from tgraph.tensor import Tensor
        from tgraph.variables import Variable
        if isinstance(c, Variable):
            c = c.op
        if isinstance(c, Tensor):
            c = c.op
        if hasattr(c, "_as_graph_element") and not isinstance(c, Operation):
            c = c._as_graph_element()
            if isinstance(c, Tensor):
                c = c.op
        if not isinstance(c, Operation):
            raise TypeError(f"Control input must be Operation or Tensor: {c}")
        if c.graph is not self:
            raise ValueError(f"Control input {c.name!r} is not an element of this graph.")
        return c

    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        st = _check()
        fn_ref = None
        if device_name_or_function is None:
            _lib.TG_GraphPushClearDevice(self._handle, st)
        elif callable(device_name_or_function) and not isinstance(device_name_or_function, str):
            fn_ref = self._device_function(device_name_or_function)
            _lib.TG_GraphPushDeviceFunction(self._handle, fn_ref, None, st)
        else:
            spec = device_name_or_function
            if hasattr(spec, "to_string"):
                spec = spec.to_string()
            _lib.TG_GraphPushDevice(self._handle, _c.cstr(spec), st)
        errors.check(st)
        if fn_ref is not None:
            self._device_fns.append(fn_ref)
        try:
            yield
        finally:
            _lib.TG_GraphPopDevice(self._handle, _check())
            if fn_ref is not None:
                self._device_fns.remove(fn_ref)

    def _device_function(self, fn: Any) -> Any:
        keep: List[bytes] = []

        def call(arg: int, op_handle: int) -> int:
            # Called while the op is being created: it is not in self._ops yet.
            from tgraph.operation import Operation
            result = fn(Operation(op_handle, self))
            if not result:
                return 0
            if hasattr(result, "to_string"):
                result = result.to_string()
            b = ctypes.create_string_buffer(_c.cstr(result))
            keep[:] = [b]  # the library copies the string at once
            return ctypes.addressof(b)

        return _c.DEVICE_FUNCTION(call)

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        if op is None:
            yield
            return
        op = self._control_op(op)
        st = _check()
        _lib.TG_GraphPushColocateWith(self._handle, op._handle, 1 if ignore_existing else 0, st)
        errors.check(st)
        try:
            yield
        finally:
            _lib.TG_GraphPopColocateWith(self._handle, _check())

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: Dict[str, str]) -> Iterator[None]:
        """Ops of a type in `op_type_map` built inside take the gradient registered for the
        mapped type (their "_gradient_op_type" attr, as in TF): the core's, a plugin's, or a
        Python function registered with tf.RegisterGradient."""
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        for op_type, gradient_type in op_type_map.items():
            if not isinstance(op_type, str) or not isinstance(gradient_type, str):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
            self._gradient_override_map[op_type] = gradient_type
        try:
            yield
        finally:
            self._gradient_override_map = saved

    # ---- collections ----

    def add_to_collection(self, name: str, value: Any) -> None:
        from tgraph.operation import Operation
        from tgraph.tensor import Tensor
        from tgraph.variables import Variable
        st = _check()
        key = _c.cstr(name)
        if isinstance(value, Variable) and value.graph is self:
            _lib.TG_GraphAddToCollectionVariable(self._handle, key, value._handle, st)
        elif isinstance(value, Tensor) and value.graph is self:
            _lib.TG_GraphAddToCollectionOutput(self._handle, key, value._as_tf_output(), st)
        elif isinstance(value, Operation) and value.graph is self:
            _lib.TG_GraphAddToCollectionOperation(self._handle, key, value._handle, st)
        else:
            self._py_collections.setdefault(name, []).append(value)
            return
        errors.check(st)

    def add_to_collections(self, names: Any, value: Any) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for n in names:
            self.add_to_collection(n, value)

    def get_collection(self, name: str, scope: Optional[str] = None) -> List[Any]:
        st = _check()
        c = _lib.TG_GraphGetCollection(self._handle, _c.cstr(name), _c.cstr(scope or ""), st)
        errors.check(st)
        items: List[Any] = []
        try:
            for i in range(_lib.TG_CollectionSize(c)):
                kind = _lib.TG_CollectionItemKind(c, i)
                if kind == 0:
                    items.append(self._op(_lib.TG_CollectionItemOperation(c, i)))
                elif kind == 1:
                    items.append(self._tensor(_lib.TG_CollectionItemOutput(c, i)))
                elif kind == 2:
                    items.append(self._variable(_lib.TG_CollectionItemVariable(c, i)))
                elif kind == 3:
                    data = ctypes.c_void_p()
                    n = ctypes.c_size_t()
                    _lib.TG_CollectionItemBytes(c, i, ctypes.byref(data), ctypes.byref(n))
                    items.append(ctypes.string_at(data.value, n.value) if n.value else b"")
                elif kind == 4:
                    items.append(_lib.TG_CollectionItemInt64(c, i))
                elif kind == 5:
                    items.append(_lib.TG_CollectionItemFloat(c, i))
        finally:
            _lib.TG_DeleteCollection(c)
        extra = self._py_collections.get(name, [])
        if scope:
            import re
            extra = [x for x in extra if hasattr(x, "name") and re.match(scope, x.name)]
        return items + list(extra)

    def get_collection_ref(self, name: str) -> List[Any]:
        # Python-only items can be appended to; items the C graph holds are a snapshot.
        return self._py_collections.setdefault(name, [])

    def get_all_collection_keys(self) -> List[str]:
        keys = [_c.pystr(_lib.TG_GraphCollectionKey(self._handle, i))
                for i in range(_lib.TG_GraphNumCollectionKeys(self._handle))]
        return sorted(set(keys) | {k for k, v in self._py_collections.items() if v})

    def clear_collection(self, name: str) -> None:
        st = _check()
        _lib.TG_GraphClearCollection(self._handle, _c.cstr(name), st)
        errors.check(st)
        self._py_collections.pop(name, None)

    @property
    def building_function(self) -> bool:
        return False

    def is_fetchable(self, tensor_or_op: Any) -> bool:
        return True

    def is_feedable(self, tensor: Any) -> bool:
        return True

    @property
    def collections(self) -> List[str]:
        return self.get_all_collection_keys()


# ---- the default graph (per thread, over one global graph) ----

_global_default: Optional[Graph] = None
_global_lock = threading.Lock()
_local = threading.local()


def _default_stack() -> List[Graph]:
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def get_default_graph() -> Graph:
    """The graph new ops go to: the innermost `as_default()` graph, else the global one."""
    stack = _default_stack()
    if stack:
        return stack[-1]
    global _global_default
    if _global_default is None:
        with _global_lock:
            if _global_default is None:
                _global_default = Graph()
    return _global_default


def reset_default_graph() -> None:
    """Replaces the global default graph by a new, empty one (not inside `as_default()`)."""
    if _default_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If "
                             "you need a cleared graph, exit the nesting and create a new "
                             "graph.")
    global _global_default
    with _global_lock:
        _global_default = Graph()
    from tgraph import session
    session._reset_default_session()


def name_scope(name: Optional[str], default_name: Optional[str] = None,
               values: Any = None) -> Any:
    """tf.name_scope(name, default_name, values): a context yielding the scope ("name/")."""
    g = get_default_graph()
    if values:
        from tgraph.tensor import _graph_of
        g = _graph_of(values) or g
    n = name if name is not None else default_name
    if n is None and name is None and default_name is None:
        return g.name_scope(None)
    return g.name_scope(n)


def control_dependencies(control_inputs: Any) -> Any:
    """A context: ops created inside run after `control_inputs` (None clears the enclosing ones)."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function: Any) -> Any:
    """A context: ops created inside get this device (a string, a function of the op, or None to
    clear)."""
    return get_default_graph().device(device_name_or_function)


def colocate_with(op: Any, ignore_existing: bool = False) -> Any:
    """A context: ops created inside are colocated with `op` (its device and `_class`)."""
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name: str, value: Any) -> None:
    """Appends value to the default graph's collection `name`."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Any, value: Any) -> None:
    """Appends value to each of the default graph's collections `names`."""
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: Optional[str] = None) -> List[Any]:
    """The default graph's collection `key` (filtered by the regular expression `scope`)."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> List[Any]:
    """The list of Python-only items of collection `key`, to append to."""
    return get_default_graph().get_collection_ref(key)
