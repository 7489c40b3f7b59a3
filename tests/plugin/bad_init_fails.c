/* Registers an op, then reports failure: nothing it registered may remain. */
#include <string.h>

#include "tgraph/plugin.h"

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  static const char* const outputs[] = {"y: float"};
  TG_OpDefinition op;
  args->info->name = "test_init_fails";
  args->info->version = "0.1";
  args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "TestInitFailsOp";
  op.outputs = outputs;
  op.num_outputs = 1;
  args->api->register_op(&op, status);
  if (args->api->status_code(status) != TG_OK) return;
  args->api->set_status(status, TG_UNAVAILABLE, "no test hardware found (deliberate failure)");
}
