"""The element-wise math beyond the basic set (trigonometric and hyperbolic functions, Ceil,
Rint, IsNan/IsInf/IsFinite, Softsign(Grad), Lgamma, Digamma, Polygamma, Erfinv, Ndtri,
Inv(Grad), Atan2, Mod, TruncateDiv, TruncateMod, DivNoNan, MulNoNan, Xlogy, Xdivy, Xlog1py,
ApproximateEqual, the bitwise ops, AccumulateNV2), differentially against TensorFlow: each case
builds a TF1 graph with the exact raw op, runs it in TensorFlow, writes the GraphDef, runs it
with `tgraph run` and compares every output (test_model_ops.py's check). Their OpDefs match
TensorFlow's: args, attrs and defaults (test_list_op_defs.py's comparison) and the allowed
types of T."""
import re
import subprocess

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.framework import types_pb2
from tensorflow.python.framework import op_def_registry

from test_list_op_defs import TOOL
from test_list_op_defs import test_op_def_matches_tensorflow as op_def_matches
from test_model_ops import RAW, check, ph

UNARY_FLOAT = ["Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
               "Atanh", "Ceil", "Rint", "Lgamma", "Digamma", "Erfinv", "Ndtri", "Inv"]
CLASSIFIERS = ["IsNan", "IsInf", "IsFinite"]
BINARY_FLOAT = ["Atan2", "DivNoNan", "MulNoNan", "Xlogy", "Xdivy", "Xlog1py"]
BITWISE = ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"]
OPS = (UNARY_FLOAT + CLASSIFIERS + BINARY_FLOAT + BITWISE +
       ["Softsign", "SoftsignGrad", "InvGrad", "Polygamma", "Mod", "TruncateDiv", "TruncateMod",
        "ApproximateEqual", "Invert", "PopulationCount", "AccumulateNV2"])

# Values inside each op's domain (away from poles), 24 of them.
DOMAIN = {"Asin": (-0.99, 0.99), "Acos": (-0.99, 0.99), "Atanh": (-0.95, 0.95),
          "Erfinv": (-0.95, 0.95), "Acosh": (1.0, 6.0), "Ndtri": (0.02, 0.98),
          "Lgamma": (0.1, 6.0), "Digamma": (0.1, 6.0), "Tan": (-1.4, 1.4), "Inv": (0.2, 4.0)}


@pytest.mark.parametrize("name", OPS)
def test_op_def(name):
    op_def_matches(name)


@pytest.mark.parametrize("name", OPS)
def test_allowed_types(name):
    """`tgraph ops NAME` lists the same dtypes for T as TensorFlow's OpDef."""
    done = subprocess.run([TOOL, "ops", name], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    line = next(l for l in done.stdout.splitlines() if re.match(r"\s+attr T: ", l))
    ours = set(t.strip() for t in re.search(r"\{(.*)\}", line).group(1).split(","))
    want = op_def_registry.get(name)
    t_attr = next(a for a in want.attr if a.name == "T")
    theirs = set(types_pb2.DataType.Name(t)[3:].lower() for t in t_attr.allowed_values.list.type)
    ours = {"half" if t == "float16" else t for t in ours}
    assert ours == theirs


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("op", UNARY_FLOAT + ["Softsign"])
def test_unary_float(tmp_path, op, dtype):
    if dtype == np.float16 and op in ("Rint", "Erfinv", "Ndtri"):
        pytest.skip("TensorFlow has no float16 CPU kernel to compare with")
    lo, hi = DOMAIN.get(op, (-3.0, 3.0))
    x = np.linspace(lo, hi, 24).reshape(4, 6).astype(dtype)
    if op == "Rint":
        x = (np.arange(24).reshape(4, 6) / 2.0 - 6).astype(dtype)  # halves round to even
    tol = 2e-3 if dtype == np.float16 else (2e-5 if dtype == np.float32 else 1e-10)

    def build():
        arg = {"features" if op == "Softsign" else "x": ph("x", x)}
        return [getattr(RAW, op)(**arg)]
    check(tmp_path, build, {"x:0": x}, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_classifiers(tmp_path, dtype):
    with np.errstate(over="ignore"):  # -1e30 is -inf in float16
        x = np.array([[np.nan, np.inf, -np.inf, 0.0], [-0.0, 1.5, -1e30, 1e-40]]).astype(dtype)

    def build():
        t = ph("x", x)
        return [getattr(RAW, op)(x=t) for op in CLASSIFIERS]
    check(tmp_path, build, {"x:0": x})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softsign_inv_grads(tmp_path, dtype):
    g = np.linspace(-2, 2, 12).reshape(3, 4).astype(dtype)
    f = np.linspace(-3, 3, 12).reshape(3, 4).astype(dtype)

    def build():
        tg, tf_ = ph("g", g), ph("f", f)
        return [RAW.SoftsignGrad(gradients=tg, features=tf_), RAW.InvGrad(y=tf_, dy=tg)]
    check(tmp_path, build, {"g:0": g, "f:0": f})


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("op", BINARY_FLOAT)
def test_binary_float_broadcasting(tmp_path, op, dtype):
    r = np.random.RandomState(3)
    x = r.uniform(-2, 2, (2, 3, 4)).astype(dtype)
    y = r.uniform(0.2, 3, (3, 1)).astype(dtype)
    x[0, 0, :2] = 0  # x = 0: Xlogy / Xdivy / Xlog1py give 0
    y[1, 0] = 0      # y = 0: DivNoNan / MulNoNan give 0
    if op == "Xlog1py":
        y[1, 0] = -1
    tol = 2e-3 if dtype == np.float16 else (2e-5 if dtype == np.float32 else 1e-10)

    def build():
        a, b = ph("x", x), ph("y", y)
        if op == "Atan2":
            return [RAW.Atan2(y=a, x=b), RAW.Atan2(y=b, x=a)]
        return [getattr(RAW, op)(x=a, y=b), getattr(RAW, op)(x=b, y=a)]
    with np.errstate(divide="ignore", invalid="ignore"):
        check(tmp_path, build, {"x:0": x, "y:0": y}, rtol=tol, atol=tol)


def test_special_values_binary(tmp_path):
    nan, inf = np.nan, np.inf
    x = np.array([nan, 1.0, inf, 0.0, 0.0, 0.0, 2.0], np.float32)
    y = np.array([0.0, 0.0, 0.0, nan, -1.0, 0.0, nan], np.float32)

    def build():
        a, b = ph("x", x), ph("y", y)
        return [getattr(RAW, op)(x=a, y=b) for op in BINARY_FLOAT if op != "Atan2"] + \
            [RAW.Atan2(y=a, x=b)]
    check(tmp_path, build, {"x:0": x, "y:0": y})


def test_polygamma(tmp_path):
    a = np.array([[0.0], [1.0], [2.0], [1.5]])
    x = np.linspace(0.3, 5, 6)

    def build():
        return [RAW.Polygamma(a=ph("a", a), x=ph("x", x))]
    check(tmp_path, build, {"a:0": a, "x:0": x}, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_mod_truncate_mod(tmp_path, dtype):
    x = np.array([[7, -7, 7, -7], [9, -9, 0, 5]], dtype)
    y = np.array([3, 3, -3, -4], dtype)
    if np.issubdtype(dtype, np.floating):
        x = x + np.array(0.5, dtype)

    def build():
        a, b = ph("x", x), ph("y", y)
        return [RAW.Mod(x=a, y=b), RAW.TruncateMod(x=a, y=b)]
    check(tmp_path, build, {"x:0": x, "y:0": y})


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64])
def test_truncate_div(tmp_path, dtype):
    info = np.iinfo(dtype)
    if info.min < 0:
        x = np.array([[7, -7, 7, -7], [info.min, info.max, 0, -1]], dtype)
        y = np.array([[3, 3, -3, -3], [-1, 2, 5, 2]], dtype)
    else:
        x = np.array([[7, 200, 9, 0], [1, info.max, 6, 5]], dtype)
        y = np.array([[3, 7, 3, 4], [2, 2, 1, 9]], dtype)

    def build():
        return [RAW.TruncateDiv(x=ph("x", x), y=ph("y", y))]
    check(tmp_path, build, {"x:0": x, "y:0": y})


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64])
def test_bitwise(tmp_path, dtype):
    info = np.iinfo(dtype)
    bits = np.dtype(dtype).itemsize * 8
    x = np.array([[1, 5, 0x5a, 3], [info.min, info.max, 6, 1]], dtype)
    counts = [0, 1, bits - 1, bits, 100 if bits > 8 else 99, 3, 2, bits + 5]
    if info.min < 0:
        counts[5] = -1
        counts[7] = -100
        x[0, 3] = -7
    y = np.array(counts, dtype).reshape(2, 4)

    def build():
        a, b = ph("x", x), ph("y", y)
        row = tf.constant(np.array([1, 2, 4, 8], dtype))
        return ([getattr(RAW, op)(x=a, y=b) for op in BITWISE] +
                [RAW.BitwiseAnd(x=a, y=row), RAW.LeftShift(x=a, y=tf.constant(dtype(2))),
                 RAW.Invert(x=a), RAW.PopulationCount(x=a)])
    check(tmp_path, build, {"x:0": x, "y:0": y})


def test_approximate_equal(tmp_path):
    x = np.array([[1.0, 2.0, 3.0], [np.nan, 5.0, -1.0]], np.float32)
    y = np.array([[1.25, 2.5, 3.0], [np.nan, 5.00001, -1.2]], np.float32)

    def build():
        a, b = ph("x", x), ph("y", y)
        return [RAW.ApproximateEqual(x=a, y=b), RAW.ApproximateEqual(x=a, y=b, tolerance=0.3)]
    check(tmp_path, build, {"x:0": x, "y:0": y})


def test_accumulate_n_v2(tmp_path):
    xs = [np.random.RandomState(i).randn(3, 4).astype(np.float32) for i in range(3)]

    def build():
        ts = [ph(f"x{i}", v) for i, v in enumerate(xs)]
        return [RAW.AccumulateNV2(inputs=ts, shape=[3, 4])]
    check(tmp_path, build, {f"x{i}:0": v for i, v in enumerate(xs)})
