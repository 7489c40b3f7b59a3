"""The safetensors saver plugin against the reference `safetensors` package, both ways.

tgraph's side is tests/plugins/saver_safetensors/safetensors_tool, which saves and restores
through the plugin (loaded by the core, called through its saver registry) and prints every
tensor as {name: {"dtype", "shape", "hex"}}.
"""
import json
import os
import subprocess

import numpy as np
from safetensors import TensorSpec, deserialize, safe_open, serialize_file
from safetensors.numpy import save_file

TOOL = os.path.join(os.environ["TGRAPH_BUILD_DIR"], "tests", "safetensors_tool")

# tgraph's dtype name -> (the header's dtype, the reference's TensorSpec dtype). Every
# safetensors dtype tgraph has a type for.
DTYPES = {
    "bool": ("BOOL", "bool"),
    "uint8": ("U8", "uint8"),
    "int8": ("I8", "int8"),
    "int16": ("I16", "int16"),
    "uint16": ("U16", "uint16"),
    "half": ("F16", "float16"),
    "bfloat16": ("BF16", "bfloat16"),
    "int32": ("I32", "int32"),
    "uint32": ("U32", "uint32"),
    "float": ("F32", "float32"),
    "double": ("F64", "float64"),
    "int64": ("I64", "int64"),
    "uint64": ("U64", "uint64"),
    "complex64": ("C64", "complex64"),
    "float8_e5m2": ("F8_E5M2", "float8_e5m2"),
    "float8_e4m3fn": ("F8_E4M3", "float8_e4m3fn"),
    "float8_e4m3fnuz": ("F8_E4M3FNUZ", "float8_e4m3fnuz"),
    "float8_e5m2fnuz": ("F8_E5M2FNUZ", "float8_e5m2fnuz"),
}
ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "uint16": 2, "half": 2, "bfloat16": 2,
            "int32": 4, "uint32": 4, "float": 4, "double": 8, "int64": 8, "uint64": 8,
            "complex64": 8, "float8_e5m2": 1, "float8_e4m3fn": 1, "float8_e4m3fnuz": 1,
            "float8_e5m2fnuz": 1}
NUMPY_NAMES = {np.dtype(np.bool_): "bool", np.dtype(np.uint8): "uint8",
               np.dtype(np.int8): "int8", np.dtype(np.int16): "int16",
               np.dtype(np.uint16): "uint16", np.dtype(np.float16): "half",
               np.dtype(np.int32): "int32", np.dtype(np.uint32): "uint32",
               np.dtype(np.float32): "float", np.dtype(np.float64): "double",
               np.dtype(np.int64): "int64", np.dtype(np.uint64): "uint64",
               np.dtype(np.complex64): "complex64"}


def run_tool(command, path):
    result = subprocess.run([TOOL, command, str(path)], capture_output=True, text=True,
                            check=False)
    return result.returncode, result.stdout, result.stderr


def tool_json(command, path):
    code, out, err = run_tool(command, path)
    assert code == 0, err
    return json.loads(out)


def test_reference_reads_what_tgraph_writes(tmp_path):
    path = tmp_path / "ours.safetensors"
    written = tool_json("write", path)
    assert set(DTYPES) <= {t["dtype"] for t in written.values()}, "every dtype is covered"

    loaded = dict(deserialize(path.read_bytes()))  # the reference's own parser and checks
    assert set(loaded) == set(written)
    for name, ours in written.items():
        ref = loaded[name]
        assert ref["dtype"] == DTYPES[ours["dtype"]][0], name
        assert list(ref["shape"]) == ours["shape"], name
        assert bytes(ref["data"]).hex() == ours["hex"], name

    with safe_open(str(path), framework="numpy") as f:
        assert f.get_tensor("scalar").shape == ()
        assert f.get_tensor("scalar") == np.float32(3.5)
        large = f.get_tensor("scope/large")
        assert large.dtype == np.float32 and large.shape == (512, 1024)
        assert large.tobytes().hex() == written["scope/large"]["hex"]
        assert f.get_tensor("empty").shape == (0, 3)


def test_tgraph_reads_what_reference_writes(tmp_path):
    rng = np.random.default_rng(17)
    arrays = {
        "dense/kernel": rng.standard_normal((3, 4)).astype(np.float32),
        "dense/bias": rng.standard_normal(4),
        "steps": np.arange(5, dtype=np.int64) - 2,
        "mask": np.array([True, False, True]),
        "scalar": np.array(2.5, dtype=np.float32),
        "empty": np.zeros((0, 3), dtype=np.int16),
        "bytes": np.arange(250, 256, dtype=np.uint8),
        "halves": np.array([0.5, -1.0], dtype=np.float16),
        "z": (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64),
        "u64": np.array([2**64 - 1, 7], dtype=np.uint64),
    }
    path = tmp_path / "numpy.safetensors"
    save_file(arrays, str(path), metadata={"format": "np", "note": "written by safetensors"})
    ours = tool_json("read", path)
    assert set(ours) == set(arrays)
    for name, a in arrays.items():
        assert ours[name]["dtype"] == NUMPY_NAMES[a.dtype], name
        assert ours[name]["shape"] == list(a.shape), name
        assert ours[name]["hex"] == a.tobytes().hex(), name

    # The dtypes numpy lacks (bfloat16, float8), as raw bytes through TensorSpec.
    buffers = {}
    specs = {}
    for i, (tg_name, (_, spec_dtype)) in enumerate(DTYPES.items()):
        shape = [2, 3]
        data = np.frombuffer(bytes((j * 29 + i * 13) % 256 for j in range(6 * ITEMSIZE[tg_name])),
                             dtype=np.uint8).copy()
        if tg_name == "bool":
            data &= 1
        buffers[tg_name] = data  # kept alive while serialize_file reads it
        specs[tg_name] = TensorSpec(dtype=spec_dtype, shape=shape, data_ptr=data.ctypes.data,
                                    data_len=data.nbytes)
    path = tmp_path / "raw.safetensors"
    serialize_file(specs, str(path))
    ours = tool_json("read", path)
    assert set(ours) == set(DTYPES)
    for tg_name in DTYPES:
        assert ours[tg_name]["dtype"] == tg_name
        assert ours[tg_name]["shape"] == [2, 3]
        assert ours[tg_name]["hex"] == buffers[tg_name].tobytes().hex()


def test_both_refuse_a_truncated_file(tmp_path):
    path = tmp_path / "cut.safetensors"
    save_file({"w": np.ones((64, 64), dtype=np.float32)}, str(path))
    path.write_bytes(path.read_bytes()[:-10])
    try:
        deserialize(path.read_bytes())
        reference_refused = False
    except Exception:  # pylint: disable=broad-except
        reference_refused = True
    assert reference_refused
    code, _, err = run_tool("read", path)
    assert code == 1
    assert "DATA_LOSS" in err and str(path) in err and "tensor 'w'" in err
