/* A plugin built against the frozen first-release header (abi_v1/include) only, in C.
 * TestV1Negate: y = -x for float and double, with a shape function and a CPU kernel that
 * forwards its input buffer when it can and splits the work with parallel_for. */
#include <string.h>

#include "tgraph/plugin.h"

static const TG_CoreApi* api;

static void NegateShape(TG_ShapeContext* ctx, void* user_data, TG_Status* status) {
  int rank = api->shape_input_rank(ctx, 0);
  int64_t dims[8];
  int i;
  (void)user_data;
  if (rank < 0) {
    api->shape_set_output(ctx, 0, NULL, -1);
    return;
  }
  if (rank > 8) {
    api->set_status(status, TG_UNIMPLEMENTED, "TestV1Negate: rank > 8");
    return;
  }
  for (i = 0; i < rank; ++i) dims[i] = api->shape_input_dim(ctx, 0, i);
  api->shape_set_output(ctx, 0, dims, rank);
}

struct NegateArgs {
  const void* in;
  void* out;
  int is_double;
};

static void NegateRange(void* arg, int64_t begin, int64_t end) {
  const struct NegateArgs* a = (const struct NegateArgs*)arg;
  int64_t i;
  if (a->is_double) {
    for (i = begin; i < end; ++i) ((double*)a->out)[i] = -((const double*)a->in)[i];
  } else {
    for (i = begin; i < end; ++i) ((float*)a->out)[i] = -((const float*)a->in)[i];
  }
}

static int g_state_marker;

static void* NegateCreate(TG_KernelConstruction* ctx, void* user_data, TG_Status* status) {
  (void)ctx;
  (void)status;
  return user_data; /* &g_state_marker: checked in compute */
}

static void NegateCompute(void* kernel, TG_KernelContext* ctx) {
  const TG_Tensor* x = api->input(ctx, 0);
  int rank = api->tensor_num_dims(x);
  int64_t dims[8];
  TG_Tensor* y;
  struct NegateArgs args;
  int i;
  if (kernel != &g_state_marker) {
    api->set_status(api->context_status(ctx), TG_INTERNAL, "TestV1Negate: lost its state");
    return;
  }
  for (i = 0; i < rank && i < 8; ++i) dims[i] = api->tensor_dim(x, i);
  y = api->forward_input_to_output(ctx, 0, 0, dims, rank);
  if (y == NULL) y = api->allocate_output(ctx, 0, dims, rank, api->context_status(ctx));
  if (y == NULL) return;
  args.in = api->tensor_data(x);
  args.out = api->tensor_data(y);
  args.is_double = api->tensor_dtype(x) == TG_DOUBLE;
  api->parallel_for(api->intra_op_pool(ctx), api->tensor_num_elements(x), 1.0, NegateRange, &args);
}

TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  static const char* const inputs[] = {"x: T"};
  static const char* const outputs[] = {"y: T"};
  static const char* const attrs[] = {"T: {float, double}"};
  static const TG_DataType types[] = {TG_FLOAT, TG_DOUBLE};
  TG_OpDefinition op;
  TG_TypeConstraint constraint;
  TG_KernelDefinition kernel;
  api = args->api;
  if (args->info->struct_size >= sizeof(TG_PluginInfo)) {
    args->info->name = "test_abi_v1";
    args->info->version = "1.0.0";
    args->info->abi_version = TG_PLUGIN_ABI_VERSION;
  }
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "TestV1Negate";
  op.inputs = inputs;
  op.num_inputs = 1;
  op.outputs = outputs;
  op.num_outputs = 1;
  op.attrs = attrs;
  op.num_attrs = 1;
  op.summary = "y = -x (built against the first released plugin ABI)";
  op.shape_fn = NegateShape;
  api->register_op(&op, status);
  if (api->status_code(status) != TG_OK) return;

  memset(&constraint, 0, sizeof constraint);
  constraint.struct_size = sizeof constraint;
  constraint.attr_name = "T";
  constraint.allowed = types;
  constraint.num_allowed = 2;
  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof kernel;
  kernel.op_type = "TestV1Negate";
  kernel.device_type = "CPU";
  kernel.type_constraints = &constraint;
  kernel.num_type_constraints = 1;
  kernel.create = NegateCreate;
  kernel.compute = NegateCompute;
  kernel.user_data = &g_state_marker;
  kernel.cost_ns_per_element = 1.0;
  api->register_kernel(&kernel, status);
}
