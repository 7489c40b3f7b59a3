/* A plugin built against the frozen ABI 7 header (abi_v7/include) only, in C: what a plugin
 * written just before ABI 8 looks like.
 *   TestV7Version  outputs the input_version (ABI 7) of its float input, as an int64 scalar.
 *                  Its kernel's create checks the input's dtype (an ABI 1 getter) and its
 *                  shape function reads the input's partial shape (ABI 6). */
#include <string.h>

#include "tgraph/plugin.h"

static const TG_CoreApi* api;

static void ScalarShape(TG_ShapeContext* ctx, void* user_data, TG_Status* status) {
  int64_t dims[4];
  (void)user_data;
  if (api->shape_input_type(ctx, 0) != TG_FLOAT) {
    api->set_status(status, TG_INVALID_ARGUMENT, "TestV7Version: input 0 must be float");
    return;
  }
  (void)api->shape_input_shape(ctx, 0, dims, 4);
  api->shape_set_output(ctx, 0, NULL, 0);
}

static int kState;

static void* VersionCreate(TG_KernelConstruction* ctx, void* user_data, TG_Status* status) {
  (void)user_data;
  if (api->construction_input_type(ctx, 0) != TG_FLOAT) {
    api->set_status(status, TG_INVALID_ARGUMENT, "TestV7Version: a float input");
    return NULL;
  }
  return &kState;
}

static void VersionCompute(void* kernel, TG_KernelContext* ctx) {
  TG_Status* status = api->context_status(ctx);
  TG_Tensor* out;
  const uint64_t version = api->input_version(ctx, 0);
  (void)kernel;
  out = api->allocate_output(ctx, 0, NULL, 0, status);
  if (out == NULL) return;
  *(int64_t*)api->tensor_data(out) = (int64_t)version;
}

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  const char* inputs[1] = {"x: float"};
  const char* outputs[1] = {"version: int64"};
  TG_OpDefinition op;
  TG_KernelDefinition kernel;
  api = args->api;
  if (args->info->struct_size >= sizeof(TG_PluginInfo)) {
    args->info->name = "test_abi_v7";
    args->info->version = "7.0.0";
    args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  }
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "TestV7Version";
  op.inputs = inputs;
  op.num_inputs = 1;
  op.outputs = outputs;
  op.num_outputs = 1;
  op.shape_fn = ScalarShape;
  op.is_stateful = 1; /* never folded as a constant nor merged with another */
  api->register_op(&op, status);
  if (api->status_code(status) != TG_OK) return;
  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof kernel;
  kernel.op_type = "TestV7Version";
  kernel.device_type = "CPU";
  kernel.create = VersionCreate;
  kernel.compute = VersionCompute;
  api->register_kernel(&kernel, status);
}
