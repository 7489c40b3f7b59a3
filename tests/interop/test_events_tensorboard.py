"""tgraph's event files read by TensorBoard and TensorFlow.

tests/interop/write_events.c (built as interop_write_events) builds a graph with a scalar
and a histogram summary through the C API, runs five steps in a session and writes the
merged summaries, the graph, a directly written scalar and histogram to an event file.
Here TensorBoard's EventAccumulator and TensorFlow's summary_iterator read that file, and
the histograms are compared bucket for bucket with the ones TensorFlow's own
HistogramSummary computes for the same values.
"""
import os
import subprocess

import numpy as np
import pytest
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator

BUILD_DIR = os.environ["TGRAPH_BUILD_DIR"]
PROGRAM = os.path.join(BUILD_DIR, "tests", "interop_write_events")
STEPS = range(5)


def weights_at(step):
    return np.array([step, step + 1, step + 2, -step / 2], dtype=np.float32)


@pytest.fixture(scope="module")
def event_file(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("logs") / "run"
    out = subprocess.run([PROGRAM, str(logdir)], check=True, capture_output=True, text=True,
                         timeout=120)
    path = out.stdout.strip()
    assert os.path.dirname(path) == str(logdir)
    assert os.path.basename(path).startswith("events.out.tfevents.")
    return path


@pytest.fixture(scope="module")
def accumulator(event_file):
    acc = event_accumulator.EventAccumulator(
        os.path.dirname(event_file),
        size_guidance={event_accumulator.SCALARS: 0, event_accumulator.HISTOGRAMS: 0})
    acc.Reload()
    return acc


def tf_histogram(values):
    """The HistogramProto TensorFlow's HistogramSummary kernel computes for `values`."""
    with tf.Graph().as_default():
        summary_op = tf.compat.v1.summary.histogram("h", tf.constant(values))
        with tf.compat.v1.Session() as sess:
            summary = tf.compat.v1.Summary.FromString(sess.run(summary_op))
    return summary.value[0].histo


def test_tensorboard_finds_the_graph(accumulator):
    assert accumulator.Tags()["graph"]
    names = {node.name for node in accumulator.Graph().node}
    assert {"x", "w", "y", "loss", "loss/tags", "weights", "weights/tag",
            "Merge/MergeSummary"} <= names, names
    ops = {node.name: node.op for node in accumulator.Graph().node}
    assert ops["loss"] == "ScalarSummary"
    assert ops["weights"] == "HistogramSummary"


def test_tensorboard_reads_the_scalars(accumulator):
    assert set(accumulator.Tags()["scalars"]) == {"loss", "direct"}
    loss = accumulator.Scalars("loss")
    assert [e.step for e in loss] == list(STEPS)
    assert [e.value for e in loss] == [float((s + 1) ** 2) for s in STEPS]
    direct = accumulator.Scalars("direct")
    assert [e.step for e in direct] == list(STEPS)
    np.testing.assert_allclose([e.value for e in direct], [s / 10 for s in STEPS], rtol=1e-6)
    assert all(e.wall_time > 1e9 for e in loss)


def test_tensorboard_reads_the_histograms(accumulator):
    assert set(accumulator.Tags()["histograms"]) == {"weights", "direct_histogram"}
    events = accumulator.Histograms("weights")
    assert [e.step for e in events] == list(STEPS)
    for e in events:
        values = weights_at(e.step).astype(np.float64)
        h = e.histogram_value
        assert h.num == 4
        assert h.min == values.min() and h.max == values.max()
        assert h.sum == pytest.approx(values.sum())
        assert h.sum_squares == pytest.approx((values ** 2).sum())
    direct = accumulator.Histograms("direct_histogram")
    assert len(direct) == 1
    h = direct[0].histogram_value
    assert (h.num, h.sum, h.min, h.max, h.sum_squares) == (4, 8, 1, 3, 18)


def test_summary_iterator_reads_every_event(event_file):
    events = list(tf.compat.v1.train.summary_iterator(event_file))
    assert events[0].file_version == "brain.Event:2"
    assert events[0].wall_time == int(events[0].wall_time)
    graph = tf.compat.v1.GraphDef.FromString(events[1].graph_def)
    assert "Merge/MergeSummary" in {n.name for n in graph.node}
    summaries = [e for e in events if e.HasField("summary")]
    # per step: the merged summary (loss + weights) and the direct scalar; then the direct
    # histogram
    assert len(summaries) == 2 * len(STEPS) + 1
    merged = [e for e in summaries if e.summary.value[0].tag == "loss"]
    assert [e.step for e in merged] == list(STEPS)
    for e in merged:
        assert [v.tag for v in e.summary.value] == ["loss", "weights"]
        assert e.summary.value[0].simple_value == (e.step + 1) ** 2


def test_histograms_match_tensorflows_buckets(event_file):
    """Our HistogramSummary kernel and TF's give the same HistogramProto, buckets included."""
    events = list(tf.compat.v1.train.summary_iterator(event_file))
    checked = 0
    for e in events:
        for v in e.summary.value:
            if v.tag == "weights":
                want = tf_histogram(weights_at(e.step))
            elif v.tag == "direct_histogram":
                want = tf_histogram(np.array([1, 2, 2, 3], dtype=np.float64))
            else:
                continue
            assert list(v.histo.bucket_limit) == list(want.bucket_limit), (e.step, v.tag)
            assert list(v.histo.bucket) == list(want.bucket), (e.step, v.tag)
            assert (v.histo.min, v.histo.max, v.histo.num, v.histo.sum, v.histo.sum_squares) == \
                (want.min, want.max, want.num, want.sum, want.sum_squares)
            checked += 1
    assert checked == len(STEPS) + 1


def test_truncated_file_is_reported_by_tensorflow(event_file, tmp_path):
    """Our framing is TF's: a file cut in the middle of a record fails TF's reader with a
    data-loss error instead of yielding garbage."""
    data = open(event_file, "rb").read()
    cut = tmp_path / "events.out.tfevents.0.cut"
    cut.write_bytes(data[:len(data) - 7])
    with pytest.raises(tf.errors.DataLossError):
        list(tf.compat.v1.train.summary_iterator(str(cut)))
    flipped = bytearray(data)
    flipped[30] ^= 0x40
    bad = tmp_path / "events.out.tfevents.0.flipped"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(tf.errors.DataLossError):
        list(tf.compat.v1.train.summary_iterator(str(bad)))
