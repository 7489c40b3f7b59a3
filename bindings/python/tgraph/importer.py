"""tf.import_graph_def: a GraphDef into the default graph under a prefix ("import")."""
from __future__ import annotations

import ctypes
from typing import Any, Dict, List, Optional

from tgraph import _c, errors
from tgraph.graph import get_default_graph
from tgraph.tensor import Tensor, convert_to_tensor

_lib = _c.lib


def import_graph_def(graph_def: Any, input_map: Optional[Dict[str, Any]] = None,
                     return_elements: Optional[List[str]] = None, name: Optional[str] = None,
                     op_dict: Any = None, producer_op_list: Any = None) -> Optional[List[Any]]:
    """Imports graph_def's nodes as "<name>/<node>" (name default "import", made unique; ""
    keeps the names); input_map replaces tensors of the GraphDef by tensors of this graph;
    returns the tensors/ops named by return_elements."""
    _c.ensure_plugins()
    g = get_default_graph()
    data = graph_def if isinstance(graph_def, bytes) else graph_def.SerializeToString()
    opts = _lib.TG_NewImportGraphDefOptions()
    buf = _c.Buffer(data)
    try:
        _lib.TG_ImportGraphDefOptionsSetPrefix(opts, _c.cstr("import" if name is None else name))
        for key, value in (input_map or {}).items():
            op_name, _, idx = key.lstrip("^").partition(":")
            t = value if isinstance(value, Tensor) else convert_to_tensor(value)
            index = -1 if key.startswith("^") else int(idx or 0)
            _lib.TG_ImportGraphDefOptionsAddInputMapping(opts, _c.cstr(op_name), index,
                                                         t._tf_output)
        kinds = []
        for el in return_elements or []:
            if ":" in el:
                op_name, _, idx = el.partition(":")
                _lib.TG_ImportGraphDefOptionsAddReturnOutput(opts, _c.cstr(op_name), int(idx))
                kinds.append("t")
            else:
                _lib.TG_ImportGraphDefOptionsAddReturnOperation(opts, _c.cstr(el))
                kinds.append("o")
        st = _c.status()
        res = _lib.TG_GraphImportGraphDefWithResults(g._handle, buf.handle, opts, st)
        errors.check_build(st)
        try:
            n_out, n_ops = ctypes.c_int(), ctypes.c_int()
            outs = ctypes.POINTER(_c.TG_Output)()
            ops = ctypes.POINTER(ctypes.c_void_p)()
            _lib.TG_ImportGraphDefResultsReturnOutputs(res, ctypes.byref(n_out), ctypes.byref(outs))
            _lib.TG_ImportGraphDefResultsReturnOperations(res, ctypes.byref(n_ops),
                                                          ctypes.byref(ops))
            tensors = [g._tensor(outs[i]) for i in range(n_out.value)]
            operations = [g._op(ops[i]) for i in range(n_ops.value)]
        finally:
            _lib.TG_DeleteImportGraphDefResults(res)
    finally:
        _lib.TG_DeleteImportGraphDefOptions(opts)
    if return_elements is None:
        return None
    ti, oi = iter(tensors), iter(operations)
    return [next(ti) if k == "t" else next(oi) for k in kinds]
