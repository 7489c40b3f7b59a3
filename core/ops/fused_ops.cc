// TensorFlow's fused contraction ops, _FusedMatMul and _FusedConv2D: a MatMul or Conv2D whose
// output goes through the ops named in `fused_ops` (["BiasAdd"], ["BiasAdd", "Relu"], ...)
// with their extra operands in `args`. TensorFlow's grappler (the remapper) makes them; the
// plan-time rewrites do too (core/rewrite/fusion.cc), and frozen TF graphs may contain them,
// so the definitions are TensorFlow's (names, attrs, defaults, allowed types) and import as is.
// Their shapes are those of the contraction: a bias and an element-wise activation keep them.
#include "core/ops/standard_ops.h"

namespace tgraph {

Status RegisterFusedOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("_FusedMatMul")
          .Input("a: T").Input("b: T").Input("args: num_args * T").Output("product: T")
          .Attr("transpose_a: bool = false")
          .Attr("transpose_b: bool = false")
          .Attr("T: {bfloat16, half, float}")
          .Attr("num_args: int >= 0")
          .Attr("fused_ops: list(string) = []")
          .Attr("epsilon: float = 0.0001")
          .Attr("leakyrelu_alpha: float = 0.2")
          .SetShapeFn(MatMulShape)
          .Doc("MatMul followed by the ops in fused_ops (e.g. BiasAdd, Relu), as one kernel."),
      OpDefBuilder("_FusedConv2D")
          .Input("input: T").Input("filter: T").Input("args: TArgs")
          .Input("host_args: num_host_args * float")
          .Output("output: T")
          .Attr("T: {half, float, double, int8, qint8}")
          .Attr("TArgs: list(type) >= 1")
          .Attr("num_args: int >= 0")
          .Attr("num_host_args: int >= 0 = 0")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
          .Attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr("fused_ops: list(string) = []")
          .Attr("epsilon: float = 0.0001")
          .Attr("leakyrelu_alpha: float = 0.2")
          .SetShapeFn(Conv2DShape)
          .Doc("Conv2D followed by the ops in fused_ops (e.g. BiasAdd, Relu), as one kernel."),
  });
}

}  // namespace tgraph
