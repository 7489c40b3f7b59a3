/* The tgraph half of bench/compare_saver.py: N float variables of M MiB each (filled by a
 * Fill op, so the graph holds no large constant), a tf.train.Saver over them, saved to and
 * restored from DIR/tgraph.ckpt through the C API when told to. Reads one command a line on
 * stdin and answers each with one line on stdout, so that the caller can evict or warm the
 * checkpoint's pages between the operations:
 *   save     ->  save <seconds>
 *   restore  ->  restore <seconds>
 * Prints "ready" once the variables are initialized; ends at end of input.
 * Usage: saver_runs DIR VARIABLES MIB_EACH */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tgraph/c_api.h"

static TG_Status* status;

static void check(const char* what) {
  if (TG_GetCode(status) != TG_OK) {
    fprintf(stderr, "saver_runs: %s: %s\n", what, TG_Message(status));
    exit(1);
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static TG_Output int_vector_const(TG_Graph* g, const int32_t* values, int64_t n) {
  TG_Tensor* t = TG_AllocateTensor(TG_INT32, &n, 1, (size_t)n * sizeof(int32_t));
  memcpy(TG_TensorData(t), values, (size_t)n * sizeof(int32_t));
  TG_OperationDescription* d = TG_NewOperation(g, "Const", NULL);
  TG_SetAttrTensor(d, "value", t, status);
  TG_SetAttrType(d, "dtype", TG_INT32);
  TG_Output out = {TG_FinishOperation(d, status), 0};
  TG_DeleteTensor(t);
  check("Const");
  return out;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: saver_runs DIR VARIABLES MIB_EACH\n");
    return 2;
  }
  const char* dir = argv[1];
  const int variables = atoi(argv[2]), mib = atoi(argv[3]);
  status = TG_NewStatus();
  TG_LoadPluginsFromSearchPath(status);
  check("loading plugins");
  TG_Graph* g = TG_NewGraph();
  const int32_t dims[2] = {mib * 1024, 256}; /* mib MiB of floats */
  for (int i = 0; i < variables; ++i) {
    char name[32];
    snprintf(name, sizeof name, "v%d", i);
    TG_OperationDescription* d = TG_NewOperation(g, "Fill", NULL);
    TG_AddInput(d, int_vector_const(g, dims, 2));
    float one = 1.0f + (float)i;
    const int64_t scalar = 0;
    TG_Tensor* value = TG_AllocateTensor(TG_FLOAT, &scalar, 0, sizeof one);
    memcpy(TG_TensorData(value), &one, sizeof one);
    TG_OperationDescription* c = TG_NewOperation(g, "Const", NULL);
    TG_SetAttrTensor(c, "value", value, status);
    TG_SetAttrType(c, "dtype", TG_FLOAT);
    TG_Output fill_value = {TG_FinishOperation(c, status), 0};
    TG_DeleteTensor(value);
    check("Const");
    TG_AddInput(d, fill_value);
    TG_Output fill = {TG_FinishOperation(d, status), 0};
    check("Fill");
    TG_VariableOptions opts;
    TG_InitVariableOptions(&opts);
    opts.name = name;
    TG_GraphNewVariable(g, fill, &opts, status);
    check(name);
  }
  TG_Operation* init = TG_GraphGlobalVariablesInitializer(g, status);
  check("init");
  TG_SaverOptions saver_options;
  TG_InitSaverOptions(&saver_options);
  saver_options.max_to_keep = 1;
  TG_Saver* saver = TG_NewSaver(g, &saver_options, status);
  check("TG_NewSaver");
  TG_Session* sess = TG_NewSession(g, NULL, status);
  check("TG_NewSession");
  TG_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TG_Operation* const*)&init, 1,
                NULL, status);
  check("init run");
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/tgraph.ckpt", dir);
  printf("ready\n");
  fflush(stdout);
  char command[64];
  while (fgets(command, sizeof command, stdin) != NULL) {
    const double t0 = now();
    if (strncmp(command, "save", 4) == 0) {
      TG_SaverSave(saver, sess, prefix, NULL, NULL, NULL, status);
      check("save");
      printf("save %.6f\n", now() - t0);
    } else if (strncmp(command, "restore", 7) == 0) {
      TG_SaverRestore(saver, sess, prefix, status);
      check("restore");
      printf("restore %.6f\n", now() - t0);
    } else {
      fprintf(stderr, "saver_runs: unknown command %s", command);
      return 2;
    }
    fflush(stdout);
  }
  TG_DeleteSaver(saver);
  TG_DeleteSession(sess, status);
  TG_DeleteGraph(g);
  TG_DeleteStatus(status);
  return 0;
}
