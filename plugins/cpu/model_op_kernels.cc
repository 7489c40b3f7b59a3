// RegisterModelOpKernels: every model_op_kernels.h file's registrations.
#include "model_op_kernels.h"

namespace tgraph_cpu {

// conv3d_ops.cc (declared here rather than in model_op_kernels.h, whose every includer is an
// Eigen-heavy kernel file that would recompile for one more line).
void RegisterConv3DKernels(tgraph::plugin::Init& init);

void RegisterModelOpKernels(tgraph::plugin::Init& init) {
  for (auto* file : {&RegisterMoreElementwiseKernels, &RegisterBatchNormKernels,
                     &RegisterDepthwiseConvKernels, &RegisterDepthwiseConvBackpropKernels,
                     &RegisterEinsumKernels, &RegisterConv3DKernels}) {
    if (!init.ok()) return;
    file(init);
  }
}

}  // namespace tgraph_cpu
