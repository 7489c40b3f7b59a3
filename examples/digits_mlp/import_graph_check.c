/* import_graph_check: a helper of the example.digits_mlp test. Imports a binary GraphDef file
 * (what digits_mlp --graph-out writes) into a new graph through the C API and prints how
 * many operations it holds; exits non-zero when the file cannot be read, is empty, or
 * TG_GraphImportGraphDef rejects it.
 *   usage: import_graph_check GRAPH_DEF_FILE */
#include <stdio.h>
#include <stdlib.h>

#include "example_util.h"

/* The whole file in a new buffer (the caller deletes it); exits with a message naming it. */
static TG_Buffer* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* bytes = NULL;
  size_t length = 0, capacity = 0, got;
  TG_Buffer* buffer;
  if (f == NULL) ex_die("cannot open %s", path);
  do {
    if (length == capacity) {
      char* grown;
      capacity = capacity ? 2 * capacity : 65536;
      grown = realloc(bytes, capacity);
      if (grown == NULL) ex_die("out of memory reading %s", path);
      bytes = grown;
    }
    got = fread(bytes + length, 1, capacity - length, f);
    length += got;
  } while (got > 0);
  if (ferror(f)) ex_die("cannot read %s", path);
  fclose(f);
  if (length == 0) ex_die("%s is empty", path);
  buffer = TG_NewBufferFromString(bytes, length);
  free(bytes);
  if (buffer == NULL) ex_die("out of memory");
  return buffer;
}

int main(int argc, char** argv) {
  TG_Buffer* graph_def;
  TG_Graph* g;
  if (argc != 2) {
    fprintf(stderr, "usage: import_graph_check GRAPH_DEF_FILE\n");
    return 2;
  }
  ex_init("import_graph_check");
  graph_def = read_file(argv[1]);
  g = TG_NewGraph();
  if (g == NULL) ex_die("out of memory");
  TG_GraphImportGraphDef(g, graph_def, NULL, ex_status);
  TG_DeleteBuffer(graph_def);
  if (TG_GetCode(ex_status) != TG_OK) {
    ex_die("importing %s failed: %s: %s", argv[1], TG_CodeName(TG_GetCode(ex_status)),
           TG_Message(ex_status));
  }
  printf("%s: %d operations imported\n", argv[1], TG_GraphNumOperations(g));
  TG_DeleteGraph(g);
  ex_shutdown();
  return 0;
}
