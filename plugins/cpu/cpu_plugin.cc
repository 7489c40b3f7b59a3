// The CPU plugin's one exported symbol: registers the CPU device and every kernel family.
#include "bf16_kernels.h"
#include "cpu_kernels.h"
#include "image_codec/image_codec_kernels.h"
#include "image_color_kernels.h"
#include "model_op_kernels.h"
#include "strings/string_kernels.h"
#include "summary/summary_kernels.h"

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  tgraph::plugin::Init init(args, status, "cpu", "0.1.0");
  using namespace tgraph_cpu;
  for (auto* family : {&RegisterCpuDevice, &RegisterElementwiseKernels, &RegisterReductionKernels,
                       &RegisterNnKernels, &RegisterArrayKernels, &RegisterStateKernels,
                       &RegisterRandomKernels, &RegisterGradHelperKernels,
                       &RegisterArrayHelperKernels, &RegisterNnBackpropKernels,
                       &RegisterTrainingKernels, &RegisterCheckpointKernels,
                       &RegisterSummaryKernels, &RegisterModelOpKernels,
                       &RegisterStringKernels, &RegisterBf16Kernels,
                       &RegisterMatrixDiagKernels, &RegisterSegmentReductionKernels,
                       &RegisterArrayMiscKernels, &RegisterImageCodecKernels,
                       &RegisterImageColorKernels,
                       &RegisterComplexKernels, &RegisterFftKernels}) {
    if (!init.ok()) return;
    family(init);
  }
}
