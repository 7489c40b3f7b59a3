// Gradients of the TensorArray and Stack ops (list_grad.cc); registered with the control-flow
// family (control_flow_grad.cc), whose loops these ops serve.
#pragma once

#include "core/autodiff/gradient_registry.h"

namespace tgraph {

Status RegisterListGradients(GradientFunctionRegistry& registry);

}  // namespace tgraph
