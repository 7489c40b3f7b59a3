/* A serial chain of `nodes` scalar AddV2 (x + c) or Identity ops after a fed placeholder,
 * run `runs` times through the C API: the program bench/chain_instructions.sh runs under
 * callgrind, which counts the instructions each run executes. Instruction counts do not
 * move with the load of a shared machine, so they tell a real change of the per-node cost
 * from noise where wall-clock figures cannot.
 *
 * Usage: chain_runs add|identity NODES RUNS   (plugins from the search path) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tgraph/c_api.h>

static void Check(TG_Status* s, const char* what) {
  if (TG_GetCode(s) != TG_OK) {
    fprintf(stderr, "%s: %s\n", what, TG_Message(s));
    exit(1);
  }
}

static TG_Output Finish(TG_OperationDescription* d, TG_Status* s, const char* what) {
  TG_Output out = {TG_FinishOperation(d, s), 0};
  Check(s, what);
  return out;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s add|identity NODES RUNS\n", argv[0]);
    return 2;
  }
  const int add = strcmp(argv[1], "add") == 0;
  const int nodes = atoi(argv[2]), runs = atoi(argv[3]);
  TG_Status* s = TG_NewStatus();
  TG_LoadPluginsFromSearchPath(s);
  Check(s, "loading plugins");
  TG_Graph* g = TG_NewGraph();

  TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", "x");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_SetAttrShape(d, "shape", NULL, 0);
  TG_Output x = Finish(d, s, "x");
  TG_Tensor* one = TG_AllocateTensor(TG_FLOAT, NULL, 0, sizeof(float));
  *(float*)TG_TensorData(one) = 1.0f;
  d = TG_NewOperation(g, "Const", "c");
  TG_SetAttrTensor(d, "value", one, s);
  Check(s, "c value");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_Output c = Finish(d, s, "c");
  TG_Output last = x;
  for (int i = 0; i < nodes; ++i) {
    d = TG_NewOperation(g, add ? "AddV2" : "Identity", NULL);
    TG_AddInput(d, last);
    if (add) TG_AddInput(d, c);
    last = Finish(d, s, "chain op");
  }

  TG_SessionOptions* options = TG_NewSessionOptions();
  TG_SetSessionInterOpThreads(options, 1);
  /* Per-node cost is what is counted: no plan-time rewrite may bypass the Identity chain. */
  TG_SetSessionRewrite(options, "all", 0, s);
  Check(s, "rewrites");
  TG_Session* session = TG_NewSession(g, options, s);
  Check(s, "session");
  TG_Tensor* value = TG_AllocateTensor(TG_FLOAT, NULL, 0, sizeof(float));
  *(float*)TG_TensorData(value) = 2.0f;
  float result = 0;
  for (int r = 0; r < runs; ++r) {
    TG_Tensor* out = NULL;
    TG_SessionRun(session, NULL, &x, &value, 1, &last, &out, 1, NULL, 0, NULL, s);
    Check(s, "run");
    result = *(const float*)TG_TensorData(out);
    TG_DeleteTensor(out);
  }
  printf("%g\n", result);

  TG_DeleteSession(session, s);
  TG_DeleteSessionOptions(options);
  TG_DeleteTensor(value);
  TG_DeleteTensor(one);
  TG_DeleteGraph(g);
  TG_DeleteStatus(s);
  return 0;
}
