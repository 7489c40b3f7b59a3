// Element-wise math beyond the basic set, as real TensorFlow models use it: trigonometric and
// hyperbolic functions (positional encodings), Ceil / Rint, the float classifiers IsNan /
// IsInf / IsFinite (reduce_logsumexp), Softsign, the special functions (Lgamma, Digamma,
// Polygamma, Erfinv, Ndtri), TF's deprecated Inv, the "no NaN" and x*log(y) binaries of Keras'
// losses and metrics, truncating division, ApproximateEqual, the bitwise ops and
// AccumulateNV2. Signatures, attrs, defaults and type lists are TensorFlow's.
#include <string>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

#define TG_FLOAT_TYPES "{bfloat16, half, float, double}"
#define TG_FLOAT_COMPLEX_TYPES "{bfloat16, half, float, double, complex64, complex128}"
#define TG_INT_TYPES "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"

OpDefBuilder Unary(const std::string& name, const std::string& types, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("x: T").Output("y: T")
      .Attr("T: " + types)
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc(doc);
}

// x: T -> y: bool, T a float type.
OpDefBuilder FloatClassifier(const std::string& name, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("x: T").Output("y: bool")
      .Attr("T: " TG_FLOAT_TYPES)
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc(doc);
}

// x: T, y: T -> z: T with broadcasting.
OpDefBuilder Binary(const std::string& name, const std::string& types, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("x: T").Input("y: T").Output("z: T")
      .Attr("T: " + types)
      .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
      .Doc(doc);
}

// AccumulateNV2: the inputs' common shape, merged with the `shape` attr (which graphs TF
// writes set to the inputs' shape, or leave unknown).
Status AccumulateShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(shape_fns::MergeAllInputsShape(c));
  PartialShape declared;
  TG_RETURN_IF_ERROR(c.GetAttr("shape", &declared));
  PartialShape merged;
  const PartialShape& inputs = c.output_shapes()[0];
  if (!inputs.Merge(declared, &merged).ok()) {
    return c.Error("the inputs have shape ", inputs.ToString(),
                   ", which does not match the shape attr ", declared.ToString());
  }
  c.set_output(0, std::move(merged));
  return Status::OK();
}

}  // namespace

Status RegisterMathMoreOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      // ---- trigonometric and hyperbolic ----
      Unary("Sin", TG_FLOAT_COMPLEX_TYPES, "sin(x)."),
      Unary("Cos", TG_FLOAT_COMPLEX_TYPES, "cos(x)."),
      Unary("Tan", TG_FLOAT_COMPLEX_TYPES, "tan(x)."),
      Unary("Asin", TG_FLOAT_COMPLEX_TYPES, "asin(x), in [-pi/2, pi/2]."),
      Unary("Acos", TG_FLOAT_COMPLEX_TYPES, "acos(x), in [0, pi]."),
      Unary("Atan", TG_FLOAT_COMPLEX_TYPES, "atan(x), in (-pi/2, pi/2)."),
      Unary("Sinh", TG_FLOAT_COMPLEX_TYPES, "sinh(x)."),
      Unary("Cosh", TG_FLOAT_COMPLEX_TYPES, "cosh(x)."),
      Unary("Asinh", TG_FLOAT_COMPLEX_TYPES, "asinh(x)."),
      Unary("Acosh", TG_FLOAT_COMPLEX_TYPES, "acosh(x); NaN below 1."),
      Unary("Atanh", TG_FLOAT_COMPLEX_TYPES, "atanh(x); NaN outside [-1, 1]."),
      OpDefBuilder("Atan2")
          .Input("y: T").Input("x: T").Output("z: T")
          .Attr("T: " TG_FLOAT_TYPES)
          .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
          .Doc("atan2(y, x), the angle of the point (x, y), with broadcasting."),

      // ---- rounding and classification ----
      Unary("Ceil", TG_FLOAT_TYPES, "The smallest integer not less than x."),
      Unary("Rint", TG_FLOAT_TYPES, "x rounded to the nearest integer, halves to even."),
      FloatClassifier("IsNan", "Whether x is NaN."),
      FloatClassifier("IsInf", "Whether x is +inf or -inf."),
      FloatClassifier("IsFinite", "Whether x is neither NaN nor infinite."),

      // ---- softsign ----
      OpDefBuilder("Softsign")
          .Input("features: T").Output("activations: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("features / (1 + |features|)."),
      OpDefBuilder("SoftsignGrad")
          .Input("gradients: T").Input("features: T").Output("backprops: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(shape_fns::MergeAllInputsShape)
          .Doc("gradients / (1 + |features|)^2."),

      // ---- special functions ----
      Unary("Lgamma", TG_FLOAT_TYPES, "log|Gamma(x)|."),
      Unary("Digamma", TG_FLOAT_TYPES, "The derivative of lgamma(x)."),
      Unary("Erfinv", TG_FLOAT_TYPES, "The inverse of erf on (-1, 1)."),
      Unary("Ndtri", TG_FLOAT_TYPES, "The inverse of the standard normal CDF on (0, 1)."),
      OpDefBuilder("Polygamma")
          .Input("a: T").Input("x: T").Output("z: T")
          .Attr("T: {float, double}")
          .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
          .Doc("The a-th derivative of digamma at x, with broadcasting."),

      // ---- Inv: TensorFlow's deprecated name of Reciprocal, still in old graphs ----
      Unary("Inv", "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
            "complex128}", "1 / x."),
      OpDefBuilder("InvGrad")
          .Input("y: T").Input("dy: T").Output("z: T")
          .Attr("T: " TG_FLOAT_COMPLEX_TYPES)
          .SetShapeFn(shape_fns::MergeAllInputsShape)
          .Doc("-dy * y * y, where y = 1 / x."),

      // ---- division and products that keep zeros ----
      Binary("Mod", "{int32, int64, half, bfloat16, float, double}",
             "The remainder of x / y rounded toward zero (the sign of x), with broadcasting."),
      Binary("TruncateMod", "{int32, int64, bfloat16, half, float, double}",
             "The remainder of x / y rounded toward zero (the sign of x), with broadcasting."),
      Binary("TruncateDiv",
             "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, "
             "uint64, int64, complex64, complex128}",
             "x / y rounded toward zero, with broadcasting."),
      Binary("DivNoNan", "{half, float, bfloat16, double, complex64, complex128}",
             "x / y, or 0 where y is 0, with broadcasting."),
      Binary("MulNoNan", TG_FLOAT_COMPLEX_TYPES,
             "x * y, or 0 where y is 0 (even for infinite or NaN x), with broadcasting."),
      Binary("Xlogy", "{half, bfloat16, float, double, complex64, complex128}",
             "x * log(y), or 0 where x is 0, with broadcasting."),
      Binary("Xdivy", "{half, bfloat16, float, double, complex64, complex128}",
             "x / y, or 0 where x is 0, with broadcasting."),
      Binary("Xlog1py", "{half, bfloat16, float, double, complex64, complex128}",
             "x * log1p(y), or 0 where x is 0, with broadcasting."),
      // No broadcasting: TensorFlow's shape function and kernel want one shape.
      OpDefBuilder("ApproximateEqual")
          .Input("x: T").Input("y: T").Output("z: bool")
          .SetIsCommutative()
          .Attr("T: numbertype")
          .Attr("tolerance: float = 1e-05")
          .SetShapeFn(shape_fns::MergeAllInputsShape)
          .Doc("|x - y| < tolerance, element-wise."),

      // ---- bitwise ----
      Binary("BitwiseAnd", TG_INT_TYPES, "x & y, with broadcasting.").SetIsCommutative(),
      Binary("BitwiseOr", TG_INT_TYPES, "x | y, with broadcasting.").SetIsCommutative(),
      Binary("BitwiseXor", TG_INT_TYPES, "x ^ y, with broadcasting.").SetIsCommutative(),
      Binary("LeftShift", TG_INT_TYPES,
             "x << y, with y clamped to [0, bits - 1], with broadcasting."),
      Binary("RightShift", TG_INT_TYPES,
             "x >> y (arithmetic for signed x), with y clamped to [0, bits - 1], with "
             "broadcasting."),
      Unary("Invert", TG_INT_TYPES, "~x, every bit flipped."),
      OpDefBuilder("PopulationCount")
          .Input("x: T").Output("y: uint8")
          .Attr("T: " TG_INT_TYPES)
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("The number of bits set in each element of x."),

      // ---- tf.math.accumulate_n's graph op: AddN with a declared shape ----
      OpDefBuilder("AccumulateNV2")
          .Input("inputs: N * T").Output("sum: T")
          .Attr("N: int >= 1")
          .Attr("T: numbertype")
          .Attr("shape: shape")
          .SetIsCommutative()
          .SetIsAggregate()
          .SetShapeFn(AccumulateShape)
          .Doc("The element-wise sum of N tensors of one shape."),
  });
}

#undef TG_FLOAT_TYPES
#undef TG_FLOAT_COMPLEX_TYPES
#undef TG_INT_TYPES

}  // namespace tgraph
