// Which dtypes gradients flow through: one answer for the backward pass (add_gradients.cc)
// and the gradients of functions and functional control flow (function_grad.cc).
#pragma once

#include "core/base/dtype.h"

namespace tgraph {

// The floating and complex types, as TensorFlow's backprop: integer, bool, string and handle
// tensors get no gradient.
bool IsDifferentiable(DataType dtype);

}  // namespace tgraph
