#include "core/autodiff/initializers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/autodiff/gradient_context.h"
#include "core/autodiff/random_seed.h"
#include "core/graph/graph.h"
#include "core/graph/graph_context_guard.h"

namespace tgraph {
namespace {

// TF's zeros()/ones() switch from a Const to Fill at this many elements (_constant_if_small).
constexpr int64_t kSmallConstantElements = 1000;

template <typename T>
void FillAs(Tensor& t, double value) {
  T* p = t.flat<T>();
  const T v = static_cast<T>(value);
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = v;
}

// A tensor of `dims` with every element `value` converted to `dtype`.
StatusOr<Tensor> Filled(DataType dtype, const std::vector<int64_t>& dims, double value) {
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, dims));
  if (value == 0 && dtype != DT_STRING && DataTypeSize(dtype) > 0) return t;  // zero-filled
  switch (dtype) {
    case DT_FLOAT: FillAs<float>(t, value); break;
    case DT_DOUBLE: FillAs<double>(t, value); break;
    case DT_INT8: FillAs<int8_t>(t, value); break;
    case DT_INT16: FillAs<int16_t>(t, value); break;
    case DT_INT32: FillAs<int32_t>(t, value); break;
    case DT_INT64: FillAs<int64_t>(t, value); break;
    case DT_UINT8: FillAs<uint8_t>(t, value); break;
    case DT_UINT16: FillAs<uint16_t>(t, value); break;
    default:
      return InvalidArgument("initializer: cannot make a ", DataTypeName(dtype),
                             " constant (float, double and integer types only)");
  }
  return t;
}

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The shape as a constant vector: int32 unless a dim needs int64 (TF's shape_tensor).
StatusOr<Tensor> ShapeTensor(const std::vector<int64_t>& dims) {
  bool wide = false;
  for (int64_t d : dims) wide = wide || d > std::numeric_limits<int32_t>::max();
  const auto n = static_cast<int64_t>(dims.size());
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(wide ? DT_INT64 : DT_INT32, {n}));
  for (size_t i = 0; i < dims.size(); ++i) {
    if (wide) {
      t.flat<int64_t>()[i] = dims[i];
    } else {
      t.flat<int32_t>()[i] = static_cast<int32_t>(dims[i]);
    }
  }
  return t;
}

Status CheckDims(const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("initializer: the shape must be fully defined, got a dim ", d);
  }
  return Status::OK();
}

// zeros(shape) / ones(shape): a Const "<name>" when small, else Fill "<name>" of
// "<name>/shape_as_tensor" and "<name>/Const" (as TF 1.x's array_ops.zeros builds them).
StatusOr<Output> FilledValue(Graph& graph, DataType dtype, const std::vector<int64_t>& dims,
                             double value, const std::string& name) {
  GraphBuilder b(graph);
  if (NumElements(dims) < kSmallConstantElements) {
    TG_ASSIGN_OR_RETURN(Tensor t, Filled(dtype, dims, value));
    return b.Const(t, name);
  }
  GraphContextGuard scope(graph);
  TG_ASSIGN_OR_RETURN(std::string full, scope.NameScope(name));
  TG_ASSIGN_OR_RETURN(Tensor shape, ShapeTensor(dims));
  Output shape_t = b.Const(shape, "shape_as_tensor");
  TG_ASSIGN_OR_RETURN(Tensor scalar, Filled(dtype, {}, value));
  Output value_t = b.Const(scalar, "Const");
  Output fill = b.Op("Fill", {shape_t, value_t}, {}, full + "/");
  TG_RETURN_IF_ERROR(b.status());
  return fill;
}

// constant_initializer(value): a Const named "Const" of the variable's shape.
StatusOr<Output> ConstantValue(Graph& graph, const InitializerSpec& spec, DataType dtype,
                               const std::vector<int64_t>& dims) {
  GraphBuilder b(graph);
  if (spec.tensor.dtype() == DT_INVALID) {
    TG_ASSIGN_OR_RETURN(Tensor t, Filled(dtype, dims, spec.value));
    return b.Const(t, "Const");
  }
  const Tensor& v = spec.tensor;
  if (BaseType(v.dtype()) != BaseType(dtype)) {
    return InvalidArgument("constant initializer: the value is ", DataTypeName(v.dtype()),
                           " but the variable is ", DataTypeName(dtype));
  }
  const int64_t n = NumElements(dims);
  if (v.NumElements() != 1 && v.NumElements() != n) {
    return InvalidArgument("constant initializer: the value has shape ", v.shape().ToString(),
                           " (", v.NumElements(), " elements) but the variable has shape ",
                           PartialShape(dims).ToString(), " (", n, " elements)");
  }
  if (dtype == DT_STRING) return InvalidArgument("constant initializer: string values are not supported");
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, dims));
  const size_t elem = DataTypeSize(dtype);
  const auto* src = static_cast<const char*>(v.data());
  auto* dst = static_cast<char*>(t.data());
  if (v.NumElements() == n) {
    if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * elem);
  } else {
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * elem, src, elem);
  }
  return b.Const(t, "Const");
}

Status CheckRandomDtype(DataType dtype) {
  if (dtype != DT_FLOAT && dtype != DT_DOUBLE) {
    return InvalidArgument("random initializers make float or double values, not ",
                           DataTypeName(dtype));
  }
  return Status::OK();
}

// The common shape of the three random builders: scope, shape, two parameters, the random op
// (seeded after the parameters exist, as TF orders it), then value * scale + shift, where
// (scale, shift) are (max - min, min) for uniform and (stddev, mean) for the normals.
StatusOr<Output> RandomTensor(Graph& graph, const RandomTensorArgs& args, const char* op_type,
                              const char* p0_name, double p0, const char* p1_name, double p1,
                              bool uniform, const std::string& name) {
  TG_RETURN_IF_ERROR(CheckRandomDtype(args.dtype));
  std::lock_guard lock(graph.mutex());
  GraphContextGuard scope(graph);
  TG_ASSIGN_OR_RETURN(std::string full, scope.NameScope(name));
  GraphBuilder b(graph);
  Output shape = args.shape;
  if (shape.op == nullptr) {
    TG_RETURN_IF_ERROR(CheckDims(args.dims));
    TG_ASSIGN_OR_RETURN(Tensor s, ShapeTensor(args.dims));
    shape = b.Const(s, "shape");
  }
  Output a = b.Scalar(args.dtype, p0, p0_name);
  Output c = b.Scalar(args.dtype, p1, p1_name);
  TG_RETURN_IF_ERROR(b.status());
  const auto [seed, seed2] = GetSeed(graph, args.seed);
  Output rnd = b.Op(op_type, {shape},
                    {{"dtype", AttrOfType(args.dtype)},
                     {"seed", AttrOfInt(seed)},
                     {"seed2", AttrOfInt(seed2)}},
                    op_type);
  Output out;
  if (uniform) {
    Output range = b.Op("Sub", {c, a}, {}, "sub");
    out = b.Op("Add", {b.Op("Mul", {rnd, range}, {}, "mul"), a}, {}, full + "/");
  } else {
    out = b.Op("Add", {b.Op("Mul", {rnd, c}, {}, "mul"), a}, {}, full + "/");
  }
  TG_RETURN_IF_ERROR(b.status());
  return out;
}

}  // namespace

StatusOr<Output> RandomUniform(Graph& graph, const RandomTensorArgs& args, double minval,
                               double maxval, const std::string& name) {
  if (!(minval < maxval)) {
    return InvalidArgument("random_uniform: minval (", minval, ") must be less than maxval (",
                           maxval, ")");
  }
  return RandomTensor(graph, args, "RandomUniform", "min", minval, "max", maxval, true, name);
}

StatusOr<Output> RandomNormal(Graph& graph, const RandomTensorArgs& args, double mean,
                              double stddev, const std::string& name) {
  if (!(stddev >= 0)) return InvalidArgument("random_normal: stddev is ", stddev);
  return RandomTensor(graph, args, "RandomStandardNormal", "mean", mean, "stddev", stddev,
                      false, name);
}

StatusOr<Output> TruncatedNormal(Graph& graph, const RandomTensorArgs& args, double mean,
                                 double stddev, const std::string& name) {
  if (!(stddev >= 0)) return InvalidArgument("truncated_normal: stddev is ", stddev);
  return RandomTensor(graph, args, "TruncatedNormal", "mean", mean, "stddev", stddev, false,
                      name);
}

std::pair<double, double> ComputeFans(const std::vector<int64_t>& dims) {
  if (dims.empty()) return {1, 1};
  if (dims.size() == 1) return {static_cast<double>(dims[0]), static_cast<double>(dims[0])};
  if (dims.size() == 2) return {static_cast<double>(dims[0]), static_cast<double>(dims[1])};
  double receptive = 1;
  for (size_t i = 0; i + 2 < dims.size(); ++i) receptive *= static_cast<double>(dims[i]);
  return {static_cast<double>(dims[dims.size() - 2]) * receptive,
          static_cast<double>(dims.back()) * receptive};
}

StatusOr<Output> BuildInitializer(Graph& graph, const InitializerSpec& spec, DataType dtype,
                                  const std::vector<int64_t>& dims) {
  dtype = BaseType(dtype);
  TG_RETURN_IF_ERROR(CheckDims(dims));
  std::lock_guard lock(graph.mutex());
  RandomTensorArgs args;
  args.dtype = dtype;
  args.dims = dims;
  args.seed = spec.seed;
  switch (spec.kind) {
    case InitializerKind::kZeros: return FilledValue(graph, dtype, dims, 0, "zeros");
    case InitializerKind::kOnes: return FilledValue(graph, dtype, dims, 1, "ones");
    case InitializerKind::kConstant: return ConstantValue(graph, spec, dtype, dims);
    case InitializerKind::kRandomNormal:
      return RandomNormal(graph, args, spec.mean, spec.stddev);
    case InitializerKind::kRandomUniform:
      return RandomUniform(graph, args, spec.minval, spec.maxval);
    case InitializerKind::kTruncatedNormal:
      return TruncatedNormal(graph, args, spec.mean, spec.stddev);
    case InitializerKind::kGlorotUniform: {
      // variance_scaling(scale=1, mode="fan_avg", distribution="uniform").
      const auto [fan_in, fan_out] = ComputeFans(dims);
      const double limit = std::sqrt(3.0 / std::max(1.0, (fan_in + fan_out) / 2.0));
      return RandomUniform(graph, args, -limit, limit);
    }
  }
  return InvalidArgument("unknown initializer kind ", static_cast<int>(spec.kind));
}

InitialValueFn InitializerFn(InitializerSpec spec, DataType dtype, std::vector<int64_t> dims,
                             bool open_initializer_scope) {
  return [spec = std::move(spec), dtype, dims = std::move(dims),
          open_initializer_scope](Graph& graph) -> StatusOr<Output> {
    if (!open_initializer_scope) return BuildInitializer(graph, spec, dtype, dims);
    GraphContextGuard scope(graph);
    TG_RETURN_IF_ERROR(scope.NameScope("Initializer").status());
    return BuildInitializer(graph, spec, dtype, dims);
  };
}

VariableInitializer ScopeInitializer(InitializerSpec spec) {
  return [spec = std::move(spec)](Graph& graph, DataType dtype,
                                  const std::vector<int64_t>& dims) -> StatusOr<Output> {
    return BuildInitializer(graph, spec, dtype, dims);
  };
}

DataType DefaultGetVariableDtype(const VariableStore& store) {
  return store.scope_dtype() != DT_INVALID ? store.scope_dtype() : DT_FLOAT;
}

InitialValueFn DefaultGetVariableInitializer(const VariableStore& store, const std::string& name,
                                             DataType dtype, const PartialShape& shape) {
  const std::string full =
      store.variable_scope().empty() ? name : StrCat(store.variable_scope(), "/", name);
  VariableInitializer chosen = store.scope_initializer();
  if (!chosen) {
    dtype = BaseType(dtype);
    const bool floating =
        dtype == DT_FLOAT || dtype == DT_DOUBLE || dtype == DT_HALF || dtype == DT_BFLOAT16;
    const bool integer_or_bool = dtype == DT_BOOL || dtype == DT_INT8 || dtype == DT_INT16 ||
                                 dtype == DT_INT32 || dtype == DT_INT64 || dtype == DT_UINT8 ||
                                 dtype == DT_UINT16 || dtype == DT_UINT32 || dtype == DT_UINT64;
    if (floating || integer_or_bool) {
      InitializerSpec spec;
      spec.kind = floating ? InitializerKind::kGlorotUniform : InitializerKind::kZeros;
      chosen = ScopeInitializer(spec);
    }
  }
  return [chosen, full, dtype, shape](Graph& graph) -> StatusOr<Output> {
    if (!chosen) {
      return InvalidArgument("An initializer for variable ", full, " of ", DataTypeName(dtype),
                             " is required (get_variable has no default initializer for it)");
    }
    StatusOr<Output> value = chosen(graph, dtype, shape.dims());
    if (!value.ok()) {
      return value.status().Prepend(StrCat("default initializer of variable ", full, ": "));
    }
    return value;
  };
}

}  // namespace tgraph
