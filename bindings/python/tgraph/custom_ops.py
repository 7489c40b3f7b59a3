"""tf.load_op_library: loads a plugin and returns a module with a Python function per op it
registered (snake_case names, attrs as keyword arguments), like TF's generated wrappers."""
from __future__ import annotations

import os
import types
from typing import Any

from tgraph import _c, errors, op_def_lib

_lib = _c.lib


def load_op_library(library_filename: str) -> Any:
    """Loads the plugin at library_filename and returns a module with a function per op it
    registered (snake_case, attrs as keyword arguments); NotFoundError naming the file when it
    cannot be loaded."""
    _c.ensure_plugins()
    _c.preopen_deepbind(os.fspath(library_filename))  # as discovery's plugins (_c.py says why)
    st = _c.status()
    plugin = _lib.TG_LoadPlugin(_c.cstr(os.fspath(library_filename)), st)
    code = _lib.TG_GetCode(st)
    if code != 0:
        errors.raise_status(code, _c.pystr(_lib.TG_Message(st)))
    name = _c.pystr(_lib.TG_PluginName(plugin)) or os.path.basename(library_filename)
    module = types.ModuleType(name, f"Ops of the plugin {name} ({library_filename})")
    ops = []
    for i in range(_lib.TG_PluginNumOps(plugin)):
        op_type = _c.pystr(_lib.TG_PluginOpName(plugin, i))
        fn = op_def_lib.make_function(op_type)
        setattr(module, fn.__name__, fn)
        ops.append(op_type)
    module.OP_LIST = ops  # type: ignore[attr-defined]
    module.LIB_HANDLE = plugin  # type: ignore[attr-defined]
    return module
