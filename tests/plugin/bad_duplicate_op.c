/* Defines an op the core already has (Identity). */
#include <string.h>

#include "tgraph/plugin.h"

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  static const char* const inputs[] = {"input: T"};
  static const char* const outputs[] = {"output: T"};
  static const char* const attrs[] = {"T: type"};
  TG_OpDefinition op;
  args->info->name = "test_duplicate_op";
  args->info->version = "0.1";
  args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "Identity";
  op.inputs = inputs;
  op.num_inputs = 1;
  op.outputs = outputs;
  op.num_outputs = 1;
  op.attrs = attrs;
  op.num_attrs = 1;
  args->api->register_op(&op, status);
}
