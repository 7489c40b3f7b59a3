// RegisterArrayKernels: every array-op kernel file's registrations.
#include "array_kernels.h"

#include "cpu_kernels.h"

namespace tgraph_cpu {

void RegisterArrayKernels(tgraph::plugin::Init& init) {
  for (auto* file :
       {&RegisterConstantKernels, &RegisterPlaceholderKernels, &RegisterIdentityKernels,
        &RegisterReshapeKernels, &RegisterTransposeKernels, &RegisterConcatPackKernels,
        &RegisterSliceKernels, &RegisterTilePadKernels, &RegisterFillKernels, &RegisterShapeKernels,
        &RegisterOneHotKernels, &RegisterGatherKernels, &RegisterWhereKernels,
        &RegisterSplitBroadcastKernels, &RegisterBoolReductionKernels, &RegisterPadReverseKernels,
        &RegisterGatherScatterNdKernels, &RegisterSpaceDepthKernels, &RegisterImageResizeKernels,
        &RegisterAssertPrintKernels}) {
    if (!init.ok()) return;
    file(init);
  }
}

}  // namespace tgraph_cpu
