// Pieces shared by the math gradient files (math_grad_*.cc): the per-file registration
// functions RegisterMathGradients calls, and small builders over GraphBuilder.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/autodiff/gradient_registry.h"

namespace tgraph::math_grad {

// One per file; each registers its ops (math_grad_cwise.cc, math_grad_reduce.cc,
// math_grad_matmul.cc).
Status RegisterCwiseGradients(GradientFunctionRegistry& registry);
Status RegisterReductionGradients(GradientFunctionRegistry& registry);
Status RegisterMatMulGradients(GradientFunctionRegistry& registry);
Status RegisterEinsumGradients(GradientFunctionRegistry& registry);  // math_grad_einsum.cc
Status RegisterCwiseMoreGradients(GradientFunctionRegistry& registry);  // math_grad_more.cc

// The conjugate of x for complex dtypes (TensorFlow's gradients conjugate the other operand),
// x itself for real ones.
Output Conj(GraphBuilder& b, Output x);

// The values of a Const int32/int64 scalar or vector, if `t` is one.
std::optional<std::vector<int64_t>> ConstantInts(Output t);

// An int32 vector constant from int64 values (static shapes and axes).
Output ConstInt32Vector(GraphBuilder& b, const std::vector<int64_t>& values);

}  // namespace tgraph::math_grad
