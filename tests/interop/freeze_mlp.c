/* Builds a 2-layer MLP with variables through the C API (get_variable with the default
 * glorot_uniform initializer and with explicit ones, under variable scopes), initializes it
 * with fixed seeds, runs it on a fixed input, freezes it, and writes for
 * tests/interop/test_freeze.py (OUT_DIR is argv[1]):
 *   input.txt, output.txt    the input [4, 3] and the output [4, 2], one value a line (%.9g)
 *   frozen_output.txt        the frozen GraphDef's output, run here in a fresh graph
 *   full.pb, frozen.pb       the graph as built, and convert_variables_to_constants(output)
 *   extracted.pb, pruned.pb  extract_sub_graph(full, output), remove_training_nodes(frozen)
 * Plugins come from TGRAPH_PLUGIN_PATH. Exit status 0 on success; else a message on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgraph/c_api.h"

enum { kBatch = 4, kIn = 3, kHidden = 5, kOut = 2 };

static TG_Status* status;

static void Check(const char* what) {
  if (TG_GetCode(status) != TG_OK) {
    fprintf(stderr, "freeze_mlp: %s: %s\n", what, TG_Message(status));
    exit(1);
  }
}

static TG_Output Op2(TG_Graph* g, const char* type, const char* name, TG_Output a, TG_Output b) {
  TG_OperationDescription* d = TG_NewOperation(g, type, name);
  TG_Output out;
  TG_AddInput(d, a);
  TG_AddInput(d, b);
  out.oper = TG_FinishOperation(d, status);
  out.index = 0;
  Check(type);
  return out;
}

static TG_Output Op1(TG_Graph* g, const char* type, const char* name, TG_Output a) {
  TG_OperationDescription* d = TG_NewOperation(g, type, name);
  TG_Output out;
  TG_AddInput(d, a);
  out.oper = TG_FinishOperation(d, status);
  out.index = 0;
  Check(type);
  return out;
}

/* A dense layer under variable scope `scope`: x @ weights + biases (weights from `w_init`,
 * or get_variable's default when NULL; biases constant `bias`). */
static TG_Output Dense(TG_Graph* g, const char* scope, TG_Output x, int64_t in, int64_t out,
                       const TG_Initializer* w_init, double bias) {
  const int64_t w_dims[2] = {in, out};
  const int64_t b_dims[1] = {out};
  TG_Variable* w;
  TG_Variable* b;
  TG_Initializer b_init;
  TG_GraphPushVariableScope(g, scope, TG_REUSE_FALSE, status);
  Check("variable scope");
  if (w_init == NULL) {
    w = TG_GraphGetVariable(g, "weights", TG_FLOAT, w_dims, 2, NULL, NULL, status);
  } else {
    w = TG_GraphGetVariableWithInit(g, "weights", TG_FLOAT, w_dims, 2, w_init, NULL, status);
  }
  Check("weights");
  TG_InitInitializer(&b_init, TG_INIT_CONSTANT);
  b_init.value = bias;
  b = TG_GraphGetVariableWithInit(g, "biases", TG_FLOAT, b_dims, 1, &b_init, NULL, status);
  Check("biases");
  x = Op2(g, "MatMul", "MatMul", x, TG_VariableReadValue(w));
  x = Op2(g, "Add", "add", x, TG_VariableReadValue(b));
  TG_GraphPopVariableScope(g, status);
  Check("pop scope");
  return x;
}

static void WriteFile(const char* dir, const char* name, const void* data, size_t len) {
  char path[4096];
  FILE* f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "freeze_mlp: cannot write %s\n", path);
    exit(1);
  }
}

static void WriteFloats(const char* dir, const char* name, const TG_Tensor* t) {
  char path[4096];
  FILE* f;
  const float* p = (const float*)TG_TensorData(t);
  int64_t i, n = TG_TensorElementCount(t);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "freeze_mlp: cannot write %s\n", path);
    exit(1);
  }
  for (i = 0; i < n; ++i) fprintf(f, "%.9g\n", p[i]);
  fclose(f);
}

static TG_Tensor* RunOutput(TG_Session* sess, TG_Output x, TG_Tensor* input, TG_Output y) {
  TG_Tensor* result = NULL;
  TG_SessionRun(sess, NULL, &x, &input, 1, &y, &result, 1, NULL, 0, NULL, status);
  Check("run");
  return result;
}

int main(int argc, char** argv) {
  const char* dir;
  TG_Graph* g;
  TG_Graph* frozen_graph;
  TG_Session* sess;
  TG_Session* frozen_sess;
  TG_OperationDescription* d;
  TG_Output x, h, y, fx, fy, report;
  TG_Operation* init;
  TG_Initializer normal;
  TG_Tensor* input;
  TG_Tensor* output;
  TG_Tensor* frozen_output;
  TG_Tensor* uninitialized = NULL;
  TG_Buffer* full = TG_NewBuffer();
  TG_Buffer* frozen = TG_NewBuffer();
  TG_Buffer* extracted = TG_NewBuffer();
  TG_Buffer* pruned = TG_NewBuffer();
  TG_ImportGraphDefOptions* import_opts;
  const char* outputs[1] = {"output"};
  const int64_t x_dims[2] = {-1, kIn};
  const int64_t in_dims[2] = {kBatch, kIn};
  float* in_values;
  int i;

  if (argc != 2) {
    fprintf(stderr, "usage: freeze_mlp OUT_DIR\n");
    return 2;
  }
  dir = argv[1];
  status = TG_NewStatus();
  TG_LoadPluginsFromSearchPath(status);
  Check("loading plugins");

  g = TG_NewGraph();
  TG_GraphSetRandomSeed(g, 42, status);
  Check("seed");
  d = TG_NewOperation(g, "Placeholder", "x");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_SetAttrShape(d, "shape", x_dims, 2);
  x.oper = TG_FinishOperation(d, status);
  x.index = 0;
  Check("x");
  h = Op1(g, "Relu", "hidden", Dense(g, "layer1", x, kIn, kHidden, NULL, 0.1));
  TG_InitInitializer(&normal, TG_INIT_TRUNCATED_NORMAL);
  normal.stddev = 0.5;
  normal.has_seed = 1;
  normal.seed = 7;
  y = Op1(g, "Softmax", "output", Dense(g, "layer2", h, kHidden, kOut, &normal, -0.2));
  init = TG_GraphGlobalVariablesInitializer(g, status);
  Check("init");
  report = TG_ReportUninitializedVariables(g, NULL, -1, NULL, status);
  Check("report_uninitialized_variables");

  sess = TG_NewSession(g, NULL, status);
  Check("session");
  TG_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TG_Operation* const*)&init, 1,
                NULL, status);
  Check("initializing");
  TG_SessionRun(sess, NULL, NULL, NULL, 0, &report, &uninitialized, 1, NULL, 0, NULL, status);
  Check("reporting");
  if (TG_TensorElementCount(uninitialized) != 0) {
    fprintf(stderr, "freeze_mlp: variables left uninitialized\n");
    return 1;
  }
  TG_DeleteTensor(uninitialized);

  input = TG_AllocateTensor(TG_FLOAT, in_dims, 2, sizeof(float) * kBatch * kIn);
  in_values = (float*)TG_TensorData(input);
  for (i = 0; i < kBatch * kIn; ++i) in_values[i] = (float)((i * 7) % 11) / 5.0f - 1.0f;
  output = RunOutput(sess, x, input, y);

  TG_GraphToGraphDef(g, full, status);
  Check("export");
  TG_ConvertVariablesToConstants(sess, g, NULL, outputs, 1, NULL, -1, NULL, 0, frozen, status);
  Check("convert_variables_to_constants");
  TG_ExtractSubGraph(full, outputs, 1, extracted, status);
  Check("extract_sub_graph");
  TG_RemoveTrainingNodes(frozen, outputs, 1, pruned, status);
  Check("remove_training_nodes");

  /* The frozen graph runs on its own: no variables, nothing to initialize. */
  frozen_graph = TG_NewGraph();
  import_opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetPrefix(import_opts, "");
  TG_GraphImportGraphDef(frozen_graph, frozen, import_opts, status);
  Check("importing the frozen graph");
  TG_DeleteImportGraphDefOptions(import_opts);
  fx.oper = TG_GraphOperationByName(frozen_graph, "x");
  fx.index = 0;
  fy.oper = TG_GraphOperationByName(frozen_graph, "output");
  fy.index = 0;
  frozen_sess = TG_NewSession(frozen_graph, NULL, status);
  Check("frozen session");
  frozen_output = RunOutput(frozen_sess, fx, input, fy);

  WriteFloats(dir, "input.txt", input);
  WriteFloats(dir, "output.txt", output);
  WriteFloats(dir, "frozen_output.txt", frozen_output);
  WriteFile(dir, "full.pb", full->data, full->length);
  WriteFile(dir, "frozen.pb", frozen->data, frozen->length);
  WriteFile(dir, "extracted.pb", extracted->data, extracted->length);
  WriteFile(dir, "pruned.pb", pruned->data, pruned->length);

  TG_DeleteTensor(input);
  TG_DeleteTensor(output);
  TG_DeleteTensor(frozen_output);
  TG_DeleteSession(frozen_sess, status);
  TG_DeleteSession(sess, status);
  TG_DeleteGraph(frozen_graph);
  TG_DeleteGraph(g);
  TG_DeleteBuffer(full);
  TG_DeleteBuffer(frozen);
  TG_DeleteBuffer(extracted);
  TG_DeleteBuffer(pruned);
  TG_DeleteStatus(status);
  return 0;
}
