// The CUDA plugin's one export. With a device it registers the device type ("GPU", or
// "CUDA_GPU" when a backend loaded earlier took "GPU"; TGRAPH_CUDA_DEVICE_TYPE overrides)
// and its kernels. Without one (no driver, no GPU) it logs "no device" and registers
// nothing: loading still succeeds, and requests for /device:GPU:N fail placement.
#include "cuda_kernels.h"

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  tgraph::plugin::Init init(args, status, "cuda", "0.1.0");
  if (!tgraph_cuda::RegisterDevice(init)) return;
  tgraph_cuda::RegisterCwiseKernels(init);
  tgraph_cuda::RegisterCompareKernels(init);
  tgraph_cuda::RegisterNnKernels(init);
  tgraph_cuda::RegisterArrayKernels(init);
  tgraph_cuda::RegisterXentKernels(init);
  tgraph_cuda::RegisterStateKernels(init);
  tgraph_cuda::RegisterConvKernels(init);
  tgraph_cuda::RegisterSparseKernels(init);
  tgraph_cuda::RegisterOptimizerMathKernels(init);
  tgraph_cuda::RegisterSelectStitchKernels(init);
}
