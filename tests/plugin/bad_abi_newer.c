/* Declares an ABI version one newer than the header it was built with (as a plugin built
 * against a future SDK would). Its registrations must not survive the refusal. */
#include <string.h>

#include "tgraph/plugin.h"

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  static const char* const outputs[] = {"y: float"};
  TG_OpDefinition op;
  args->info->name = "test_abi_newer";
  args->info->version = "9.0";
  args->info->abi_version = TG_PLUGIN_ABI_VERSION + 1;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "TestAbiNewerOp";
  op.outputs = outputs;
  op.num_outputs = 1;
  args->api->register_op(&op, status);
}
