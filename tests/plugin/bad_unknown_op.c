/* Registers a kernel for an op nobody defines, and ignores the status it gets back: the
 * load must fail anyway. */
#include <string.h>

#include "tgraph/plugin.h"

static void Compute(void* kernel, TG_KernelContext* ctx) {
  (void)kernel;
  (void)ctx;
}

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  static const char* const outputs[] = {"y: float"};
  TG_OpDefinition op;
  TG_KernelDefinition kernel;
  args->info->name = "test_unknown_op";
  args->info->version = "0.1";
  args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "TestUnknownOpPluginsOwnOp";
  op.outputs = outputs;
  op.num_outputs = 1;
  args->api->register_op(&op, status);
  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof kernel;
  kernel.op_type = "NoSuchOpAnywhere";
  kernel.device_type = "CPU";
  kernel.compute = Compute;
  args->api->register_kernel(&kernel, status);
  /* Pretend nothing happened. */
  args->api->set_status(status, TG_OK, "");
}
