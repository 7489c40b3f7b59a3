/* tgraph: the main-job program. A client of the C API only: builds a small graph (name
 * scopes, a placeholder, a variable, a matmul, a control dependency, a device scope) and
 * prints it as a text-format GraphDef on stdout. On any failure it prints the status message
 * on stderr and exits non-zero. */
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
  int i;

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
  TG_DeleteStatus(g_status);
  return 0;
}
