"""TF 1.x functions of the binding's op families (array_ops, math_ops, nn, image) built with
tgraph and with real TensorFlow (tf.compat.v1) on the same inputs: values and, where TF has
a gradient, gradients must agree; bad arguments fail as in TF."""
import numpy as np
import pytest

import tgraph
from tf_compare import assert_close

tf1 = pytest.importorskip("tensorflow.compat.v1")
tf1.disable_v2_behavior()

RNG = np.random.RandomState(7)
A = RNG.randn(3, 4).astype(np.float32)
B = RNG.randn(4, 5).astype(np.float32)
T3 = RNG.randn(2, 3, 4).astype(np.float32)
IMG = RNG.randn(2, 5, 5, 3).astype(np.float32)
# Distinct values (ties would make sort's and top_k's gradients ambiguous).
DISTINCT = RNG.permutation(24).reshape(2, 3, 4).astype(np.float32) - 11.5


def run_both(build):
    """build(m) -> dict of fetches, run in tgraph and in TF; returns both results."""
    results = []
    for m in (tgraph, tf1):
        g = m.Graph()
        with g.as_default():
            fetches = build(m)
            with m.Session() as sess:
                sess.run(m.global_variables_initializer())
                results.append(sess.run(fetches))
    return results


def check(build, tol=1e-4):
    a, b = run_both(build)
    assert_close(a, b, tol)


def with_grads(m, outputs, wrt):
    """outputs plus the gradient of sum(output * weights) for each output w.r.t. wrt, with
    fixed weights so that every output element's gradient matters."""
    fetches = dict(outputs)
    for k, y in outputs.items():
        if not y.dtype.is_floating:
            continue
        if y.shape.is_fully_defined():
            w = np.linspace(0.5, 1.5, int(np.prod(y.shape.as_list()))).reshape(
                y.shape.as_list()).astype(np.float32)
            grads = m.gradients(m.reduce_sum(y * w), wrt)
        else:  # a shape known only when run (boolean_mask): sum(y ** 2)
            grads = m.gradients(m.reduce_sum(y * y), wrt)
        for i, gr in enumerate(grads):
            assert gr is not None, f"no gradient for {k} w.r.t. input {i}"
            fetches[f"d{k}/d{i}"] = m.convert_to_tensor(gr)
    return fetches


def test_split_reverse_broadcast_stop_gradient():
    def build(m):
        x = m.constant(T3)
        p0, p1, p2 = m.split(x, [1, -1, 2], axis=2)
        q = m.split(x, 3, axis=1)
        outs = {"p0": p0, "p1": p1, "p2": p2, "q0": q[0], "q2": q[2],
                "rev": m.reverse(x, [0, 2]), "rev1": m.reverse_v2(x, [-2]),
                "stop": m.stop_gradient(x) * x}
        fetches = with_grads(m, outs, [x])
        fetches["bcast"] = m.broadcast_to(m.constant(A[0]), [2, 3, 4])
        fetches["bcast_grad"] = m.gradients(
            m.reduce_sum(m.broadcast_to(x[:, :1, :], [2, 3, 4]) * T3), x)[0]
        return fetches
    check(build)


def test_gather_nd_scatter_nd_tensor_scatter():
    idx = np.array([[0, 1], [2, 3], [1, 0]], np.int32)
    def build(m):
        x = m.constant(A)
        upd = m.constant(np.array([10., 20., 30.], np.float32))
        rows = m.constant(np.array([[2], [0]], np.int64))
        fetches = with_grads(m, {"gnd": m.gather_nd(x, idx),
                                 "gnd_rows": m.gather_nd(x, rows)}, [x])
        fetches.update(with_grads(m, {"snd": m.scatter_nd(idx, upd, [3, 4])}, [upd]))
        fetches.update(with_grads(m, {"tsu": m.tensor_scatter_nd_update(x, idx, upd),
                                      "tsu_v1": m.tensor_scatter_update(x, idx, upd)},
                                  [x, upd]))
        return fetches
    check(build)


def test_gather_nd_batch_dims():
    """gather_nd with batch_dims (TF's batch_gather_nd composition): one and two batch
    dimensions, index tuples of depth 1 and 2, int64 indices, a batch_dims tensor, and the
    gradient; the static shapes agree with TF's."""
    params = RNG.randn(2, 3, 4, 5).astype(np.float32)
    idx1 = np.array([[[1], [0]], [[2], [2]]], np.int32)           # [2, 2, 1]: rows per batch
    idx2 = np.array([[[0, 3], [2, 1], [1, 1]], [[1, 0], [0, 0], [2, 3]]], np.int64)
    idx_b2 = np.array([[[3], [0]], [[1], [1]], [[2], [0]]], np.int32)  # [3, 2, 1]
    shapes = []

    def build(m):
        p = m.constant(params)
        outs = {"b1_d1": m.gather_nd(p, idx1, batch_dims=1),
                "b1_d2": m.gather_nd(p, idx2, batch_dims=1),
                "b1_tensor": m.gather_nd(p, idx1, batch_dims=m.constant(1)),
                "b1_np": m.gather_nd(p, idx1, batch_dims=np.int64(1)),
                "b1_slice": m.gather_nd(p[0], idx_b2[:, :1], batch_dims=1),
                "b2_two": m.gather_nd(p, np.array([[[1], [2], [0]], [[3], [3], [1]]],
                                                  np.int32), batch_dims=2)}
        shapes.append({k: v.shape.as_list() for k, v in outs.items()})
        return with_grads(m, outs, [p])
    check(build)
    assert shapes[0] == shapes[1]
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            p = m.constant(params)
            with pytest.raises(ValueError, match="negative batch_dims"):
                m.gather_nd(p, idx1, batch_dims=-1)
            with pytest.raises(ValueError, match="rank"):
                m.gather_nd(p, idx1, batch_dims=3)
            with pytest.raises(TypeError, match="batch_dims"):
                m.gather_nd(p, idx1, batch_dims=m.placeholder(m.int32, []))


def test_boolean_mask_where_v2_sequence_mask_meshgrid():
    mask = np.array([[True, False, True, False], [False, False, True, True],
                     [True, True, False, False]])
    def build(m):
        x = m.constant(T3)
        a = m.constant(A)
        outs = {"bm": m.boolean_mask(a, mask),
                "bm_rows": m.boolean_mask(a, [True, False, True]),
                "where2": m.where_v2(a > 0, a, m.constant(A[0] * 0 - 1.0)),
                "where_v1": m.where(a > 0, a, -a)}
        fetches = with_grads(m, outs, [a])
        fetches.update(with_grads(m, {"bm_axis": m.boolean_mask(x, mask, axis=1)}, [x]))
        fetches.update({"seq": m.sequence_mask([1, 3, 0], 4),
                        "seq_f": m.sequence_mask(m.constant([[2, 1]], m.int64),
                                                 dtype=m.float32),
                        "mesh_xy": m.meshgrid([1., 2., 3.], [4., 5.]),
                        "mesh_ij": m.meshgrid(m.constant([1, 2]), m.constant([3, 4, 5]),
                                              m.constant([6]), indexing="ij"),
                        "where_coords": m.where(mask)})
        return fetches
    check(build)


def test_clipping():
    def build(m):
        a = m.constant(A)
        b = m.constant(B)
        outs = {"cv": m.clip_by_value(a, -0.5, 0.7),
                "cn": m.clip_by_norm(a, 1.5), "cn_axes": m.clip_by_norm(a, 0.8, axes=[1]),
                "cn_big": m.clip_by_norm(a, 100.0)}
        fetches = with_grads(m, outs, [a])
        (ca, cb), gn = m.clip_by_global_norm([a, b], 2.0)
        (ua, _), un = m.clip_by_global_norm([a, None], 50.0)
        # An infinite global norm makes every clipped tensor NaN, as in TF.
        (ia,), inorm = m.clip_by_global_norm([m.constant([1., np.inf])], 1.0)
        fetches.update({"ca": ca, "cb": cb, "gn": gn, "ua": ua, "un": un, "ia": ia,
                        "inorm": inorm,
                        "global": m.global_norm([a, b]),
                        "dca": m.gradients(m.reduce_sum(ca * A) + m.reduce_sum(cb), [a, b])})
        return fetches
    check(build)


def test_einsum_tensordot_norm():
    """Each output's gradients are taken with respect to the inputs it uses."""
    def build_grads(m):
        a = m.constant(A)
        b = m.constant(B)
        x = m.constant(T3)
        f = {"ein_mm": (m.einsum("ij,jk->ik", a, b), [a, b]),
             "ein_t": (m.einsum("bij->bji", x), [x]),
             "td1": (m.tensordot(a, b, 1), [a, b]),
             "td_axes": (m.tensordot(x, a, [[1], [0]]), [x, a]),
             "td_0": (m.tensordot(a[0], b[:, 0], 0), [a, b]),
             "n_all": (m.norm(x), [x]), "n_ax": (m.norm(x, axis=1), [x]),
             "n1": (m.norm(a, ord=1, axis=0), [a]), "n_inf": (m.norm(a, ord=np.inf, axis=1), [a]),
             "n3": (m.norm(a, ord=3, axis=1), [a]),
             "n_fro": (m.norm(x, ord="fro", axis=[1, 2]), [x]),
             "n_m1": (m.norm(x, ord=1, axis=(1, 2)), [x]),
             "n_minf": (m.norm(x, ord=np.inf, axis=(-2, -1)), [x]),
             "n_keep": (m.norm(x, axis=-1, keepdims=True), [x]),
             "ein_red": (m.einsum("bij,ij->b", x, a), [x, a]),
             "td_2": (m.tensordot(x, x, [[1, 2], [1, 2]]), [x])}
        fetches = {}
        for k, (y, wrt) in f.items():
            fetches.update(with_grads(m, {k: y}, wrt))
        return fetches
    check(build_grads)


def test_sort_argsort_top_k():
    def build(m):
        x = m.constant(DISTINCT)
        ints = m.constant(np.array([[3, 1, 2], [0, 5, 4]], np.int32))
        vals, idx = m.nn.top_k(x, 2)
        mvals, midx = m.math.top_k(x, k=4, sorted=True)
        outs = {"sort": m.sort(x), "sort_desc0": m.sort(x, axis=0, direction="DESCENDING"),
                "sort_1": m.sort(x, axis=1), "topk": vals, "mtopk": mvals}
        fetches = with_grads(m, outs, [x])
        fetches.update({"argsort": m.argsort(x), "argsort_desc1": m.argsort(
            x, axis=1, direction="DESCENDING"), "topk_i": idx, "mtopk_i": midx,
            "sort_int": m.sort(ints, direction="DESCENDING"),
            "argsort_int": m.argsort(ints, axis=0),
            "stable": m.argsort(m.constant([2., 1., 2., 1.]), stable=True)})
        return fetches
    check(build)


def test_linspace():
    def build(m):
        return {"lin": m.linspace(0., 1., 5), "lin1": m.linspace(2., 3., 1),
                "lin_neg": m.lin_space(-3., 7., 11),
                "lin_t": m.linspace(m.constant(1., m.float64), m.constant(2., m.float64),
                                    m.constant(4))}
    check(build)
    if hasattr(tf1, "linspace"):
        def build_nd(m):
            return {"lin_nd": m.linspace(m.constant([0., 1.]), m.constant([1., 3.]), 3),
                    "lin_nd_ax": m.linspace(m.constant([0., 1.]), m.constant([1., 3.]), 4,
                                            axis=-1)}
        check(build_nd)


def test_elementwise_and_reductions():
    v = np.array([-2.5, -1.5, -0.4, 0.5, 1.5, 2.5, 0.3], np.float32)
    def build(m):
        x = m.constant(v)
        a = m.constant(A)
        bools = m.constant(np.array([[True, False], [True, True]]))
        outs = {"erf": m.erf(x), "round": m.round(x), "sqd": m.squared_difference(a, A[0]),
                "log1p": m.log1p(m.abs(x)), "expm1": m.expm1(x),
                "m_sum": m.math.reduce_sum(a, 1), "m_mean": m.math.reduce_mean(a, keepdims=True),
                "m_max": m.math.reduce_max(a, axis=0), "m_sq": m.math.square(a),
                "m_erf": m.math.erf(x)}
        fetches = {}
        for k, o in outs.items():
            if k == "round":
                fetches[k] = o
                continue
            wrt = [x] if k in ("erf", "log1p", "expm1", "m_erf") else [a]
            fetches.update(with_grads(m, {k: o}, wrt))
        fetches.update({"all": m.reduce_all(bools, 1), "any": m.reduce_any(bools),
                        "m_all": m.math.reduce_all(bools, axis=0, keepdims=True),
                        "m_any": m.math.reduce_any(bools, 0)})
        return fetches
    check(build)


def test_nn_activations_and_normalization():
    def build(m):
        a = m.constant(A)
        x = m.constant(T3)
        labels = m.constant((A > 0).astype(np.float32))
        mean, var = m.nn.moments(x, [0, 1])
        kmean, kvar = m.nn.moments(x, axes=[2], keep_dims=True)
        outs = {"leaky": m.nn.leaky_relu(a), "leaky1": m.nn.leaky_relu(a, alpha=0.1),
                "elu": m.nn.elu(a), "selu": m.nn.selu(a),
                "l2n": m.nn.l2_normalize(a, axis=1), "l2n_all": m.nn.l2_normalize(x),
                "m_l2n": m.math.l2_normalize(a, 0),
                "sce": m.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=a),
                "mean": mean, "var": var, "kmean": kmean, "kvar": kvar,
                "bn": m.nn.batch_normalization(x, mean, var, m.constant(A[0]),
                                               m.constant(B[0, :4]), 1e-3),
                "bn_none": m.nn.batch_normalization(x, kmean, kvar, None, None, 1e-5)}
        wrt = {"sce": [a], "mean": [x], "var": [x], "kmean": [x], "kvar": [x], "bn": [x],
               "bn_none": [x], "l2n_all": [x]}
        fetches = {}
        for k, o in outs.items():
            fetches.update(with_grads(m, {k: o}, wrt.get(k, [a])))
        return fetches
    check(build)


def test_depthwise_conv_and_conv_transpose():
    dw = RNG.randn(3, 3, 3, 2).astype(np.float32) * 0.3
    tk = RNG.randn(3, 3, 4, 3).astype(np.float32) * 0.3
    def build(m):
        img = m.constant(IMG)
        f = m.constant(dw)
        k = m.constant(tk)
        fetches = {}
        fetches.update(with_grads(m, {"dw": m.nn.depthwise_conv2d(img, f, [1, 1, 1, 1],
                                                                  "SAME")}, [img, f]))
        fetches.update(with_grads(m, {"dw_s2": m.nn.depthwise_conv2d(
            img, f, [1, 2, 2, 1], "VALID")}, [img, f]))
        fetches["dw_rate"] = m.nn.depthwise_conv2d(img, f, [1, 1, 1, 1], "SAME", rate=[2, 2])
        fetches.update(with_grads(m, {"tconv": m.nn.conv2d_transpose(
            img, k, [2, 10, 10, 4], [1, 2, 2, 1], padding="SAME")}, [img, k]))
        fetches["tconv_valid"] = m.nn.conv2d_transpose(img, k, [2, 11, 11, 4], [1, 2, 2, 1],
                                                       padding="VALID")
        return fetches
    check(build, tol=1e-3)


def test_image_resize():
    def build(m):
        img = m.constant(IMG)
        fetches = {}
        fetches.update(with_grads(m, {"bil": m.image.resize_bilinear(img, [7, 9])}, [img]))
        fetches.update(with_grads(m, {"bil_ac": m.image.resize_bilinear(
            img, [8, 3], align_corners=True)}, [img]))
        fetches.update(with_grads(m, {"nn": m.image.resize_nearest_neighbor(img, [10, 7])},
                                  [img]))
        fetches["ri"] = m.image.resize_images(img[0], [4, 6])
        fetches["ri_nn"] = m.image.resize_images(img, [3, 8],
                                                 method=m.image.ResizeMethod.NEAREST_NEIGHBOR)
        return fetches
    check(build)


def test_image_resize_bicubic_and_area():
    """ResizeBicubic (legacy, align_corners and half-pixel centres, up and down, with TF's
    gradient) and ResizeArea (no gradient in TF), by name and through resize_images' methods,
    on float and uint8 images; resize_images keeps an image of the same size and scales by
    one factor with preserve_aspect_ratio."""
    img_u8 = (RNG.rand(2, 6, 5, 2) * 255).astype(np.uint8)
    shapes = []

    def build(m):
        img = m.constant(IMG)
        fetches = {}
        fetches.update(with_grads(m, {
            "bic": m.image.resize_bicubic(img, [9, 7]),
            "bic_down": m.image.resize_bicubic(img, [3, 2]),
            "bic_ac": m.image.resize_bicubic(img, [8, 3], align_corners=True),
            "bic_hp": m.image.resize_bicubic(img, [7, 11], half_pixel_centers=True),
            "bic_hp_down": m.image.resize_bicubic(img, [2, 4], half_pixel_centers=True)},
            [img]))
        fetches["bic_u8"] = m.image.resize_bicubic(m.constant(img_u8), [8, 9])
        fetches["area"] = m.image.resize_area(img, [3, 4])
        fetches["area_up"] = m.image.resize_area(img, [7, 11])
        fetches["area_ac"] = m.image.resize_area(img, [4, 3], align_corners=True)
        fetches["area_u8"] = m.image.resize_area(m.constant(img_u8), [4, 3])
        ri = {"ri_bic": m.image.resize_images(img, [7, 4], method=m.image.ResizeMethod.BICUBIC),
              "ri_area": m.image.resize_images(img[1], [2, 3], method=m.image.ResizeMethod.AREA),
              "ri_same": m.image.resize_images(img, [5, 5], method=m.image.ResizeMethod.BICUBIC),
              "ri_aspect": m.image.resize_images(img, [10, 4], preserve_aspect_ratio=True),
              "ri_name": m.image.resize_images(img, [4, 4], method="bicubic"),
              "resize": m.image.resize(img, [6, 3], method=m.image.ResizeMethod.AREA)}
        shapes.append({k: (v.shape.as_list(), v.op.type) for k, v in ri.items()})
        fetches.update(ri)
        # A size known only when run: the factor is computed in the graph.
        fetches["ri_aspect_run"] = m.image.resize_images(
            m.placeholder_with_default(IMG, [None, None, None, 3]), [10, 4],
            preserve_aspect_ratio=True)
        return fetches
    check(build)
    assert shapes[0] == shapes[1]
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            img = m.constant(IMG)
            with pytest.raises(LookupError, match="ResizeArea"):
                m.gradients(m.reduce_sum(m.image.resize_area(img, [3, 3])), img)
            with pytest.raises(ValueError, match="not implemented"):
                m.image.resize_images(img, [3, 3], method=7)
            with pytest.raises(ValueError, match="3 or 4 dimensions"):
                m.image.resize_images(img[0, 0], [3, 3])
            # A size known only when run must be positive: the kernel says so, naming it.
            size = m.placeholder(m.int32, [2])
            out = m.image.resize_bicubic(img, size, name="bicubic_node")
            with m.Session() as sess:
                with pytest.raises(m.errors.InvalidArgumentError) as info:
                    sess.run(out, {size: [0, 3]})
            if m is tgraph:
                assert "bicubic_node" in str(info.value)


def test_tensordot_with_tensor_axes():
    """Axes given as a tensor (a [2, k] constant, or fed) contract what the same list does;
    a constant one gives TF's static shape, a fed one none; an int axes with a's rank
    unknown uses Rank."""
    c342 = RNG.randn(3, 4, 2).astype(np.float32)

    def build(m):
        x, a, b = m.constant(T3), m.constant(A), m.constant(B)
        axes_in = m.placeholder_with_default(np.array([[1, 2], [0, 1]], np.int32), [2, 2])
        fetches = with_grads(m, {"t_ab": m.tensordot(a, b, m.constant([[1], [0]]))}, [a, b])
        fetches.update(with_grads(m, {
            "t_neg": m.tensordot(x, a, m.constant(np.array([[-2], [0]], np.int32))),
            "t_fed": m.tensordot(x, m.constant(c342), axes_in),
            "t_np": m.tensordot(x, a, np.array([[1], [0]]))}, [x]))
        return fetches
    check(build)
    shapes = []
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            t = m.tensordot(m.constant(A), m.constant(B), m.constant([[1], [0]]))
            fed = m.placeholder_with_default(np.array([[1], [0]], np.int32), [2, 1])
            f = m.tensordot(m.constant(A), m.constant(B), fed)
            u = m.tensordot(m.placeholder(m.float32), m.constant(B), 1)
            shapes.append((t.shape.as_list(), f.shape.ndims, u.shape.ndims))
    assert shapes[0] == shapes[1]
    # An unknown rank with an int axes: Rank-based axes give the same product.
    vals = []
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            p = m.placeholder(m.float32)
            out = m.tensordot(p, m.constant(B), 1)
            with m.Session() as sess:
                vals.append(sess.run(out, {p: A}))
    assert_close(vals[0], vals[1])


def test_shapes_known_only_when_run():
    """Placeholders of unknown batch size: the composed functions take their sizes from the
    graph (Shape ops) and keep the static shape TF gives them."""
    mask = np.array([False, True])
    results, shapes = [], []
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            x = m.placeholder(m.float32, [None, 3, 4])
            mk = m.placeholder(m.bool, [None])
            outs = {"td": m.tensordot(x, B, 1), "td_batch": m.tensordot(x, x, [[0, 1], [0, 1]]),
                    "td_vec": m.tensordot(m.constant(A[:, 0]), x, [[0], [1]]),
                    "bm": m.boolean_mask(x, mk), "sort": m.sort(x, axis=1),
                    "norm": m.norm(x, axis=2), "split": m.split(x, [1, 2], axis=1)[1],
                    "seq": m.sequence_mask(m.placeholder_with_default(
                        np.array([1, 3], np.int32), [None]))}
            shapes.append({k: v.shape.as_list() for k, v in outs.items()})
            fetches = dict(outs)
            fetches["grad"] = m.gradients(
                m.reduce_sum(outs["td"] * outs["td"]) + m.reduce_sum(outs["td_batch"]) +
                m.reduce_sum(outs["bm"] * outs["bm"]) + m.reduce_sum(outs["td_vec"]), x)[0]
            with m.Session() as sess:
                results.append(sess.run(fetches, {x: T3, mk: mask}))
    assert shapes[0] == shapes[1]
    assert_close(results[0], results[1])


@pytest.mark.parametrize("case", [
    lambda m: m.split(m.constant(A), 3, axis=1),               # 4 is not divisible by 3
    lambda m: m.split(m.constant(A), 2, axis=5),               # axis out of range
    lambda m: m.reverse(m.constant(A), [3]),                   # axis out of range
    lambda m: m.split(m.constant(A), [1, 1], axis=1),          # sizes do not add up to 4
    lambda m: m.gather_nd(m.constant(A), [[0, 1, 2]]),         # index depth 3 > rank 2
    lambda m: m.broadcast_to(m.constant(A), [2, 3]),           # not broadcastable
    lambda m: m.sort(m.constant(A), axis=2),                   # axis out of range
    lambda m: m.boolean_mask(m.constant(A), [True, False]),    # mask shape mismatch
    lambda m: m.einsum("ij,jk->ik", m.constant(A), m.constant(A)),  # 4 != 3
    lambda m: m.tensordot(m.constant(A), m.constant(A), 1),    # 4 != 3
    lambda m: m.nn.depthwise_conv2d(m.constant(IMG), m.constant(np.ones((3, 3, 2, 1),
                                    np.float32)), [1, 1, 1, 1], "SAME"),  # 3 != 2 channels
])
def test_bad_arguments_fail_like_tf(case):
    """Both libraries reject the same graphs, when built (ValueError) or at the latest when
    run (InvalidArgumentError)."""
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            with pytest.raises((ValueError, m.errors.InvalidArgumentError)):
                out = case(m)
                with m.Session() as sess:
                    sess.run(out)


def test_bad_axis_is_a_value_error_at_build_time():
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            with pytest.raises(ValueError):
                m.split(m.constant(A), 2, axis=2)
            with pytest.raises(ValueError):
                m.norm(m.constant(A), axis=(1, 1))
            with pytest.raises(ValueError):
                m.norm(m.constant(A), ord="nuc")
            with pytest.raises(ValueError):
                m.sort(m.constant(A), direction="UP")


def test_exported_where_tf_has_them():
    names = ["split", "reverse", "boolean_mask", "gather_nd", "scatter_nd", "broadcast_to",
             "clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm", "einsum",
             "sequence_mask", "meshgrid", "linspace", "lin_space", "tensordot", "norm", "sort",
             "argsort", "tensor_scatter_nd_update", "erf", "round", "reduce_all", "reduce_any",
             "squared_difference", "stop_gradient", "where_v2", "log1p", "expm1", "Print",
             "glorot_normal_initializer", "variance_scaling_initializer"]
    for n in names:
        assert hasattr(tf1, n) and hasattr(tgraph, n), n
    for n in ["top_k", "reduce_sum", "reduce_mean", "reduce_all", "erf", "l2_normalize",
              "squared_difference", "log1p", "softplus"]:
        assert hasattr(tf1.math, n) and hasattr(tgraph.math, n), n
    for n in ["top_k", "l2_normalize", "moments", "batch_normalization", "leaky_relu", "elu",
              "selu", "sigmoid_cross_entropy_with_logits", "depthwise_conv2d",
              "conv2d_transpose", "weighted_cross_entropy_with_logits", "xw_plus_b",
              "zero_fraction"]:
        assert hasattr(tf1.nn, n) and hasattr(tgraph.nn, n), n
    for n in ["resize_bilinear", "resize_nearest_neighbor", "resize_bicubic", "resize_area",
              "resize_images", "resize", "ResizeMethod"]:
        assert hasattr(tf1.image, n) and hasattr(tgraph.image, n), n


def test_reverse_sequence():
    x_np = RNG.randn(3, 5, 2).astype(np.float32)

    def build(m):
        x = m.constant(x_np)
        batch_major = m.reverse_sequence(x, [5, 0, 2], seq_axis=1, batch_axis=0)
        time_major = m.reverse_sequence(m.transpose(x, [1, 0, 2]), m.constant([1, 3, 4], m.int32),
                                        seq_axis=0, batch_axis=1)
        old_names = m.reverse_sequence(x, [2, 2, 2], seq_dim=1)
        return with_grads(m, {"batch_major": batch_major, "time_major": time_major,
                              "old_names": old_names}, [x])
    check(build)
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            with pytest.raises((ValueError, m.errors.InvalidArgumentError)):
                with m.Session() as sess:
                    sess.run(m.reverse_sequence(m.constant(x_np), [6, 1, 1], seq_axis=1))


def test_nn_weighted_cross_entropy_xw_plus_b_zero_fraction():
    labels = (RNG.rand(3, 4) > 0.5).astype(np.float32)

    def build(m):
        a, b = m.constant(A), m.constant(B)
        bias = m.constant(np.arange(5, dtype=np.float32))
        fetches = with_grads(m, {
            "wce": m.nn.weighted_cross_entropy_with_logits(labels=labels, logits=a,
                                                          pos_weight=2.5),
            "wce_targets": m.nn.weighted_cross_entropy_with_logits(targets=labels, logits=a,
                                                                  pos_weight=0.5),
            "xwb": m.nn.xw_plus_b(a, b, bias)}, [a])
        fetches["zf"] = m.nn.zero_fraction(m.nn.relu(a))
        fetches["zf_int"] = m.nn.zero_fraction(m.constant([0, 1, 0, 3]))
        return fetches
    check(build)


def test_variance_scaling_initializers():
    """glorot_normal / variance_scaling initializers build TF's ops (the same node names
    under the variable's Initializer scope) with TF's parameters: checked through the
    spread of many values; bad arguments are TF's ValueErrors."""
    shape = [40, 30, 3]  # receptive field 40: fan_in 30 * 40, fan_out 3 * 40
    fans = {"fan_in": 30 * 40, "fan_out": 3 * 40, "fan_avg": (30 * 40 + 3 * 40) / 2}
    types, stds = [], []
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            inits = {"gn": (m.glorot_normal_initializer(seed=1), 1 / fans["fan_avg"]),
                     "tn": (m.variance_scaling_initializer(2.0, "fan_in", seed=2),
                            2 / fans["fan_in"]),
                     "un": (m.variance_scaling_initializer(
                         0.5, "fan_out", "untruncated_normal", seed=3), 0.5 / fans["fan_out"]),
                     "u": (m.variance_scaling_initializer(1.0, "fan_avg", "uniform", seed=4),
                           1 / fans["fan_avg"])}
            vs = {k: m.get_variable(k, shape, initializer=i) for k, (i, _) in inits.items()}
            g = m.get_default_graph()
            # (TF 1.x's Add where TF 2.21 writes AddV2: names compared, not types)
            types.append(sorted(op.name for op in g.get_operations()
                                if "/Initializer/" in op.name))
            with m.Session() as sess:
                sess.run(m.global_variables_initializer())
                got = sess.run(vs)
            stds.append({k: (float(np.std(got[k])), np.sqrt(inits[k][1])) for k in got})
    assert types[0] == types[1]
    for k, (std, want) in stds[0].items():
        assert abs(std - want) < 0.1 * want, (k, std, want)
        assert abs(std - stds[1][k][0]) < 0.1 * want, (k, std, stds[1][k])
    # As a variable scope's default (inherited by an inner scope, overridden by a C-side one
    # and by get_variable's own), and a plain callable as one.
    names, values = [], []
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            with m.variable_scope("s", initializer=m.glorot_normal_initializer(seed=5)):
                with m.variable_scope("inner"):
                    a = m.get_variable("a", [200, 100])
                    with m.variable_scope("c", initializer=m.zeros_initializer()):
                        z = m.get_variable("z", [3])
                    o = m.get_variable("o", [2], initializer=m.ones_initializer())
            with m.variable_scope("f", initializer=lambda shape, dtype=None,
                                  partition_info=None: m.fill(shape, 7.0)):
                f = m.get_variable("f", [2, 2])
            names.append(sorted(op.name for op in m.get_default_graph().get_operations()))
            with m.Session() as sess:
                sess.run(m.global_variables_initializer())
                values.append(sess.run([a, z, o, f]))
    assert names[0] == names[1]
    for got in values:
        assert abs(np.std(got[0]) - np.sqrt(1 / 150)) < 0.1 * np.sqrt(1 / 150)
        assert_close(got[1:], [np.zeros(3, np.float32), np.ones(2, np.float32),
                               np.full((2, 2), 7.0, np.float32)])
    for m in (tgraph, tf1):
        with pytest.raises(ValueError):
            m.variance_scaling_initializer(0.0)
        with pytest.raises(ValueError):
            m.variance_scaling_initializer(mode="fan_sideways")
        with pytest.raises(ValueError):
            m.variance_scaling_initializer(distribution="cauchy")


def test_print_and_global_step():
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            x = m.constant(A)
            y = m.Print(x, [x, m.reduce_sum(x)], message="x: ", first_n=2, summarize=4)
            step = m.train.get_or_create_global_step()
            inc = m.assign_add(step, 3)
            assert y.op.type == "Print" and y.shape.as_list() == [3, 4]
            with m.Session() as sess:
                sess.run(m.global_variables_initializer())
                assert_close(sess.run(y), A)
                sess.run(inc)
                assert m.train.global_step(sess, step) == 3
                assert m.train.global_step(sess, step.name) == 3
