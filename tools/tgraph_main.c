/* tgraph: the main-job program. A client of the C API only, in two parts:
 *   1. builds a small graph (name scopes, a placeholder, a variable, a matmul, a control
 *      dependency, a device scope) and prints it as a text-format GraphDef on stdout;
 *   2. loads the plugins found on the search path, builds a two-layer MLP forward pass with
 *      variables, initializes them in a session, runs the forward pass on a fixed batch with
 *      tracing, prints the probabilities and the per-node step stats, and checks the
 *      probabilities against the same MLP computed here in plain C.
 * On any failure it prints the status message on stderr and exits non-zero. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgraph/c_api.h"

static TG_Status* g_status = NULL;

/* Exits with the status message when the last call failed. */
static void check(const char* what) {
  if (TG_GetCode(g_status) != TG_OK) {
    fprintf(stderr, "tgraph: %s failed: %s: %s\n", what, TG_CodeName(TG_GetCode(g_status)),
            TG_Message(g_status));
    TG_DeleteStatus(g_status);
    exit(1);
  }
}

static TG_Operation* placeholder(TG_Graph* g, const char* name, const int64_t* dims, int n) {
  TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", name);
  TG_Operation* op;
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_SetAttrShape(d, "shape", dims, n);
  op = TG_FinishOperation(d, g_status);
  check("Placeholder");
  return op;
}

static TG_Operation* unary(TG_Graph* g, const char* type, const char* name, TG_Output in) {
  TG_OperationDescription* d = TG_NewOperation(g, type, name);
  TG_Operation* op;
  TG_AddInput(d, in);
  op = TG_FinishOperation(d, g_status);
  check(type);
  return op;
}

/* ---- part 2: an MLP forward pass in a session ---- */

/* Sizes of the MLP: a batch of MLP_N rows of MLP_IN features -> MLP_HIDDEN (ReLU) ->
 * MLP_OUT classes (softmax). */
#define MLP_N 4
#define MLP_IN 4
#define MLP_HIDDEN 8
#define MLP_OUT 3

/* Fixed, varied values (no random numbers: the output must be the same on every run and
 * platform). `salt` makes each array different. */
static void fill_values(float* values, int count, int salt) {
  int i;
  for (i = 0; i < count; ++i) values[i] = 0.125f * (float)(((i * 7 + salt * 3) % 11) - 5);
}

/* A float tensor holding a copy of values[0, product(dims)). */
static TG_Tensor* float_tensor(const int64_t* dims, int num_dims, const float* values) {
  size_t count = 1;
  int i;
  TG_Tensor* t;
  for (i = 0; i < num_dims; ++i) count *= (size_t)dims[i];
  t = TG_AllocateTensor(TG_FLOAT, dims, num_dims, count * sizeof(float));
  if (t == NULL) {
    fprintf(stderr, "tgraph: cannot allocate a tensor of %zu floats\n", count);
    exit(1);
  }
  memcpy(TG_TensorData(t), values, count * sizeof(float));
  return t;
}

/* A variable `name` (in the current name scope) with the given initial value. */
static TG_Variable* variable(TG_Graph* g, const char* name, const int64_t* dims, int num_dims,
                             const float* values) {
  TG_VariableOptions opts;
  TG_Variable* v;
  TG_Tensor* init = float_tensor(dims, num_dims, values);
  TG_InitVariableOptions(&opts);
  opts.name = name;
  v = TG_GraphNewVariableFromTensor(g, init, &opts, g_status);
  TG_DeleteTensor(init);
  check(name);
  return v;
}

static TG_Output binary(TG_Graph* g, const char* type, const char* name, TG_Output a,
                        TG_Output b) {
  TG_OperationDescription* d = TG_NewOperation(g, type, name);
  TG_Output out;
  TG_AddInput(d, a);
  TG_AddInput(d, b);
  out.oper = TG_FinishOperation(d, g_status);
  out.index = 0;
  check(type);
  return out;
}

static TG_Output output0(TG_Operation* op) {
  TG_Output out;
  out.oper = op;
  out.index = 0;
  return out;
}

/* One dense layer, in name scope `scope`: act(x @ W + b), act "Relu", "Softmax" or NULL. */
static TG_Output dense(TG_Graph* g, const char* scope, TG_Output x, int in, int out,
                       const float* w_values, const float* b_values, const char* act) {
  const int64_t w_dims[2] = {in, out};
  const int64_t b_dims[1] = {out};
  TG_Variable* w;
  TG_Variable* b;
  TG_Output y;
  TG_GraphPushNameScope(g, scope, g_status);
  check("name_scope");
  w = variable(g, "W", w_dims, 2, w_values);
  b = variable(g, "b", b_dims, 1, b_values);
  y = binary(g, "MatMul", "MatMul", x, TG_VariableReadValue(w));
  y = binary(g, "BiasAdd", "BiasAdd", y, TG_VariableReadValue(b));
  if (act != NULL) y = output0(unary(g, act, act, y));
  TG_GraphPopNameScope(g, g_status);
  check("pop name_scope");
  return y;
}

/* e^x to double precision for the reference softmax, without libm (the program links
 * libtgraph only): halve x until it is small, sum the Taylor series, square back. */
static double exp_ref(double x) {
  double term = 1.0, sum = 1.0;
  int halvings = 0, k;
  while (x > 0.5 || x < -0.5) {
    x *= 0.5;
    ++halvings;
  }
  for (k = 1; k < 20; ++k) {
    term *= x / k;
    sum += term;
  }
  while (halvings-- > 0) sum *= sum;
  return sum;
}

/* The same forward pass in plain C, for checking what the session computed. */
static void reference_mlp(const float* x, const float* w1, const float* b1, const float* w2,
                          const float* b2, float* probs) {
  float h[MLP_N][MLP_HIDDEN];
  int n, i, j;
  for (n = 0; n < MLP_N; ++n) {
    float logits[MLP_OUT];
    float max_logit, sum = 0.0f;
    for (j = 0; j < MLP_HIDDEN; ++j) {
      float acc = b1[j];
      for (i = 0; i < MLP_IN; ++i) acc += x[n * MLP_IN + i] * w1[i * MLP_HIDDEN + j];
      h[n][j] = acc > 0.0f ? acc : 0.0f;
    }
    for (j = 0; j < MLP_OUT; ++j) {
      float acc = b2[j];
      for (i = 0; i < MLP_HIDDEN; ++i) acc += h[n][i] * w2[i * MLP_OUT + j];
      logits[j] = acc;
    }
    max_logit = logits[0];
    for (j = 1; j < MLP_OUT; ++j) max_logit = logits[j] > max_logit ? logits[j] : max_logit;
    for (j = 0; j < MLP_OUT; ++j) sum += (float)exp_ref((double)(logits[j] - max_logit));
    for (j = 0; j < MLP_OUT; ++j) {
      probs[n * MLP_OUT + j] = (float)exp_ref((double)(logits[j] - max_logit)) / sum;
    }
  }
}

/* Loads the plugins on the search path. In the build tree that is plugins/ next to
 * c_api/libtgraph.so; TGRAPH_PLUGIN_PATH can add others. A plugin that fails to load is
 * reported but not fatal (the others stay usable, as the design wants); finding no plugin
 * at all is, since nothing could run. */
static void load_plugins(void) {
  int loaded, i;
  loaded = TG_LoadPluginsFromSearchPath(g_status);
  if (TG_GetCode(g_status) != TG_OK) {
    fprintf(stderr, "tgraph: warning: some plugins failed to load: %s: %s\n",
            TG_CodeName(TG_GetCode(g_status)), TG_Message(g_status));
    TG_SetStatus(g_status, TG_OK, NULL);
  }
  if (TG_NumPlugins() == 0) {
    TG_Buffer* path = TG_NewBuffer();
    TG_GetPluginSearchPath(path, g_status);
    fprintf(stderr, "tgraph: no plugin found on the search path \"%.*s\"\n",
            (int)path->length, (const char*)path->data);
    TG_DeleteBuffer(path);
    exit(1);
  }
  printf("plugins: %d loaded\n", loaded);
  for (i = 0; i < TG_NumPlugins(); ++i) {
    const TG_Plugin* p = TG_GetPlugin(i);
    printf("  %s %s (ABI %u): %d ops, %d kernels, %d devices -- %s\n", TG_PluginName(p),
           TG_PluginVersion(p), (unsigned)TG_PluginAbiVersion(p), TG_PluginNumOps(p),
           TG_PluginNumKernels(p), TG_PluginNumDevices(p), TG_PluginFile(p));
  }
}

static void print_step_stats(const TG_RunMetadata* md) {
  int i;
  printf("step stats (trace level 1), in completion order:\n");
  printf("  %-20s %-10s %-16s %10s %10s %8s\n", "node", "op", "device", "start_us",
         "dur_us", "bytes");
  for (i = 0; i < TG_RunMetadataNumNodes(md); ++i) {
    printf("  %-20s %-10s %-16s %10.1f %10.1f %8lld\n", TG_RunMetadataNodeName(md, i),
           TG_RunMetadataNodeOpType(md, i), TG_RunMetadataNodeDevice(md, i),
           (double)TG_RunMetadataNodeStartNs(md, i) / 1e3,
           (double)TG_RunMetadataNodeDurationNs(md, i) / 1e3,
           (long long)TG_RunMetadataNodeOutputBytes(md, i));
  }
}

/* Returns 0 on success; exits on a failed call, returns 1 on wrong results. */
static int run_mlp(void) {
  const int64_t x_dims[2] = {-1, MLP_IN};
  const int64_t batch_dims[2] = {MLP_N, MLP_IN};
  float w1[MLP_IN * MLP_HIDDEN], b1[MLP_HIDDEN], w2[MLP_HIDDEN * MLP_OUT], b2[MLP_OUT];
  float x_values[MLP_N * MLP_IN], expected[MLP_N * MLP_OUT];
  const float* probs;
  TG_Graph* g;
  TG_Operation* x;
  TG_Output h, y, feed;
  TG_Operation* init;
  const TG_Operation* targets[1];
  TG_Session* session;
  TG_Tensor* batch;
  TG_Tensor* result = NULL;
  TG_RunOptions* run_options;
  TG_RunMetadata* metadata;
  float max_error = 0.0f;
  int n, j, i;

  printf("\n# MLP forward pass\n");
  load_plugins();

  fill_values(w1, MLP_IN * MLP_HIDDEN, 1);
  fill_values(b1, MLP_HIDDEN, 2);
  fill_values(w2, MLP_HIDDEN * MLP_OUT, 3);
  fill_values(b2, MLP_OUT, 4);
  fill_values(x_values, MLP_N * MLP_IN, 5);

  /* input/x [?, 4] -> layer1: relu(x W1 + b1) [?, 8] -> layer2: softmax(h W2 + b2) [?, 3] */
  g = TG_NewGraph();
  if (g == NULL) {
    fprintf(stderr, "tgraph: out of memory\n");
    exit(1);
  }
  TG_GraphPushNameScope(g, "input", g_status);
  check("name_scope(input)");
  x = placeholder(g, "x", x_dims, 2);
  TG_GraphPopNameScope(g, g_status);
  check("pop name_scope");
  h = dense(g, "layer1", output0(x), MLP_IN, MLP_HIDDEN, w1, b1, "Relu");
  y = dense(g, "layer2", h, MLP_HIDDEN, MLP_OUT, w2, b2, "Softmax");
  init = TG_GraphGlobalVariablesInitializer(g, g_status);
  check("global_variables_initializer");
  printf("graph: %d operations; fetching %s:0\n", TG_GraphNumOperations(g),
         TG_OperationName(y.oper));

  session = TG_NewSession(g, NULL, g_status);
  check("TG_NewSession");
  printf("session devices:");
  for (i = 0; i < TG_SessionNumDevices(session); ++i) {
    printf(" %s", TG_SessionDeviceName(session, i));
  }
  printf("\n");

  /* Variables live in the session: initialize them there first. */
  targets[0] = init;
  TG_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, g_status);
  check("run init");

  batch = float_tensor(batch_dims, 2, x_values);
  feed = output0(x);
  run_options = TG_NewRunOptions();
  metadata = TG_NewRunMetadata();
  TG_SetRunOptionsTraceLevel(run_options, 1);
  TG_SessionRun(session, run_options, &feed, &batch, 1, &y, &result, 1, NULL, 0, metadata,
                g_status);
  TG_DeleteTensor(batch);
  check("run forward pass");
  if (result == NULL || TG_TensorType(result) != TG_FLOAT || TG_NumDims(result) != 2 ||
      TG_Dim(result, 0) != MLP_N || TG_Dim(result, 1) != MLP_OUT) {
    fprintf(stderr, "tgraph: the forward pass returned no [%d, %d] float tensor\n", MLP_N,
            MLP_OUT);
    return 1;
  }

  probs = (const float*)TG_TensorData(result);
  reference_mlp(x_values, w1, b1, w2, b2, expected);
  printf("probabilities [%d, %d]:\n", MLP_N, MLP_OUT);
  for (n = 0; n < MLP_N; ++n) {
    printf("  x = [");
    for (i = 0; i < MLP_IN; ++i) printf("%s%6.3f", i ? ", " : "", x_values[n * MLP_IN + i]);
    printf("] -> [");
    for (j = 0; j < MLP_OUT; ++j) {
      const float d = probs[n * MLP_OUT + j] - expected[n * MLP_OUT + j];
      const float e = d < 0.0f ? -d : d;
      if (e > max_error || e != e) max_error = e;
      printf("%s%.6f", j ? ", " : "", probs[n * MLP_OUT + j]);
    }
    printf("]\n");
  }
  print_step_stats(metadata);

  TG_DeleteTensor(result);
  TG_DeleteRunMetadata(metadata);
  TG_DeleteRunOptions(run_options);
  TG_DeleteSession(session, g_status);
  check("TG_DeleteSession");
  TG_DeleteGraph(g);

  /* NaN fails this comparison too (max_error is then NaN). */
  if (!(max_error <= 1e-5f)) {
    fprintf(stderr, "tgraph: the forward pass differs from the reference by %g\n",
            (double)max_error);
    return 1;
  }
  printf("matches the plain-C reference (max abs error %.2g)\n", (double)max_error);
  return 0;
}

int main(int argc, char** argv) {
  TG_Graph* g;
  TG_Buffer* text;
  TG_Tensor* w_init;
  TG_VariableOptions opts;
  TG_Variable* w;
  TG_OperationDescription* d;
  TG_Operation* x;
  TG_Operation* y;
  TG_Operation* init;
  TG_Operation* deps[1];
  TG_Output in;
  const int64_t x_dims[2] = {-1, 3};
  const int64_t w_dims[2] = {3, 2};
  float* w_data;
  int i, rc;

  if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-v") == 0)) {
    printf("tgraph %s\n", TG_Version());
    return 0;
  }

  g_status = TG_NewStatus();
  g = TG_NewGraph();
  if (g_status == NULL || g == NULL) {
    fprintf(stderr, "tgraph: out of memory\n");
    return 1;
  }

  /* data/x: float [?, 3] */
  TG_GraphPushNameScope(g, "data", g_status);
  check("name_scope(data)");
  x = placeholder(g, "x", x_dims, 2);
  TG_GraphPopNameScope(g, g_status);
  check("pop name_scope");

  /* model/W (on /cpu:0) and model/y = matmul(x, W) */
  TG_GraphPushNameScope(g, "model", g_status);
  check("name_scope(model)");
  TG_GraphPushDevice(g, "/cpu:0", g_status);
  check("device(/cpu:0)");

  w_init = TG_AllocateTensor(TG_FLOAT, w_dims, 2, 6 * sizeof(float));
  if (w_init == NULL) {
    fprintf(stderr, "tgraph: cannot allocate the initial value of W\n");
    return 1;
  }
  w_data = (float*)TG_TensorData(w_init);
  for (i = 0; i < 6; ++i) w_data[i] = 0.5f * (float)(i + 1);
  TG_InitVariableOptions(&opts);
  opts.name = "W";
  w = TG_GraphNewVariableFromTensor(g, w_init, &opts, g_status);
  TG_DeleteTensor(w_init);
  check("Variable W");

  d = TG_NewOperation(g, "MatMul", "y");
  in.oper = x;
  in.index = 0;
  TG_AddInput(d, in);
  TG_AddInput(d, TG_VariableReadValue(w));
  y = TG_FinishOperation(d, g_status);
  check("MatMul");

  TG_GraphPopDevice(g, g_status);
  check("pop device");

  /* model/output runs only after W is initialised. */
  deps[0] = TG_VariableInitializer(w);
  TG_GraphPushControlDependencies(g, deps, 1, g_status);
  check("control_dependencies");
  in.oper = y;
  in.index = 0;
  unary(g, "Identity", "output", in);
  TG_GraphPopControlDependencies(g, g_status);
  check("pop control_dependencies");
  TG_GraphPopNameScope(g, g_status);
  check("pop name_scope");

  init = TG_GraphGlobalVariablesInitializer(g, g_status);
  check("global_variables_initializer");
  (void)init;

  text = TG_NewBuffer();
  TG_GraphToGraphDefText(g, text, g_status);
  check("export text GraphDef");
  fwrite(text->data, 1, text->length, stdout);
  if (text->length > 0 && ((const char*)text->data)[text->length - 1] != '\n') putchar('\n');

  TG_DeleteBuffer(text);
  TG_DeleteGraph(g);

  rc = run_mlp();
  TG_DeleteStatus(g_status);
  return rc;
}
