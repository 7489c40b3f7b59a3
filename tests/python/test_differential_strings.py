"""The string ops of TF1 feature preprocessing (StringToHashBucketFast, StringToNumber,
AsString, StringLength, Substr, StringStrip, ReduceJoin) built through raw_ops in tgraph and
in real TensorFlow (tf.compat.v1) on the same inputs: the outputs must be equal (hash
buckets exactly: FarmHash Fingerprint64 over every length class), and bad inputs fail in
both, tgraph's error naming the node."""
import numpy as np
import pytest

import tgraph

tf1 = pytest.importorskip("tensorflow.compat.v1")
tf1.disable_v2_behavior()

# Strings of every FarmHash length class (0-16, 17-32, 33-64, and the 64-byte blocks),
# with UTF-8 and whitespace in some.
WORDS = [("w%d_" % n + "é" * (n % 3) + "abcdefghij" * (n // 7))[:n + 3] for n in range(0, 160, 3)]
WORDS += ["", " a b\t", "\n\v x ", "héllo", "tgraph"]


def run_both(build):
    results = []
    for m in (tgraph, tf1):
        g = m.Graph()
        with g.as_default():
            fetches = build(m)
            with m.Session() as sess:
                results.append(sess.run(fetches))
    return results


def assert_equal(a, b):
    assert a.keys() == b.keys()
    for k in a:
        x, y = np.asarray(a[k]), np.asarray(b[k])
        assert x.shape == y.shape and x.dtype == y.dtype, (k, x.shape, y.shape, x.dtype, y.dtype)
        if x.dtype.kind == "f":
            np.testing.assert_array_equal(x, y, err_msg=k)
        else:
            assert x.tolist() == y.tolist(), k


def test_hash_buckets_length_and_strip_match_tensorflow():
    def build(m):
        words = m.constant(WORDS)
        r = m.raw_ops
        return {
            "buckets_1000": r.StringToHashBucketFast(input=words, num_buckets=1000),
            "buckets_wide": r.StringToHashBucketFast(input=words, num_buckets=2**62 + 7),
            "bytes": r.StringLength(input=words),
            "chars": r.StringLength(input=words, unit="UTF8_CHAR"),
            "strip": r.StringStrip(input=words),
        }
    assert_equal(*run_both(build))


def test_string_to_number_and_as_string_match_tensorflow():
    floats = [" 1.5 ", "1e40", "-inf", "0x10", "+3", "1.", "1e-50", "-0.000123", "7"]
    ints = [" 12 ", "+3", "-7", "2147483647", "-2147483648"]
    values = np.array([3.14159, -2.0, 1e20, 0.0, -1e-7], np.float32)

    def build(m):
        r = m.raw_ops
        out = {
            "f32": r.StringToNumber(string_tensor=m.constant(floats), out_type=m.float32),
            "f64": r.StringToNumber(string_tensor=m.constant(floats), out_type=m.float64),
            "i32": r.StringToNumber(string_tensor=m.constant(ints), out_type=m.int32),
            "i64": r.StringToNumber(string_tensor=m.constant(ints + ["-9000000000"]),
                                    out_type=m.int64),
        }
        x = m.constant(values)
        for name, attrs in {"plain": {}, "prec": dict(precision=2, width=9, fill="0"),
                            "short": dict(shortest=True), "sci": dict(scientific=True, precision=3),
                            "left": dict(width=12, fill="-"), "plus": dict(fill="+")}.items():
            out["as_" + name] = r.AsString(input=x, **attrs)
        out["as_f64"] = r.AsString(input=m.constant(values.astype(np.float64)), precision=10)
        out["as_i64"] = r.AsString(input=m.constant([7, -9000000000], m.int64), width=12)
        out["as_u8"] = r.AsString(input=m.constant([0, 255], m.uint8), width=4, fill="0")
        out["as_bool"] = r.AsString(input=m.constant([True, False]))
        out["as_f16"] = r.AsString(input=m.constant([1.1, -3], m.float16))
        out["as_bf16"] = r.AsString(input=m.cast(m.constant([1.1, -3]), m.bfloat16),
                                    shortest=True)
        out["as_c64"] = r.AsString(input=m.constant([1.5 + 2j, -1 - 0.25j], m.complex64))
        out["as_c128"] = r.AsString(input=m.constant([1.5 + 2j], m.complex128), precision=2,
                                    width=7)
        out["as_str"] = r.AsString(input=m.constant(["ab", "xyz"]), width=4, precision=2)
        return out
    assert_equal(*run_both(build))


def test_substr_and_reduce_join_match_tensorflow():
    words = ["hello", "héllo", "abcdefgh", "tgraph"]
    grid = [["a", "b", "c"], ["d", "e", "f"]]

    def build(m):
        r = m.raw_ops
        w = m.constant(words)
        g = m.constant(grid)
        out = {}
        for unit in ("BYTE", "UTF8_CHAR"):
            for pos, n in [(1, 2), (0, 10), (-3, 2), (2, -1), (5, 0), (-5, 3)]:
                out[f"{unit}_{pos}_{n}"] = r.Substr(input=w, pos=pos, len=n, unit=unit)
            out[f"{unit}_each"] = r.Substr(input=w, pos=m.constant([0, 1, 2, 3], m.int64),
                                           len=m.constant([1, 2, 3, 4], m.int64), unit=unit)
        out["broadcast_rows"] = r.Substr(input=m.constant([["hello", "world"], ["abc", "xyz"]]),
                                         pos=m.constant([[0], [1]]), len=m.constant([[1], [2]]))
        out["broadcast_scalar"] = r.Substr(input=m.constant("hello"), pos=m.constant([0, 1, 2]),
                                           len=m.constant([1, 2, 3]))
        for axes in ([], [0], [1], [-1], [0, 1], [1, 0]):
            for keep in (False, True):
                out[f"join_{axes}_{keep}"] = r.ReduceJoin(inputs=g, reduction_indices=axes,
                                                          keep_dims=keep, separator=", ")
        out["join_3d"] = r.ReduceJoin(inputs=m.constant(np.array(list("abcdefghijkl")).reshape(
            2, 3, 2)), reduction_indices=[0, 2], separator="")
        return out
    a, b = run_both(build)
    assert_equal(a, b)


@pytest.mark.parametrize("case", ["number", "substr", "join_axis", "join_duplicate"])
def test_bad_inputs_fail_in_both_naming_the_node(case):
    for m in (tgraph, tf1):
        g = m.Graph()
        with g.as_default():
            r = m.raw_ops
            if case == "number":
                s = m.placeholder(m.string, [None])
                out = r.StringToNumber(string_tensor=s, out_type=m.int32, name="bad_node")
                feed = {s: ["1", "12x"]}
                want, error = "12x", m.errors.InvalidArgumentError
            elif case == "substr":
                s = m.placeholder(m.string, [None])
                out = r.Substr(input=s, pos=6, len=1, name="bad_node")
                feed = {s: ["hello"]}
                want, error = "pos 6 out of range for string b'hello' at index 0", \
                    m.errors.InvalidArgumentError
            else:
                axes = m.placeholder(m.int32, [None])
                out = r.ReduceJoin(inputs=m.constant([["a", "b"]]), reduction_indices=axes,
                                   name="bad_node")
                if case == "join_axis":
                    feed = {axes: [2]}
                    want, error = "Invalid reduction dimension 2", m.errors.OutOfRangeError
                else:
                    feed = {axes: [1, -1]}
                    want, error = "Duplicate reduction dimension -1", m.errors.InvalidArgumentError
            with m.Session() as sess:
                with pytest.raises(error) as info:
                    sess.run(out, feed)
            message = getattr(info.value, "message", str(info.value))
            assert want in message
            if m is tgraph:
                assert "bad_node" in message


def test_no_gradients_as_in_tensorflow():
    with tgraph.Graph().as_default():
        x = tgraph.placeholder(tgraph.float32, [2])
        n = tgraph.raw_ops.StringToNumber(string_tensor=tgraph.raw_ops.AsString(input=x))
        assert tgraph.gradients(tgraph.reduce_sum(n), x) == [None]
