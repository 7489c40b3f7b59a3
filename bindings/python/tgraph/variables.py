"""tf.Variable, tf.get_variable and tf.variable_scope over the C API's variables (a TG_Variable
is the V/initial_value, V, V/Assign, V/read subgraph TF 1.x builds)."""
from __future__ import annotations

import contextlib
import ctypes
import inspect
from typing import Any, Iterator, List, Optional

from tgraph import _c, _tensor_conv, dtypes, errors
from tgraph.graph import GraphKeys, get_default_graph

_lib = _c.lib


class _AutoReuse:
    def __repr__(self) -> str:
        return "tf.AUTO_REUSE"


AUTO_REUSE = _AutoReuse()
_REUSE_INHERIT, _REUSE_TRUE, _REUSE_AUTO = -1, 1, 2


class Variable:
    """A variable of TF 1.x (a ref variable): holds a value across Session.run calls."""

    # numpy's binary operators defer to ours (array * variable builds an op).
    __array_priority__ = 100

    def __init__(self, initial_value: Any = None, trainable: Optional[bool] = None,
                 collections: Optional[List[str]] = None, validate_shape: bool = True,
                 caching_device: Any = None, name: Optional[str] = None,
                 variable_def: Any = None, dtype: Any = None, expected_shape: Any = None,
                 import_scope: Any = None, constraint: Any = None, **kwargs: Any) -> None:
        from tgraph.initializers import Initializer
        from tgraph.tensor import Tensor, _dtype_of_array, _graph_of, _np_value, convert_to_tensor
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        g = _graph_of(initial_value) or get_default_graph()
        if isinstance(initial_value, Initializer):
            raise ValueError("initial_value must be a value or a callable, not an initializer "
                             "object; call it with a shape")
        if callable(initial_value) and not isinstance(initial_value, (Tensor, Variable)):
            # As TF 1.x: the value is built under "<name>/Initializer/", and the variable
            # takes the scope's (unique) name exactly.
            with g.name_scope(name or "Variable") as scope:
                with g.name_scope("Initializer"):
                    initial_value = convert_to_tensor(initial_value(), dtype=dtype,
                                                      name="initial_value")
            name = scope
        opts, keep = _options(name, True if trainable is None else trainable, collections,
                              validate_shape)
        st = _c.status()
        if isinstance(initial_value, Variable):
            initial_value = initial_value._as_tensor()
        if isinstance(initial_value, Tensor):
            if dtype is not None and initial_value.dtype.base_dtype != dtypes.as_dtype(dtype):
                from tgraph.ops import math_ops
                initial_value = math_ops.cast(initial_value, dtype)
            h = _lib.TG_GraphNewVariable(g._handle, initial_value._tf_output, ctypes.byref(opts),
                                         st)
        else:
            arr = _np_value(initial_value, dtypes.as_dtype(dtype) if dtype is not None else None)
            dt = dtypes.as_dtype(dtype) if dtype is not None else _dtype_of_array(arr)
            th = _tensor_conv.from_numpy(arr, dt)
            try:
                h = _lib.TG_GraphNewVariableFromTensor(g._handle, th, ctypes.byref(opts), st)
            finally:
                _lib.TG_DeleteTensor(th)
        errors.check_build(st, g)
        del keep
        self._init(h, g)
        g._variables[h] = self

    @classmethod
    def _from_handle(cls, handle: int, graph: Any) -> "Variable":
        v = cls.__new__(cls)
        v._init(handle, graph)
        return v

    def _init(self, handle: int, graph: Any) -> None:
        self._handle = handle
        self._graph = graph
        self._var_name = _c.pystr(_lib.TG_VariableName(handle))
        self._ref_tensor = graph._tensor(_lib.TG_VariableOutput(handle))
        self._snapshot = graph._tensor(_lib.TG_VariableReadValue(handle))
        # A resource variable (imported from a TF MetaGraph): _ref_tensor is its VarHandleOp's
        # handle, and its value is read through ReadVariableOp (the snapshot, or a new read).
        self._is_resource = self._ref_tensor.dtype == dtypes.resource

    # ---- TF's properties ----

    @property
    def name(self) -> str:
        return self._ref_tensor.name

    @property
    def op(self) -> Any:
        return self._ref_tensor.op

    @property
    def graph(self) -> Any:
        return self._graph

    @property
    def dtype(self) -> dtypes.DType:
        return self._snapshot.dtype if self._is_resource else self._ref_tensor.dtype

    @property
    def device(self) -> str:
        return self._ref_tensor.device

    @property
    def shape(self) -> Any:
        return self._ref_tensor.shape

    def get_shape(self) -> Any:
        return self.shape

    def set_shape(self, shape: Any) -> None:
        self._ref_tensor.set_shape(shape)

    @property
    def trainable(self) -> bool:
        return bool(_lib.TG_VariableTrainable(self._handle))

    @property
    def initializer(self) -> Any:
        return self._graph._op(_lib.TG_VariableInitializer(self._handle))

    @property
    def initial_value(self) -> Any:
        return self._graph._tensor(_lib.TG_VariableInitialValue(self._handle))

    def value(self) -> Any:
        return self._snapshot

    def read_value(self) -> Any:
        return self._snapshot

    def _ref(self) -> Any:
        return self._ref_tensor

    def _as_tensor(self) -> Any:
        return self._snapshot

    def _as_graph_element(self) -> Any:
        return self._snapshot if self._is_resource else self._ref_tensor

    def initialized_value(self) -> Any:
        st = _c.status()
        out = _lib.TG_VariableInitializedValue(self._graph._handle, self._handle, st)
        errors.check(st)
        return self._graph._tensor(out)

    def eval(self, session: Any = None) -> Any:
        return self._as_graph_element().eval(session=session)

    def load(self, value: Any, session: Any = None) -> None:
        from tgraph import session as session_mod
        sess = session or session_mod.get_default_session()
        if sess is None:
            raise ValueError("Either session argument should be provided or default session "
                             "should be established")
        sess.run(self.initializer, {self.initializer.inputs[1]: value})

    # ---- updates ----

    def assign(self, value: Any, use_locking: Optional[bool] = None, name: Optional[str] = None,
               read_value: bool = True) -> Any:
        from tgraph.ops import state_ops
        return state_ops.assign(self, value, use_locking=use_locking, name=name)

    def assign_add(self, delta: Any, use_locking: Optional[bool] = None,
                   name: Optional[str] = None, read_value: bool = True) -> Any:
        from tgraph.ops import state_ops
        return state_ops.assign_add(self, delta, use_locking=use_locking, name=name)

    def assign_sub(self, delta: Any, use_locking: Optional[bool] = None,
                   name: Optional[str] = None, read_value: bool = True) -> Any:
        from tgraph.ops import state_ops
        return state_ops.assign_sub(self, delta, use_locking=use_locking, name=name)

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False,
                       name: Optional[str] = None) -> Any:
        from tgraph.ops import state_ops
        return state_ops.scatter_update(self, sparse_delta.indices, sparse_delta.values,
                                        use_locking=use_locking, name=name)

    def __repr__(self) -> str:
        return (f"<tf.Variable '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}>")


    def __iter__(self) -> Any:
        raise TypeError("'Variable' object is not iterable.")


VariableV1 = Variable
RefVariable = Variable


def _options(name: Optional[str], trainable: bool, collections: Optional[List[str]],
             validate_shape: bool) -> Any:
    opts = _c.TG_VariableOptions()
    _lib.TG_InitVariableOptions(ctypes.byref(opts))
    keep: List[Any] = []
    if name:
        opts.name = _c.cstr(name)
    opts.trainable = 1 if trainable else 0
    opts.validate_shape = 1 if validate_shape else 0
    if collections is not None:
        # TF: `collections` replaces [GLOBAL_VARIABLES]; trainable adds TRAINABLE_VARIABLES.
        names = [_c.cstr(c) for c in collections if c != GraphKeys.TRAINABLE_VARIABLES]
        arr = (ctypes.c_char_p * max(len(names), 1))(*names)
        keep.append(arr)
        if names:
            opts.base_collections = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
            opts.num_base_collections = len(names)
        else:
            # No base collection at all: an unlisted local helper variable.
            opts.base_collections = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
            opts.num_base_collections = 0
    return opts, keep


# ---- get_variable and variable_scope ----

class VariableScope:
    """What tf.variable_scope yields: the scope's name and reuse mode."""

    def __init__(self, name: str, reuse: Any, original_name_scope: str,
                 graph: Any = None) -> None:
        self._name = name
        self._reuse = reuse
        self._original_name_scope = original_name_scope
        self._graph = graph

    @property
    def name(self) -> str:
        return self._name

    @property
    def reuse(self) -> Any:
        """True, tf.AUTO_REUSE or False: the mode while this scope is the current one."""
        g = self._graph
        if g is not None and _c.pystr(_lib.TG_GraphCurrentVariableScope(g._handle)) == self._name:
            mode = _lib.TG_GraphVariableScopeReuse(g._handle)
            return AUTO_REUSE if mode == _REUSE_AUTO else mode == _REUSE_TRUE
        return self._reuse

    @property
    def original_name_scope(self) -> str:
        return self._original_name_scope

    def reuse_variables(self) -> None:
        """get_variable reuses in this scope from now on (it must be the current scope)."""
        g = self._graph or get_default_graph()
        if _c.pystr(_lib.TG_GraphCurrentVariableScope(g._handle)) != self._name:
            raise ValueError(f"reuse_variables() of variable scope {self._name!r}, which is not "
                             "the current one")
        st = _c.status()
        _lib.TG_GraphReuseVariables(g._handle, st)
        errors.check_build(st, g)
        self._reuse = True


def get_variable_scope() -> VariableScope:
    """The current variable scope."""
    g = get_default_graph()
    return VariableScope(_c.pystr(_lib.TG_GraphCurrentVariableScope(g._handle)), None, "", g)


@contextlib.contextmanager
def variable_scope(name_or_scope: Any, default_name: Optional[str] = None, values: Any = None,
                   initializer: Any = None, regularizer: Any = None, caching_device: Any = None,
                   partitioner: Any = None, custom_getter: Any = None, reuse: Any = None,
                   dtype: Any = None, use_resource: Any = None, constraint: Any = None,
                   auxiliary_name_scope: bool = True) -> Iterator[VariableScope]:
    """tf.variable_scope: prefixes get_variable names (and opens a name scope of the same
    name); reuse True / tf.AUTO_REUSE / None (inherit)."""
    from tgraph.tensor import _graph_of
    g = (_graph_of(values) if values else None) or get_default_graph()
    if isinstance(name_or_scope, VariableScope):
        name = name_or_scope.name.rsplit("/", 1)[-1]
    else:
        name = name_or_scope if name_or_scope else default_name
    if not name:
        raise TypeError("If default_name is None then name_or_scope is required")
    opts = _c.TG_VariableScopeOptions()
    _lib.TG_InitVariableScopeOptions(ctypes.byref(opts))
    opts.reuse = (_REUSE_AUTO if reuse is AUTO_REUSE else _REUSE_TRUE if reuse is True
                  else _REUSE_INHERIT)
    init_struct = None
    py_init = None
    if initializer is not None:
        from tgraph.initializers import Initializer, VarianceScaling
        if isinstance(initializer, type) and issubclass(initializer, Initializer):
            initializer = initializer()
        if isinstance(initializer, Initializer) and not isinstance(initializer, VarianceScaling):
            init_struct = initializer._struct()
            opts.initializer = ctypes.pointer(init_struct)
        else:
            # Its parameters depend on each variable's shape (variance scaling), or it is a
            # Python callable: get_variable applies it (_scope_initializer), not the C scope.
            py_init = initializer
    if dtype is not None:
        opts.dtype = dtypes.as_dtype(dtype).as_datatype_enum
    st = _c.status()
    _lib.TG_GraphPushVariableScopeWithOptions(g._handle, _c.cstr(name), ctypes.byref(opts), st)
    errors.check_build(st, g)
    # Each open variable scope's initializer, innermost last: a C-side one (set above) as
    # True, a Python-side one itself, None when the scope sets none.
    stack = g.__dict__.setdefault("_scope_initializers", [])
    stack.append(py_init if py_init is not None else (True if init_struct is not None else None))
    try:
        scope_name = _c.pystr(_lib.TG_GraphCurrentVariableScope(g._handle))
        ns = g.get_name_scope()
        yield VariableScope(scope_name, reuse, ns + "/" if ns else "", g)
    finally:
        stack.pop()
        _lib.TG_GraphPopVariableScope(g._handle, _c.status())
        del init_struct


def _scope_initializer(g: Any) -> Any:
    """The initializer the innermost variable scope that sets one gave, when get_variable
    applies it (a Python-side one); None when the C scope's or none applies."""
    for init in reversed(g.__dict__.get("_scope_initializers", [])):
        if init is not None:
            return None if init is True else init
    return None


def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Any = None, trainable: Optional[bool] = None,
                 collections: Optional[List[str]] = None, caching_device: Any = None,
                 partitioner: Any = None, validate_shape: bool = True, use_resource: Any = None,
                 custom_getter: Any = None, constraint: Any = None, **kwargs: Any) -> Variable:
    """tf.get_variable: "<variable scope>/name", created or reused per the scope's reuse."""
    from tgraph.initializers import Initializer
    from tgraph.tensor import Tensor, _dtype_of_array, _np_value
    from tgraph.tensor_shape import as_shape
    g = get_default_graph()
    dt = dtypes.as_dtype(dtype).as_datatype_enum if dtype is not None else 0
    dims_list = None if shape is None else as_shape(shape).as_list()
    dims = (ctypes.c_int64 * max(len(dims_list or []), 1))(*(dims_list or []))
    nd = -1 if dims_list is None else len(dims_list)
    opts, keep = _options(None, True if trainable is None else trainable, collections,
                          validate_shape)
    st = _c.status()
    if initializer is None:
        initializer = _scope_initializer(g)
    if isinstance(initializer, type) and issubclass(initializer, Initializer):
        initializer = initializer()
    from tgraph.initializers import VarianceScaling
    if isinstance(initializer, VarianceScaling) and (dims_list is None or None in dims_list):
        # Nothing to scale by: fine when the variable is reused (its initializer is not
        # used); creating it fails for want of a shape, as without an initializer.
        initializer = None
    if isinstance(initializer, Initializer):
        s = initializer._struct(dims_list)
        h = _lib.TG_GraphGetVariableWithInit(g._handle, _c.cstr(name), dt, dims, nd,
                                             ctypes.byref(s), ctypes.byref(opts), st)
    elif initializer is None:
        h = _lib.TG_GraphGetVariable(g._handle, _c.cstr(name), dt, dims, nd, None,
                                     ctypes.byref(opts), st)
    elif isinstance(initializer, Tensor) and initializer.op.type == "Const":
        # A constant's value (tf.get_variable("w", initializer=tf.constant(...))).
        th = ctypes.c_void_p()
        _lib.TG_OperationGetAttrTensor(initializer.op._handle, b"value", ctypes.byref(th), st)
        errors.check_build(st, g)
        try:
            h = _lib.TG_GraphGetVariable(g._handle, _c.cstr(name), dt, dims, nd, th,
                                         ctypes.byref(opts), st)
        finally:
            _lib.TG_DeleteTensor(th)
    elif isinstance(initializer, (Tensor, Variable)) or callable(initializer):
        h = _get_variable_built_by(g, name, dt, dims_list, initializer, opts, st)
    else:
        arr = _np_value(initializer, dtypes.as_dtype(dtype) if dtype is not None else None)
        th = _tensor_conv.from_numpy(arr, dtypes.as_dtype(dtype) if dtype is not None
                                     else _dtype_of_array(arr))
        try:
            h = _lib.TG_GraphGetVariable(g._handle, _c.cstr(name), dt, dims, nd, th,
                                         ctypes.byref(opts), st)
        finally:
            _lib.TG_DeleteTensor(th)
    errors.check_build(st, g)
    del keep
    return g._variable(h)


def _needs_no_arguments(fn: Any) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


def _takes_partition_info(fn: Any) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "partition_info" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _get_variable_built_by(g: Any, name: str, dt: int, dims_list: Any, initializer: Any,
                           opts: Any, st: int) -> int:
    """get_variable whose initial value is a tensor of the graph or is built by a callable, as
    TF 1.x: a callable gets (shape, dtype[, partition_info]) when the shape is fully defined and
    no arguments when no shape is given; it runs only if the variable is created."""
    from tgraph.tensor import Tensor, convert_to_tensor
    if isinstance(initializer, Variable):
        initializer = initializer._as_tensor()
    if isinstance(initializer, Tensor):
        # The tensor is the initial value: the variable takes its dtype and, unless a shape
        # was given, its static shape.
        if dt == 0:
            dt = initializer.dtype.base_dtype.as_datatype_enum
        if dims_list is None and initializer.shape.ndims is not None:
            dims_list = initializer.shape.as_list()
        if dims_list is not None and any(d is None for d in dims_list):
            dims_list = None
    elif dims_list is not None and any(d is None for d in dims_list):
        raise ValueError(f"Shape of a new variable ({name}) must be fully defined, but instead "
                         f"was {dims_list}.")
    elif dims_list is None and not _needs_no_arguments(initializer):
        raise ValueError("The initializer passed is not valid. It should be a callable with no "
                         "arguments and the shape should not be provided or an instance of "
                         "`tf.keras.initializers.*' and `shape` should be fully defined.")
    failure: List[BaseException] = []

    def build(_arg: Any, _graph: Any, dtype: int, dims: Any, num_dims: int, out: Any,
              status: int) -> None:
        try:
            if isinstance(initializer, Tensor):
                value = initializer
            elif num_dims < 0:
                value = convert_to_tensor(initializer(), name="initial_value",
                                          dtype=dtypes.as_dtype(dtype) if dtype else None)
            else:
                shape = [dims[i] for i in range(num_dims)]
                dt_obj = dtypes.as_dtype(dtype)
                if _takes_partition_info(initializer):
                    value = initializer(shape, dtype=dt_obj, partition_info=None)
                else:
                    value = initializer(shape, dtype=dt_obj)
                value = convert_to_tensor(value, dtype=dt_obj)
            out[0] = value._as_tf_output()
        except BaseException as e:  # noqa: BLE001 - re-raised once the C call returns
            failure.append(e)
            _lib.TG_SetStatus(status, errors.UNKNOWN, _c.cstr(f"{type(e).__name__}: {e}"))

    callback = _c.INITIALIZER_CALLBACK(build)
    dims = (ctypes.c_int64 * max(len(dims_list or []), 1))(*(dims_list or []))
    nd = -1 if dims_list is None else len(dims_list)
    h = _lib.TG_GraphGetVariableWithCallback(g._handle, _c.cstr(name), dt, dims, nd, callback,
                                             None, ctypes.byref(opts), st)
    if failure:
        raise failure[0]
    return h


# ---- collections of variables and their initializers ----

def global_variables(scope: Optional[str] = None) -> List[Variable]:
    """The variables of GLOBAL_VARIABLES (filtered by `scope`)."""
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


def trainable_variables(scope: Optional[str] = None) -> List[Variable]:
    """The variables of TRAINABLE_VARIABLES (filtered by `scope`)."""
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: Optional[str] = None) -> List[Variable]:
    """The variables of LOCAL_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: Optional[str] = None) -> List[Variable]:
    """The variables of MODEL_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def global_variables_initializer() -> Any:
    """A NoOp 'init' that runs every global variable's initializer."""
    g = get_default_graph()
    st = _c.status()
    h = _lib.TG_GraphGlobalVariablesInitializer(g._handle, st)
    errors.check_build(st, g)
    return g._op(h)


initialize_all_variables = global_variables_initializer


def local_variables_initializer() -> Any:
    """A NoOp 'init' that runs every local variable's initializer."""
    g = get_default_graph()
    st = _c.status()
    h = _lib.TG_GraphLocalVariablesInitializer(g._handle, st)
    errors.check_build(st, g)
    return g._op(h)


initialize_local_variables = local_variables_initializer


def variables_initializer(var_list: List[Variable], name: str = "init") -> Any:
    """A NoOp that runs the initializers of `var_list`."""
    g = get_default_graph()
    arr = (ctypes.c_void_p * max(len(var_list), 1))(*[v._handle for v in var_list])
    st = _c.status()
    h = _lib.TG_GraphVariablesInitializer(g._handle, arr, len(var_list), _c.cstr(name), st)
    errors.check_build(st, g)
    return g._op(h)


initialize_variables = variables_initializer


def is_variable_initialized(variable: Variable) -> Any:
    """A bool scalar: whether the variable holds a value."""
    g = variable.graph
    st = _c.status()
    out = _lib.TG_IsVariableInitialized(g._handle, variable._handle, None, st)
    errors.check_build(st, g)
    return g._tensor(out)


def report_uninitialized_variables(var_list: Optional[List[Variable]] = None,
                                   name: str = "report_uninitialized_variables") -> Any:
    """A 1-D string tensor of the names of the uninitialized variables."""
    g = get_default_graph()
    n = -1 if var_list is None else len(var_list)
    arr = (ctypes.c_void_p * max(len(var_list or []), 1))(*[v._handle for v in var_list or []])
    st = _c.status()
    out = _lib.TG_ReportUninitializedVariables(g._handle, arr, n, _c.cstr(name), st)
    errors.check_build(st, g)
    return g._tensor(out)


def assert_variables_initialized(var_list: Any = None) -> Any:
    """None (TF's assertion op is not built)."""
    return None

