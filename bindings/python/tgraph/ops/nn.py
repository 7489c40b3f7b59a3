"""tf.nn: activations, convolutions and pooling, dropout, embeddings and losses."""
from __future__ import annotations

import ctypes
from typing import Any, Optional

from tgraph import _c, errors
from tgraph.graph import get_default_graph
from tgraph.op_def_lib import apply_op
from tgraph.ops.math_ops import sigmoid, softplus, tanh, top_k  # noqa: F401 - tf.nn names
from tgraph.ops.math_more_ops import softsign  # noqa: F401 - tf.nn.softsign
from tgraph.tensor import Tensor, convert_to_tensor

_lib = _c.lib


def relu(features: Any, name: Optional[str] = None) -> Tensor:
    """max(features, 0)."""
    return apply_op("Relu", name=name or "Relu", features=features)


def relu6(features: Any, name: Optional[str] = None) -> Tensor:
    """min(max(features, 0), 6)."""
    return apply_op("Relu6", name=name or "Relu6", features=features)


def elu(features: Any, name: Optional[str] = None) -> Tensor:
    """Exponential linear unit."""
    return apply_op("Elu", name=name or "Elu", features=features)


def _over_axis(op_type: str, logits: Any, axis: Any, dim: Any, name: Optional[str]) -> Tensor:
    """`op_type` (which works on the last axis) over `axis`, as TF does it: the axis is swapped
    with the last one, the op runs, and the result is swapped back."""
    if axis is None:
        axis = dim
    if axis is None or (isinstance(axis, int) and axis == -1):
        return apply_op(op_type, name=name or op_type, logits=logits)
    logits = convert_to_tensor(logits)
    rank = logits.shape.ndims
    if rank is None:
        raise NotImplementedError(
            f"{op_type.lower()} over axis {axis} needs the rank of '{logits.name}' to be known")
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise errors.InvalidArgumentError(
            None, None, f"{op_type.lower()}: axis {axis} is out of range for rank {rank}")
    axis %= rank
    if axis == rank - 1:
        return apply_op(op_type, name=name or op_type, logits=logits)
    from tgraph.ops.array_ops import transpose  # array_ops imports this module's names
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    swapped = apply_op(op_type, logits=transpose(logits, perm), name=op_type)
    return transpose(swapped, perm, name=name or "transpose")


def softmax(logits: Any, axis: Any = None, name: Optional[str] = None, dim: Any = None) -> Tensor:
    """softmax over `axis` (the last by default)."""
    return _over_axis("Softmax", logits, axis, dim, name)


def log_softmax(logits: Any, axis: Any = None, name: Optional[str] = None,
                dim: Any = None) -> Tensor:
    """log(softmax(logits)) over `axis` (the last by default)."""
    return _over_axis("LogSoftmax", logits, axis, dim, name)


def bias_add(value: Any, bias: Any, data_format: Optional[str] = None,
             name: Optional[str] = None) -> Tensor:
    """value + bias, bias broadcast over the last (NHWC) dimension (BiasAdd)."""
    return apply_op("BiasAdd", name=name or "BiasAdd", value=value, bias=bias,
                    data_format=data_format or "NHWC")


def conv2d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,
           use_cudnn_on_gpu: bool = True, data_format: str = "NHWC", dilations: Any = None,
           name: Optional[str] = None, filters: Any = None) -> Tensor:
    """2-D convolution of `input` with `filter` (Conv2D)."""
    if filter is None:
        filter = filters
    kw = {} if dilations is None else {"dilations": list(dilations)}
    return apply_op("Conv2D", name=name or "Conv2D", input=input, filter=filter,
                    strides=list(strides), padding=padding, data_format=data_format,
                    use_cudnn_on_gpu=use_cudnn_on_gpu, **kw)


def max_pool(value: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC",
             name: Optional[str] = None, input: Any = None) -> Tensor:
    """Max pooling over windows `ksize` with `strides` (MaxPool)."""
    return apply_op("MaxPool", name=name or "MaxPool", input=value if input is None else input,
                    ksize=list(ksize), strides=list(strides), padding=padding,
                    data_format=data_format)


def avg_pool(value: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC",
             name: Optional[str] = None, input: Any = None) -> Tensor:
    """Average pooling over windows `ksize` with `strides` (AvgPool)."""
    return apply_op("AvgPool", name=name or "AvgPool", value=value if input is None else input,
                    ksize=list(ksize), strides=list(strides), padding=padding,
                    data_format=data_format)


def _out(g: Any, out: _c.TG_Output, st: int) -> Tensor:
    errors.check_build(st)
    return g._tensor(out)


def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: Optional[int] = None,
            name: Optional[str] = None, rate: Any = None) -> Tensor:
    """TF 1.x's dropout: x / keep_prob * floor(keep_prob + U[0, 1)) (rate = 1 - keep_prob)."""
    if noise_shape is not None:
        raise NotImplementedError("dropout with noise_shape")
    x = convert_to_tensor(x, name="x")
    g = x.graph
    kp_tensor = _c.TG_Output(None, -1)
    kp = 1.0
    if keep_prob is None:
        if rate is None:
            raise ValueError("dropout needs keep_prob or rate")
        keep_prob = 1 - rate if not isinstance(rate, Tensor) else None
        if keep_prob is None:
            from tgraph.ops import math_ops
            keep_prob = math_ops.subtract(1.0, rate)
    if isinstance(keep_prob, Tensor) or hasattr(keep_prob, "_as_tensor"):
        kp_tensor = convert_to_tensor(keep_prob, dtype=x.dtype.base_dtype)._tf_output
    else:
        kp = float(keep_prob)
    seed_arr = None if seed is None else ctypes.byref(ctypes.c_int64(int(seed)))
    st = _c.status()
    out = _lib.TG_Dropout(g._handle, x._tf_output, kp, kp_tensor, seed_arr, _c.cstr(name), st)
    return _out(g, out, st)


def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod",
                     name: Optional[str] = None, validate_indices: bool = True,
                     max_norm: Any = None) -> Tensor:
    """Rows `ids` of `params` (GatherV2 colocated with params); its gradient is sparse."""
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("embedding_lookup over partitioned params")
        params = params[0]
    from tgraph.variables import Variable
    g = params.graph if hasattr(params, "graph") else get_default_graph()
    p = params._as_tensor() if isinstance(params, Variable) else convert_to_tensor(params)
    i = convert_to_tensor(ids, name="ids")
    st = _c.status()
    out = _lib.TG_EmbeddingLookup(g._handle, p._tf_output, i._tf_output, _c.cstr(name), st)
    return _out(g, out, st)


def l2_loss(t: Any, name: Optional[str] = None) -> Tensor:
    """sum(t ** 2) / 2 (L2Loss)."""
    t = convert_to_tensor(t)
    st = _c.status()
    out = _lib.TG_L2Loss(t.graph._handle, t._tf_output, _c.cstr(name), st)
    return _out(t.graph, out, st)


def sigmoid_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None, name: Optional[str] = None) -> Tensor:
    """Element-wise logistic loss of `logits` against `labels`."""
    logits = convert_to_tensor(logits, name="logits")
    labels = convert_to_tensor(labels, dtype=logits.dtype.base_dtype, name="labels")
    st = _c.status()
    out = _lib.TG_SigmoidCrossEntropyWithLogits(logits.graph._handle, labels._tf_output,
                                                logits._tf_output, _c.cstr(name), st)
    return _out(logits.graph, out, st)


def weighted_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                       pos_weight: Any = None, name: Optional[str] = None,
                                       targets: Any = None) -> Tensor:
    """sigmoid_cross_entropy_with_logits with the positive term weighted by pos_weight,
    composed as TF's: (1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + relu(-x))."""
    from tgraph.ops import math_ops
    if labels is None:
        labels = targets  # TF 1.x's older name
    g = get_default_graph()
    with g.name_scope(name or "logistic_loss") as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, dtype=logits.dtype.base_dtype, name="targets")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(f"logits and targets must have the same shape "
                             f"({logits.shape} vs {labels.shape})")
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add(
            (1 - labels) * logits,
            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) +
                          relu(-logits)),
            name=scope)


def xw_plus_b(x: Any, weights: Any, biases: Any, name: Optional[str] = None) -> Tensor:
    """matmul(x, weights) + biases (MatMul, then BiasAdd)."""
    from tgraph.ops import math_ops
    with get_default_graph().name_scope(name or "xw_plus_b") as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return bias_add(math_ops.matmul(x, weights), biases, name=scope)


def zero_fraction(value: Any, name: Optional[str] = None) -> Tensor:
    """The fraction of `value`'s elements that are zero (a float32 scalar)."""
    from tgraph import dtypes
    from tgraph.ops import math_ops
    with get_default_graph().name_scope(name or "zero_fraction"):
        value = convert_to_tensor(value, name="value")
        zero = convert_to_tensor(0, dtype=value.dtype.base_dtype)
        return math_ops.reduce_mean(math_ops.cast(math_ops.equal(value, zero),
                                                  dtypes.float32))


def sparse_softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                             logits: Any = None,
                                             name: Optional[str] = None) -> Tensor:
    """Per-example cross entropy of softmax(logits) against class indices `labels`."""
    r = apply_op("SparseSoftmaxCrossEntropyWithLogits",
                 name=name or "SparseSoftmaxCrossEntropyWithLogits", features=logits,
                 labels=labels)
    return r[0]


def softmax_cross_entropy_with_logits_v2(_sentinel: Any = None, labels: Any = None,
                                         logits: Any = None, axis: int = -1,
                                         name: Optional[str] = None, dim: Any = None) -> Tensor:
    """Per-example cross entropy of softmax(logits) against the distributions `labels`."""
    if axis != -1:
        raise NotImplementedError("softmax_cross_entropy_with_logits over an axis other than "
                                  "the last")
    r = apply_op("SoftmaxCrossEntropyWithLogits",
                 name=name or "softmax_cross_entropy_with_logits", features=logits,
                 labels=labels)
    return r[0]


softmax_cross_entropy_with_logits = softmax_cross_entropy_with_logits_v2


def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
             num_classes: int, num_true: int = 1, sampled_values: Any = None,
             remove_accidental_hits: bool = False, partition_strategy: str = "mod",
             name: str = "nce_loss", seed: Optional[int] = None) -> Tensor:
    """The per-example NCE loss [batch] (TF's tf.nn.nce_loss over a log-uniform sampler)."""
    from tgraph.variables import Variable

    def t(v: Any) -> Tensor:
        if isinstance(v, (list, tuple)):
            if len(v) != 1:
                raise NotImplementedError("nce_loss over partitioned weights")
            v = v[0]
        return v._as_tensor() if isinstance(v, Variable) else convert_to_tensor(v)
    w, b, lab, inp = t(weights), t(biases), t(labels), t(inputs)
    opts = _c.TG_NceLossOptions()
    _lib.TG_InitNceLossOptions(ctypes.byref(opts))
    opts.num_true = num_true
    opts.remove_accidental_hits = 1 if remove_accidental_hits else 0
    if seed is not None:
        opts.has_seed, opts.seed = 1, int(seed)
    keep = None
    if sampled_values is not None:
        keep = (_c.TG_Output * 3)(*[convert_to_tensor(v)._tf_output for v in sampled_values])
        opts.sampled_values = ctypes.cast(keep, ctypes.POINTER(_c.TG_Output))
    opts.name = _c.cstr(name)
    g = w.graph
    st = _c.status()
    out = _lib.TG_NceLoss(g._handle, w._tf_output, b._tf_output, lab._tf_output, inp._tf_output,
                          int(num_sampled), int(num_classes), ctypes.byref(opts), st)
    del keep
    return _out(g, out, st)



def leaky_relu(features: Any, alpha: float = 0.2, name: Optional[str] = None) -> Tensor:
    """max(features, alpha * features) (LeakyRelu)."""
    return apply_op("LeakyRelu", name=name or "LeakyRelu", features=features,
                    alpha=float(alpha))


def selu(features: Any, name: Optional[str] = None) -> Tensor:
    """Scaled exponential linear unit (Selu)."""
    return apply_op("Selu", name=name or "Selu", features=features)


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: Optional[str] = None,
                 dim: Any = None) -> Tensor:
    """x / sqrt(max(sum(x ** 2, axis), epsilon)), as TF composes it."""
    from tgraph.ops import math_ops
    if axis is None:
        axis = dim
    with get_default_graph().name_scope(name or "l2_normalize") as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(
            square_sum, convert_to_tensor(epsilon, dtype=x.dtype.base_dtype)))
        return math_ops.multiply(x, x_inv_norm, name=scope)


def moments(x: Any, axes: Any, shift: Any = None, name: Optional[str] = None,
            keep_dims: Optional[bool] = None, keepdims: Optional[bool] = None) -> Any:
    """(mean, variance) of `x` over `axes`, as TF composes them (the variance's mean is
    behind StopGradient, as in TF)."""
    from tgraph.ops import array_ops, math_ops
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with get_default_graph().name_scope(name or "moments"):
        x = convert_to_tensor(x, name="x")
        mean = math_ops.reduce_mean(x, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean)), axes,
            keepdims=True, name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        return mean, variance


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: float, name: Optional[str] = None) -> Tensor:
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, composed as TF does:
    x * inv + (offset - mean * inv) with inv = rsqrt(variance + epsilon) * scale."""
    from tgraph.ops import math_ops
    with get_default_graph().name_scope(name or "batchnorm"):
        x = convert_to_tensor(x, name="x")
        dt = x.dtype.base_dtype
        variance = convert_to_tensor(variance, dtype=dt)
        mean = convert_to_tensor(mean, dtype=dt)
        inv = math_ops.rsqrt(math_ops.add(variance, convert_to_tensor(variance_epsilon,
                                                                      dtype=dt)))
        if scale is not None:
            inv = math_ops.multiply(inv, convert_to_tensor(scale, dtype=dt))
        shift = math_ops.negative(math_ops.multiply(mean, inv)) if offset is None else \
            math_ops.subtract(convert_to_tensor(offset, dtype=dt), math_ops.multiply(mean, inv))
        return math_ops.add(math_ops.multiply(x, inv), shift)


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: str, rate: Any = None,
                     name: Optional[str] = None, data_format: Optional[str] = None,
                     dilations: Any = None) -> Tensor:
    """Depthwise 2-D convolution (DepthwiseConv2dNative; a rate or dilations become the op's
    dilations, which computes what TF's space-to-batch rewrite computes)."""
    if rate is None:
        rate = dilations
    data_format = data_format or "NHWC"
    kw = {}
    if rate is not None and any(int(r) != 1 for r in rate):
        if any(int(s) != 1 for s in strides):
            raise ValueError("strides > 1 not supported in conjunction with rate > 1")
        r = [int(v) for v in rate]
        kw["dilations"] = [1, r[0], r[1], 1] if data_format == "NHWC" else [1, 1, r[0], r[1]]
    return apply_op("DepthwiseConv2dNative", name=name or "depthwise", input=input,
                    filter=filter, strides=list(strides), padding=padding,
                    data_format=data_format, **kw)


def conv2d_transpose(value: Any = None, filter: Any = None, output_shape: Any = None,
                     strides: Any = None, padding: str = "SAME", data_format: str = "NHWC",
                     name: Optional[str] = None, input: Any = None, filters: Any = None,
                     dilations: Any = None) -> Tensor:
    """The gradient of conv2d with respect to its input, of shape `output_shape`
    (Conv2DBackpropInput)."""
    from tgraph.ops.array_ops import _int_tensor
    value = input if value is None else value
    filter = filters if filter is None else filter
    if isinstance(strides, int):
        strides = [1, strides, strides, 1] if data_format == "NHWC" else [1, 1, strides, strides]
    kw = {} if dilations is None else {"dilations": list(dilations)}
    return apply_op("Conv2DBackpropInput", name=name or "conv2d_transpose",
                    input_sizes=_int_tensor(output_shape, "output_shape"), filter=filter,
                    out_backprop=value, strides=list(strides), padding=padding,
                    data_format=data_format, **kw)



def local_response_normalization(input: Any, depth_radius: int = 5, bias: float = 1.0,
                                 alpha: float = 1.0, beta: float = 0.5,
                                 name: Optional[str] = None) -> Tensor:
    """input / (bias + alpha * sum of squares over depth_radius channels) ** beta (LRN)."""
    return apply_op("LRN", name=name or "LRN", input=input, depth_radius=int(depth_radius),
                    bias=float(bias), alpha=float(alpha), beta=float(beta))


lrn = local_response_normalization


# 3-D pooling (detection_pool3d_ops.py).
from tgraph.ops.detection_pool3d_ops import avg_pool3d, max_pool3d  # noqa: E402,F401
