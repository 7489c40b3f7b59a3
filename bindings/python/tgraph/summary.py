"""tf.summary: scalar/histogram summary ops, merge/merge_all, and FileWriter (event files
TensorBoard reads)."""
from __future__ import annotations

import os
from typing import Any, List, Optional

from tgraph import _c, errors
from tgraph.graph import get_default_graph
from tgraph.tensor import Tensor, convert_to_tensor

_lib = _c.lib


def _out(g: Any, out: _c.TG_Output, st: int) -> Optional[Tensor]:
    errors.check_build(st)
    return g._tensor(out) if out.oper else None


def scalar(name: str, tensor: Any, collections: Any = None, family: Any = None) -> Tensor:
    """A ScalarSummary op of the scalar `tensor` (tag: the name under the current scope), added to
    the summaries collection."""
    t = convert_to_tensor(tensor)
    st = _c.status()
    return _out(t.graph, _lib.TG_SummaryScalar(t.graph._handle, _c.cstr(name), t._tf_output, st),
                st)


def histogram(name: str, values: Any, collections: Any = None, family: Any = None) -> Tensor:
    """A HistogramSummary op of `values`, added to the summaries collection."""
    t = convert_to_tensor(values)
    st = _c.status()
    return _out(t.graph, _lib.TG_SummaryHistogram(t.graph._handle, _c.cstr(name), t._tf_output,
                                                  st), st)


def merge(inputs: List[Any], collections: Any = None, name: Optional[str] = None) -> Tensor:
    """A MergeSummary op of the summary tensors `inputs`."""
    ts = [convert_to_tensor(i) for i in inputs]
    g = ts[0].graph if ts else get_default_graph()
    st = _c.status()
    return _out(g, _lib.TG_SummaryMerge(g._handle, _c.output_array([t._tf_output for t in ts]),
                                        len(ts), _c.cstr(name), st), st)


def merge_all(key: str = "summaries", scope: Any = None, name: Optional[str] = None
              ) -> Optional[Tensor]:
    """merge() of the collection `key` (None when it holds nothing)."""
    g = get_default_graph()
    st = _c.status()
    return _out(g, _lib.TG_SummaryMergeAll(g._handle, _c.cstr(key), st), st)


class FileWriter:
    """Writes events (graphs, summaries) to <logdir>/events.out.tfevents.<time>.<host>."""

    def __init__(self, logdir: str, graph: Any = None, max_queue: int = 10,
                 flush_secs: int = 120, graph_def: Any = None,
                 filename_suffix: Optional[str] = None, session: Any = None) -> None:
        self._logdir = os.fspath(logdir)
        st = _c.status()
        self._handle = _lib.TG_NewFileWriter(_c.cstr(self._logdir), _c.cstr(filename_suffix), st)
        errors.check(st)
        if graph is not None:
            self.add_graph(graph)

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def path(self) -> str:
        return _c.pystr(_lib.TG_FileWriterPath(self._handle))

    def add_graph(self, graph: Any, global_step: Any = None, graph_def: Any = None) -> None:
        st = _c.status()
        _lib.TG_FileWriterAddGraph(self._handle, graph._handle, st)
        errors.check(st)

    def add_summary(self, summary: Any, global_step: Any = None) -> None:
        if hasattr(summary, "SerializeToString"):
            summary = summary.SerializeToString()
        elif not isinstance(summary, bytes):
            summary = bytes(summary.item() if hasattr(summary, "item") else summary)
        st = _c.status()
        _lib.TG_FileWriterAddSummary(self._handle, summary, len(summary),
                                     int(global_step or 0), st)
        errors.check(st)

    def flush(self) -> None:
        st = _c.status()
        _lib.TG_FileWriterFlush(self._handle, st)
        errors.check(st)

    def close(self) -> None:
        st = _c.status()
        _lib.TG_FileWriterClose(self._handle, st)
        errors.check(st)

    def reopen(self) -> None:
        pass

    def __enter__(self) -> "FileWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        h = getattr(self, "_handle", None)
        if h:
            _lib.TG_DeleteFileWriter(h)
