#include "checkpointing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

char* save_checkpoint(TG_Graph* g, TG_Session* session, const char* dir, int64_t step) {
  TG_Saver* saver = TG_NewSaver(g, NULL, ex_status);
  ex_check("TG_NewSaver");
  TG_Buffer* saver_def = TG_NewBuffer();
  TG_SaverToSaverDef(saver, saver_def, ex_status);
  ex_check("TG_SaverToSaverDef");
  /* The MetaGraph is exported after the Saver's nodes are in the graph, so it carries them
   * and the SaverDef that names them. */
  TG_MetaGraphExportOptions options;
  TG_InitMetaGraphExportOptions(&options);
  options.saver_def = saver_def->data;
  options.saver_def_len = saver_def->length;
  TG_Buffer* meta = TG_NewBuffer();
  TG_ExportMetaGraph(g, &options, meta, ex_status);
  ex_check("TG_ExportMetaGraph");
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/model.ckpt", dir);
  const char* path = TG_SaverSave(saver, session, prefix, &step, meta, NULL, ex_status);
  ex_check("TG_SaverSave");
  char* result = malloc(strlen(path) + 1);
  if (result == NULL) ex_die("out of memory");
  strcpy(result, path);
  TG_DeleteBuffer(meta);
  TG_DeleteBuffer(saver_def);
  TG_DeleteSaver(saver);
  return result;
}

double evaluate_restored(const char* prefix, TG_Tensor* x, TG_Tensor* y) {
  char meta_path[4096];
  snprintf(meta_path, sizeof meta_path, "%s.meta", prefix);
  TG_Graph* g = TG_NewGraph();
  TG_Buffer* saver_def = TG_NewBuffer();
  TG_ImportMetaGraphFile(g, meta_path, NULL, saver_def, ex_status);
  ex_check(meta_path);
  TG_Saver* saver = TG_NewSaverFromDef(g, saver_def->data, saver_def->length, ex_status);
  ex_check("TG_NewSaverFromDef");
  TG_Session* session = TG_NewSession(g, NULL, ex_status);
  ex_check("TG_NewSession");
  TG_SaverRestore(saver, session, prefix, ex_status);
  ex_check(prefix);

  TG_Output feeds[2], correct;
  feeds[0] = TG_GraphOutputByName(g, "x:0", ex_status);
  ex_check("x:0");
  feeds[1] = TG_GraphOutputByName(g, "y:0", ex_status);
  ex_check("y:0");
  correct = TG_GraphOutputByName(g, "correct:0", ex_status);
  ex_check("correct:0");
  TG_Tensor* const values[2] = {x, y};
  TG_Tensor* result = NULL;
  ex_run(session, feeds, values, 2, &correct, &result, 1, NULL, 0, "the restored evaluation");
  const double accuracy = (double)*(const float*)TG_TensorData(result) / (double)TG_Dim(x, 0);
  TG_DeleteTensor(result);
  TG_DeleteSession(session, ex_status);
  ex_check("TG_DeleteSession");
  TG_DeleteSaver(saver);
  TG_DeleteBuffer(saver_def);
  TG_DeleteGraph(g);
  return accuracy;
}
