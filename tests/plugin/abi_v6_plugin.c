/* A plugin built against the frozen ABI 6 header (abi_v6/include) only, in C: what a plugin
 * written just before ABI 7 looks like.
 *   TestV6Double  doubles its ref input's variable in place (mutable_ref_input) and outputs
 *                 the variable's first element after that (float scalar). Its shape
 *                 function uses shape_input_type (ABI 6). */
#include <string.h>

#include "tgraph/plugin.h"

static const TG_CoreApi* api;

static void ScalarShape(TG_ShapeContext* ctx, void* user_data, TG_Status* status) {
  (void)user_data;
  if (api->shape_input_type(ctx, 0) != TG_FLOAT) {
    api->set_status(status, TG_INVALID_ARGUMENT, "TestV6Double: input 0 must be a float variable");
    return;
  }
  api->shape_set_output(ctx, 0, NULL, 0);
}

static void DoubleCompute(void* kernel, TG_KernelContext* ctx) {
  TG_Status* status = api->context_status(ctx);
  TG_Tensor* var;
  TG_Tensor* out;
  float* v;
  int64_t i, n;
  (void)kernel;
  var = api->mutable_ref_input(ctx, 0, status);
  if (var == NULL) return;
  v = (float*)api->tensor_data(var);
  n = api->tensor_num_elements(var);
  for (i = 0; i < n; ++i) v[i] *= 2.0f;
  out = api->allocate_output(ctx, 0, NULL, 0, status);
  if (out == NULL) return;
  *(float*)api->tensor_data(out) = n > 0 ? v[0] : 0.0f;
}

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  const char* inputs[1] = {"ref: Ref(float)"};
  const char* outputs[1] = {"first: float"};
  TG_OpDefinition op;
  TG_KernelDefinition kernel;
  api = args->api;
  if (args->info->struct_size >= sizeof(TG_PluginInfo)) {
    args->info->name = "test_abi_v6";
    args->info->version = "6.0.0";
    args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  }
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "TestV6Double";
  op.inputs = inputs;
  op.num_inputs = 1;
  op.outputs = outputs;
  op.num_outputs = 1;
  op.shape_fn = ScalarShape;
  op.is_stateful = 1;
  api->register_op(&op, status);
  if (api->status_code(status) != TG_OK) return;
  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof kernel;
  kernel.op_type = "TestV6Double";
  kernel.device_type = "CPU";
  kernel.compute = DoubleCompute;
  api->register_kernel(&kernel, status);
}
