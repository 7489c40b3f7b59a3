/* Builds a small MLP with known weights through the C API, saves it as TensorFlow would
 * (tf.train.Saver: checkpoint, state file and a .meta carrying the SaverDef), and writes an
 * input batch and the MLP's output on it as raw float32 files, for test_saver_tf.py to
 * restore in real TensorFlow and compare.
 *
 * Usage: save_mlp_client DIR   (DIR exists). Writes DIR/model.ckpt-3.{index,data-*,meta},
 * DIR/checkpoint, DIR/x.f32 (5x4) and DIR/y.f32 (5x3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgraph/c_api.h"

static TG_Status* status;

static void check(const char* what) {
  if (TG_GetCode(status) != TG_OK) {
    fprintf(stderr, "save_mlp: %s: %s\n", what, TG_Message(status));
    exit(1);
  }
}

static TG_Tensor* floats(const int64_t* dims, int rank, const float* values, size_t n) {
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims, rank, n * sizeof(float));
  memcpy(TG_TensorData(t), values, n * sizeof(float));
  return t;
}

/* A deterministic value per element, spread over [-1, 1). */
static void fill(float* v, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) v[i] = (float)((int)((i * 37u + seed * 101u) % 200u) - 100) / 100.0f;
}

static TG_Variable* variable(TG_Graph* g, const char* name, const int64_t* dims, int rank,
                             unsigned seed) {
  size_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (size_t)dims[i];
  float* v = malloc(n * sizeof(float));
  fill(v, n, seed);
  TG_Tensor* t = floats(dims, rank, v, n);
  free(v);
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = name;
  TG_Variable* var = TG_GraphNewVariableFromTensor(g, t, &opts, status);
  TG_DeleteTensor(t);
  check(name);
  return var;
}

static TG_Output binary(TG_Graph* g, const char* type, const char* name, TG_Output a, TG_Output b) {
  TG_OperationDescription* d = TG_NewOperation(g, type, name);
  TG_AddInput(d, a);
  TG_AddInput(d, b);
  TG_Output out = {TG_FinishOperation(d, status), 0};
  check(name);
  return out;
}

static void write_floats(const char* dir, const char* file, const TG_Tensor* t) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE* f = fopen(path, "wb");
  if (f == NULL || fwrite(TG_TensorData(t), 1, TG_TensorByteSize(t), f) != TG_TensorByteSize(t)) {
    fprintf(stderr, "save_mlp: cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: save_mlp DIR\n");
    return 2;
  }
  const char* dir = argv[1];
  status = TG_NewStatus();
  TG_LoadPluginsFromSearchPath(status);
  check("loading plugins");
  TG_Graph* g = TG_NewGraph();

  TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", "x");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  const int64_t x_shape[2] = {-1, 4};
  TG_SetAttrShape(d, "shape", x_shape, 2);
  TG_Output x = {TG_FinishOperation(d, status), 0};
  check("x");

  const int64_t w1_dims[2] = {4, 8}, b1_dims[1] = {8}, w2_dims[2] = {8, 3}, b2_dims[1] = {3};
  TG_Variable* w1 = variable(g, "dense/kernel", w1_dims, 2, 1);
  TG_Variable* b1 = variable(g, "dense/bias", b1_dims, 1, 2);
  TG_Variable* w2 = variable(g, "dense_1/kernel", w2_dims, 2, 3);
  TG_Variable* b2 = variable(g, "dense_1/bias", b2_dims, 1, 4);
  TG_Output h = binary(g, "MatMul", "dense/MatMul", x, TG_VariableReadValue(w1));
  h = binary(g, "Add", "dense/add", h, TG_VariableReadValue(b1));
  d = TG_NewOperation(g, "Relu", "dense/Relu");
  TG_AddInput(d, h);
  h.oper = TG_FinishOperation(d, status);
  check("relu");
  TG_Output y = binary(g, "MatMul", "dense_1/MatMul", h, TG_VariableReadValue(w2));
  y = binary(g, "Add", "y", y, TG_VariableReadValue(b2));
  TG_Operation* init = TG_GraphGlobalVariablesInitializer(g, status);
  check("init");

  TG_Saver* saver = TG_NewSaver(g, NULL, status);
  check("TG_NewSaver");
  TG_Buffer* saver_def = TG_NewBuffer();
  TG_SaverToSaverDef(saver, saver_def, status);
  check("TG_SaverToSaverDef");
  TG_MetaGraphExportOptions meta_opts;
  TG_InitMetaGraphExportOptions(&meta_opts);
  meta_opts.saver_def = saver_def->data;
  meta_opts.saver_def_len = saver_def->length;
  TG_Buffer* meta = TG_NewBuffer();
  TG_ExportMetaGraph(g, &meta_opts, meta, status);
  check("TG_ExportMetaGraph");

  TG_Session* sess = TG_NewSession(g, NULL, status);
  check("TG_NewSession");
  TG_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TG_Operation* const*)&init, 1,
                NULL, status);
  check("init run");
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/model.ckpt", dir);
  const int64_t step = 3;
  const char* path = TG_SaverSave(saver, sess, prefix, &step, meta, NULL, status);
  check("TG_SaverSave");
  printf("saved %s\n", path);

  float xv[5 * 4];
  fill(xv, 20, 5);
  const int64_t x_dims[2] = {5, 4};
  TG_Tensor* x_value = floats(x_dims, 2, xv, 20);
  TG_Tensor* y_value = NULL;
  TG_SessionRun(sess, NULL, &x, &x_value, 1, &y, &y_value, 1, NULL, 0, NULL, status);
  check("running y");
  write_floats(dir, "x.f32", x_value);
  write_floats(dir, "y.f32", y_value);

  TG_DeleteTensor(x_value);
  TG_DeleteTensor(y_value);
  TG_DeleteBuffer(meta);
  TG_DeleteBuffer(saver_def);
  TG_DeleteSaver(saver);
  TG_DeleteSession(sess, status);
  TG_DeleteGraph(g);
  TG_DeleteStatus(status);
  return 0;
}
