/* The digits data set of digits_mlp: the file export_digits.py writes (its format is
 * documented there), and mini-batches of it as tensors. */
#ifndef TGRAPH_EXAMPLES_DIGITS_DATA_H_
#define TGRAPH_EXAMPLES_DIGITS_DATA_H_

#include <stdint.h>

#include "tgraph/c_api.h"

typedef struct Dataset {
  int32_t n, features, classes;
  float* pixels; /* n * features, scaled to [0, 1] */
  int64_t* labels;
} Dataset;

/* Reads the file; exits with a message naming it on anything unexpected. */
Dataset load_digits_file(const char* path);
void free_dataset(Dataset* d);

/* The rows rows[0, n) of the data set as a new x [n, features] float batch and a y [n] int64
 * label batch (the caller deletes both). */
void make_batch(const Dataset* data, const int32_t* rows, int64_t n, TG_Tensor** x,
                TG_Tensor** y);

#endif /* TGRAPH_EXAMPLES_DIGITS_DATA_H_ */
