// Gradients of the TensorArray and Stack ops (list_grad.cc) and of the TensorList ops
// (tensor_list_grad.cc); registered with the control-flow family (control_flow_grad.cc),
// whose loops these ops serve.
#pragma once

#include <string>

#include "core/autodiff/gradient_registry.h"

namespace tgraph {

Status RegisterListGradients(GradientFunctionRegistry& registry);
Status RegisterTensorListGradients(GradientFunctionRegistry& registry);

// Whether a gradient travels along an op's DT_VARIANT inputs (a TensorList's): the list ops
// with gradients and the control-flow plumbing (AddGradients' other edges are floating-point).
bool CarriesListGradient(const std::string& op_type);

}  // namespace tgraph
