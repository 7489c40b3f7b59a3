// RegisterModelOpKernels: every model_op_kernels.h file's registrations.
#include "model_op_kernels.h"

namespace tgraph_cpu {

void RegisterModelOpKernels(tgraph::plugin::Init& init) {
  for (auto* file : {&RegisterMoreElementwiseKernels, &RegisterBatchNormKernels,
                     &RegisterDepthwiseConvKernels, &RegisterDepthwiseConvBackpropKernels,
                     &RegisterEinsumKernels}) {
    if (!init.ok()) return;
    file(init);
  }
}

}  // namespace tgraph_cpu
