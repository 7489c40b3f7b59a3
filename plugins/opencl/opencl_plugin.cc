// The OpenCL plugin's one export. It registers the "GPU" device type (see DeviceType) and its
// kernels; when no OpenCL device is found it says so and registers nothing, and requests
// for /device:GPU:N then fail placement with a clear status (or, with soft placement, run
// on the CPU).
#include "cl_kernels.h"

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  tgraph::plugin::Init init(args, status, "opencl", "0.1.0");
  if (!tgraph_opencl::RegisterDevice(init)) return;
  tgraph_opencl::RegisterCwiseKernels(init);
  tgraph_opencl::RegisterCompareKernels(init);
  tgraph_opencl::RegisterNnKernels(init);
  tgraph_opencl::RegisterArrayKernels(init);
  tgraph_opencl::RegisterXentKernels(init);
  tgraph_opencl::RegisterTrainingKernels(init);
  tgraph_opencl::RegisterConvKernels(init);
  tgraph_opencl::RegisterSparseKernels(init);
  tgraph_opencl::RegisterOptimizerMathKernels(init);
  tgraph_opencl::RegisterSelectStitchKernels(init);
}
