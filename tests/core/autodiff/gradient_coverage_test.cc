// Every standard op has decided about its gradient: a gradient function, or registered as not
// differentiable, or listed here as a helper op whose gradient is not built (yet). A new op
// fails this test until its author decides, so a missing gradient is never a surprise at
// AddGradients time.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/autodiff/gradient_registry.h"
#include "core/ops/op_registry.h"

namespace tgraph {
namespace {

// Ops that only backward graphs and optimizers build (TensorFlow gives a few of them
// second-order gradients, which tgraph does not have yet), and the while-loop ops.
const std::set<std::string>& HelpersWithoutGradient() {
  static const std::set<std::string> ops = {
      // elementwise gradient helpers
      "ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad", "SigmoidGrad", "TanhGrad", "SqrtGrad",
      "RsqrtGrad", "ReciprocalGrad", "InvGrad", "SoftsignGrad", "BiasAddGrad",
      // convolution, pooling and normalization backprops
      "MaxPoolGrad", "AvgPoolGrad", "FusedBatchNormGrad", "FusedBatchNormGradV2",
      "FusedBatchNormGradV3", "LRNGrad", "_ExtractImagePatchesGrad", "LeakyReluGrad", "SeluGrad",
      "MaxPoolGradWithArgmax",
      "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter",
      "MirrorPadGrad", "ResizeBilinearGrad", "ResizeNearestNeighborGrad", "ResizeBicubicGrad",
      // index and shape helpers
      "DynamicStitch", "ParallelDynamicStitch", "StridedSliceGrad",
      "Cumsum", "Cumprod", "Unique",
      // the sparse segment reductions' gradients (TensorFlow has no gradient for them)
      "SparseSegmentSumGrad", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad",
      // optimizer updates (they write variables; nothing differentiates through them)
      "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyRMSProp",
      "ApplyCenteredRMSProp", "ApplyAdagrad", "SparseApplyMomentum", "SparseApplyAdagrad",
      "SparseApplyRMSProp", "SparseApplyCenteredRMSProp",
      // fused contractions: made by the plan-time rewrites (after any gradient was built) or
      // found in frozen inference graphs; TensorFlow has no gradient for them either
      "_FusedMatMul", "_FusedConv2D", "_FusedDepthwiseConv2dNative", "_FusedChannelAffine",
      // a fused gradient (MaxPoolGrad -> ReluGrad -> BiasAddGrad), made by the rewrites only
      "_FusedMaxPoolGrad",
      // MaxPool with its winners' indices and the gradient that reads them: the same rewrite
      "_MaxPoolWithIndex", "_FusedMaxPoolGradWithIndex",
      // while loops: differentiated as a whole (core/autodiff/while_grad.cc), not op by op
      "Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond",
      // no gradient in TensorFlow either: differentiating through it fails there and here
      "ResizeArea",
      // CropAndResize's gradient ops (no gradient in TensorFlow either)
      "CropAndResizeGradImage", "CropAndResizeGradBoxes",
      // the call ops' gradient (a function's symbolic gradient; no second order)
      "SymbolicGradient"};
  return ops;
}

TEST(GradientCoverageTest, EveryStandardOpHasDecidedAboutItsGradient) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterStandardOps(&registry).ok());
  const GradientFunctionRegistry& gradients = GradientFunctionRegistry::Global();
  int covered = 0;
  for (const std::string& op : registry.ListOps()) {
    const bool decided = gradients.Find(op) != nullptr || gradients.IsNotDifferentiable(op) ||
                         HelpersWithoutGradient().count(op) != 0;
    EXPECT_TRUE(decided) << "op " << op << " has no gradient function and is not registered as "
                         << "not differentiable (core/autodiff/*_grad.cc)";
    covered += decided;
  }
  EXPECT_GT(covered, 100);
}

TEST(GradientCoverageTest, HelperListNamesRealOpsOnly) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterStandardOps(&registry).ok());
  for (const std::string& op : HelpersWithoutGradient()) {
    EXPECT_NE(registry.Find(op), nullptr) << op << " is not a standard op";
    EXPECT_EQ(GradientFunctionRegistry::Global().Find(op), nullptr)
        << op << " has a gradient now: take it off the helper list";
  }
}

}  // namespace
}  // namespace tgraph
