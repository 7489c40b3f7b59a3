"""tf.train.Saver, MetaGraph export/import, and the checkpoint helpers (latest_checkpoint,
get_checkpoint_state, list_variables, load_variable), all through the C API's saver plugins."""
from __future__ import annotations

import ctypes
import os
from typing import Any, Dict, List, Optional, Tuple

from tgraph import _c, _tensor_conv, errors
from tgraph.graph import get_default_graph

_lib = _c.lib


def _check(st: int) -> None:
    errors.check(st)


class Saver:
    """Saves and restores variables (TF 1.x's save/ subgraph, TF's checkpoint formats)."""

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = False,
                 max_to_keep: int = 5, keep_checkpoint_every_n_hours: float = 10000.0,
                 name: Optional[str] = None, restore_sequentially: bool = False,
                 saver_def: Any = None, builder: Any = None, defer_build: bool = False,
                 allow_empty: bool = False, write_version: int = 2,
                 pad_step_number: bool = False, save_relative_paths: bool = False,
                 filename: Optional[str] = None, _graph: Any = None) -> None:
        _c.ensure_plugins()
        self._graph = _graph or get_default_graph()
        st = _c.status()
        if saver_def is not None:
            data = saver_def if isinstance(saver_def, bytes) else saver_def.SerializeToString()
            self._handle = _lib.TG_NewSaverFromDef(self._graph._handle, data, len(data), st)
            _check(st)
            return
        opts = _c.TG_SaverOptions()
        _lib.TG_InitSaverOptions(ctypes.byref(opts))
        keep: List[Any] = []
        if var_list is not None:
            if isinstance(var_list, dict):
                names = [_c.cstr(k) for k in var_list]
                vs = list(var_list.values())
                name_arr = (ctypes.c_char_p * len(names))(*names)
                keep.append(name_arr)
                opts.save_names = ctypes.cast(name_arr, ctypes.POINTER(ctypes.c_char_p))
            else:
                vs = list(var_list)
            arr = (ctypes.c_void_p * max(len(vs), 1))(*[v._handle for v in vs])
            keep.append(arr)
            opts.var_list = ctypes.cast(arr, ctypes.POINTER(ctypes.c_void_p))
            opts.num_vars = len(vs)
        opts.max_to_keep = 0 if max_to_keep is None else int(max_to_keep)
        opts.keep_checkpoint_every_n_hours = float(keep_checkpoint_every_n_hours)
        opts.sharded = 1 if sharded else 0
        if name:
            opts.name = _c.cstr(name)
        if filename:
            opts.filename = _c.cstr(filename)
        self._handle = _lib.TG_NewSaver(self._graph._handle, ctypes.byref(opts), st)
        errors.check_build(st)

    def __del__(self) -> None:
        h = getattr(self, "_handle", None)
        if h:
            _lib.TG_DeleteSaver(h)

    def as_saver_def(self) -> Any:
        from tgraph.proto import saver_pb2
        buf = _c.Buffer()
        st = _c.status()
        _lib.TG_SaverToSaverDef(self._handle, buf.handle, st)
        _check(st)
        sd = saver_pb2.SaverDef()
        sd.ParseFromString(bytes(buf))
        return sd

    @property
    def saver_def(self) -> Any:
        return self.as_saver_def()

    def save(self, sess: Any, save_path: str, global_step: Any = None,
             latest_filename: Optional[str] = None, meta_graph_suffix: str = "meta",
             write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str:
        """Writes the variables' values to save_path (-<global_step>); returns the prefix."""
        step = None
        if global_step is not None:
            if not isinstance(global_step, (int,)):
                global_step = sess.run(global_step)
            step = ctypes.byref(ctypes.c_int64(int(global_step)))
        meta = None
        if write_meta_graph:
            meta = _c.Buffer(_export_meta_graph_bytes(self._graph, self,
                                                      strip_default_attrs=strip_default_attrs))
        st = _c.status()
        prefix = _lib.TG_SaverSave(self._handle, sess._handle, _c.cstr(save_path), step,
                                   meta.handle if meta else None, _c.cstr(latest_filename), st)
        code = _lib.TG_GetCode(st)
        if code != 0:
            msg = _c.pystr(_lib.TG_Message(st))
            if code == errors.NOT_FOUND:
                raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save. "
                                 f"({msg})")
            errors.raise_status(code, msg)
        return _c.pystr(prefix)

    def restore(self, sess: Any, save_path: str) -> None:
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        st = _c.status()
        _lib.TG_SaverRestore(self._handle, sess._handle, _c.cstr(save_path), st)
        _check(st)

    @property
    def last_checkpoints(self) -> List[str]:
        return [_c.pystr(_lib.TG_SaverLastCheckpoint(self._handle, i))
                for i in range(_lib.TG_SaverNumLastCheckpoints(self._handle))]

    def export_meta_graph(self, filename: Optional[str] = None, **kwargs: Any) -> Any:
        return export_meta_graph(filename, saver_def=self.as_saver_def(), graph=self._graph,
                                 **kwargs)


def _export_meta_graph_bytes(graph: Any, saver: Optional[Saver] = None,
                             saver_def: Any = None, export_scope: Optional[str] = None,
                             clear_devices: bool = False, strip_default_attrs: bool = False
                             ) -> bytes:
    opts = _c.TG_MetaGraphExportOptions()
    _lib.TG_InitMetaGraphExportOptions(ctypes.byref(opts))
    if export_scope:
        opts.export_scope = _c.cstr(export_scope)
    opts.clear_devices = 1 if clear_devices else 0
    opts.strip_default_attrs = 1 if strip_default_attrs else 0
    sd = None
    if saver is not None:
        sd = saver.as_saver_def().SerializeToString()
    elif saver_def is not None:
        sd = saver_def.SerializeToString()
    if sd:
        opts.saver_def = sd
        opts.saver_def_len = len(sd)
    buf = _c.Buffer()
    st = _c.status()
    _lib.TG_ExportMetaGraph(graph._handle, ctypes.byref(opts), buf.handle, st)
    _check(st)
    return bytes(buf)


def export_meta_graph(filename: Optional[str] = None, meta_info_def: Any = None,
                      graph_def: Any = None, saver_def: Any = None,
                      collection_list: Any = None, as_text: bool = False, graph: Any = None,
                      export_scope: Optional[str] = None, clear_devices: bool = False,
                      clear_extraneous_savers: bool = False, strip_default_attrs: bool = False,
                      **kwargs: Any) -> Any:
    """The graph as a MetaGraphDef message; also written to `filename` when given."""
    from tgraph.proto import meta_graph_pb2
    g = graph or get_default_graph()
    data = _export_meta_graph_bytes(g, saver_def=saver_def, export_scope=export_scope,
                                    clear_devices=clear_devices,
                                    strip_default_attrs=strip_default_attrs)
    mg = meta_graph_pb2.MetaGraphDef()
    mg.ParseFromString(data)
    if filename:
        if as_text:
            from google.protobuf import text_format
            with open(filename, "w") as f:
                f.write(text_format.MessageToString(mg))
        else:
            with open(filename, "wb") as f:
                f.write(data)
    return mg


def import_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False,
                      import_scope: Optional[str] = None, **kwargs: Any) -> Optional[Saver]:
    """Imports a MetaGraph (file or MetaGraphDef) into the default graph; returns a Saver
    over its SaverDef, or None when it has none."""
    _c.ensure_plugins()
    g = get_default_graph()
    opts = _c.TG_MetaGraphImportOptions()
    _lib.TG_InitMetaGraphImportOptions(ctypes.byref(opts))
    if import_scope:
        opts.import_scope = _c.cstr(import_scope)
    opts.clear_devices = 1 if clear_devices else 0
    sd = _c.Buffer()
    st = _c.status()
    if isinstance(meta_graph_or_file, (str, os.PathLike)):
        _lib.TG_ImportMetaGraphFile(g._handle, _c.cstr(os.fspath(meta_graph_or_file)),
                                    ctypes.byref(opts), sd.handle, st)
    else:
        data = meta_graph_or_file.SerializeToString()
        _lib.TG_ImportMetaGraph(g._handle, data, len(data), ctypes.byref(opts), sd.handle, st)
    code = _lib.TG_GetCode(st)
    if code != 0:
        msg = _c.pystr(_lib.TG_Message(st))
        errors.raise_status(code, msg)
    sd_bytes = bytes(sd)
    if not sd_bytes:
        return None
    return Saver(saver_def=sd_bytes, _graph=g)


def latest_checkpoint(checkpoint_dir: str, latest_filename: Optional[str] = None
                      ) -> Optional[str]:
    """The newest checkpoint's prefix named by the directory's state file, or None."""
    _c.ensure_plugins()
    buf = _c.Buffer()
    st = _c.status()
    found = _lib.TG_LatestCheckpoint(_c.cstr(os.fspath(checkpoint_dir)), _c.cstr(latest_filename),
                                     buf.handle, st)
    _check(st)
    return bytes(buf).decode() if found else None


def get_checkpoint_state(checkpoint_dir: str, latest_filename: Optional[str] = None) -> Any:
    """The CheckpointState of the directory's state file (paths joined to it), or None."""
    from tgraph.proto import checkpoint_state_pb2
    buf = _c.Buffer()
    st = _c.status()
    _lib.TG_GetCheckpointState(_c.cstr(os.fspath(checkpoint_dir)), _c.cstr(latest_filename),
                               buf.handle, st)
    if _lib.TG_GetCode(st) == errors.NOT_FOUND:
        return None
    _check(st)
    cs = checkpoint_state_pb2.CheckpointState()
    cs.ParseFromString(bytes(buf))
    # As TF: relative paths in the state file are relative to its directory.
    d = os.fspath(checkpoint_dir)
    if cs.model_checkpoint_path and not os.path.isabs(cs.model_checkpoint_path):
        cs.model_checkpoint_path = os.path.join(d, cs.model_checkpoint_path)
    for i, p in enumerate(cs.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            cs.all_model_checkpoint_paths[i] = os.path.join(d, p)
    return cs


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """True when a checkpoint exists at the prefix."""
    _c.ensure_plugins()
    return bool(_lib.TG_CheckpointExists(_c.cstr(checkpoint_prefix)))


class CheckpointReader:
    """What a checkpoint holds: names, dtypes, shapes, and the tensors as numpy arrays."""

    def __init__(self, prefix: str) -> None:
        _c.ensure_plugins()
        st = _c.status()
        self._handle = _lib.TG_NewCheckpointReader(_c.cstr(prefix), st)
        _check(st)

    def __del__(self) -> None:
        h = getattr(self, "_handle", None)
        if h:
            _lib.TG_DeleteCheckpointReader(h)

    def get_variable_to_shape_map(self) -> Dict[str, List[int]]:
        out = {}
        for i in range(_lib.TG_CheckpointReaderNumTensors(self._handle)):
            name = _c.pystr(_lib.TG_CheckpointReaderTensorName(self._handle, i))
            n = _lib.TG_CheckpointReaderTensorNumDims(self._handle, i)
            dims = (ctypes.c_int64 * max(n, 1))()
            st = _c.status()
            _lib.TG_CheckpointReaderTensorDims(self._handle, i, dims, n, st)
            _check(st)
            out[name] = [dims[j] for j in range(n)]
        return out

    def get_variable_to_dtype_map(self) -> Dict[str, Any]:
        from tgraph import dtypes
        return {_c.pystr(_lib.TG_CheckpointReaderTensorName(self._handle, i)):
                dtypes.as_dtype(_lib.TG_CheckpointReaderTensorType(self._handle, i))
                for i in range(_lib.TG_CheckpointReaderNumTensors(self._handle))}

    def has_tensor(self, name: str) -> bool:
        return name in self.get_variable_to_shape_map()

    def get_tensor(self, name: str) -> Any:
        st = _c.status()
        h = _lib.TG_CheckpointReaderRead(self._handle, _c.cstr(name), st)
        _check(st)
        return _tensor_conv.to_numpy(h)


NewCheckpointReader = CheckpointReader


def _prefix(ckpt_dir_or_file: str) -> str:
    if os.path.isdir(ckpt_dir_or_file):
        p = latest_checkpoint(ckpt_dir_or_file)
        if p is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {ckpt_dir_or_file}")
        return p
    return ckpt_dir_or_file


def list_variables(ckpt_dir_or_file: str) -> List[Tuple[str, List[int]]]:
    """[(name, shape)] of the tensors of a checkpoint (a prefix or a directory)."""
    return sorted(CheckpointReader(_prefix(ckpt_dir_or_file)).get_variable_to_shape_map()
                  .items())


def load_variable(ckpt_dir_or_file: str, name: str) -> Any:
    """The value of tensor `name` of a checkpoint (a prefix or a directory)."""
    if name.endswith(":0"):
        name = name[:-2]
    return CheckpointReader(_prefix(ckpt_dir_or_file)).get_tensor(name)


def write_graph(graph_or_graph_def: Any, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes a graph's GraphDef to logdir/name (text by default); returns the path."""
    gd = graph_or_graph_def.as_graph_def() if hasattr(graph_or_graph_def, "as_graph_def") \
        else graph_or_graph_def
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        from google.protobuf import text_format
        with open(path, "w") as f:
            f.write(text_format.MessageToString(gd))
    else:
        with open(path, "wb") as f:
            f.write(gd.SerializeToString())
    return path
