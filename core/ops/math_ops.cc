// Element-wise arithmetic with broadcasting, and matrix multiplication. Type lists are
// TensorFlow's current ones, so GraphDefs written by TF import here.
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// [m, k] x [k, n] -> [m, n], after the optional transposes.
Status MatMulShape(InferenceContext& c) {
  PartialShape a, b;
  TG_RETURN_IF_ERROR(c.WithRank(0, 2, &a));
  TG_RETURN_IF_ERROR(c.WithRank(1, 2, &b));
  bool transpose_a = false, transpose_b = false;
  TG_RETURN_IF_ERROR(c.GetAttr("transpose_a", &transpose_a));
  TG_RETURN_IF_ERROR(c.GetAttr("transpose_b", &transpose_b));
  const int64_t m = a.dim(transpose_a ? 1 : 0);
  const int64_t k_a = a.dim(transpose_a ? 0 : 1);
  const int64_t k_b = b.dim(transpose_b ? 1 : 0);
  const int64_t n = b.dim(transpose_b ? 0 : 1);
  if (k_a >= 0 && k_b >= 0 && k_a != k_b) {
    return c.Error("Dimensions must be equal, but are ", k_a, " and ", k_b,
                   ", for inputs with shapes ", c.input_shape(0).ToString(), " and ",
                   c.input_shape(1).ToString(), " (transpose_a=", transpose_a ? "true" : "false",
                   ", transpose_b=", transpose_b ? "true" : "false", ")");
  }
  c.set_output(0, PartialShape{m, n});
  return Status::OK();
}

}  // namespace

Status RegisterMathOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("Add")
          .Input("x: T").Input("y: T").Output("z: T")
          .Attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
                "complex64, complex128, string}")
          .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
          .Doc("x + y, with broadcasting."),
      OpDefBuilder("AddV2")
          .Input("x: T").Input("y: T").Output("z: T")
          .Attr("T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, "
                "int16, int32, int64, complex64, complex128}")
          .SetIsAggregate()
          .SetIsCommutative()
          .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
          .Doc("x + y, with broadcasting."),
      OpDefBuilder("Mul")
          .Input("x: T").Input("y: T").Output("z: T")
          .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
                "uint32, uint64, int64, complex64, complex128}")
          .SetIsCommutative()
          .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
          .Doc("x * y, with broadcasting."),
      // grad_a / grad_b arrived in TF 2.12; with their defaults, older GraphDefs import too.
      OpDefBuilder("MatMul")
          .Input("a: T").Input("b: T").Output("product: T")
          .Attr("transpose_a: bool = false")
          .Attr("transpose_b: bool = false")
          .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, "
                "uint64, int8, int16, complex64, complex128}")
          .Attr("grad_a: bool = false")
          .Attr("grad_b: bool = false")
          .SetShapeFn(MatMulShape)
          .Doc("The matrix product of a and b."),
  });
}

}  // namespace tgraph
