// Gradient functions keyed by op type: the core's own (one Register*Gradients function per
// op family, core/autodiff/<family>_grad.cc) and, behind them, those plugins registered
// through plugin.h for their custom ops.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "core/autodiff/gradient_context.h"

namespace tgraph {

using GradientFunction = std::function<Status(GradientContext& ctx)>;

class GradientFunctionRegistry {
 public:
  // The process-wide registry, holding the standard ops' gradients.
  static GradientFunctionRegistry& Global();

  // A gradient for `op_type` (ALREADY_EXISTS if it has one).
  Status Register(const std::string& op_type, GradientFunction fn);
  // Ops whose outputs carry no gradient (Shape, ArgMax, comparisons, ...): backprop stops
  // there silently instead of failing with "no gradient defined".
  Status RegisterNotDifferentiable(const std::string& op_type);

  // The core's gradient for `op_type`, else nullptr (callers then ask the plugins).
  const GradientFunction* Find(const std::string& op_type) const;
  bool IsNotDifferentiable(const std::string& op_type) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, GradientFunction> functions_;
  std::map<std::string, bool> not_differentiable_;
};

// One per family; each registers its ops' gradients (called once by Global()).
Status RegisterMathGradients(GradientFunctionRegistry& registry);   // math_grad.cc
Status RegisterNnGradients(GradientFunctionRegistry& registry);     // nn_grad.cc
Status RegisterArrayGradients(GradientFunctionRegistry& registry);  // array_grad.cc
// The layout, index, image and logging ops frozen models use (array_grad_layout.cc).
Status RegisterArrayLayoutGradients(GradientFunctionRegistry& registry);
Status RegisterControlFlowGradients(GradientFunctionRegistry& registry);  // control_flow_grad.cc
// The matrix-structure ops and segment reductions (matrix_segment_grad.cc).
Status RegisterMatrixSegmentGradients(GradientFunctionRegistry& registry);
// The miscellaneous array ops: ClipByValue, Roll, CheckNumerics, ... (array_misc_grad.cc).
Status RegisterArrayMiscGradients(GradientFunctionRegistry& registry);
// 3-D pooling and the detection ops (detection_pool3d_grad.cc).
Status RegisterDetectionPool3DGradients(GradientFunctionRegistry& registry);
// The image codec ops: none differentiable (image_codec_grad.cc).
Status RegisterImageCodecGradients(GradientFunctionRegistry& registry);
// Complex numbers and the Fourier transforms (spectral_grad.cc).
Status RegisterSpectralGradients(GradientFunctionRegistry& registry);
// Resource variables: reads and gathers pass gradients to the handle (resource_variable_grad.cc).
Status RegisterResourceVariableGradients(GradientFunctionRegistry& registry);

}  // namespace tgraph
