"""One generic op builder over the op registry (TG_OpInfo), like TF's op_def_library.

An op's signature (inputs, outputs, attrs in TF's REGISTER_OP spelling) is read once from
the C API; apply_op converts Python values to tensors, infers the type and length attrs from
the inputs, sets the remaining attrs by their declared kind, and finishes the op. Every
TF-named wrapper (tgraph.ops.*) and every generated function (raw_ops, load_op_library)
goes through here.
"""
from __future__ import annotations

import collections
import ctypes
import keyword
import re
import threading
from typing import Any, Dict, List, Optional, Tuple

from tgraph import _c, dtypes, errors

_lib = _c.lib


class ArgSpec:
    __slots__ = ("name", "is_ref", "number_attr", "type_attr", "type_list_attr", "fixed_type")

    def __init__(self, spec: str) -> None:
        name, _, t = spec.partition(":")
        self.name = name.strip()
        t = t.strip()
        self.is_ref = t.startswith("Ref(") and t.endswith(")")
        if self.is_ref:
            t = t[4:-1].strip()
        self.number_attr: Optional[str] = None
        if "*" in t:
            n, _, t = t.partition("*")
            self.number_attr = n.strip()
            t = t.strip()
        self.type_attr: Optional[str] = None
        self.type_list_attr: Optional[str] = None
        self.fixed_type: Optional[dtypes.DType] = None
        try:
            self.fixed_type = dtypes.as_dtype(t)
        except TypeError:
            self.type_attr = t  # resolved against the attrs (type or list(type)) below

    @property
    def is_list(self) -> bool:
        return self.number_attr is not None or self.type_list_attr is not None


class AttrSpec:
    __slots__ = ("name", "kind", "has_default", "allowed")

    def __init__(self, spec: str) -> None:
        name, _, rest = spec.partition(":")
        self.name = name.strip()
        t, sep, _default = rest.partition(" = ")
        self.has_default = bool(sep)
        t = re.sub(r"\s*>=\s*-?\d+\s*$", "", t.strip())
        self.allowed: List[str] = []
        if t.startswith("{"):
            items = [x.strip() for x in t.strip("{}").split(",") if x.strip()]
            if items and items[0].startswith("'"):
                self.kind = "string"
            else:
                self.kind = "type"
                self.allowed = items
        elif t.startswith("list("):
            inner = t[5:t.index(")")]
            self.kind = "list(type)" if inner.startswith("{") else f"list({inner})"
        else:
            self.kind = t


class OpSignature:
    def __init__(self, op_type: str) -> None:
        st = _c.status()
        info = _lib.TG_NewOpInfo(_c.cstr(op_type), st)
        if not info:
            raise errors.NotFoundError(None, None, _c.pystr(_lib.TG_Message(st)))
        try:
            self.name = op_type
            self.is_stateful = bool(_lib.TG_OpInfoIsStateful(info))
            self.inputs = [ArgSpec(_c.pystr(_lib.TG_OpInfoInput(info, i)))
                           for i in range(_lib.TG_OpInfoNumInputs(info))]
            self.outputs = [ArgSpec(_c.pystr(_lib.TG_OpInfoOutput(info, i)))
                            for i in range(_lib.TG_OpInfoNumOutputs(info))]
            self.attrs = {a.name: a for a in (AttrSpec(_c.pystr(_lib.TG_OpInfoAttr(info, i)))
                                              for i in range(_lib.TG_OpInfoNumAttrs(info)))}
            self.summary = _c.pystr(_lib.TG_OpInfoSummary(info))
        finally:
            _lib.TG_DeleteOpInfo(info)
        for arg in self.inputs + self.outputs:
            a = self.attrs.get(arg.type_attr or "")
            if a is not None and a.kind == "list(type)":
                arg.type_list_attr, arg.type_attr = arg.type_attr, None
        self.inferred = {a.type_attr for a in self.inputs if a.type_attr} | \
            {a.number_attr for a in self.inputs if a.number_attr} | \
            {a.type_list_attr for a in self.inputs if a.type_list_attr}
        out_names = [snake(o.name) for o in self.outputs]
        self.output_tuple = None
        if len(self.outputs) > 1 and all(n.isidentifier() and not keyword.iskeyword(n)
                                         for n in out_names):
            self.output_tuple = collections.namedtuple(op_type, out_names)


_sigs: Dict[str, OpSignature] = {}
_sigs_lock = threading.Lock()


def op_signature(op_type: str) -> OpSignature:
    sig = _sigs.get(op_type)
    if sig is None:
        _c.ensure_plugins()
        sig = OpSignature(op_type)
        with _sigs_lock:
            _sigs[op_type] = sig
    return sig


def snake(name: str) -> str:
    """TF's generated-wrapper naming: "MatMul" -> "mat_mul", "Conv2D" -> "conv2d"."""
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()
    return re.sub(r"(\d)_d\b", r"\1d", s)


def _finish(g: Any, desc: int) -> Any:
    st = _c.status()
    h = _lib.TG_FinishOperation(desc, st)
    if _lib.TG_GetCode(st) != 0:
        errors.check_build(st, g)
    return g._op(h)


def _set_attr(desc: int, attr: AttrSpec, value: Any) -> None:
    from tgraph import _tensor_conv
    from tgraph.tensor import _dtype_of_array, _np_value
    from tgraph.tensor_shape import as_shape
    name = _c.cstr(attr.name)
    k = attr.kind
    if k == "string":
        b = _c.cstr(value)
        _lib.TG_SetAttrString(desc, name, b, len(b))
    elif k == "int":
        _lib.TG_SetAttrInt(desc, name, int(value))
    elif k == "float":
        _lib.TG_SetAttrFloat(desc, name, float(value))
    elif k == "bool":
        _lib.TG_SetAttrBool(desc, name, 1 if value else 0)
    elif k == "type":
        _lib.TG_SetAttrType(desc, name, dtypes.as_dtype(value).base_dtype.as_datatype_enum)
    elif k == "shape":
        _set_shape_attr(desc, name, value)
    elif k == "tensor":
        arr = _np_value(value, None)
        th = _tensor_conv.from_numpy(arr, _dtype_of_array(arr))
        st = _c.status()
        _lib.TG_SetAttrTensor(desc, name, th, st)
        _lib.TG_DeleteTensor(th)
        errors.check(st)
    elif k == "list(int)":
        vals = [int(v) for v in value]
        _lib.TG_SetAttrIntList(desc, name, (ctypes.c_int64 * max(len(vals), 1))(*vals), len(vals))
    elif k == "list(float)":
        vals = [float(v) for v in value]
        _lib.TG_SetAttrFloatList(desc, name, (ctypes.c_float * max(len(vals), 1))(*vals),
                                 len(vals))
    elif k == "list(bool)":
        vals = [1 if v else 0 for v in value]
        _lib.TG_SetAttrBoolList(desc, name, (ctypes.c_ubyte * max(len(vals), 1))(*vals),
                                len(vals))
    elif k == "list(type)":
        vals = [dtypes.as_dtype(v).base_dtype.as_datatype_enum for v in value]
        _lib.TG_SetAttrTypeList(desc, name, (ctypes.c_int * max(len(vals), 1))(*vals), len(vals))
    elif k == "list(string)":
        vals = [_c.cstr(v) for v in value]
        ptrs = (ctypes.c_char_p * max(len(vals), 1))(*vals)
        lens = (ctypes.c_size_t * max(len(vals), 1))(*[len(v) for v in vals])
        _lib.TG_SetAttrStringList(desc, name, ptrs, lens, len(vals))
    elif k == "list(shape)":
        shapes = [as_shape(v) for v in value]
        n = len(shapes)
        dims_arrays = []
        ranks = (ctypes.c_int * max(n, 1))()
        ptrs = (ctypes.POINTER(ctypes.c_int64) * max(n, 1))()
        for i, s in enumerate(shapes):
            if s.dims is None:
                ranks[i] = -1
                continue
            vals = [-1 if d.value is None else d.value for d in s.dims]
            arr = (ctypes.c_int64 * max(len(vals), 1))(*vals)
            dims_arrays.append(arr)
            ranks[i] = len(vals)
            ptrs[i] = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int64))
        _lib.TG_SetAttrShapeList(desc, name, ptrs, ranks, n)
    else:
        raise TypeError(f"attr {attr.name!r} of kind {k} cannot be set from Python")


def _set_shape_attr(desc: int, name: bytes, value: Any) -> None:
    from tgraph.tensor_shape import as_shape
    s = as_shape(value)
    if s.dims is None:
        _lib.TG_SetAttrShape(desc, name, None, -1)
        return
    vals = [-1 if d.value is None else d.value for d in s.dims]
    _lib.TG_SetAttrShape(desc, name, (ctypes.c_int64 * max(len(vals), 1))(*vals), len(vals))


def _convert_inputs(sig: OpSignature, kwargs: Dict[str, Any], attrs: Dict[str, Any]
                    ) -> List[Tuple[ArgSpec, Any]]:
    """Converts the inputs to tensors; type attrs are taken from tensors first, so Python
    values beside them get their dtype (tf.add(x, 1) with x float gives 1.0)."""
    from tgraph.tensor import Tensor, convert_to_tensor, _is_tensorlike
    from tgraph.variables import Variable
    # Pass 1: dtypes of the inputs that already are tensors.
    for arg in sig.inputs:
        if arg.name not in kwargs:
            raise TypeError(f"{sig.name} missing required input '{arg.name}'")
        v = kwargs[arg.name]
        if arg.type_attr and arg.type_attr not in attrs:
            items = v if arg.number_attr and isinstance(v, (list, tuple)) else [v]
            for x in items:
                if _is_tensorlike(x):
                    t = x if isinstance(x, Tensor) else x._as_tensor()
                    attrs[arg.type_attr] = t.dtype.base_dtype
                    break
    converted = []
    for arg in sig.inputs:
        v = kwargs[arg.name]
        if arg.is_list:
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"Expected list for '{arg.name}' argument to '{sig.name}' Op, "
                                f"not {v}.")
            ts = []
            for i, x in enumerate(v):
                dt = arg.fixed_type or (attrs.get(arg.type_attr) if arg.type_attr else None)
                t = convert_to_tensor(x, dtype=dt, name=arg.name if len(v) == 1
                                      else f"{arg.name}_{i}")
                if arg.type_attr and arg.type_attr not in attrs:
                    attrs[arg.type_attr] = t.dtype.base_dtype
                ts.append(t)
            if arg.number_attr:
                attrs[arg.number_attr] = len(ts)
            if arg.type_list_attr:
                attrs[arg.type_list_attr] = [t.dtype.base_dtype for t in ts]
            converted.append((arg, ts))
            continue
        if arg.is_ref:
            if isinstance(v, Variable):
                t = v._ref()
            elif isinstance(v, Tensor) and v.dtype.is_ref_dtype:
                t = v
            else:
                raise TypeError(f"'{sig.name}' Op requires that input '{arg.name}' be a mutable "
                                f"tensor (e.g. a tf.Variable); got {v!r}")
        else:
            dt = arg.fixed_type or (attrs.get(arg.type_attr) if arg.type_attr else None)
            if dt is not None and _is_tensorlike(v):
                vt = v if isinstance(v, Tensor) else v._as_tensor()
                if vt.dtype.base_dtype != dtypes.as_dtype(dt).base_dtype:
                    first = next((a.name for a in sig.inputs if a.type_attr == arg.type_attr),
                                 arg.name)
                    raise TypeError(f"Input '{arg.name}' of '{sig.name}' Op has type "
                                    f"{vt.dtype.base_dtype.name} that does not match type "
                                    f"{dtypes.as_dtype(dt).name} of argument '{first}'.")
            t = convert_to_tensor(v, dtype=dt, name=arg.name)
            if dt is not None and t.dtype.base_dtype != dtypes.as_dtype(dt).base_dtype:
                raise TypeError(f"Input '{arg.name}' of '{sig.name}' Op has type "
                                f"{t.dtype.base_dtype.name} that does not match expected type "
                                f"of {dtypes.as_dtype(dt).name}.")
        if arg.type_attr and arg.type_attr not in attrs:
            attrs[arg.type_attr] = t.dtype.base_dtype
        converted.append((arg, t))
    return converted


def apply_op(op_type: str, name: Optional[str] = None, **kwargs: Any) -> Any:
    """Builds an op of type op_type in the default graph (or the inputs' graph)."""
    from tgraph.graph import get_default_graph
    from tgraph.tensor import Tensor, _graph_of
    sig = op_signature(op_type)
    g = _graph_of([kwargs[a.name] for a in sig.inputs if a.name in kwargs]) or \
        get_default_graph()
    attrs: Dict[str, Any] = {}
    for k in list(kwargs):
        if k in sig.attrs and k not in {a.name for a in sig.inputs}:
            v = kwargs.pop(k)
            if v is not None:
                attrs[k] = v
    unknown = set(kwargs) - {a.name for a in sig.inputs}
    if unknown:
        raise TypeError(f"{op_type} got unexpected keyword arguments: {sorted(unknown)}")
    needs_scope = any(not isinstance(kwargs.get(a.name), Tensor) for a in sig.inputs)
    base = name or op_type
    if needs_scope:
        with g.name_scope(base) as scope:
            converted = _convert_inputs(sig, kwargs, attrs)
        op_name = scope
    else:
        converted = _convert_inputs(sig, kwargs, attrs)
        op_name = base
    for arg, v in converted:
        for t in (v if isinstance(v, list) else [v]):
            if t.graph is not g:
                raise ValueError(f"Tensor {t!r} must be from the same graph as {op_name}.")
    desc = _lib.TG_NewOperation(g._handle, _c.cstr(op_type), _c.cstr(op_name))
    for arg, v in converted:
        if isinstance(v, list):
            _lib.TG_AddInputList(desc, _c.output_array([t._tf_output for t in v]), len(v))
        else:
            _lib.TG_AddInput(desc, v._tf_output)
    try:
        for k, v in attrs.items():
            spec = sig.attrs.get(k)
            if spec is None:
                raise TypeError(f"{op_type} got an unexpected keyword argument '{k}'")
            _set_attr(desc, spec, v)
    except Exception:
        _lib.TG_AbandonOperation(desc)
        raise
    gradient_type = g._gradient_override_map.get(op_type)
    if gradient_type is not None:
        value = gradient_type.encode()
        _lib.TG_SetAttrString(desc, b"_gradient_op_type", value, len(value))
    op = _finish(g, desc)
    return _outputs(sig, op)


def _outputs(sig: OpSignature, op: Any) -> Any:
    if not sig.outputs:
        return op
    outs = op.outputs
    if len(sig.outputs) == 1 and not sig.outputs[0].is_list:
        return outs[0]
    st = _c.status()
    grouped, i = [], 0
    for arg in sig.outputs:
        if arg.is_list:
            n = _lib.TG_OperationOutputListLength(op._handle, _c.cstr(arg.name), st)
            errors.check(st)
            grouped.append(outs[i:i + n])
            i += n
        else:
            grouped.append(outs[i])
            i += 1
    if len(grouped) == 1:
        return grouped[0]
    return sig.output_tuple(*grouped) if sig.output_tuple else tuple(grouped)


def make_function(op_type: str) -> Any:
    """A Python function for op_type with its inputs as positional or keyword arguments and
    its attrs as keyword arguments (TF's generated wrappers)."""
    sig = op_signature(op_type)
    input_names = [a.name for a in sig.inputs]

    def fn(*args: Any, name: Optional[str] = None, **kwargs: Any) -> Any:
        if len(args) > len(input_names):
            raise TypeError(f"{snake(op_type)}() takes {len(input_names)} positional arguments "
                            f"but {len(args)} were given")
        for n, a in zip(input_names, args):
            kwargs[n] = a
        return apply_op(op_type, name=name, **kwargs)

    fn.__name__ = snake(op_type)
    fn.__qualname__ = fn.__name__
    attrs = ", ".join(f"{a.name} ({a.kind})" for a in sig.attrs.values()
                      if a.name not in sig.inferred)
    fn.__doc__ = (f"{sig.summary or op_type}\n\nBuilds a `{op_type}` op. Inputs: "
                  f"{', '.join(input_names) or 'none'}. Attrs: {attrs or 'none'}.")
    return fn


def registered_ops() -> List[str]:
    _c.ensure_plugins()
    return [_c.pystr(_lib.TG_RegisteredOpName(i)) for i in range(_lib.TG_NumRegisteredOps())]
