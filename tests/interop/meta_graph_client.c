/* The C side of interop.meta_graph, through tgraph/c_api.h only.
 *
 *   meta_graph_client roundtrip IN.meta OUT.meta [SCOPE]
 *     imports IN (under SCOPE if given), prints the collections and variables it rebuilt,
 *     then writes the graph again to OUT with the SaverDef the import handed back (with
 *     export_scope SCOPE, so OUT uses IN's names).
 *   meta_graph_client build OUT.meta
 *     builds an MLP with variables, a GradientDescent train_op, a global step and user
 *     collections, and writes it to OUT.
 *
 * Output lines (parsed by test_meta_graph.py):
 *   collection <key> <kind> <item>|<item>|...   (kinds: operation, output, variable, bytes,
 *                                                 int64, float)
 *   variable <name> <trainable> <initializer> <snapshot> <initial value>
 *   saver_def <length>
 * Exit status 1 with the status on stderr when a call fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgraph/c_api.h"

static TG_Status* status;

static void Check(const char* what) {
  if (TG_GetCode(status) != TG_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, TG_CodeName(TG_GetCode(status)), TG_Message(status));
    exit(1);
  }
}

static void PrintOutput(TG_Output o) {
  if (o.oper == NULL) {
    printf("-");
    return;
  }
  printf("%s:%d", TG_OperationName(o.oper), o.index);
}

static const char* KindName(TG_CollectionItemType kind) {
  switch (kind) {
    case TG_COLLECTION_ITEM_OPERATION: return "operation";
    case TG_COLLECTION_ITEM_OUTPUT: return "output";
    case TG_COLLECTION_ITEM_VARIABLE: return "variable";
    case TG_COLLECTION_ITEM_BYTES: return "bytes";
    case TG_COLLECTION_ITEM_INT64: return "int64";
    case TG_COLLECTION_ITEM_FLOAT: return "float";
    default: return "invalid";
  }
}

static void PrintItem(const TG_Collection* c, int i) {
  const void* data;
  size_t len;
  switch (TG_CollectionItemKind(c, i)) {
    case TG_COLLECTION_ITEM_OPERATION:
      printf("%s", TG_OperationName(TG_CollectionItemOperation(c, i)));
      break;
    case TG_COLLECTION_ITEM_OUTPUT: PrintOutput(TG_CollectionItemOutput(c, i)); break;
    case TG_COLLECTION_ITEM_VARIABLE:
      printf("%s", TG_VariableName(TG_CollectionItemVariable(c, i)));
      break;
    case TG_COLLECTION_ITEM_BYTES:
      TG_CollectionItemBytes(c, i, &data, &len);
      printf("%.*s", (int)len, (const char*)data);
      break;
    case TG_COLLECTION_ITEM_INT64: printf("%lld", (long long)TG_CollectionItemInt64(c, i)); break;
    case TG_COLLECTION_ITEM_FLOAT: printf("%.9g", (double)TG_CollectionItemFloat(c, i)); break;
    default: printf("?");
  }
}

static void PrintCollections(TG_Graph* g) {
  int k;
  int n = TG_GraphNumCollectionKeys(g);
  for (k = 0; k < n; ++k) {
    const char* key = TG_GraphCollectionKey(g, k);
    TG_Collection* c = TG_GraphGetCollection(g, key, NULL, status);
    int i;
    Check("TG_GraphGetCollection");
    printf("collection %s %s ", key, KindName(TG_CollectionItemKind(c, 0)));
    for (i = 0; i < TG_CollectionSize(c); ++i) {
      if (i > 0) printf("|");
      PrintItem(c, i);
    }
    printf("\n");
    TG_DeleteCollection(c);
  }
  {
    TG_Collection* vars = TG_GraphGetCollection(g, TG_GLOBAL_VARIABLES, NULL, status);
    int i;
    Check("TG_GraphGetCollection(variables)");
    for (i = 0; i < TG_CollectionSize(vars); ++i) {
      TG_Variable* v = TG_CollectionItemVariable(vars, i);
      if (v == NULL) continue;
      printf("variable %s %d %s ", TG_VariableName(v), TG_VariableTrainable(v),
             TG_OperationName(TG_VariableInitializer(v)));
      PrintOutput(TG_VariableReadValue(v));
      printf(" ");
      PrintOutput(TG_VariableInitialValue(v));
      printf("\n");
    }
    TG_DeleteCollection(vars);
  }
}

static int RoundTrip(const char* in, const char* out, const char* scope) {
  TG_Graph* g = TG_NewGraph();
  TG_Buffer* saver_def = TG_NewBuffer();
  TG_MetaGraphImportOptions iopts;
  TG_MetaGraphExportOptions eopts;
  const char* tags[1] = {"serve"};
  TG_InitMetaGraphImportOptions(&iopts);
  iopts.import_scope = scope;
  TG_ImportMetaGraphFile(g, in, &iopts, saver_def, status);
  Check("TG_ImportMetaGraphFile");
  PrintCollections(g);
  printf("saver_def %zu\n", saver_def->length);

  TG_InitMetaGraphExportOptions(&eopts);
  eopts.export_scope = scope;
  eopts.tags = tags;
  eopts.num_tags = 1;
  if (saver_def->length > 0) {
    eopts.saver_def = saver_def->data;
    eopts.saver_def_len = saver_def->length;
  }
  TG_WriteMetaGraphFile(g, out, &eopts, status);
  Check("TG_WriteMetaGraphFile");
  TG_DeleteBuffer(saver_def);
  TG_DeleteGraph(g);
  return 0;
}

static TG_Operation* Op(TG_Graph* g, const char* type, const char* name, TG_Output a,
                        TG_Output b) {
  TG_OperationDescription* d = TG_NewOperation(g, type, name);
  TG_Operation* op;
  TG_AddInput(d, a);
  if (b.oper != NULL) TG_AddInput(d, b);
  op = TG_FinishOperation(d, status);
  Check(type);
  return op;
}

static TG_Variable* Var(TG_Graph* g, const char* name, int64_t rows, int64_t cols, float scale) {
  int64_t dims[2];
  int num_dims = cols > 0 ? 2 : 1;
  size_t n = (size_t)(rows * (cols > 0 ? cols : 1)), i;
  TG_Tensor* t;
  TG_VariableOptions opts;
  TG_Variable* v;
  dims[0] = rows;
  dims[1] = cols;
  t = TG_AllocateTensor(TG_FLOAT, dims, num_dims, n * sizeof(float));
  for (i = 0; i < n; ++i) ((float*)TG_TensorData(t))[i] = scale * (float)((int)(i % 7) - 3);
  TG_InitVariableOptions(&opts);
  opts.name = name;
  v = TG_GraphNewVariableFromTensor(g, t, &opts, status);
  TG_DeleteTensor(t);
  Check(name);
  return v;
}

static int Build(const char* out) {
  TG_Graph* g = TG_NewGraph();
  TG_Output none = {NULL, 0};
  TG_OperationDescription* d;
  TG_Operation *x, *labels, *h, *logits, *diff, *sq, *axes, *loss, *train;
  TG_Variable *w1, *b1, *w2, *b2, *step;
  TG_Optimizer* opt;
  TG_OptimizerOptions oopts;
  int64_t x_dims[2] = {-1, 4}, label_dims[2] = {-1, 3};
  int32_t axes_value[2] = {0, 1};
  int64_t axes_dims[1] = {2};
  TG_Tensor* axes_tensor;

  d = TG_NewOperation(g, "Placeholder", "x");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_SetAttrShape(d, "shape", x_dims, 2);
  x = TG_FinishOperation(d, status);
  Check("x");
  d = TG_NewOperation(g, "Placeholder", "labels");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_SetAttrShape(d, "shape", label_dims, 2);
  labels = TG_FinishOperation(d, status);
  Check("labels");

  TG_GraphPushNameScope(g, "layer1", status);
  w1 = Var(g, "W", 4, 8, 0.1f);
  b1 = Var(g, "b", 8, 0, 0.01f);
  h = Op(g, "MatMul", "MatMul", (TG_Output){x, 0}, TG_VariableReadValue(w1));
  h = Op(g, "BiasAdd", "BiasAdd", (TG_Output){h, 0}, TG_VariableReadValue(b1));
  h = Op(g, "Relu", "Relu", (TG_Output){h, 0}, none);
  TG_GraphPopNameScope(g, status);
  TG_GraphPushNameScope(g, "layer2", status);
  w2 = Var(g, "W", 8, 3, 0.1f);
  b2 = Var(g, "b", 3, 0, 0.01f);
  logits = Op(g, "MatMul", "MatMul", (TG_Output){h, 0}, TG_VariableReadValue(w2));
  logits = Op(g, "BiasAdd", "logits", (TG_Output){logits, 0}, TG_VariableReadValue(b2));
  TG_GraphPopNameScope(g, status);
  Check("scopes");

  diff = Op(g, "Sub", "diff", (TG_Output){logits, 0}, (TG_Output){labels, 0});
  sq = Op(g, "Square", "sq", (TG_Output){diff, 0}, none);
  axes_tensor = TG_AllocateTensor(TG_INT32, axes_dims, 1, sizeof axes_value);
  memcpy(TG_TensorData(axes_tensor), axes_value, sizeof axes_value);
  d = TG_NewOperation(g, "Const", "axes");
  TG_SetAttrTensor(d, "value", axes_tensor, status);
  TG_SetAttrType(d, "dtype", TG_INT32);
  axes = TG_FinishOperation(d, status);
  TG_DeleteTensor(axes_tensor);
  Check("axes");
  loss = Op(g, "Mean", "loss", (TG_Output){sq, 0}, (TG_Output){axes, 0});

  step = TG_GraphGetOrCreateGlobalStep(g, status);
  Check("global step");
  TG_InitOptimizerOptions(&oopts, TG_OPTIMIZER_GRADIENT_DESCENT);
  oopts.learning_rate = 0.1;
  opt = TG_NewOptimizer(&oopts, status);
  Check("optimizer");
  train = TG_OptimizerMinimize(opt, g, (TG_Output){loss, 0}, NULL, 0, step, status);
  Check("minimize");
  TG_DeleteOptimizer(opt);

  TG_GraphAddToCollectionOperation(g, TG_TRAIN_OP, train, status);
  TG_GraphAddToCollectionOutput(g, TG_LOSSES, (TG_Output){loss, 0}, status);
  TG_GraphAddToCollectionOperation(g, "my_ops", h, status);
  TG_GraphAddToCollectionOutput(g, "my_tensors", (TG_Output){logits, 0}, status);
  TG_GraphAddToCollectionInt64(g, "my_ints", 3, status);
  TG_GraphAddToCollectionInt64(g, "my_ints", -7, status);
  TG_GraphAddToCollectionFloat(g, "my_floats", 0.5f, status);
  TG_GraphAddToCollectionBytes(g, "my_strings", "alpha", 5, status);
  TG_GraphAddToCollectionBytes(g, "my_strings", "beta", 4, status);
  Check("collections");

  TG_WriteMetaGraphFile(g, out, NULL, status);
  Check("TG_WriteMetaGraphFile");
  PrintCollections(g);
  TG_DeleteGraph(g);
  return 0;
}

int main(int argc, char** argv) {
  int rc = 2;
  status = TG_NewStatus();
  if (argc >= 4 && strcmp(argv[1], "roundtrip") == 0) {
    rc = RoundTrip(argv[2], argv[3], argc >= 5 ? argv[4] : NULL);
  } else if (argc == 3 && strcmp(argv[1], "build") == 0) {
    rc = Build(argv[2]);
  } else {
    fprintf(stderr, "usage: %s roundtrip IN.meta OUT.meta [SCOPE] | build OUT.meta\n", argv[0]);
  }
  TG_DeleteStatus(status);
  return rc;
}
