/* Runs a TensorFlow training GraphDef (written by tests/interop/test_rewrites.py with TF's
 * tf.compat.v1: a 784-512-512-10 ReLU MLP with Adam) through the C API with the plan-time
 * graph rewrites on or off, for tests/interop/test_rewrites.py and the figures in
 * bench/README.md. Usage:
 *   interop_rewrite_mlp GRAPH.pb X.bin Y.bin BATCH STEPS REWRITES [TIMED_STEPS]
 * X.bin holds BATCH*784 float32, Y.bin BATCH int64 labels; REWRITES is 1 (all on) or 0 (all
 * off). Runs "init", then STEPS steps of target "train" fetching "loss:0", printing
 *   loss <step> <value %.9g>
 * then one traced step ("nodes <count>", "matmuls <count of MatMul/_FusedMatMul>", and
 * "op <type> <name>" per node), then TIMED_STEPS (default 0) more steps timed one by one:
 *   step_us median <us> min <us>
 * Plugins come from TGRAPH_PLUGIN_PATH. Exit status 0 on success; else a message on stderr. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tgraph/c_api.h"

static TG_Status* status;

static void Check(const char* what) {
  if (TG_GetCode(status) != TG_OK) {
    fprintf(stderr, "rewrite_mlp: %s: %s\n", what, TG_Message(status));
    exit(1);
  }
}

static void* ReadAll(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  char* data;
  long n;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fprintf(stderr, "rewrite_mlp: cannot read %s\n", path);
    exit(1);
  }
  data = malloc((size_t)n + 1);
  if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "rewrite_mlp: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  *len = (size_t)n;
  return data;
}

static TG_Operation* Find(TG_Graph* g, const char* name) {
  TG_Operation* op = TG_GraphOperationByName(g, name);
  if (op == NULL) {
    fprintf(stderr, "rewrite_mlp: the graph has no node '%s'\n", name);
    exit(1);
  }
  return op;
}

static double NowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int CompareDoubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  size_t graph_len, x_len, y_len;
  void* graph_bytes;
  void* x_bytes;
  void* y_bytes;
  TG_Buffer* buffer;
  TG_Graph* g;
  TG_ImportGraphDefOptions* import_options;
  TG_SessionOptions* options;
  TG_Session* session;
  TG_Output feeds[2], fetch;
  TG_Tensor* values[2];
  TG_Operation* train;
  TG_Operation* init;
  TG_RunOptions* trace;
  TG_RunMetadata* metadata;
  int64_t x_dims[2], y_dims[1];
  long batch, steps, timed, step, i;
  int rewrites, nodes, matmuls;
  double* times;

  if (argc < 7) {
    fprintf(stderr, "usage: %s GRAPH.pb X.bin Y.bin BATCH STEPS REWRITES [TIMED_STEPS]\n", argv[0]);
    return 2;
  }
  batch = atol(argv[4]);
  steps = atol(argv[5]);
  rewrites = atoi(argv[6]);
  timed = argc > 7 ? atol(argv[7]) : 0;
  status = TG_NewStatus();
  TG_LoadPluginsFromSearchPath(status);
  Check("loading plugins");

  graph_bytes = ReadAll(argv[1], &graph_len);
  x_bytes = ReadAll(argv[2], &x_len);
  y_bytes = ReadAll(argv[3], &y_len);
  if (x_len != (size_t)batch * 784 * sizeof(float) || y_len != (size_t)batch * sizeof(int64_t)) {
    fprintf(stderr, "rewrite_mlp: X.bin / Y.bin do not hold a batch of %ld\n", batch);
    return 1;
  }
  g = TG_NewGraph();
  buffer = TG_NewBufferFromString(graph_bytes, graph_len);
  import_options = TG_NewImportGraphDefOptions();
  TG_GraphImportGraphDef(g, buffer, import_options, status);
  Check("importing the GraphDef");
  TG_DeleteImportGraphDefOptions(import_options);
  TG_DeleteBuffer(buffer);

  options = TG_NewSessionOptions();
  TG_SetSessionRewrite(options, "all", rewrites, status);
  Check("TG_SetSessionRewrite");
  session = TG_NewSession(g, options, status);
  Check("TG_NewSession");
  TG_DeleteSessionOptions(options);

  init = Find(g, "init");
  train = Find(g, "train");
  TG_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TG_Operation* const*)&init, 1,
                NULL, status);
  Check("running init");

  x_dims[0] = batch;
  x_dims[1] = 784;
  y_dims[0] = batch;
  feeds[0].oper = Find(g, "x");
  feeds[0].index = 0;
  feeds[1].oper = Find(g, "y");
  feeds[1].index = 0;
  fetch.oper = Find(g, "loss");
  fetch.index = 0;
  values[0] = TG_NewTensorFromCopy(TG_FLOAT, x_dims, 2, x_bytes, x_len);
  values[1] = TG_NewTensorFromCopy(TG_INT64, y_dims, 1, y_bytes, y_len);

  for (step = 0; step < steps; ++step) {
    TG_Tensor* loss = NULL;
    TG_SessionRun(session, NULL, feeds, values, 2, &fetch, &loss, 1,
                  (const TG_Operation* const*)&train, 1, NULL, status);
    Check("a training step");
    printf("loss %ld %.9g\n", step, (double)*(const float*)TG_TensorData(loss));
    TG_DeleteTensor(loss);
  }

  trace = TG_NewRunOptions();
  TG_SetRunOptionsTraceLevel(trace, 1);
  metadata = TG_NewRunMetadata();
  {
    TG_Tensor* loss = NULL;
    TG_SessionRun(session, trace, feeds, values, 2, &fetch, &loss, 1,
                  (const TG_Operation* const*)&train, 1, metadata, status);
    Check("the traced step");
    TG_DeleteTensor(loss);
  }
  nodes = TG_RunMetadataNumNodes(metadata);
  matmuls = 0;
  for (i = 0; i < nodes; ++i) {
    const char* type = TG_RunMetadataNodeOpType(metadata, (int)i);
    matmuls += strcmp(type, "MatMul") == 0 || strcmp(type, "_FusedMatMul") == 0;
  }
  printf("nodes %d\nmatmuls %d\n", nodes, matmuls);
  for (i = 0; i < nodes; ++i) {
    printf("op %s %s\n", TG_RunMetadataNodeOpType(metadata, (int)i), TG_RunMetadataNodeName(metadata, (int)i));
  }
  TG_DeleteRunMetadata(metadata);
  TG_DeleteRunOptions(trace);

  if (timed > 0) {
    times = malloc(sizeof(double) * (size_t)timed);
    if (times == NULL) return 1;
    for (step = 0; step < timed; ++step) {
      TG_Tensor* loss = NULL;
      const double start = NowUs();
      TG_SessionRun(session, NULL, feeds, values, 2, &fetch, &loss, 1,
                    (const TG_Operation* const*)&train, 1, NULL, status);
      times[step] = NowUs() - start;
      Check("a timed step");
      TG_DeleteTensor(loss);
    }
    qsort(times, (size_t)timed, sizeof(double), CompareDoubles);
    printf("step_us median %.1f min %.1f\n", times[timed / 2], times[0]);
    free(times);
  }

  TG_DeleteTensor(values[0]);
  TG_DeleteTensor(values[1]);
  TG_DeleteSession(session, status);
  Check("TG_DeleteSession");
  TG_DeleteGraph(g);
  TG_DeleteStatus(status);
  free(graph_bytes);
  free(x_bytes);
  free(y_bytes);
  return 0;
}
