// Variable initializers as TensorFlow 1.x builds them (tf.zeros_initializer, ones, constant,
// random_normal, random_uniform, truncated_normal, glorot_uniform): each builds the initial
// value of a shape and dtype under the current name scope with TF's op names, so through
// get_variable they appear as "W/Initializer/random_uniform/RandomUniform" and so on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/graph/operation.h"
#include "core/graph/variables.h"

namespace tgraph {

class Graph;

enum class InitializerKind {
  kZeros,
  kOnes,
  kConstant,
  kRandomNormal,
  kRandomUniform,
  kTruncatedNormal,
  kGlorotUniform,
};

struct InitializerSpec {
  InitializerKind kind = InitializerKind::kZeros;
  // kConstant: `tensor` when it holds a value (a scalar, or as many elements as the shape),
  // else `value`.
  double value = 0;
  Tensor tensor;
  double mean = 0, stddev = 1;    // kRandomNormal, kTruncatedNormal
  double minval = 0, maxval = 1;  // kRandomUniform
  std::optional<int64_t> seed;    // op-level seed (see random_seed.h)
};

// Builds the value under the current name scope. Zeros/ones/constant take any real or
// integer dtype of the core (float, double, int8/16/32/64, uint8/16; zeros any fixed-size
// dtype); the random kinds take float or double.
StatusOr<Output> BuildInitializer(Graph& graph, const InitializerSpec& spec, DataType dtype,
                                  const std::vector<int64_t>& dims);

// An InitialValueFn for VariableStore::GetVariable / CreateVariable. GetVariable already opens
// "V/Initializer"; with `open_initializer_scope` (for CreateVariable) the function opens it.
InitialValueFn InitializerFn(InitializerSpec spec, DataType dtype, std::vector<int64_t> dims,
                             bool open_initializer_scope);

// variable_scope(initializer=spec): the spec as the scope's VariableInitializer.
VariableInitializer ScopeInitializer(InitializerSpec spec);

// get_variable's dtype when the caller gives none: the variable scope's, else float.
DataType DefaultGetVariableDtype(const VariableStore& store);

// get_variable's initializer when the caller gives none: the variable scope's initializer,
// else TF's default: glorot_uniform for floating types, zeros for integer types and bool.
// For any other dtype the returned function fails (INVALID_ARGUMENT naming the variable and
// the dtype) — only when it is called, i.e. when the variable is created, so reusing an
// existing variable of such a dtype needs no initializer. `name` is get_variable's name
// (the scope is prefixed for the message). Called inside "V/Initializer", with the shape
// fully defined.
InitialValueFn DefaultGetVariableInitializer(const VariableStore& store, const std::string& name,
                                             DataType dtype, const PartialShape& shape);

// ---- random tensors (random_ops.random_uniform / random_normal / truncated_normal) ----
// Under a name scope `name` (made unique): "<name>/shape" (when `shape` is null, a Const of
// `dims`), the parameters ("min"/"max" or "mean"/"stddev"), the random op, "mul", and the
// final Add named as the scope. The seeds come from GetSeed(op_seed). float or double.
struct RandomTensorArgs {
  DataType dtype = DT_FLOAT;
  std::vector<int64_t> dims;  // used when `shape` is null
  Output shape;               // an int32/int64 shape tensor (e.g. Shape(x))
  std::optional<int64_t> seed;
};
StatusOr<Output> RandomUniform(Graph& graph, const RandomTensorArgs& args, double minval,
                               double maxval, const std::string& name = "random_uniform");
StatusOr<Output> RandomNormal(Graph& graph, const RandomTensorArgs& args, double mean,
                              double stddev, const std::string& name = "random_normal");
StatusOr<Output> TruncatedNormal(Graph& graph, const RandomTensorArgs& args, double mean,
                                 double stddev, const std::string& name = "truncated_normal");

// TF's _compute_fans: rank 0 -> (1, 1); rank 1 -> (d0, d0); rank 2 -> (d0, d1); higher ranks
// multiply both by the receptive field (the product of all dims but the last two).
std::pair<double, double> ComputeFans(const std::vector<int64_t>& dims);

}  // namespace tgraph
