/* A plugin that replaces another plugin's kernel on purpose: a float-only CPU kernel for
 * TestV1Negate (defined by tg_test_abi_v1) at priority 5. It computes the same y = -x, so
 * loading it changes no result; the core must say that it overrides the old kernel. */
#include <string.h>

#include "tgraph/plugin.h"

static const TG_CoreApi* api;

static void NegateCompute(void* kernel, TG_KernelContext* ctx) {
  const TG_Tensor* x = api->input(ctx, 0);
  int rank = api->tensor_num_dims(x);
  int64_t dims[8];
  int64_t i, n;
  TG_Tensor* y;
  (void)kernel;
  if (rank > 8) {
    api->set_status(api->context_status(ctx), TG_UNIMPLEMENTED, "TestV1Negate: rank > 8");
    return;
  }
  for (i = 0; i < rank; ++i) dims[i] = api->tensor_dim(x, (int)i);
  y = api->allocate_output(ctx, 0, dims, rank, api->context_status(ctx));
  if (y == NULL) return;
  n = api->tensor_num_elements(x);
  for (i = 0; i < n; ++i) ((float*)api->tensor_data(y))[i] = -((const float*)api->tensor_data(x))[i];
}

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  static const TG_DataType types[] = {TG_FLOAT};
  TG_TypeConstraint constraint;
  TG_KernelDefinition kernel;
  api = args->api;
  args->info->name = "test_override";
  args->info->version = "0.1";
  args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  memset(&constraint, 0, sizeof constraint);
  constraint.struct_size = sizeof constraint;
  constraint.attr_name = "T";
  constraint.allowed = types;
  constraint.num_allowed = 1;
  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof kernel;
  kernel.op_type = "TestV1Negate";
  kernel.device_type = "CPU";
  kernel.type_constraints = &constraint;
  kernel.num_type_constraints = 1;
  kernel.compute = NegateCompute;
  kernel.priority = 5;
  api->register_kernel(&kernel, status);
}
