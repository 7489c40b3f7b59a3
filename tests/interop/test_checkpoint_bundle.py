"""V2 checkpoints ("tensor bundles") between real TensorFlow and tgraph's tensorflow_v2
saver plugin, both ways, with every dtype both support, strings, a scalar, an empty tensor
and a large one; and damaged checkpoints failing with the stated code and message.

tgraph's side is the C API: tests/interop/checkpoint_bundle_tool.c (built as interop_checkpoint_bundle_tool; dump / write between a
checkpoint and raw files) and the `tgraph info` command.
"""
import os
import pathlib
import subprocess

import numpy as np
import pytest
import tensorflow as tf

BUILD = pathlib.Path(os.environ["TGRAPH_BUILD_DIR"])
TOOL = os.environ["TGRAPH_TOOL"]
BUNDLE_TOOL = str(BUILD / "tests" / "interop_checkpoint_bundle_tool")

# TensorFlow's quantized dtypes hold their base integer type's bytes.
QUANTIZED_BASE = {tf.qint8: np.int8, tf.quint8: np.uint8, tf.qint16: np.int16,
                  tf.quint16: np.uint16, tf.qint32: np.int32}
NUMERIC = [tf.float32, tf.float64, tf.int32, tf.uint8, tf.int16, tf.int8, tf.complex64,
           tf.int64, tf.bool, tf.qint8, tf.quint8, tf.qint32, tf.bfloat16, tf.qint16,
           tf.quint16, tf.uint16, tf.complex128, tf.float16, tf.uint32, tf.uint64]


def numpy_dtype(dtype):
    return QUANTIZED_BASE.get(dtype, dtype.as_numpy_dtype)


def sample(dtype, shape, seed):
    """Deterministic values of `dtype` that use the type's range (negative, fractions)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == tf.bool:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.is_complex:
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(
            dtype.as_numpy_dtype).reshape(shape)
    if dtype.is_floating:
        return (rng.standard_normal(n) * 100).astype(dtype.as_numpy_dtype).reshape(shape)
    info = np.iinfo(numpy_dtype(dtype))
    return rng.integers(info.min, info.max, n, dtype=numpy_dtype(dtype),
                        endpoint=True).reshape(shape)


def expected_set():
    """name -> (tf dtype, numpy value): one tensor of every dtype and the special cases."""
    tensors = {}
    for i, dtype in enumerate(NUMERIC):
        tensors["vars/" + dtype.name] = (dtype, sample(dtype, (3, 4), i))
    tensors["scalar"] = (tf.float32, np.array(2.5, np.float32))
    tensors["empty"] = (tf.float32, np.zeros((0, 5), np.float32))
    tensors["large"] = (tf.float32, sample(tf.float32, (2048, 4096), 99))  # 32 MiB
    tensors["strings"] = (tf.string, np.array([[b"", b"ab"], [b"\x00\xff" * 50, "é".encode()]],
                                              dtype=object))
    tensors["string_scalar"] = (tf.string, np.array(b"hello", dtype=object))
    tensors["dense/kernel"] = (tf.float64, sample(tf.float64, (5,), 7))
    return tensors


def tf_write(prefix, tensors):
    names = sorted(tensors)
    values = [tf.constant(tensors[n][1], dtype=tensors[n][0]) for n in names]
    tf.raw_ops.SaveV2(prefix=str(prefix), tensor_names=names,
                      shape_and_slices=[""] * len(names), tensors=values)


def run(args, ok=True):
    result = subprocess.run(args, capture_output=True, text=True)
    if ok:
        assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result


def dump_with_tgraph(prefix, out_dir):
    """tgraph's reading: name -> (dtype enum, shape, raw bytes or list of strings)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    run([BUNDLE_TOOL, "dump", str(prefix), str(out_dir)])
    read = {}
    for line in (out_dir / "manifest.tsv").read_text().splitlines():
        name, dtype, dims, file = line.split("\t")
        shape = tuple(int(d) for d in dims.split(",")) if dims else ()
        data = (out_dir / file).read_bytes()
        if int(dtype) == tf.string.as_datatype_enum:
            strings, at = [], 0
            while at < len(data):
                length = int.from_bytes(data[at:at + 8], "little")
                strings.append(data[at + 8:at + 8 + length])
                at += 8 + length
            data = strings
        read[name] = (int(dtype), shape, data)
    return read


def write_with_tgraph(prefix, tensors, in_dir):
    in_dir.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, (name, (dtype, value)) in enumerate(sorted(tensors.items())):
        file = f"{i}.bin"
        if dtype == tf.string:
            data = b"".join(len(s).to_bytes(8, "little") + s for s in value.reshape(-1))
        else:
            data = np.ascontiguousarray(value).astype(numpy_dtype(dtype)).tobytes()
        (in_dir / file).write_bytes(data)
        dims = ",".join(str(d) for d in value.shape)
        lines.append(f"{name}\t{dtype.as_datatype_enum}\t{dims}\t{file}\n")
    (in_dir / "manifest.tsv").write_text("".join(lines))
    run([BUNDLE_TOOL, "write", str(prefix), str(in_dir)])


def test_tensorflow_writes_tgraph_reads_every_value(tmp_path):
    tensors = expected_set()
    prefix = tmp_path / "tf" / "model.ckpt"
    prefix.parent.mkdir()
    tf_write(prefix, tensors)

    read = dump_with_tgraph(prefix, tmp_path / "dump")
    assert sorted(read) == sorted(tensors)
    for name, (dtype, value) in tensors.items():
        got_dtype, shape, data = read[name]
        assert got_dtype == dtype.as_datatype_enum, name
        assert shape == value.shape, name
        if dtype == tf.string:
            assert data == list(value.reshape(-1)), name
        else:
            assert data == np.ascontiguousarray(value).tobytes(), name

    # `tgraph info` lists the same names, dtypes and shapes.
    listing = run([TOOL, "info", str(prefix)]).stdout
    assert f"checkpoint (tensorflow_v2), {len(tensors)} tensors" in listing
    assert "  large: float [2048, 4096] (33554432 bytes)\n" in listing
    assert "  vars/bfloat16: bfloat16 [3, 4] (24 bytes)\n" in listing
    assert "  strings: string [2, 2] (strings)\n" in listing
    assert "  scalar: float [] (4 bytes)\n" in listing
    assert "  empty: float [0, 5] (0 bytes)\n" in listing
    shown = run([TOOL, "info", str(prefix), "--tensor", "scalar"]).stdout
    assert "scalar = array(2.5, dtype=float32)" in shown


def test_tgraph_writes_tensorflow_reads_every_value(tmp_path):
    tensors = expected_set()
    prefix = tmp_path / "ours" / "model.ckpt"
    write_with_tgraph(prefix, tensors, tmp_path / "input")
    assert sorted(os.listdir(prefix.parent)) == ["model.ckpt.data-00000-of-00001",
                                                 "model.ckpt.index"]

    listed = dict(tf.train.list_variables(str(prefix)))
    assert listed == {name: list(value.shape) for name, (_, value) in tensors.items()}
    reader = tf.train.load_checkpoint(str(prefix))
    dtypes = reader.get_variable_to_dtype_map()
    for name, (dtype, value) in tensors.items():
        assert dtypes[name] == dtype, name
        got = reader.get_tensor(name)
        if dtype == tf.string:
            got = np.asarray(got, dtype=object)  # a scalar string comes back as bytes
            assert got.reshape(-1).tolist() == value.reshape(-1).tolist(), name
        else:
            assert got.shape == value.shape, name
            assert got.tobytes() == np.ascontiguousarray(value).tobytes(), name
    # And TF's own restore op reads it as a graph would.
    restored = tf.raw_ops.RestoreV2(prefix=str(prefix), tensor_names=["large", "vars/int8"],
                                   shape_and_slices=["", ""], dtypes=[tf.float32, tf.int8])
    np.testing.assert_array_equal(restored[0].numpy(), tensors["large"][1])
    np.testing.assert_array_equal(restored[1].numpy(), tensors["vars/int8"][1])


def test_tensorflow_partitioned_tensor_is_assembled(tmp_path):
    """A partitioned variable (TF1's partitioned_variables): slices under OrderedCode keys."""
    full = sample(tf.float32, (200, 3), 5)
    prefix = tmp_path / "part" / "model.ckpt"
    prefix.parent.mkdir()
    tf.raw_ops.SaveV2(prefix=str(prefix), tensor_names=["p/w", "p/w", "p/w", "plain"],
                      shape_and_slices=["200 3 0,70:-", "200 3 70,100:-", "200 3 170,30:0,3",
                                        ""],
                      tensors=[full[:70], full[70:170], full[170:], np.int32(7)])
    read = dump_with_tgraph(prefix, tmp_path / "dump")
    assert sorted(read) == ["p/w", "plain"]  # the slices' own keys are not listed
    assert read["p/w"][1] == (200, 3)
    assert read["p/w"][2] == full.tobytes()
    listing = run([TOOL, "info", str(prefix)]).stdout
    assert "  p/w: float [200, 3] (2400 bytes)\n" in listing


def test_index_is_byte_identical_to_tensorflows(tmp_path):
    """The same tensors written by both give the same .index and data bytes."""
    tensors = {name: value for name, value in expected_set().items() if name != "large"}
    tf_prefix = tmp_path / "tf" / "m"
    tf_prefix.parent.mkdir()
    tf_write(tf_prefix, tensors)
    our_prefix = tmp_path / "ours" / "m"
    write_with_tgraph(our_prefix, tensors, tmp_path / "input")
    # Same order of adding (sorted names) so the data files match too.
    for suffix in (".index", ".data-00000-of-00001"):
        ours = pathlib.Path(str(our_prefix) + suffix).read_bytes()
        theirs = pathlib.Path(str(tf_prefix) + suffix).read_bytes()
        assert ours == theirs, suffix


@pytest.fixture
def small_checkpoint(tmp_path):
    prefix = tmp_path / "bad" / "model.ckpt"
    prefix.parent.mkdir()
    tf_write(prefix, {"a": (tf.float32, np.arange(8, dtype=np.float32)),
                      "b": (tf.int64, np.arange(4, dtype=np.int64))})
    return prefix


def expect_failure(args, code, *mentions):
    result = run(args, ok=False)
    assert result.returncode == 1, result
    if code is not None:  # the checkpoint tool prints the code's name; `tgraph` does not
        assert code in result.stderr, result.stderr
    for m in mentions:
        assert m in result.stderr, (m, result.stderr)
    assert "Traceback" not in result.stderr and "Aborted" not in result.stderr


def test_flipped_data_byte_is_data_loss_naming_file_and_tensor(small_checkpoint, tmp_path):
    data = pathlib.Path(str(small_checkpoint) + ".data-00000-of-00001")
    raw = bytearray(data.read_bytes())
    raw[-3] ^= 0x01  # inside "b" (TF adds tensors in name order: a, then b)
    data.write_bytes(bytes(raw))
    expect_failure([BUNDLE_TOOL, "dump", str(small_checkpoint), str(tmp_path)], "DATA_LOSS",
                   "model.ckpt.data-00000-of-00001", "'b'")
    expect_failure([TOOL, "info", str(small_checkpoint), "--tensor", "b"], None,
                   "model.ckpt.data-00000-of-00001", "'b'")


def test_truncated_index_is_data_loss_naming_it(small_checkpoint, tmp_path):
    index = pathlib.Path(str(small_checkpoint) + ".index")
    index.write_bytes(index.read_bytes()[:-20])
    expect_failure([BUNDLE_TOOL, "dump", str(small_checkpoint), str(tmp_path)], "DATA_LOSS",
                   "model.ckpt.index")
    expect_failure([TOOL, "info", str(small_checkpoint)], None, "model.ckpt.index",
                   "corrupt or truncated")


def test_deleted_data_file_is_not_found_naming_it(small_checkpoint, tmp_path):
    os.remove(str(small_checkpoint) + ".data-00000-of-00001")
    expect_failure([BUNDLE_TOOL, "dump", str(small_checkpoint), str(tmp_path)], "NOT_FOUND",
                   "model.ckpt.data-00000-of-00001")


def test_unknown_tensor_and_missing_checkpoint_are_not_found(small_checkpoint, tmp_path):
    expect_failure([TOOL, "info", str(small_checkpoint), "--tensor", "nope"], None,
                   "'nope'")
    missing = str(tmp_path / "nothing" / "model.ckpt")
    expect_failure([BUNDLE_TOOL, "dump", missing, str(tmp_path)], "NOT_FOUND",
                   missing + ".index")
    expect_failure([TOOL, "info", missing], None, missing + ": cannot open")
