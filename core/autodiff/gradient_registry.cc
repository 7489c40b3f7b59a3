#include "core/autodiff/gradient_registry.h"

#include "core/autodiff/function_grad.h"

namespace tgraph {

GradientFunctionRegistry& GradientFunctionRegistry::Global() {
  static GradientFunctionRegistry* registry = [] {
    auto* r = new GradientFunctionRegistry();
    // A family that fails to register is a bug in the core; the others still register.
    for (auto* family : {&RegisterMathGradients, &RegisterNnGradients, &RegisterArrayGradients,
                         &RegisterArrayLayoutGradients, &RegisterControlFlowGradients,
                         &RegisterFunctionGradients, &RegisterMatrixSegmentGradients,
                         &RegisterArrayMiscGradients, &RegisterResourceVariableGradients,
                         &RegisterImageCodecGradients,
                         &RegisterDetectionPool3DGradients,
                         &RegisterSpectralGradients}) {
      (void)family(*r);
    }
    return r;
  }();
  return *registry;
}

Status GradientFunctionRegistry::Register(const std::string& op_type, GradientFunction fn) {
  std::lock_guard lock(mu_);
  if (functions_.count(op_type) || not_differentiable_.count(op_type)) {
    return AlreadyExists("a gradient for op type '", op_type, "' is already registered");
  }
  functions_.emplace(op_type, std::move(fn));
  return Status::OK();
}

Status GradientFunctionRegistry::RegisterNotDifferentiable(const std::string& op_type) {
  std::lock_guard lock(mu_);
  if (functions_.count(op_type) || not_differentiable_.count(op_type)) {
    return AlreadyExists("a gradient for op type '", op_type, "' is already registered");
  }
  not_differentiable_.emplace(op_type, true);
  return Status::OK();
}

const GradientFunction* GradientFunctionRegistry::Find(const std::string& op_type) const {
  std::lock_guard lock(mu_);
  auto it = functions_.find(op_type);
  // Entries are never removed, so the pointer stays valid after the lock is released.
  return it == functions_.end() ? nullptr : &it->second;
}

bool GradientFunctionRegistry::IsNotDifferentiable(const std::string& op_type) const {
  std::lock_guard lock(mu_);
  return not_differentiable_.count(op_type) != 0;
}

}  // namespace tgraph
