/* Writes an event file through the C API for tests/interop/test_events_tensorboard.py:
 * a graph with placeholders x (float scalar) and w (float[4]), y = x * x, summaries
 * tf.summary.scalar("loss", y) and tf.summary.histogram("weights", w) merged by
 * merge_all, run for steps 0..4 with x = step + 1 and w = {step, step + 1, step + 2,
 * -step / 2}; each step's merged summary goes to the file, with the graph, one scalar
 * written directly ("direct" = step / 10) and one histogram ("direct_histogram" of
 * {1, 2, 2, 3}) at step 0. Usage: write_events LOGDIR. Prints the event file's path. */
#include <stdio.h>
#include <stdlib.h>

#include "tgraph/c_api.h"

static int fail(const char* what, TG_Status* s) {
  fprintf(stderr, "write_events: %s: %s: %s\n", what, TG_CodeName(TG_GetCode(s)),
          TG_Message(s));
  return 1;
}

static TG_Operation* placeholder(TG_Graph* g, const char* name, const int64_t* dims,
                                 int num_dims, TG_Status* s) {
  TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", name);
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_SetAttrShape(d, "shape", dims, num_dims);
  return TG_FinishOperation(d, s);
}

int main(int argc, char** argv) {
  TG_Status* s = TG_NewStatus();
  TG_Graph* g = TG_NewGraph();
  TG_Session* session = NULL;
  TG_FileWriter* writer = NULL;
  TG_Operation *x, *weights, *y;
  TG_OperationDescription* d;
  TG_Output loss, histo, merged;
  const int64_t four = 4;
  const double direct_values[] = {1, 2, 2, 3};
  int step, rc = 1;
  if (argc != 2) {
    fprintf(stderr, "usage: write_events LOGDIR\n");
    return 2;
  }
  TG_LoadPluginsFromSearchPath(s);
  if (TG_GetCode(s) != TG_OK) return fail("loading plugins", s);

  x = placeholder(g, "x", NULL, 0, s);
  if (TG_GetCode(s) != TG_OK) return fail("x", s);
  weights = placeholder(g, "w", &four, 1, s);
  if (TG_GetCode(s) != TG_OK) return fail("w", s);
  d = TG_NewOperation(g, "Mul", "y");
  TG_AddInput(d, (TG_Output){x, 0});
  TG_AddInput(d, (TG_Output){x, 0});
  y = TG_FinishOperation(d, s);
  if (TG_GetCode(s) != TG_OK) return fail("y", s);
  loss = TG_SummaryScalar(g, "loss", (TG_Output){y, 0}, s);
  if (TG_GetCode(s) != TG_OK) return fail("scalar summary", s);
  histo = TG_SummaryHistogram(g, "weights", (TG_Output){weights, 0}, s);
  if (TG_GetCode(s) != TG_OK) return fail("histogram summary", s);
  (void)loss;
  (void)histo;
  merged = TG_SummaryMergeAll(g, NULL, s);
  if (TG_GetCode(s) != TG_OK || merged.oper == NULL) return fail("merge_all", s);

  writer = TG_NewFileWriter(argv[1], NULL, s);
  if (writer == NULL) return fail("file writer", s);
  TG_FileWriterAddGraph(writer, g, s);
  if (TG_GetCode(s) != TG_OK) return fail("add graph", s);
  session = TG_NewSession(g, NULL, s);
  if (session == NULL) return fail("session", s);

  for (step = 0; step < 5; ++step) {
    TG_Output inputs[2];
    TG_Tensor* values[2];
    TG_Tensor* out = NULL;
    const char* data = NULL;
    size_t len = 0;
    float* w;
    inputs[0] = (TG_Output){x, 0};
    inputs[1] = (TG_Output){weights, 0};
    values[0] = TG_AllocateTensor(TG_FLOAT, NULL, 0, sizeof(float));
    values[1] = TG_AllocateTensor(TG_FLOAT, &four, 1, 4 * sizeof(float));
    *(float*)TG_TensorData(values[0]) = (float)(step + 1);
    w = (float*)TG_TensorData(values[1]);
    w[0] = (float)step;
    w[1] = (float)(step + 1);
    w[2] = (float)(step + 2);
    w[3] = -(float)step / 2;
    TG_SessionRun(session, NULL, inputs, values, 2, &merged, &out, 1, NULL, 0, NULL, s);
    TG_DeleteTensor(values[0]);
    TG_DeleteTensor(values[1]);
    if (TG_GetCode(s) != TG_OK) return fail("run", s);
    TG_TensorGetString(out, 0, &data, &len, s);
    if (TG_GetCode(s) == TG_OK) TG_FileWriterAddSummary(writer, data, len, step, s);
    TG_DeleteTensor(out);
    if (TG_GetCode(s) != TG_OK) return fail("add summary", s);
    TG_FileWriterAddScalar(writer, "direct", (float)step / 10, step, s);
    if (TG_GetCode(s) != TG_OK) return fail("add scalar", s);
  }
  TG_FileWriterAddHistogram(writer, "direct_histogram", direct_values, 4, 0, s);
  if (TG_GetCode(s) != TG_OK) return fail("add histogram", s);
  TG_FileWriterClose(writer, s);
  if (TG_GetCode(s) != TG_OK) return fail("close", s);
  printf("%s\n", TG_FileWriterPath(writer));
  rc = 0;

  TG_DeleteFileWriter(writer);
  TG_DeleteSession(session, s);
  TG_DeleteGraph(g);
  TG_DeleteStatus(s);
  return rc;
}
