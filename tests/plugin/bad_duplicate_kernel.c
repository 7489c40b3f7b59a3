/* Registers the same kernel (op, device, constraints, priority) twice. */
#include <string.h>

#include "tgraph/plugin.h"

static void Compute(void* kernel, TG_KernelContext* ctx) {
  (void)kernel;
  (void)ctx;
}

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  static const char* const inputs[] = {"x: T"};
  static const char* const outputs[] = {"y: T"};
  static const char* const attrs[] = {"T: {float, double}"};
  static const TG_DataType floats[] = {TG_FLOAT};
  TG_OpDefinition op;
  TG_TypeConstraint constraint;
  TG_KernelDefinition kernel;
  int i;
  args->info->name = "test_duplicate_kernel";
  args->info->version = "0.1";
  args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "TestDupKernelOp";
  op.inputs = inputs;
  op.num_inputs = 1;
  op.outputs = outputs;
  op.num_outputs = 1;
  op.attrs = attrs;
  op.num_attrs = 1;
  args->api->register_op(&op, status);
  if (args->api->status_code(status) != TG_OK) return;
  memset(&constraint, 0, sizeof constraint);
  constraint.struct_size = sizeof constraint;
  constraint.attr_name = "T";
  constraint.allowed = floats;
  constraint.num_allowed = 1;
  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof kernel;
  kernel.op_type = "TestDupKernelOp";
  kernel.device_type = "CPU";
  kernel.type_constraints = &constraint;
  kernel.num_type_constraints = 1;
  kernel.compute = Compute;
  for (i = 0; i < 2; ++i) {
    args->api->register_kernel(&kernel, status);
    if (args->api->status_code(status) != TG_OK) return;
  }
}
