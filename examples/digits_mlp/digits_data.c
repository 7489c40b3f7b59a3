/* Loading the digits file and making batches; see digits_data.h. */
#include "digits_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

static uint32_t read_u32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

Dataset load_digits_file(const char* path) {
  unsigned char header[24];
  Dataset d;
  unsigned char* bytes;
  size_t pixel_count, i;
  uint32_t rows, cols;
  FILE* f = fopen(path, "rb");
  if (f == NULL) ex_die("cannot open %s (write it with export_digits.py)", path);
  if (fread(header, 1, sizeof header, f) != sizeof header || memcmp(header, "TGDIGIT1", 8) != 0) {
    ex_die("%s is not a digits file (bad magic)", path);
  }
  d.n = (int32_t)read_u32(header + 8);
  rows = read_u32(header + 12);
  cols = read_u32(header + 16);
  d.classes = (int32_t)read_u32(header + 20);
  if (d.n <= 0 || d.n > 1000000 || rows == 0 || cols == 0 || rows * cols > 4096 ||
      d.classes < 2 || d.classes > 256) {
    ex_die("%s: implausible header (n %d, %ux%u, %d classes)", path, d.n, rows, cols,
           d.classes);
  }
  d.features = (int32_t)(rows * cols);
  pixel_count = (size_t)d.n * (size_t)d.features;
  bytes = malloc(pixel_count + (size_t)d.n);
  d.pixels = malloc(pixel_count * sizeof(float));
  d.labels = malloc((size_t)d.n * sizeof(int64_t));
  if (bytes == NULL || d.pixels == NULL || d.labels == NULL) ex_die("out of memory");
  if (fread(bytes, 1, pixel_count + (size_t)d.n, f) != pixel_count + (size_t)d.n) {
    ex_die("%s is truncated", path);
  }
  fclose(f);
  for (i = 0; i < pixel_count; ++i) d.pixels[i] = (float)bytes[i] / 16.0f;
  for (i = 0; i < (size_t)d.n; ++i) {
    if (bytes[pixel_count + i] >= d.classes) ex_die("%s: label out of range", path);
    d.labels[i] = bytes[pixel_count + i];
  }
  free(bytes);
  return d;
}

void free_dataset(Dataset* d) {
  free(d->pixels);
  free(d->labels);
  d->pixels = NULL;
  d->labels = NULL;
}

void make_batch(const Dataset* data, const int32_t* rows, int64_t n, TG_Tensor** x,
                TG_Tensor** y) {
  const int64_t x_dims[2] = {n, data->features};
  float* xv;
  int64_t* yv;
  int64_t i;
  *x = ex_tensor(TG_FLOAT, x_dims, 2, NULL);
  *y = ex_tensor(TG_INT64, &n, 1, NULL);
  xv = (float*)TG_TensorData(*x);
  yv = (int64_t*)TG_TensorData(*y);
  for (i = 0; i < n; ++i) {
    memcpy(xv + i * data->features, data->pixels + (size_t)rows[i] * (size_t)data->features,
           (size_t)data->features * sizeof(float));
    yv[i] = data->labels[rows[i]];
  }
}
