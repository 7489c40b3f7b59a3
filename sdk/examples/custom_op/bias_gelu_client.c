/* A client of tgraph's C API (libtgraph) that loads the BiasGelu plugin and builds a graph
 * using its op: shape inference runs the plugin's shape function as each node is added.
 *
 *   bias_gelu_client --search        load through discovery (TGRAPH_PLUGIN_PATH, ...)
 *   bias_gelu_client --load <file>   load the given plugin file with TG_LoadPlugin
 *
 * Exits 0 when every check passes, 1 otherwise (with a message on stderr). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tgraph/c_api.h"

static int failures = 0;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAILED at line %d: ", __LINE__);    \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      ++failures;                                          \
    }                                                      \
  } while (0)

static const TG_Plugin* FindPlugin(const char* name) {
  int i;
  for (i = 0; i < TG_NumPlugins(); ++i) {
    if (strcmp(TG_PluginName(TG_GetPlugin(i)), name) == 0) return TG_GetPlugin(i);
  }
  return NULL;
}

static TG_Operation* Placeholder(TG_Graph* g, const char* name, const int64_t* dims, int num_dims,
                                 TG_Status* s) {
  TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", name);
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_SetAttrShape(d, "shape", dims, num_dims);
  return TG_FinishOperation(d, s);
}

static TG_Operation* BiasGelu(TG_Graph* g, const char* name, TG_Operation* x, TG_Operation* bias,
                              TG_Status* s) {
  TG_OperationDescription* d = TG_NewOperation(g, "BiasGelu", name);
  TG_Output xo, bo;
  xo.oper = x;
  xo.index = 0;
  bo.oper = bias;
  bo.index = 0;
  TG_AddInput(d, xo);
  TG_AddInput(d, bo);
  TG_SetAttrBool(d, "approximate", 1);
  return TG_FinishOperation(d, s);
}

static TG_Operation* BiasGeluGrad(TG_Graph* g, const char* name, TG_Operation* dy,
                                  TG_Operation* x, TG_Operation* bias, TG_Status* s) {
  TG_OperationDescription* d = TG_NewOperation(g, "BiasGeluGrad", name);
  TG_Output o;
  o.index = 0;
  o.oper = dy;
  TG_AddInput(d, o);
  o.oper = x;
  TG_AddInput(d, o);
  o.oper = bias;
  TG_AddInput(d, o);
  return TG_FinishOperation(d, s);
}

static void NoDealloc(void* data, size_t len, void* arg) {
  (void)data;
  (void)len;
  (void)arg;
}

static TG_Operation* DoublePlaceholder(TG_Graph* g, const char* name, const int64_t* dims,
                                       int num_dims, TG_Status* s) {
  TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", name);
  TG_SetAttrType(d, "dtype", TG_DOUBLE);
  TG_SetAttrShape(d, "shape", dims, num_dims);
  return TG_FinishOperation(d, s);
}

/* The CPU plugin (Placeholder, Sum, BiasAddGrad, ... kernels) comes from the install's
 * plugin directory, found next to libtgraph. */
static double RunLoss(TG_Session* sess, TG_Output* feeds, double* x, double* b, TG_Output loss,
                      TG_Status* s) {
  const int64_t x_dims[] = {2, 3};
  const int64_t b_dims[] = {3};
  TG_Tensor* values[2];
  TG_Tensor* out = NULL;
  double result = 0;
  values[0] = TG_NewTensor(TG_DOUBLE, x_dims, 2, x, 6 * sizeof(double), NoDealloc, NULL);
  values[1] = TG_NewTensor(TG_DOUBLE, b_dims, 1, b, 3 * sizeof(double), NoDealloc, NULL);
  TG_SessionRun(sess, NULL, feeds, values, 2, &loss, &out, 1, NULL, 0, NULL, s);
  if (out != NULL) {
    result = *(const double*)TG_TensorData(out);
    TG_DeleteTensor(out);
  }
  TG_DeleteTensor(values[0]);
  TG_DeleteTensor(values[1]);
  return result;
}

static void CheckGradient(TG_Status* s) {
  double x[6] = {-1.5, -0.3, 0.2, 0.7, 1.1, 2.0};
  double b[3] = {0.1, -0.2, 0.3};
  const int64_t x_dims[] = {2, 3};
  const int64_t b_dims[] = {3};
  TG_Graph* g = TG_NewGraph();
  TG_Session* sess = NULL;
  TG_Output feeds[2], y, loss, grads[2];
  TG_Tensor* outs[2] = {NULL, NULL};
  TG_Tensor* feed_values[2];
  TG_OperationDescription* d;
  int k;

  TG_LoadPluginsFromSearchPath(s);
  CHECK(TG_GetCode(s) == TG_OK, "loading the CPU plugin: %s", TG_Message(s));
  feeds[0].oper = DoublePlaceholder(g, "gx", x_dims, 2, s);
  feeds[1].oper = DoublePlaceholder(g, "gb", b_dims, 1, s);
  feeds[0].index = feeds[1].index = 0;
  y.oper = BiasGelu(g, "gy", feeds[0].oper, feeds[1].oper, s);
  y.index = 0;
  CHECK(y.oper != NULL, "BiasGelu: %s", TG_Message(s));
  d = TG_NewOperation(g, "Sum", "loss");
  TG_AddInput(d, y);
  {
    const int64_t axes_dims[] = {2};
    int32_t axes_values[2] = {0, 1};
    TG_Tensor* axes = TG_NewTensor(TG_INT32, axes_dims, 1, axes_values, sizeof axes_values,
                                   NoDealloc, NULL);
    TG_OperationDescription* c = TG_NewOperation(g, "Const", "axes");
    TG_Output axes_out;
    TG_SetAttrTensor(c, "value", axes, s);
    TG_SetAttrType(c, "dtype", TG_INT32);
    axes_out.oper = TG_FinishOperation(c, s);
    axes_out.index = 0;
    TG_DeleteTensor(axes);
    TG_AddInput(d, axes_out);
  }
  loss.oper = TG_FinishOperation(d, s);
  loss.index = 0;
  CHECK(loss.oper != NULL, "loss: %s", TG_Message(s));
  if (loss.oper == NULL) {
    TG_DeleteGraph(g);
    return;
  }
  TG_AddGradients(g, &loss, 1, feeds, 2, NULL, s, grads);
  CHECK(TG_GetCode(s) == TG_OK, "TG_AddGradients through BiasGelu: %s", TG_Message(s));
  if (TG_GetCode(s) != TG_OK) {
    TG_DeleteGraph(g);
    return;
  }
  CHECK(strcmp(TG_OperationOpType(grads[0].oper), "BiasGeluGrad") == 0, "dx comes from %s",
        TG_OperationOpType(grads[0].oper));
  sess = TG_NewSession(g, NULL, s);
  feed_values[0] = TG_NewTensor(TG_DOUBLE, x_dims, 2, x, sizeof x, NoDealloc, NULL);
  feed_values[1] = TG_NewTensor(TG_DOUBLE, b_dims, 1, b, sizeof b, NoDealloc, NULL);
  TG_SessionRun(sess, NULL, feeds, feed_values, 2, grads, outs, 2, NULL, 0, NULL, s);
  TG_DeleteTensor(feed_values[0]);
  TG_DeleteTensor(feed_values[1]);
  CHECK(TG_GetCode(s) == TG_OK && outs[0] != NULL && outs[1] != NULL, "running the gradient: %s",
        TG_Message(s));
  if (outs[0] != NULL && outs[1] != NULL) {
    const double* dx = (const double*)TG_TensorData(outs[0]);
    const double* db = (const double*)TG_TensorData(outs[1]);
    const double h = 1e-6;
    for (k = 0; k < 9; ++k) {
      double* v = k < 6 ? &x[k] : &b[k - 6];
      const double saved = *v;
      double plus, minus, numeric, symbolic;
      *v = saved + h;
      plus = RunLoss(sess, feeds, x, b, loss, s);
      *v = saved - h;
      minus = RunLoss(sess, feeds, x, b, loss, s);
      *v = saved;
      numeric = (plus - minus) / (2 * h);
      symbolic = k < 6 ? dx[k] : db[k - 6];
      CHECK(fabs(numeric - symbolic) < 1e-6 * (1 + fabs(numeric)),
            "d loss / d %s[%d]: symbolic %g, numeric %g", k < 6 ? "x" : "bias", k < 6 ? k : k - 6,
            symbolic, numeric);
    }
  }
  if (outs[0] != NULL) TG_DeleteTensor(outs[0]);
  if (outs[1] != NULL) TG_DeleteTensor(outs[1]);
  if (sess != NULL) TG_DeleteSession(sess, s);
  TG_DeleteGraph(g);
}

int main(int argc, char** argv) {
  TG_Status* s = TG_NewStatus();
  const TG_Plugin* plugin = NULL;
  TG_Graph* g;
  int i;

  if (argc >= 2 && strcmp(argv[1], "--search") == 0) {
    int loaded = TG_LoadPluginsFromSearchPath(s);
    CHECK(TG_GetCode(s) == TG_OK, "discovery failed: %s", TG_Message(s));
    CHECK(loaded >= 1, "discovery loaded %d plugins", loaded);
    plugin = FindPlugin("bias_gelu");
    CHECK(plugin != NULL, "discovery did not load the bias_gelu plugin");
  } else if (argc >= 3 && strcmp(argv[1], "--load") == 0) {
    plugin = TG_LoadPlugin(argv[2], s);
    CHECK(plugin != NULL && TG_GetCode(s) == TG_OK, "TG_LoadPlugin(%s): %s", argv[2], TG_Message(s));
    /* A second load of the same file is a no-op returning the first. */
    CHECK(TG_LoadPlugin(argv[2], s) == plugin, "loading twice gave another plugin");
  } else {
    fprintf(stderr, "usage: %s --search | --load <plugin file>\n", argv[0]);
    TG_DeleteStatus(s);
    return 2;
  }
  if (plugin == NULL) {
    TG_DeleteStatus(s);
    return 1;
  }

  /* What the plugin says about itself and what it registered. */
  CHECK(strcmp(TG_PluginName(plugin), "bias_gelu") == 0, "name %s", TG_PluginName(plugin));
  CHECK(strcmp(TG_PluginVersion(plugin), "1.0.0") == 0, "version %s", TG_PluginVersion(plugin));
  CHECK(TG_PluginAbiVersion(plugin) == TG_CorePluginAbiVersion(), "ABI version %u",
        (unsigned)TG_PluginAbiVersion(plugin));
  CHECK(strstr(TG_PluginFile(plugin), "libtgraph_bias_gelu") != NULL, "file %s", TG_PluginFile(plugin));
  CHECK(TG_PluginNumOps(plugin) == 2 && strcmp(TG_PluginOpName(plugin, 0), "BiasGelu") == 0 &&
            strcmp(TG_PluginOpName(plugin, 1), "BiasGeluGrad") == 0,
        "ops: %d", TG_PluginNumOps(plugin));
  CHECK(TG_PluginNumKernels(plugin) == 2 && strcmp(TG_PluginKernelOpType(plugin, 0), "BiasGelu") == 0 &&
            strcmp(TG_PluginKernelDeviceType(plugin, 0), "CPU") == 0,
        "kernels: %d", TG_PluginNumKernels(plugin));
  CHECK(TG_PluginNumGradients(plugin) == 1, "gradients: %d", TG_PluginNumGradients(plugin));
  CHECK(TG_PluginNumDevices(plugin) == 0 && TG_PluginNumSavers(plugin) == 0, "devices/savers");
  TG_UnloadPlugin(plugin, s);
  CHECK(TG_GetCode(s) == TG_FAILED_PRECONDITION, "unload: %s", TG_Message(s));

  /* A graph using the op: static shapes come from the plugin's shape function. */
  g = TG_NewGraph();
  {
    const int64_t x_dims[] = {4, -1};
    const int64_t b_dims[] = {3};
    const int64_t bad_dims[] = {5};
    int64_t out_dims[2] = {0, 0};
    TG_Operation* x = Placeholder(g, "x", x_dims, 2, s);
    TG_Operation* b = Placeholder(g, "bias", b_dims, 1, s);
    TG_Operation* bad = Placeholder(g, "bad_bias", bad_dims, 1, s);
    TG_Operation* y;
    TG_Output yo;
    CHECK(x != NULL && b != NULL && bad != NULL, "placeholders: %s", TG_Message(s));
    y = BiasGelu(g, "y", x, b, s);
    CHECK(y != NULL && TG_GetCode(s) == TG_OK, "BiasGelu: %s", TG_Message(s));
    if (y != NULL) {
      yo.oper = y;
      yo.index = 0;
      CHECK(TG_GraphGetTensorNumDims(g, yo, s) == 2, "rank of y");
      TG_GraphGetTensorShape(g, yo, out_dims, 2, s);
      CHECK(out_dims[0] == 4 && out_dims[1] == 3, "shape of y: [%lld, %lld]", (long long)out_dims[0],
            (long long)out_dims[1]);
      CHECK(TG_OperationOutputType(yo) == TG_FLOAT, "dtype of y");
    }
    /* BiasGeluGrad's dx keeps x's partial shape [4, ?] (the shape function's "same shape as
     * input 1"). */
    {
      TG_Operation* dx = BiasGeluGrad(g, "dx", x, x, b, s);
      TG_Output dxo;
      CHECK(dx != NULL && TG_GetCode(s) == TG_OK, "BiasGeluGrad: %s", TG_Message(s));
      if (dx != NULL) {
        dxo.oper = dx;
        dxo.index = 0;
        CHECK(TG_GraphGetTensorNumDims(g, dxo, s) == 2, "rank of dx");
        TG_GraphGetTensorShape(g, dxo, out_dims, 2, s);
        CHECK(out_dims[0] == 4 && out_dims[1] == -1, "shape of dx: [%lld, %lld]",
              (long long)out_dims[0], (long long)out_dims[1]);
      }
    }
    /* Channels that do not match: the shape function rejects the node, naming it. */
    {
      const int64_t x2_dims[] = {2, 3};
      TG_Operation* x2 = Placeholder(g, "x2", x2_dims, 2, s);
      TG_Operation* z = BiasGelu(g, "mismatch", x2, bad, s);
      CHECK(z == NULL && TG_GetCode(s) == TG_INVALID_ARGUMENT, "mismatch accepted: %s", TG_Message(s));
      CHECK(strstr(TG_Message(s), "mismatch") != NULL, "message does not name the node: %s",
            TG_Message(s));
    }
  }
  TG_DeleteGraph(g);

  /* Differentiating through the op: its gradient function (in the plugin) builds the
   * backward nodes; the numbers are checked against central differences. */
  CheckGradient(s);

  for (i = 0; i < TG_NumPlugins(); ++i) {
    const TG_Plugin* p = TG_GetPlugin(i);
    printf("plugin %s %s (ABI %u): %s, %d ops, %d kernels\n", TG_PluginName(p), TG_PluginVersion(p),
           (unsigned)TG_PluginAbiVersion(p), TG_PluginFile(p), TG_PluginNumOps(p), TG_PluginNumKernels(p));
  }
  TG_DeleteStatus(s);
  if (failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("bias_gelu_client: all checks passed\n");
  return 0;
}
