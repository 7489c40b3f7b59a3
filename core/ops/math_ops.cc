// Element-wise arithmetic with broadcasting, comparisons and logic, Cast, reductions and
// arg-reductions, and matrix multiplication. Op signatures, attr names, defaults and type
// lists are TensorFlow's current ones, so GraphDefs written by TF import here.
#include <algorithm>
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// TF's type-set shorthands, spelled out where TF combines them with other types in {...}.
#define TG_REAL_NUMBER_TYPES \
  "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
#define TG_NUMBER_TYPES                                                                  \
  TG_REAL_NUMBER_TYPES ", complex64, complex128, qint8, quint8, qint32, qint16, quint16"
#define TG_QUANTIZED_TYPES "qint8, quint8, qint32, qint16, quint16"

// The values of a constant int32/int64 scalar or vector; false for any other tensor.
bool ConstantInts(const Tensor* t, std::vector<int64_t>* out) {
  if (t == nullptr || t->rank() > 1) return false;
  out->clear();
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    if (t->dtype() == DT_INT32) {
      out->push_back(t->flat<int32_t>()[i]);
    } else if (t->dtype() == DT_INT64) {
      out->push_back(t->flat<int64_t>()[i]);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

// Sum, Mean, Prod, Max, Min (and ReduceJoin): input 0 reduced over the axes in input 1 (a
// scalar or vector). With the axes unknown, only keep_dims with a known input rank says
// something (the rank).
Status ReductionShape(InferenceContext& c) {
  bool keep_dims = false;
  TG_RETURN_IF_ERROR(c.GetAttr("keep_dims", &keep_dims));
  const PartialShape& input = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (indices.known_rank() && indices.rank() > 1) {
    return c.Error("reduction_indices must be a scalar or a vector, but has shape ",
                   indices.ToString());
  }
  std::vector<int64_t> axes;
  if (!input.known_rank() || !ConstantInts(c.input_value(1), &axes)) {
    c.set_output(0, keep_dims && input.known_rank() ? PartialShape::UnknownOfRank(input.rank())
                                                    : PartialShape::Unknown());
    return Status::OK();
  }
  const int rank = input.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return c.Error("Invalid reduction dimension ", axis, " for input with ", rank,
                     " dimension(s)");
    }
    reduced[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) {
      dims.push_back(input.dim(d));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

namespace {

// ArgMax, ArgMin: input 0 without the axis in input 1 (a scalar). Inputs of rank <= 1 give
// a scalar; an unknown axis leaves rank - 1 unknown dims.
Status ArgOpShape(InferenceContext& c) {
  const PartialShape& dimension = c.input_shape(1);
  if (dimension.known_rank() && dimension.rank() != 0) {
    return c.Error("dimension must be a scalar, but has shape ", dimension.ToString());
  }
  const PartialShape& input = c.input_shape(0);
  if (!input.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int rank = input.rank();
  if (rank <= 1) {
    c.set_output(0, PartialShape::Scalar());
    return Status::OK();
  }
  std::vector<int64_t> axis;
  if (!ConstantInts(c.input_value(1), &axis) || axis.size() != 1) {
    c.set_output(0, PartialShape::UnknownOfRank(rank - 1));
    return Status::OK();
  }
  if (axis[0] < -rank || axis[0] >= rank) {
    return c.Error("dimension ", axis[0], " must be in the range [", -rank, ", ", rank,
                   "), where ", rank, " is the number of dimensions in the input");
  }
  const int64_t skip = axis[0] < 0 ? axis[0] + rank : axis[0];
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (d != skip) dims.push_back(input.dim(d));
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// Select: t and e agree; condition is a scalar, has their shape, or is a vector over their
// first dimension.
Status SelectShape(InferenceContext& c) {
  PartialShape data;
  if (!c.input_shape(1).Merge(c.input_shape(2), &data).ok()) {
    return c.Error("'t' and 'e' must have the same shape, but are ", c.input_shape(1).ToString(),
                   " and ", c.input_shape(2).ToString());
  }
  const PartialShape& cond = c.input_shape(0);
  if (!cond.known_rank() || cond.rank() == 0) {
    c.set_output(0, std::move(data));
    return Status::OK();
  }
  PartialShape out = data;
  bool ok;
  if (cond.rank() == 1 && (!data.known_rank() || data.rank() > 1)) {
    // A vector over the first dimension (or, for rank-1 data, the same shape).
    if (data.known_rank()) {
      const int64_t d0 = data.dim(0), c0 = cond.dim(0);
      ok = d0 < 0 || c0 < 0 || d0 == c0;
      if (ok && d0 < 0 && c0 >= 0) {
        std::vector<int64_t> dims = data.dims();
        dims[0] = c0;
        out = PartialShape(std::move(dims));
      }
    } else {
      ok = true;
    }
  } else {
    ok = cond.Merge(data, &out).ok();
  }
  if (!ok) {
    return c.Error("'condition' must be a scalar, have the shape of 't', or be a vector as long "
                   "as the first dimension of 't', but 'condition' has shape ",
                   cond.ToString(), " and 't' has shape ", data.ToString());
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

// SelectV2: condition, t and e broadcast together (NumPy rules).
Status SelectV2Shape(InferenceContext& c) {
  PartialShape te, out;
  Status s = shape_fns::BroadcastShapes(c.input_shape(1), c.input_shape(2), &te);
  if (s.ok()) s = shape_fns::BroadcastShapes(c.input_shape(0), te, &out);
  if (!s.ok()) {
    return c.Error("condition, t and e must broadcast together, but have shapes ",
                   c.input_shape(0).ToString(), ", ", c.input_shape(1).ToString(), " and ",
                   c.input_shape(2).ToString());
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

// Equal, NotEqual: broadcasting, except that with incompatible_shape_error=false shapes that
// do not broadcast are not an error (the result is then a scalar, unknown here).
Status EqualityShape(InferenceContext& c) {
  bool incompatible_shape_error = true;
  TG_RETURN_IF_ERROR(c.GetAttr("incompatible_shape_error", &incompatible_shape_error));
  PartialShape out;
  Status s = shape_fns::BroadcastShapes(c.input_shape(0), c.input_shape(1), &out);
  if (!s.ok()) {
    if (incompatible_shape_error) return c.Error(s.message());
    out = PartialShape::Unknown();
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

// x: T -> y: T of the same shape, for the given TF type list.
OpDefBuilder UnaryOp(const std::string& name, const std::string& types, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("x: T").Output("y: T")
      .Attr("T: " + types)
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc(doc);
}

// features: T -> activations: T (the nn activations).
OpDefBuilder ActivationOp(const std::string& name, const std::string& types,
                          const std::string& doc) {
  return OpDefBuilder(name)
      .Input("features: T").Output("activations: T")
      .Attr("T: " + types)
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc(doc);
}

// x: T, y: T -> z: T with broadcasting.
OpDefBuilder BinaryOp(const std::string& name, const std::string& types, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("x: T").Input("y: T").Output("z: T")
      .Attr("T: " + types)
      .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
      .Doc(doc);
}

// x: T, y: T -> z: bool with broadcasting, T a real number type.
OpDefBuilder ComparisonOp(const std::string& name, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("x: T").Input("y: T").Output("z: bool")
      .Attr("T: realnumbertype")
      .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
      .Doc(doc);
}

OpDefBuilder EqualityOp(const std::string& name, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("x: T").Input("y: T").Output("z: bool")
      .SetIsCommutative()
      .Attr("T: type")
      .Attr("incompatible_shape_error: bool = true")
      .NewerThanTf1("incompatible_shape_error")
      .SetShapeFn(EqualityShape)
      .Doc(doc);
}

OpDefBuilder LogicalBinaryOp(const std::string& name, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("x: bool").Input("y: bool").Output("z: bool")
      .SetIsCommutative()
      .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
      .Doc(doc);
}

OpDefBuilder ReductionOp(const std::string& name, const std::string& types,
                         const std::string& doc) {
  return OpDefBuilder(name)
      .Input("input: T").Input("reduction_indices: Tidx").Output("output: T")
      .Attr("keep_dims: bool = false")
      .Attr("T: " + types)
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .SetShapeFn(ReductionShape)
      .Doc(doc);
}

// All, Any: bool reductions.
OpDefBuilder BoolReductionOp(const std::string& name, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("input: bool").Input("reduction_indices: Tidx").Output("output: bool")
      .Attr("keep_dims: bool = false")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .SetShapeFn(ReductionShape)
      .Doc(doc);
}

OpDefBuilder ArgOp(const std::string& name, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("input: T").Input("dimension: Tidx").Output("output: output_type")
      .Attr("T: {" TG_NUMBER_TYPES ", bool}")
      .Attr("Tidx: {int16, int32, int64} = DT_INT32")
      .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64")
      .SetShapeFn(ArgOpShape)
      .Doc(doc);
}

}  // namespace

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
      // grad_a / grad_b arrived in TF 2.12: with their defaults, older GraphDefs import too, and
      // export leaves them out at their defaults so TF 1.x reads what we write.
      OpDefBuilder("MatMul")
          .Input("a: T").Input("b: T").Output("product: T")
          .Attr("transpose_a: bool = false")
          .Attr("transpose_b: bool = false")
          .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, "
                "uint64, int8, int16, complex64, complex128}")
          .Attr("grad_a: bool = false")
          .Attr("grad_b: bool = false")
          .NewerThanTf1("grad_a")
          .NewerThanTf1("grad_b")
          .SetShapeFn(MatMulShape)
          .Doc("The matrix product of a and b."),

      // ---- more binary arithmetic ----
      OpDefBuilder("AddN")
          .Input("inputs: N * T").Output("sum: T")
          .Attr("N: int >= 1")
          .Attr("T: {" TG_NUMBER_TYPES ", variant}")
          .SetIsCommutative()
          .SetIsAggregate()
          .SetShapeFn(shape_fns::MergeAllInputsShape)
          .Doc("The element-wise sum of N tensors of one shape."),
      BinaryOp("Sub", "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
                "complex64, complex128, uint32, uint64}", "x - y, with broadcasting."),
      BinaryOp("RealDiv", "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
                "complex64, complex128, uint32, uint64}", "x / y for real types, with broadcasting."),
      BinaryOp("Maximum",
               "{bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, "
               "int64, uint64}",
               "max(x, y), with broadcasting."),
      BinaryOp("Minimum",
               "{bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, "
               "int64, uint64}",
               "min(x, y), with broadcasting."),
      BinaryOp("SquaredDifference",
               "{bfloat16, half, float, double, int32, int64, complex64, complex128}",
               "(x - y)(x - y), with broadcasting.")
          .SetIsCommutative(),
      BinaryOp("Pow",
               "{bfloat16, float, half, double, int8, int16, int32, int64, complex64, "
               "complex128}",
               "x ** y, with broadcasting."),

      // ---- unary ----
      UnaryOp("Neg", "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}", "-x."),
      UnaryOp("Abs", "{bfloat16, half, float, double, int8, int16, int32, int64}", "|x|."),
      UnaryOp("Square", "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}", "x * x."),
      UnaryOp("Sqrt", "{bfloat16, half, float, double, complex64, complex128}", "sqrt(x)."),
      UnaryOp("Rsqrt", "{bfloat16, half, float, double, complex64, complex128}", "1 / sqrt(x)."),
      UnaryOp("Exp", "{bfloat16, half, float, double, complex64, complex128}", "e ** x."),
      UnaryOp("Log", "{bfloat16, half, float, double, complex64, complex128}", "The natural logarithm of x."),
      UnaryOp("Log1p", "{bfloat16, half, float, double, complex64, complex128}",
              "log(1 + x), accurate for small x."),
      UnaryOp("Expm1", "{bfloat16, half, float, double, complex64, complex128}",
              "exp(x) - 1, accurate for small x."),
      UnaryOp("Tanh", "{bfloat16, half, float, double, complex64, complex128}", "tanh(x)."),
      UnaryOp("Sigmoid", "{bfloat16, half, float, double, complex64, complex128}", "1 / (1 + exp(-x))."),
      UnaryOp("Sign", "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}", "-1, 0 or 1 by the sign of x."),
      UnaryOp("Floor", "{bfloat16, half, float, double}", "The largest integer not greater than x."),
      UnaryOp("Round", "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
              "complex128}", "x rounded to the nearest integer, halves to even."),
      UnaryOp("Erf", "{bfloat16, half, float, double}", "The Gauss error function of x."),
      UnaryOp("Erfc", "{bfloat16, half, float, double}",
              "The complementary error function of x, 1 - erf(x) (Keras' exact gelu)."),
      ActivationOp("Relu", "{" TG_REAL_NUMBER_TYPES ", qint8}", "max(features, 0)."),
      ActivationOp("Relu6", "realnumbertype", "min(max(features, 0), 6)."),
      ActivationOp("Elu", "{half, bfloat16, float, double}",
                   "exp(features) - 1 where features < 0, else features."),
      ActivationOp("Softplus", "{half, bfloat16, float, double}", "log(exp(features) + 1)."),

      // ---- comparisons and logic ----
      EqualityOp("Equal", "x == y element-wise, with broadcasting."),
      EqualityOp("NotEqual", "x != y element-wise, with broadcasting."),
      ComparisonOp("Less", "x < y element-wise, with broadcasting."),
      ComparisonOp("LessEqual", "x <= y element-wise, with broadcasting."),
      ComparisonOp("Greater", "x > y element-wise, with broadcasting."),
      ComparisonOp("GreaterEqual", "x >= y element-wise, with broadcasting."),
      LogicalBinaryOp("LogicalAnd", "x AND y element-wise, with broadcasting."),
      LogicalBinaryOp("LogicalOr", "x OR y element-wise, with broadcasting."),
      OpDefBuilder("LogicalNot")
          .Input("x: bool").Output("y: bool")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("NOT x element-wise."),
      OpDefBuilder("Select")
          .Input("condition: bool").Input("t: T").Input("e: T").Output("output: T")
          .Attr("T: type")
          .SetShapeFn(SelectShape)
          .Doc("t where condition is true, else e (condition: scalar, same shape, or a vector "
               "over the first dimension)."),

      OpDefBuilder("SelectV2")
          .Input("condition: bool").Input("t: T").Input("e: T").Output("output: T")
          .Attr("T: type")
          .SetShapeFn(SelectV2Shape)
          .Doc("t where condition is true, else e; the three broadcast together."),

      // ---- Cast ----
      OpDefBuilder("Cast")
          .Input("x: SrcT").Output("y: DstT")
          .Attr("SrcT: type")
          .Attr("DstT: type")
          .Attr("Truncate: bool = false")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("x converted to DstT."),

      // ---- reductions ----
      ReductionOp("Sum", "numbertype", "The sum over the given axes."),
      ReductionOp("Mean", "numbertype", "The mean over the given axes."),
      ReductionOp("Prod", "numbertype", "The product over the given axes."),
      ReductionOp("Max", "{" TG_REAL_NUMBER_TYPES ", " TG_QUANTIZED_TYPES "}",
                  "The maximum over the given axes."),
      ReductionOp("Min", "{" TG_REAL_NUMBER_TYPES ", " TG_QUANTIZED_TYPES "}",
                  "The minimum over the given axes."),
      BoolReductionOp("All", "The logical AND over the given axes."),
      BoolReductionOp("Any", "The logical OR over the given axes."),
      ArgOp("ArgMax", "The index of the largest value along an axis."),
      ArgOp("ArgMin", "The index of the smallest value along an axis."),
  });
}

#undef TG_REAL_NUMBER_TYPES
#undef TG_NUMBER_TYPES
#undef TG_QUANTIZED_TYPES

}  // namespace tgraph
