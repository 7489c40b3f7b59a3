"""The matrix-structure ops (MatrixBandPart, MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3},
MatrixSetDiag{,V2,V3}, Diag, DiagPart) and the segment reductions (Segment*,
UnsortedSegment*, SparseSegment*{,WithNumSegments}, SparseSegment*Grad), differentially
against TensorFlow: each case builds a TF1 graph with the exact raw op, runs it in TensorFlow,
writes the GraphDef, runs it with `tgraph run` and compares every output (test_model_ops.py's
check). Their OpDefs must also match TensorFlow's (test_list_op_defs.py's comparison). TopK (v1)
is compared by its OpDef only: TensorFlow no longer builds it (removed in GraphDef version 7)."""
import numpy as np
import pytest
import tensorflow as tf

from test_list_op_defs import test_op_def_matches_tensorflow as op_def_matches
from test_model_ops import RAW, check, ph, rng

ALIGNS = ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]
OPS = ["MatrixBandPart", "MatrixDiag", "MatrixDiagV2", "MatrixDiagV3", "MatrixDiagPart",
       "MatrixDiagPartV2", "MatrixDiagPartV3", "MatrixSetDiag", "MatrixSetDiagV2",
       "MatrixSetDiagV3", "Diag", "DiagPart", "SegmentSum", "SegmentMean", "SegmentMax",
       "SegmentMin", "SegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin",
       "UnsortedSegmentProd", "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN",
       "SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
       "SparseSegmentSqrtNWithNumSegments", "SparseSegmentSumGrad", "SparseSegmentMeanGrad",
       "SparseSegmentSqrtNGrad",
       # miscellaneous array ops
       "ClipByValue", "EnsureShape", "CheckNumerics", "CheckNumericsV2", "Roll", "Concat",
       "LinSpace", "Bucketize", "LowerBound", "UpperBound", "Cross", "TopK", "InTopKV2", "Empty",
       "BatchMatMul", "BatchMatMulV3"]


@pytest.mark.parametrize("name", OPS)
def test_op_def(name):
    op_def_matches(name)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16, np.bool_])
def test_band_part(tmp_path, dtype):
    x = (rng(1).randn(2, 3, 5) * 10).astype(dtype)

    def build():
        v = ph("x", x)
        return [RAW.MatrixBandPart(input=v, num_lower=np.int64(1), num_upper=np.int64(2)),
                RAW.MatrixBandPart(input=v, num_lower=np.int32(-1), num_upper=np.int32(0)),
                RAW.MatrixBandPart(input=v, num_lower=np.int64(0), num_upper=np.int64(-1))]
    check(tmp_path, build, {"x:0": x})


@pytest.mark.parametrize("align", ALIGNS)
def test_diag_ops_v3(tmp_path, align):
    x = rng(2).randn(2, 4, 3).astype(np.float32)
    d = rng(3).randn(2, 3, 3).astype(np.float32)

    def build():
        v, dv = ph("x", x), ph("d", d)
        return [RAW.MatrixDiagPartV3(input=v, k=[-2, 1], padding_value=7.0, align=align),
                RAW.MatrixDiagPartV3(input=v, k=-1, padding_value=0.0, align=align),
                RAW.MatrixDiagV3(diagonal=dv, k=[-1, 1], num_rows=-1, num_cols=-1,
                                 padding_value=1.5, align=align),
                RAW.MatrixDiagV3(diagonal=dv, k=[0, 2], num_rows=3, num_cols=-1,
                                 padding_value=0.0, align=align),
                RAW.MatrixSetDiagV3(input=v, diagonal=dv, k=[-2, 0], align=align)]
    check(tmp_path, build, {"x:0": x, "d:0": d})


def test_diag_ops_v1_v2_and_tensor_diag(tmp_path):
    x = rng(4).randint(-9, 9, (2, 3, 4)).astype(np.int64)
    d = rng(5).randint(-9, 9, (2, 3)).astype(np.int64)
    t = rng(6).randn(2, 3, 2, 3).astype(np.float64)

    def build():
        v, dv, tv = ph("x", x), ph("d", d), ph("t", t)
        return [RAW.MatrixDiag(diagonal=dv), RAW.MatrixDiagPart(input=v),
                RAW.MatrixSetDiag(input=v, diagonal=dv),
                RAW.MatrixDiagV2(diagonal=dv, k=1, num_rows=-1, num_cols=-1,
                                 padding_value=np.int64(3)),
                RAW.MatrixDiagPartV2(input=v, k=[0, 1], padding_value=np.int64(-1)),
                RAW.MatrixSetDiagV2(input=v, diagonal=np.stack([d, d], 1), k=[-1, 0]),
                RAW.Diag(diagonal=tv[:, :, 0, 0]), RAW.DiagPart(input=tv)]
    check(tmp_path, build, {"x:0": x, "d:0": d, "t:0": t})


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_segment_reductions(tmp_path, dtype):
    x = (rng(7).randn(6, 3) * 5).astype(dtype)
    ids = np.array([0, 0, 1, 3, 3, 3], np.int32)
    uids = np.array([[2, -1, 0], [2, 4, 0]], np.int64)

    def build():
        v = ph("x", x)
        outs = [getattr(RAW, op)(data=v, segment_ids=ids) for op in
                ["SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"]]
        outs += [getattr(RAW, op)(data=tf.reshape(v, [2, 3, 3]), segment_ids=uids,
                                  num_segments=np.int32(5)) for op in
                 ["UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
                  "UnsortedSegmentProd"]]
        return outs
    check(tmp_path, build, {"x:0": x})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_segment_reductions(tmp_path, dtype):
    x = rng(8).randn(5, 4).astype(dtype)
    idx = np.array([4, 0, 0, 2, 1], np.int32)
    seg = np.array([0, 0, 2, 2, 3], np.int64)

    def build():
        v = ph("x", x)
        outs = []
        for op in ["SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"]:
            outs.append(getattr(RAW, op)(data=v, indices=idx, segment_ids=seg))
            outs.append(getattr(RAW, op + "WithNumSegments")(
                data=v, indices=idx.astype(np.int64), segment_ids=seg,
                num_segments=np.int32(6)))
        g = v[:4]
        for op in ["SparseSegmentSumGrad", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad"]:
            outs.append(getattr(RAW, op)(grad=g, indices=idx, segment_ids=seg,
                                         output_dim0=np.int32(5)))
        return outs
    check(tmp_path, build, {"x:0": x}, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_misc_typed_ops(tmp_path, dtype):
    x = (rng(9).randn(3, 4) * 5).astype(dtype)
    a = (rng(10).randn(2, 3) * 3).astype(dtype)
    b = (rng(11).randn(2, 3) * 3).astype(dtype)
    srt = np.sort(x, axis=1)

    def build():
        v, av, bv = ph("x", x), ph("a", a), ph("b", b)
        return [RAW.ClipByValue(t=v, clip_value_min=dtype(-2), clip_value_max=dtype(3)),
                RAW.ClipByValue(t=v, clip_value_min=v * 0 - 1, clip_value_max=dtype(1)),
                RAW.Bucketize(input=v, boundaries=[-3.0, 0.0, 0.5, 4.0]),
                RAW.LowerBound(sorted_inputs=srt, values=v),
                RAW.UpperBound(sorted_inputs=srt, values=v, out_type=tf.int64),
                RAW.Cross(a=av, b=bv)]
    check(tmp_path, build, {"x:0": x, "a:0": a, "b:0": b})


def test_misc_ops(tmp_path):
    x = rng(12).randn(2, 3, 4).astype(np.float32)
    p = rng(13).randn(4, 5).astype(np.float32)
    t = np.array([0, 4, 2, 1], np.int64)

    def build():
        v, pv = ph("x", x), ph("p", p)
        return [RAW.EnsureShape(input=v, shape=[2, None, 4]),
                RAW.CheckNumerics(tensor=v, message="m"),
                RAW.CheckNumericsV2(tensor=v, message="m"),
                RAW.Roll(input=v, shift=[2, -1], axis=[2, 0]),
                RAW.Roll(input=v, shift=np.int64(5), axis=np.int64(-1)),
                RAW.Concat(concat_dim=1, values=[v, v[:, :1]]),
                RAW.LinSpace(start=np.float32(-1), stop=np.float32(2), num=7),
                RAW.LinSpace(start=np.float64(0.5), stop=np.float64(-3), num=np.int64(4)),
                RAW.InTopKV2(predictions=pv, targets=t, k=np.int64(2)),
                RAW.Empty(shape=[2, 0], dtype=tf.float32),
                RAW.BatchMatMul(x=v, y=v, adj_y=True),
                RAW.BatchMatMulV3(x=v, y=v, Tout=tf.float32, adj_x=True)]
    check(tmp_path, build, {"x:0": x, "p:0": p}, rtol=1e-5, atol=1e-5)


def test_check_numerics_fails_the_run(tmp_path):
    import subprocess
    from test_model_ops import TOOL
    graph = tf.Graph()
    with graph.as_default():
        v = tf.compat.v1.placeholder(tf.float32, [3], name="x")
        RAW.CheckNumerics(tensor=v, message="bad input", name="check")
    (tmp_path / "graph.pb").write_bytes(graph.as_graph_def().SerializeToString())
    np.save(tmp_path / "x.npy", np.array([1, np.inf, np.nan], np.float32))
    done = subprocess.run([TOOL, "run", str(tmp_path / "graph.pb"), "--feed",
                           f"x:0={tmp_path / 'x.npy'}", "--fetch", "check:0"],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "check" in done.stderr and "bad input : Tensor had Inf and NaN values" in done.stderr


# bfloat16 goes in and out as float32 (cast inside the graph): .npy has no bfloat16.
@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16])
def test_segment_reductions_half(tmp_path, dtype):
    x = rng(14).randn(6, 3).astype(np.float32)
    ids = np.array([0, 0, 1, 3, 3, 3], np.int64)
    idx = np.array([4, 0, 0, 2, 1], np.int32)
    seg = np.array([0, 0, 2, 2, 3], np.int32)

    def build():
        v = tf.cast(ph("x", x), dtype)
        outs = [getattr(RAW, op)(data=v, segment_ids=ids) for op in
                ["SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"]]
        outs += [getattr(RAW, op)(data=v, segment_ids=ids[::-1], num_segments=5) for op in
                 ["UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
                  "UnsortedSegmentProd"]]
        outs += [getattr(RAW, op)(data=v, indices=idx, segment_ids=seg) for op in
                 ["SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"]]
        outs += [getattr(RAW, op)(grad=v[:4], indices=idx, segment_ids=seg,
                                  output_dim0=np.int32(6)) for op in
                 ["SparseSegmentSumGrad", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad"]]
        return [tf.cast(o, tf.float32) for o in outs]
    check(tmp_path, build, {"x:0": x}, rtol=2e-2, atol=2e-2)
