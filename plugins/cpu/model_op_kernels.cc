// RegisterModelOpKernels: every model_op_kernels.h file's registrations.
#include "model_op_kernels.h"

namespace tgraph_cpu {

// conv3d_ops.cc (declared here rather than in model_op_kernels.h, whose every includer is an
// Eigen-heavy kernel file that would recompile for one more line).
void RegisterConv3DKernels(tgraph::plugin::Init& init);
void RegisterBatchNormGradKernels(tgraph::plugin::Init& init);  // batch_norm_grad_ops.cc
void RegisterLrnKernels(tgraph::plugin::Init& init);            // lrn_op.cc
void RegisterExtractImagePatchesKernels(tgraph::plugin::Init& init);  // extract_patches_op.cc
void RegisterActivationGradMoreKernels(tgraph::plugin::Init& init);   // activation_grad_more.cc
void RegisterPoolArgmaxKernels(tgraph::plugin::Init& init);           // pool_argmax_ops.cc
void RegisterBincountKernels(tgraph::plugin::Init& init);             // bincount_ops.cc
// The element-wise math beyond the basic set (core/ops/math_more_ops.cc), one file each.
void RegisterTrigKernels(tgraph::plugin::Init& init);             // cwise_trig.cc
void RegisterSpecialFunctionKernels(tgraph::plugin::Init& init);  // cwise_special.cc
void RegisterBinaryMoreKernels(tgraph::plugin::Init& init);       // cwise_binary_more.cc
void RegisterBitwiseKernels(tgraph::plugin::Init& init);          // cwise_bitwise.cc
void RegisterPool3DKernels(tgraph::plugin::Init& init);           // pooling3d_ops.cc
void RegisterDetectionKernels(tgraph::plugin::Init& init);        // detection_ops.cc

void RegisterModelOpKernels(tgraph::plugin::Init& init) {
  for (auto* file : {&RegisterMoreElementwiseKernels, &RegisterBatchNormKernels, &RegisterBatchNormGradKernels,
                     &RegisterLrnKernels, &RegisterExtractImagePatchesKernels,
                     &RegisterActivationGradMoreKernels, &RegisterPoolArgmaxKernels,
                     &RegisterBincountKernels,
                     &RegisterDepthwiseConvKernels, &RegisterDepthwiseConvBackpropKernels,
                     &RegisterEinsumKernels, &RegisterConv3DKernels, &RegisterTrigKernels,
                     &RegisterSpecialFunctionKernels, &RegisterBinaryMoreKernels,
                     &RegisterBitwiseKernels, &RegisterPool3DKernels, &RegisterDetectionKernels}) {
    if (!init.ok()) return;
    file(init);
  }
}

}  // namespace tgraph_cpu
