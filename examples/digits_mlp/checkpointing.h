/* The trained model kept as TensorFlow keeps one: a checkpoint with its MetaGraph (Saver),
 * an event file for TensorBoard, and the proof that the files alone bring the model back. */
#ifndef TGRAPH_EXAMPLES_DIGITS_MLP_CHECKPOINTING_H_
#define TGRAPH_EXAMPLES_DIGITS_MLP_CHECKPOINTING_H_

#include <stdint.h>

#include "tgraph/c_api.h"

/* Saves every global variable of `g` to "<dir>/model.ckpt-<step>" with the MetaGraph (and its
 * SaverDef) beside it, and TF's `checkpoint` state file. Returns the checkpoint's prefix
 * (free() it). */
char* save_checkpoint(TG_Graph* g, TG_Session* session, const char* dir, int64_t step);

/* Imports "<prefix>.meta" into a new graph, restores "<prefix>" by the MetaGraph's own
 * SaverDef in a new session, and returns the share of the rows of (x, y) that the restored
 * model classifies right: the tensors "x:0", "y:0" and "correct:0" of the training graph. */
double evaluate_restored(const char* prefix, TG_Tensor* x, TG_Tensor* y);

#endif
