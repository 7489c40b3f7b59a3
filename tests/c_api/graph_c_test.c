/* A C99 client of tgraph/c_api.h (compiled with -std=c99 -pedantic -Werror): builds a graph
 * and checks names, shapes, scopes, devices, control inputs and variables, then runs a small
 * graph in a session. Uses its own checks (not assert(), which NDEBUG removes): prints each
 * failure and exits non-zero. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgraph/c_api.h"

static int g_failures = 0;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                        \
    }                                                                      \
  } while (0)

#define CHECK_STR(actual, expected)                                                    \
  do {                                                                                 \
    const char* a_ = (actual);                                                         \
    const char* e_ = (expected);                                                       \
    if (a_ == NULL || strcmp(a_, e_) != 0) {                                           \
      fprintf(stderr, "%s:%d: expected \"%s\", got \"%s\"\n", __FILE__, __LINE__, e_, \
              a_ == NULL ? "(null)" : a_);                                             \
      ++g_failures;                                                                    \
    }                                                                                  \
  } while (0)

#define CHECK_OK(s)                                                                  \
  do {                                                                               \
    if (TG_GetCode(s) != TG_OK) {                                                    \
      fprintf(stderr, "%s:%d: status %s: %s\n", __FILE__, __LINE__,                  \
              TG_CodeName(TG_GetCode(s)), TG_Message(s));                            \
      ++g_failures;                                                                  \
    }                                                                                \
  } while (0)

static TG_Operation* make_const(TG_Graph* g, TG_Status* s, const char* name, float value,
                                const int64_t* dims, int num_dims) {
  TG_Tensor* t;
  TG_OperationDescription* d;
  TG_Operation* op;
  int64_t n = 1;
  int64_t i;
  float* p;
  for (i = 0; i < num_dims; ++i) n *= dims[i];
  t = TG_AllocateTensor(TG_FLOAT, dims, num_dims, (size_t)n * sizeof(float));
  CHECK(t != NULL);
  if (t == NULL) return NULL;
  p = (float*)TG_TensorData(t);
  for (i = 0; i < n; ++i) p[i] = value;
  d = TG_NewOperation(g, "Const", name);
  TG_SetAttrTensor(d, "value", t, s);
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  op = TG_FinishOperation(d, s);
  CHECK_OK(s);
  TG_DeleteTensor(t);
  return op;
}

static TG_Operation* binary(TG_Graph* g, TG_Status* s, const char* type, const char* name,
                            TG_Operation* a, TG_Operation* b) {
  TG_OperationDescription* d = TG_NewOperation(g, type, name);
  TG_Output in;
  in.oper = a;
  in.index = 0;
  TG_AddInput(d, in);
  in.oper = b;
  TG_AddInput(d, in);
  return TG_FinishOperation(d, s);
}

static const char* gpu_for_matmul(void* arg, const TG_Operation* op) {
  (void)arg;
  return strcmp(TG_OperationOpType(op), "MatMul") == 0 ? "/gpu:0" : NULL;
}

/* A tiny session: y = x * 2 fed from C, and a variable counter initialized and updated,
 * with a traced run. Needs the CPU plugin (its path comes from the build). */
static void run_session(TG_Status* s) {
#ifdef TGRAPH_CPU_PLUGIN_PATH
  TG_Graph* g = TG_NewGraph();
  const int64_t d2[1] = {2};
  TG_OperationDescription* d;
  TG_Operation* x;
  TG_Operation* y;
  TG_Operation* inc;
  TG_Operation* init;
  TG_Variable* v;
  TG_Tensor* zero;
  TG_Tensor* feed;
  TG_Tensor* results[2] = {NULL, NULL};
  TG_Output in;
  TG_Output outs[2];
  const TG_Operation* targets[1];
  TG_SessionOptions* opts;
  TG_Session* sess;
  TG_RunOptions* run_opts;
  TG_RunMetadata* md;
  float* p;

  TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
  CHECK_OK(s);

  d = TG_NewOperation(g, "Placeholder", "x");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_SetAttrShape(d, "shape", d2, 1);
  x = TG_FinishOperation(d, s);
  CHECK_OK(s);
  y = binary(g, s, "Mul", "y", x, make_const(g, s, "two", 2.0f, NULL, 0));
  CHECK_OK(s);
  zero = TG_AllocateTensor(TG_FLOAT, NULL, 0, sizeof(float));
  v = TG_GraphNewVariableFromTensor(g, zero, NULL, s);
  CHECK_OK(s);
  TG_DeleteTensor(zero);
  d = TG_NewOperation(g, "AssignAdd", "inc");
  TG_AddInput(d, TG_VariableOutput(v));
  in.oper = make_const(g, s, "one", 1.0f, NULL, 0);
  in.index = 0;
  TG_AddInput(d, in);
  inc = TG_FinishOperation(d, s);
  CHECK_OK(s);
  init = TG_GraphGlobalVariablesInitializer(g, s);
  CHECK_OK(s);

  opts = TG_NewSessionOptions();
  TG_SetSessionInterOpThreads(opts, 2);
  sess = TG_NewSession(g, opts, s);
  CHECK_OK(s);
  TG_DeleteSessionOptions(opts);
  CHECK(TG_SessionNumDevices(sess) >= 1);
  CHECK_STR(TG_SessionDeviceName(sess, 0), "/device:CPU:0");

  targets[0] = init;
  TG_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, s);
  CHECK_OK(s);

  feed = TG_AllocateTensor(TG_FLOAT, d2, 1, 2 * sizeof(float));
  p = (float*)TG_TensorData(feed);
  p[0] = 1.5f;
  p[1] = -4.0f;
  in.oper = x;
  in.index = 0;
  outs[0].oper = y;
  outs[0].index = 0;
  outs[1] = TG_VariableReadValue(v);
  targets[0] = inc;
  run_opts = TG_NewRunOptions();
  TG_SetRunOptionsTraceLevel(run_opts, 1);
  md = TG_NewRunMetadata();
  /* The read and the increment are unordered in one run, so read afterwards. */
  TG_SessionRun(sess, run_opts, &in, &feed, 1, outs, results, 1, targets, 1, md, s);
  CHECK_OK(s);
  CHECK(results[0] != NULL && TG_TensorElementCount(results[0]) == 2);
  if (results[0] != NULL) {
    p = (float*)TG_TensorData(results[0]);
    CHECK(p[0] == 3.0f && p[1] == -8.0f);
  }
  CHECK(TG_RunMetadataNumNodes(md) > 0);
  CHECK_STR(TG_RunMetadataNodeDevice(md, 0), "/device:CPU:0");
  TG_DeleteTensor(results[0]);
  results[0] = NULL;
  TG_SessionRun(sess, NULL, NULL, NULL, 0, &outs[1], &results[1], 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(results[1] != NULL && *(const float*)TG_TensorData(results[1]) == 1.0f);
  TG_DeleteTensor(results[1]);

  /* An unfed placeholder: INVALID_ARGUMENT naming it, and the output slot stays NULL. */
  results[0] = (TG_Tensor*)feed;
  TG_SessionRun(sess, NULL, NULL, NULL, 0, outs, results, 1, NULL, 0, NULL, s);
  CHECK(TG_GetCode(s) == TG_INVALID_ARGUMENT);
  CHECK(strstr(TG_Message(s), "x") != NULL);
  CHECK(results[0] == NULL);

  TG_CloseSession(sess, s);
  CHECK_OK(s);
  TG_SessionRun(sess, NULL, &in, &feed, 1, outs, results, 1, NULL, 0, NULL, s);
  CHECK(TG_GetCode(s) == TG_FAILED_PRECONDITION);
  TG_DeleteSession(sess, s);
  CHECK_OK(s);
  TG_DeleteRunMetadata(md);
  TG_DeleteRunOptions(run_opts);
  TG_DeleteTensor(feed);
  TG_DeleteGraph(g);
#else
  (void)s;
#endif
}

int main(void) {
  TG_Status* s = TG_NewStatus();
  TG_Graph* g = TG_NewGraph();
  const int64_t d23[2] = {2, 3};
  const int64_t d32[2] = {3, 2};
  const int64_t d42[2] = {4, 2};
  int64_t dims[2] = {0, 0};
  TG_Operation* a;
  TG_Operation* b;
  TG_Operation* c;
  TG_Operation* m;
  TG_Operation* bad;
  TG_Operation* ctl[1];
  TG_Operation* inputs[4];
  TG_Operation* init;
  TG_Variable* v;
  TG_Tensor* zero;
  TG_Output out;
  TG_Buffer* text;
  size_t pos = 0;
  int count = 0;

  CHECK(s != NULL && g != NULL);
  CHECK(TG_Version() != NULL);

  /* Default and duplicate names. */
  a = make_const(g, s, NULL, 1.0f, d23, 2);
  b = make_const(g, s, "", 2.0f, d32, 2);
  CHECK_STR(TG_OperationName(a), "Const");
  CHECK_STR(TG_OperationName(b), "Const_1");

  /* Name scopes: nested/inner/c, then inner_1, then absolute re-entry, then reset. */
  TG_GraphPushNameScope(g, "nested", s);
  CHECK_OK(s);
  TG_GraphPushNameScope(g, "inner", s);
  c = make_const(g, s, "c", 3.0f, NULL, 0);
  CHECK_STR(TG_OperationName(c), "nested/inner/c");
  TG_GraphPopNameScope(g, s);
  TG_GraphPushNameScope(g, "inner", s);
  CHECK_STR(TG_GraphCurrentNameScope(g), "nested/inner_1");
  TG_GraphPushNameScope(g, "nested/", s);
  CHECK_STR(TG_GraphCurrentNameScope(g), "nested");
  TG_GraphPushNameScope(g, "", s);
  CHECK_STR(TG_GraphCurrentNameScope(g), "");
  TG_GraphPopNameScope(g, s);
  TG_GraphPopNameScope(g, s);
  TG_GraphPopNameScope(g, s);
  TG_GraphPopNameScope(g, s);
  CHECK_OK(s);
  CHECK_STR(TG_GraphCurrentNameScope(g), "");

  /* Static shapes: [2,3] x [3,2] -> [2,2]; [2,3] x [4,2] fails naming the op. */
  m = binary(g, s, "MatMul", "m", a, b);
  CHECK_OK(s);
  CHECK(TG_GraphGetTensorNumDims(g, TG_OperationInput((TG_Input){m, 0}), s) == 2);
  out.oper = m;
  out.index = 0;
  CHECK(TG_GraphGetTensorNumDims(g, out, s) == 2);
  TG_GraphGetTensorShape(g, out, dims, 2, s);
  CHECK_OK(s);
  CHECK(dims[0] == 2 && dims[1] == 2);
  bad = binary(g, s, "MatMul", "bad_matmul", a, make_const(g, s, "d42", 1.0f, d42, 2));
  CHECK(bad == NULL);
  CHECK(TG_GetCode(s) == TG_INVALID_ARGUMENT);
  CHECK(strstr(TG_Message(s), "bad_matmul") != NULL);
  CHECK(TG_GraphOperationByName(g, "bad_matmul") == NULL);

  /* Devices: canonical strings and a device function. */
  TG_GraphPushDevice(g, "/gpu:1", s);
  CHECK_OK(s);
  c = make_const(g, s, "on_gpu", 0.0f, NULL, 0);
  CHECK_STR(TG_OperationDevice(c), "/device:GPU:1");
  TG_GraphPopDevice(g, s);
  TG_GraphPushDeviceFunction(g, gpu_for_matmul, NULL, s);
  CHECK_OK(s);
  m = binary(g, s, "MatMul", "m2", a, b);
  CHECK_OK(s);
  CHECK_STR(TG_OperationDevice(m), "/device:GPU:0");
  TG_GraphPopDevice(g, s);
  CHECK_OK(s);

  /* Control dependencies apply to ops made inside only. */
  ctl[0] = a;
  TG_GraphPushControlDependencies(g, ctl, 1, s);
  CHECK_OK(s);
  c = make_const(g, s, "after_a", 0.0f, NULL, 0);
  TG_GraphPopControlDependencies(g, s);
  CHECK(TG_OperationNumControlInputs(c) == 1);
  CHECK(TG_OperationGetControlInputs(c, inputs, 4) == 1);
  CHECK(inputs[0] == a);
  c = make_const(g, s, "free", 0.0f, NULL, 0);
  CHECK(TG_OperationNumControlInputs(c) == 0);

  /* A variable and the initializer. */
  zero = TG_AllocateTensor(TG_FLOAT, d32, 2, 6 * sizeof(float));
  v = TG_GraphNewVariableFromTensor(g, zero, NULL, s);
  CHECK_OK(s);
  TG_DeleteTensor(zero);
  CHECK_STR(TG_VariableName(v), "Variable");
  CHECK_STR(TG_OperationName(TG_VariableInitializer(v)), "Variable/Assign");
  CHECK_STR(TG_OperationName(TG_VariableReadValue(v).oper), "Variable/read");
  CHECK(TG_OperationOutputType(TG_VariableOutput(v)) == TG_FLOAT_REF);
  init = TG_GraphGlobalVariablesInitializer(g, s);
  CHECK_OK(s);
  CHECK_STR(TG_OperationName(init), "init");
  CHECK(TG_OperationGetControlInputs(init, inputs, 4) == 1);
  CHECK(inputs[0] == TG_VariableInitializer(v));

  /* Walk the graph in creation order. */
  while (TG_GraphNextOperation(g, &pos) != NULL) ++count;
  CHECK(count == TG_GraphNumOperations(g));

  /* Text export. */
  text = TG_NewBuffer();
  TG_GraphToGraphDefText(g, text, s);
  CHECK_OK(s);
  CHECK(text->length > 0);
  TG_DeleteBuffer(text);

  /* Bad input: a NULL graph yields INVALID_ARGUMENT, not a crash. */
  TG_GraphPushNameScope(NULL, "x", s);
  CHECK(TG_GetCode(s) == TG_INVALID_ARGUMENT);

  /* Finalize. */
  TG_GraphFinalize(g);
  CHECK(TG_GraphIsFinalized(g) == 1);
  c = make_const(g, NULL, "late", 0.0f, NULL, 0); /* NULL status: tolerated */
  CHECK(c == NULL);
  CHECK(TG_GraphOperationByName(g, "late") == NULL);

  TG_DeleteGraph(g);
  run_session(s);
  TG_DeleteStatus(s);
  if (g_failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  printf("graph_c_test: all checks passed\n");
  return 0;
}
