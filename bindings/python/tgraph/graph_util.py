"""tf.graph_util: freeze variables into constants, cut a GraphDef to what outputs need."""
from __future__ import annotations

import ctypes
from typing import Any, List, Optional

from tgraph import _c, errors

_lib = _c.lib


def _names(names: Optional[List[str]]) -> Any:
    if names is None:
        return None, -1
    arr = (ctypes.c_char_p * max(len(names), 1))(*[_c.cstr(n) for n in names])
    return arr, len(names)


def _graph_def(data: bytes) -> Any:
    from tgraph.proto import graph_pb2
    gd = graph_pb2.GraphDef()
    gd.ParseFromString(data)
    return gd


def convert_variables_to_constants(sess: Any, input_graph_def: Any, output_node_names: List[str],
                                   variable_names_whitelist: Optional[List[str]] = None,
                                   variable_names_blacklist: Optional[List[str]] = None) -> Any:
    """The GraphDef of what output_node_names need, variables replaced by Consts holding their
    values in sess."""
    outs, n_out = _names(list(output_node_names))
    wl, n_wl = _names(variable_names_whitelist)
    bl, n_bl = _names(list(variable_names_blacklist or []))
    src = None
    if input_graph_def is not None:
        src = _c.Buffer(input_graph_def.SerializeToString())
    out = _c.Buffer()
    st = _c.status()
    _lib.TG_ConvertVariablesToConstants(sess._handle, sess.graph._handle,
                                        src.handle if src else None, outs, n_out, wl, n_wl, bl,
                                        n_bl, out.handle, st)
    errors.check(st)
    return _graph_def(bytes(out))


def extract_sub_graph(graph_def: Any, dest_nodes: List[str]) -> Any:
    """The nodes of graph_def that dest_nodes need, in their original order."""
    src = _c.Buffer(graph_def.SerializeToString())
    arr, n = _names(list(dest_nodes))
    out = _c.Buffer()
    st = _c.status()
    _lib.TG_ExtractSubGraph(src.handle, arr, n, out.handle, st)
    errors.check(st)
    return _graph_def(bytes(out))
