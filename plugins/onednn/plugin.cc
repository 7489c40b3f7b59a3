// The oneDNN plugin's one exported symbol: registers oneDNN kernels for ops the CPU plugin
// also implements, at a higher priority, so a session picks them when this plugin is loaded
// and the Eigen kernels otherwise. It registers no device: the kernels run on the CPU
// plugin's "CPU" device.
//
// TGRAPH_DISABLE_ONEDNN=1 (any value but "" and "0") makes it register nothing, so the
// Eigen kernels run without removing the file from the plugin directory.
#include <cstdlib>
#include <cstring>
#include <string>

#include "bf16_mode.h"
#include "dnnl_context.h"
#include "oneapi/dnnl/dnnl.hpp"

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  tgraph::plugin::Init init(args, status, "onednn", "0.1.0");
  const char* off = std::getenv("TGRAPH_DISABLE_ONEDNN");
  if (off != nullptr && off[0] != '\0' && std::strcmp(off, "0") != 0) {
    tgraph::plugin::Api()->log(TG_LOG_INFO,
                               "onednn: TGRAPH_DISABLE_ONEDNN is set: no kernels registered");
    return;
  }
  // Which oneDNN this is and what the CPU gives it (shown with TGRAPH_LOG_PLUGIN_INFO=1).
  const dnnl_version_t* v = dnnl_version();
  std::string message = "onednn: oneDNN " + std::to_string(v->major) + "." +
                        std::to_string(v->minor) + "." + std::to_string(v->patch) +
                        ", OpenMP runtime, ISA " + tgraph_onednn::IsaName() +
                        ", bf16 contractions " + tgraph_onednn::Bf16ChoiceForThisCpu().why;
  tgraph::plugin::Api()->log(TG_LOG_INFO, message.c_str());
  for (auto* family : {&tgraph_onednn::RegisterMatMulKernels, &tgraph_onednn::RegisterConvKernels,
                       &tgraph_onednn::RegisterDepthwiseKernels}) {
    if (!init.ok()) return;
    family(init);
  }
}
