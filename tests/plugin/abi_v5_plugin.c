/* A plugin built against the frozen ABI 5 header (abi_v5/include) only, in C: what a plugin
 * written just before ABI 6 looks like.
 *   TestV5Square   y = x * x (float), a shape function and a CPU kernel reading its input
 *                  with input_info (ABI 4).
 *   TestV5RefInit  whether its ref input's variable is initialized (bool scalar). Its
 *                  TG_OpDefinition predates allows_uninitialized_input, so the core must
 *                  read that field as absent: an uninitialized variable fails the node
 *                  before compute. */
#include <string.h>

#include "tgraph/plugin.h"

static const TG_CoreApi* api;

static void SquareShape(TG_ShapeContext* ctx, void* user_data, TG_Status* status) {
  int rank = api->shape_input_rank(ctx, 0);
  int64_t dims[8];
  int i;
  (void)user_data;
  if (rank < 0) {
    api->shape_set_output(ctx, 0, NULL, -1);
    return;
  }
  if (rank > 8) {
    api->set_status(status, TG_UNIMPLEMENTED, "TestV5Square: rank > 8");
    return;
  }
  for (i = 0; i < rank; ++i) dims[i] = api->shape_input_dim(ctx, 0, i);
  api->shape_set_output(ctx, 0, dims, rank);
}

static void SquareCompute(void* kernel, TG_KernelContext* ctx) {
  TG_TensorInfo info;
  TG_Tensor* y;
  const float* in;
  float* out;
  int64_t i;
  (void)kernel;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (api->input_info(ctx, 0, &info) == NULL) return;
  y = api->allocate_output(ctx, 0, info.dims, info.num_dims, api->context_status(ctx));
  if (y == NULL) return;
  in = (const float*)info.data;
  out = (float*)api->tensor_data(y);
  for (i = 0; i < info.num_elements; ++i) out[i] = in[i] * in[i];
}

static void ScalarShape(TG_ShapeContext* ctx, void* user_data, TG_Status* status) {
  (void)user_data;
  (void)status;
  api->shape_set_output(ctx, 0, NULL, 0);
}

static void RefInitCompute(void* kernel, TG_KernelContext* ctx) {
  TG_Tensor* out = api->allocate_output(ctx, 0, NULL, 0, api->context_status(ctx));
  (void)kernel;
  if (out == NULL) return;
  *(unsigned char*)api->tensor_data(out) = api->is_ref_initialized(ctx, 0) ? 1 : 0;
}

static void RegisterOp(const char* name, const char* input, const char* output,
                       TG_ShapeFunction shape_fn, TG_Status* status) {
  const char* inputs[1];
  const char* outputs[1];
  TG_OpDefinition op;
  inputs[0] = input;
  outputs[0] = output;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = name;
  op.inputs = inputs;
  op.num_inputs = 1;
  op.outputs = outputs;
  op.num_outputs = 1;
  op.shape_fn = shape_fn;
  api->register_op(&op, status);
}

static void RegisterKernel(const char* op_type, TG_KernelComputeFn compute, TG_Status* status) {
  TG_KernelDefinition kernel;
  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof kernel;
  kernel.op_type = op_type;
  kernel.device_type = "CPU";
  kernel.compute = compute;
  api->register_kernel(&kernel, status);
}

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  api = args->api;
  if (args->info->struct_size >= sizeof(TG_PluginInfo)) {
    args->info->name = "test_abi_v5";
    args->info->version = "5.0.0";
    args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  }
  RegisterOp("TestV5Square", "x: float", "y: float", SquareShape, status);
  if (api->status_code(status) != TG_OK) return;
  RegisterKernel("TestV5Square", SquareCompute, status);
  if (api->status_code(status) != TG_OK) return;
  RegisterOp("TestV5RefInit", "ref: Ref(float)", "initialized: bool", ScalarShape, status);
  if (api->status_code(status) != TG_OK) return;
  RegisterKernel("TestV5RefInit", RefInitCompute, status);
}
