/* The C side of tests/interop/test_checkpoint_bundle.py: moves tensors between checkpoints
 * and plain files through the C API's checkpoint section only.
 *
 *   checkpoint_bundle_tool dump PREFIX DIR   every tensor of the checkpoint → DIR
 *   checkpoint_bundle_tool write PREFIX DIR  the tensors described in DIR → a checkpoint
 *
 * DIR/manifest.tsv has one line per tensor: "name<TAB>dtype<TAB>d0,d1,...<TAB>file" (dtype
 * is TensorFlow's DataType number, an empty dims field is a scalar); each file holds the
 * tensor's raw little-endian element bytes, or for strings each element as an 8-byte
 * little-endian length and its bytes. On failure it prints "CODE_NAME: message" on stderr
 * and exits with 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgraph/c_api.h"

#define MAX_DIMS 32
#define MAX_LINE 8192

static int Fail(TG_Status* status) {
  fprintf(stderr, "%s: %s\n", TG_CodeName(TG_GetCode(status)), TG_Message(status));
  TG_DeleteStatus(status);
  return 1;
}

static int FailText(const char* what, const char* detail) {
  fprintf(stderr, "tool error: %s %s\n", what, detail);
  return 1;
}

static void PutU64(FILE* f, uint64_t v) {
  unsigned char b[8];
  int i;
  for (i = 0; i < 8; ++i) b[i] = (unsigned char)(v >> (8 * i));
  fwrite(b, 1, 8, f);
}

static int GetU64(FILE* f, uint64_t* v) {
  unsigned char b[8];
  int i;
  if (fread(b, 1, 8, f) != 8) return 0;
  *v = 0;
  for (i = 7; i >= 0; --i) *v = (*v << 8) | b[i];
  return 1;
}

/* Writes tensor i of the reader as DIR/<i>.bin and its manifest line; 0 on success. */
static int DumpTensor(TG_CheckpointReader* reader, int i, const char* dir, FILE* manifest,
                      TG_Status* status) {
  const char* name = TG_CheckpointReaderTensorName(reader, i);
  int d, rank = TG_CheckpointReaderTensorNumDims(reader, i);
  int64_t dims[MAX_DIMS];
  char path[MAX_LINE];
  TG_Tensor* t;
  FILE* data;
  if (rank > MAX_DIMS) return FailText("too many dims:", name);
  TG_CheckpointReaderTensorDims(reader, i, dims, rank, status);
  if (TG_GetCode(status) != TG_OK) return 1;
  t = TG_CheckpointReaderRead(reader, name, status);
  if (t == NULL) return 1;
  fprintf(manifest, "%s\t%d\t", name, (int)TG_CheckpointReaderTensorType(reader, i));
  for (d = 0; d < rank; ++d) fprintf(manifest, d ? ",%lld" : "%lld", (long long)dims[d]);
  fprintf(manifest, "\t%d.bin\n", i);
  snprintf(path, sizeof path, "%s/%d.bin", dir, i);
  data = fopen(path, "wb");
  if (data == NULL) {
    TG_DeleteTensor(t);
    return FailText("cannot write", path);
  }
  if (TG_TensorType(t) == TG_STRING) {
    int64_t e;
    for (e = 0; e < TG_TensorElementCount(t); ++e) {
      const char* s;
      size_t len;
      TG_TensorGetString(t, e, &s, &len, status);
      PutU64(data, (uint64_t)len);
      fwrite(s, 1, len, data);
    }
  } else if (TG_TensorByteSize(t) > 0) {
    fwrite(TG_TensorData(t), 1, TG_TensorByteSize(t), data);
  }
  fclose(data);
  TG_DeleteTensor(t);
  return 0;
}

static int Dump(const char* prefix, const char* dir) {
  TG_Status* status = TG_NewStatus();
  TG_CheckpointReader* reader = TG_NewCheckpointReader(prefix, status);
  char path[MAX_LINE];
  FILE* manifest;
  int i, n, rc = 0;
  if (reader == NULL) return Fail(status);
  snprintf(path, sizeof path, "%s/manifest.tsv", dir);
  manifest = fopen(path, "w");
  if (manifest == NULL) {
    rc = FailText("cannot write", path);
  } else {
    n = TG_CheckpointReaderNumTensors(reader);
    for (i = 0; i < n && rc == 0; ++i) rc = DumpTensor(reader, i, dir, manifest, status);
    fclose(manifest);
  }
  TG_DeleteCheckpointReader(reader);
  if (TG_GetCode(status) != TG_OK) return Fail(status);
  TG_DeleteStatus(status);
  return rc;
}

/* Reads one tensor described by a manifest line; NULL (and a message) on error. */
static TG_Tensor* ReadTensorFile(const char* dir, char* line, char** name, TG_Status* status) {
  char* dtype_field = strchr(line, '\t');
  char *dims_field, *file_field, *p;
  int64_t dims[MAX_DIMS];
  int rank = 0;
  int64_t count = 1, e;
  char path[MAX_LINE];
  FILE* f;
  TG_Tensor* t = NULL;
  TG_DataType dtype;
  if (dtype_field == NULL) return NULL;
  *dtype_field++ = '\0';
  dims_field = strchr(dtype_field, '\t');
  if (dims_field == NULL) return NULL;
  *dims_field++ = '\0';
  file_field = strchr(dims_field, '\t');
  if (file_field == NULL) return NULL;
  *file_field++ = '\0';
  file_field[strcspn(file_field, "\r\n")] = '\0';
  *name = line;
  dtype = (TG_DataType)atoi(dtype_field);
  for (p = dims_field; *p != '\0' && rank < MAX_DIMS;) {
    dims[rank] = strtoll(p, &p, 10);
    count *= dims[rank++];
    if (*p == ',') ++p;
  }
  snprintf(path, sizeof path, "%s/%s", dir, file_field);
  f = fopen(path, "rb");
  if (f == NULL) return NULL;
  if (dtype == TG_STRING) {
    char** strs = (char**)calloc((size_t)count + 1, sizeof(char*));
    size_t* lens = (size_t*)calloc((size_t)count + 1, sizeof(size_t));
    for (e = 0; e < count; ++e) {
      uint64_t len = 0;
      if (!GetU64(f, &len)) break;
      strs[e] = (char*)malloc((size_t)len + 1);
      lens[e] = (size_t)len;
      if (fread(strs[e], 1, (size_t)len, f) != (size_t)len) break;
    }
    if (e == count) {
      t = TG_NewStringTensor(dims, rank, (const char* const*)strs, lens, status);
    }
    for (e = 0; e < count; ++e) free(strs[e]);
    free(strs);
    free(lens);
  } else {
    size_t bytes = (size_t)count * TG_DataTypeSize(dtype);
    t = TG_AllocateTensor(dtype, dims, rank, bytes);
    if (t != NULL && bytes > 0 && fread(TG_TensorData(t), 1, bytes, f) != bytes) {
      TG_DeleteTensor(t);
      t = NULL;
    }
  }
  fclose(f);
  return t;
}

static int Write(const char* prefix, const char* dir) {
  TG_Status* status = TG_NewStatus();
  char path[MAX_LINE];
  char* lines[1024];
  char* names[1024];
  TG_Tensor* tensors[1024];
  int n = 0, i, rc = 0;
  FILE* manifest;
  snprintf(path, sizeof path, "%s/manifest.tsv", dir);
  manifest = fopen(path, "r");
  if (manifest == NULL) return FailText("cannot read", path);
  for (;;) {
    char line[MAX_LINE];
    if (n == 1024 || fgets(line, sizeof line, manifest) == NULL) break;
    lines[n] = (char*)malloc(strlen(line) + 1);
    strcpy(lines[n], line);
    tensors[n] = ReadTensorFile(dir, lines[n], &names[n], status);
    if (tensors[n] == NULL) {
      rc = FailText("bad manifest line or data file:", line);
      free(lines[n]);
      break;
    }
    ++n;
  }
  fclose(manifest);
  if (rc == 0) {
    TG_CheckpointWrite(prefix, (const char* const*)names, tensors, n, status);
    if (TG_GetCode(status) != TG_OK) {
      fprintf(stderr, "%s: %s\n", TG_CodeName(TG_GetCode(status)), TG_Message(status));
      rc = 1;
    }
  }
  for (i = 0; i < n; ++i) {
    TG_DeleteTensor(tensors[i]);
    free(lines[i]);
  }
  TG_DeleteStatus(status);
  return rc;
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "dump") == 0) return Dump(argv[2], argv[3]);
  if (argc == 4 && strcmp(argv[1], "write") == 0) return Write(argv[2], argv[3]);
  fprintf(stderr, "usage: %s dump|write PREFIX DIR\n", argv[0]);
  return 2;
}
