/* Helpers shared by the training examples; see example_util.h. */
#define _POSIX_C_SOURCE 199309L

#include "example_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

TG_Status* ex_status = NULL;
static const char* g_program = "example";

void ex_die(const char* fmt, ...) {
  va_list args;
  fprintf(stderr, "%s: ", g_program);
  va_start(args, fmt);
  vfprintf(stderr, fmt, args);
  va_end(args);
  fputc('\n', stderr);
  exit(1);
}

void ex_check(const char* what) {
  if (TG_GetCode(ex_status) != TG_OK) {
    ex_die("%s failed: %s: %s", what, TG_CodeName(TG_GetCode(ex_status)),
           TG_Message(ex_status));
  }
}

void ex_init(const char* program) {
  g_program = program;
  ex_status = TG_NewStatus();
  if (ex_status == NULL) ex_die("out of memory");
  TG_LoadPluginsFromSearchPath(ex_status);
  if (TG_GetCode(ex_status) != TG_OK) {
    /* A plugin that fails to load leaves the others usable (e.g. a GPU plugin on a machine
     * without the driver); only finding none at all is fatal. */
    fprintf(stderr, "%s: warning: some plugins failed to load: %s\n", program,
            TG_Message(ex_status));
    TG_SetStatus(ex_status, TG_OK, NULL);
  }
  if (TG_NumPlugins() == 0) ex_die("no plugin found on the search path");
}

void ex_shutdown(void) {
  TG_DeleteStatus(ex_status);
  ex_status = NULL;
}

TG_OperationDescription* ex_begin(TG_Graph* g, const char* type, const char* name) {
  return TG_NewOperation(g, type, name);
}

TG_Output ex_out(TG_Operation* op, int index) {
  TG_Output out;
  out.oper = op;
  out.index = index;
  return out;
}

TG_Output ex_finish(TG_OperationDescription* d) {
  TG_Operation* op = TG_FinishOperation(d, ex_status);
  ex_check("building an operation");
  return ex_out(op, 0);
}

TG_Output ex_unary(TG_Graph* g, const char* type, const char* name, TG_Output x) {
  TG_OperationDescription* d = ex_begin(g, type, name);
  TG_AddInput(d, x);
  return ex_finish(d);
}

TG_Output ex_binary(TG_Graph* g, const char* type, const char* name, TG_Output a, TG_Output b) {
  TG_OperationDescription* d = ex_begin(g, type, name);
  TG_AddInput(d, a);
  TG_AddInput(d, b);
  return ex_finish(d);
}

TG_Output ex_placeholder(TG_Graph* g, const char* name, TG_DataType dtype, const int64_t* dims,
                         int num_dims) {
  TG_OperationDescription* d = ex_begin(g, "Placeholder", name);
  TG_SetAttrType(d, "dtype", dtype);
  TG_SetAttrShape(d, "shape", dims, num_dims);
  return ex_finish(d);
}

TG_Output ex_const(TG_Graph* g, const char* name, const TG_Tensor* value) {
  TG_OperationDescription* d = ex_begin(g, "Const", name);
  TG_SetAttrType(d, "dtype", TG_TensorType(value));
  TG_SetAttrTensor(d, "value", value, ex_status);
  ex_check("Const value");
  return ex_finish(d);
}

static TG_Output scalar_const(TG_Graph* g, const char* name, TG_DataType dtype,
                              const void* value) {
  TG_Tensor* t = ex_tensor(dtype, NULL, 0, value);
  TG_Output out = ex_const(g, name, t);
  TG_DeleteTensor(t);
  return out;
}

TG_Output ex_const_int32(TG_Graph* g, const char* name, int32_t value) {
  return scalar_const(g, name, TG_INT32, &value);
}

TG_Output ex_const_float(TG_Graph* g, const char* name, float value) {
  return scalar_const(g, name, TG_FLOAT, &value);
}

TG_Output ex_const_int32_vector(TG_Graph* g, const char* name, const int32_t* values, int n) {
  const int64_t dims[1] = {n};
  TG_Tensor* t = ex_tensor(TG_INT32, dims, 1, values);
  TG_Output out = ex_const(g, name, t);
  TG_DeleteTensor(t);
  return out;
}

TG_Output ex_matmul(TG_Graph* g, const char* name, TG_Output a, TG_Output b, int transpose_a,
                    int transpose_b) {
  TG_OperationDescription* d = ex_begin(g, "MatMul", name);
  TG_AddInput(d, a);
  TG_AddInput(d, b);
  TG_SetAttrBool(d, "transpose_a", (unsigned char)(transpose_a != 0));
  TG_SetAttrBool(d, "transpose_b", (unsigned char)(transpose_b != 0));
  return ex_finish(d);
}

TG_Output ex_reduce(TG_Graph* g, const char* type, const char* name, TG_Output x,
                    const int32_t* axes, int num_axes) {
  TG_Output axis = ex_const_int32_vector(g, NULL, axes, num_axes);
  return ex_binary(g, type, name, x, axis);
}

TG_Output ex_reshape(TG_Graph* g, const char* name, TG_Output x, const int32_t* dims,
                     int num_dims) {
  TG_Output shape = ex_const_int32_vector(g, NULL, dims, num_dims);
  return ex_binary(g, "Reshape", name, x, shape);
}

TG_Output ex_gather(TG_Graph* g, const char* name, TG_Output params, TG_Output indices) {
  TG_OperationDescription* d = ex_begin(g, "GatherV2", name);
  TG_AddInput(d, params);
  TG_AddInput(d, indices);
  TG_AddInput(d, ex_const_int32(g, NULL, 0));
  return ex_finish(d);
}

TG_Tensor* ex_tensor(TG_DataType dtype, const int64_t* dims, int num_dims, const void* data) {
  size_t count = 1;
  size_t bytes;
  int i;
  TG_Tensor* t;
  for (i = 0; i < num_dims; ++i) count *= (size_t)dims[i];
  bytes = count * TG_DataTypeSize(dtype);
  t = TG_AllocateTensor(dtype, dims, num_dims, bytes);
  if (t == NULL) ex_die("cannot allocate a tensor of %zu bytes", bytes);
  if (data != NULL && bytes > 0) memcpy(TG_TensorData(t), data, bytes);
  return t;
}

TG_Variable* ex_variable(TG_Graph* g, const char* name, const TG_Tensor* init) {
  TG_VariableOptions opts;
  TG_Variable* v;
  TG_InitVariableOptions(&opts);
  opts.name = name;
  v = TG_GraphNewVariableFromTensor(g, init, &opts, ex_status);
  ex_check(name);
  return v;
}

TG_Variable* ex_variable_with_init(TG_Graph* g, const char* name, const TG_Initializer* init,
                                   const int64_t* dims, int num_dims) {
  TG_VariableOptions opts;
  TG_Variable* v;
  TG_InitVariableOptions(&opts);
  opts.name = name;
  v = TG_GraphNewVariableWithInit(g, init, TG_FLOAT, dims, num_dims, &opts, ex_status);
  ex_check(name);
  return v;
}

void ex_run(TG_Session* s, const TG_Output* inputs, TG_Tensor* const* values, int ninputs,
            const TG_Output* outputs, TG_Tensor** output_values, int noutputs,
            const TG_Operation* const* targets, int ntargets, const char* what) {
  TG_SessionRun(s, NULL, inputs, values, ninputs, outputs, output_values, noutputs, targets,
                ntargets, NULL, ex_status);
  ex_check(what);
}

uint64_t ex_rng_next(ex_rng* r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double ex_rng_uniform(ex_rng* r) {
  /* The top 53 bits, scaled by 2^-53. */
  return (double)(ex_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

uint32_t ex_rng_below(ex_rng* r, uint32_t n) {
  /* The bias of a 64-bit value modulo n < 2^32 is below 2^-32: irrelevant here. */
  return (uint32_t)(ex_rng_next(r) % n);
}

void ex_shuffle_int32(ex_rng* r, int32_t* values, int64_t n) {
  int64_t i;
  for (i = n - 1; i > 0; --i) {
    const int64_t j = (int64_t)(ex_rng_next(r) % (uint64_t)(i + 1));
    const int32_t tmp = values[i];
    values[i] = values[j];
    values[j] = tmp;
  }
}

size_t ex_write_graph_def(TG_Graph* g, const char* path) {
  TG_Buffer* buffer = TG_NewBuffer();
  FILE* f;
  size_t length;
  int failed;
  if (buffer == NULL) ex_die("out of memory");
  TG_GraphToGraphDef(g, buffer, ex_status);
  ex_check("TG_GraphToGraphDef");
  length = buffer->length;
  f = fopen(path, "wb");
  failed = f == NULL || fwrite(buffer->data, 1, length, f) != length;
  if (f != NULL) failed |= fclose(f) != 0;
  TG_DeleteBuffer(buffer);
  if (failed) ex_die("cannot write the graph to %s: %s", path, strerror(errno));
  return length;
}

double ex_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long ex_parse_long(const char* option, const char* value) {
  char* end = NULL;
  long v;
  if (value == NULL) ex_die("%s needs a value", option);
  errno = 0;
  v = strtol(value, &end, 10);
  if (errno != 0 || end == value || *end != '\0' || v < 0) {
    ex_die("%s: expected a non-negative integer, got \"%s\"", option, value);
  }
  return v;
}

double ex_parse_double(const char* option, const char* value) {
  char* end = NULL;
  double v;
  if (value == NULL) ex_die("%s needs a value", option);
  errno = 0;
  v = strtod(value, &end);
  if (errno != 0 || end == value || *end != '\0') {
    ex_die("%s: expected a number, got \"%s\"", option, value);
  }
  return v;
}
