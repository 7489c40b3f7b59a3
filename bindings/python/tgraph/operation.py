"""tf.Operation: a node of a Graph (a TG_Operation handle owned by the graph)."""
from __future__ import annotations

import ctypes
from typing import Any, List, Optional

from tgraph import _c, dtypes, errors

_lib = _c.lib


class Operation:
    """A node of the graph: its type, inputs, outputs, device and attrs."""

    def __init__(self, handle: int, graph: Any) -> None:
        self._handle = handle
        self._graph = graph
        self._name = _c.pystr(_lib.TG_OperationName(handle))
        self._outputs: Optional[List[Any]] = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return _c.pystr(_lib.TG_OperationOpType(self._handle))

    @property
    def graph(self) -> Any:
        return self._graph

    @property
    def device(self) -> str:
        return _c.pystr(_lib.TG_OperationDevice(self._handle))

    def _set_device(self, device: str) -> None:
        raise NotImplementedError("an operation's device is fixed when it is created")

    @property
    def outputs(self) -> List[Any]:
        if self._outputs is None:
            from tgraph.tensor import Tensor
            n = _lib.TG_OperationNumOutputs(self._handle)
            self._outputs = [Tensor(self, i) for i in range(n)]
        return self._outputs

    @property
    def inputs(self) -> List[Any]:
        n = _lib.TG_OperationNumInputs(self._handle)
        arr = (_c.TG_Output * n)()
        if n:
            _lib.TG_OperationAllInputs(self._handle, arr, n)
        return [self._graph._tensor(o) for o in arr]

    @property
    def control_inputs(self) -> List["Operation"]:
        n = _lib.TG_OperationNumControlInputs(self._handle)
        arr = (ctypes.c_void_p * max(n, 1))()
        n = _lib.TG_OperationGetControlInputs(self._handle, arr, n)
        return [self._graph._op(arr[i]) for i in range(n)]

    @property
    def _control_outputs(self) -> List["Operation"]:
        n = _lib.TG_OperationNumControlOutputs(self._handle)
        arr = (ctypes.c_void_p * max(n, 1))()
        n = _lib.TG_OperationGetControlOutputs(self._handle, arr, n)
        return [self._graph._op(arr[i]) for i in range(n)]

    @property
    def _input_types(self) -> List[dtypes.DType]:
        return [dtypes.as_dtype(_lib.TG_OperationInputType(_c.TG_Input(self._handle, i)))
                for i in range(_lib.TG_OperationNumInputs(self._handle))]

    @property
    def _output_types(self) -> List[dtypes.DType]:
        return [t.dtype for t in self.outputs]

    @property
    def node_def(self) -> Any:
        from tgraph.proto import node_def_pb2
        buf = _c.Buffer()
        st = _c.status()
        _lib.TG_OperationToNodeDef(self._handle, buf.handle, st)
        errors.check(st)
        nd = node_def_pb2.NodeDef()
        nd.ParseFromString(bytes(buf))
        return nd

    @property
    def op_def(self) -> Any:
        from tgraph import op_def_lib
        return op_def_lib.op_signature(self.type)

    def get_attr(self, name: str) -> Any:
        """The attr's value as TF returns it: bytes, int, float, bool, DType, TensorShapeProto,
        TensorProto, or a list of those."""
        from tgraph.proto import attr_value_pb2
        buf = _c.Buffer()
        st = _c.status()
        _lib.TG_OperationGetAttrValueProto(self._handle, _c.cstr(name), buf.handle, st)
        if _lib.TG_GetCode(st) != 0:
            raise ValueError(f"Operation {self._name!r} has no attr named {name!r}.")
        av = attr_value_pb2.AttrValue()
        av.ParseFromString(bytes(buf))
        return _attr_value(av)

    def _get_attr_names(self) -> List[str]:
        return [_c.pystr(_lib.TG_OperationAttrName(self._handle, i))
                for i in range(_lib.TG_OperationNumAttrs(self._handle))]

    def values(self) -> tuple:
        return tuple(self.outputs)

    def colocation_groups(self) -> List[bytes]:
        try:
            cls = self.get_attr("_class")
        except ValueError:
            cls = []
        groups = [c for c in cls if c.startswith(b"loc:@")]
        return groups or [b"loc:@" + self._name.encode()]

    def run(self, feed_dict: Any = None, session: Any = None) -> None:
        from tgraph import session as session_mod
        session_mod._run_using(session, self, feed_dict, self._graph, "operation")

    def __repr__(self) -> str:
        return f"<tf.Operation '{self._name}' type={self.type}>"

    def __str__(self) -> str:
        from google.protobuf import text_format
        return text_format.MessageToString(self.node_def)

    def _as_tf_output(self) -> Any:
        raise TypeError(f"Operation {self._name!r} is not a Tensor")


def _attr_value(av: Any) -> Any:
    kind = av.WhichOneof("value")
    if kind == "list":
        lst = av.list
        if lst.s:
            return list(lst.s)
        if lst.i:
            return list(lst.i)
        if lst.f:
            return list(lst.f)
        if lst.b:
            return list(lst.b)
        if lst.type:
            return [dtypes.as_dtype(t) for t in lst.type]
        if lst.shape:
            return list(lst.shape)
        if lst.tensor:
            return list(lst.tensor)
        return []
    if kind == "type":
        return dtypes.as_dtype(av.type)
    if kind is None:
        return None
    return getattr(av, kind)
