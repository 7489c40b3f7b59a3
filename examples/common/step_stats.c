/* The step-stats table of the training examples; see step_stats.h. */
#include "step_stats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"
#include "progress.h"

/* Caps that keep a row near 100 columns. Long scoped node names
 * (gradients/.../MatMul_grad/MatMul_1) keep their end, which says most; op types their
 * start. */
enum { kMaxNameWidth = 38, kMaxOpWidth = 20, kMaxDeviceWidth = 24 };

typedef struct NodeTime {
  int index;
  int64_t duration_ns;
} NodeTime;

/* Longest first; equal durations in completion order, so the table is stable. */
static int by_duration_descending(const void* a, const void* b) {
  const NodeTime* x = (const NodeTime*)a;
  const NodeTime* y = (const NodeTime*)b;
  if (x->duration_ns != y->duration_ns) return x->duration_ns > y->duration_ns ? -1 : 1;
  return x->index - y->index;
}

static int min_int(int a, int b) { return a < b ? a : b; }

/* The column width that fits `text` too, at most `cap`. */
static int widen(int width, const char* text, int cap) {
  const int len = (int)strlen(text);
  return min_int(cap, len > width ? len : width);
}

/* `text` in `width` columns: a longer one keeps its first or last width - 3 characters. */
static void print_cell(FILE* out, const char* text, int width, int keep_end) {
  const int len = (int)strlen(text);
  if (len <= width) {
    fprintf(out, "%-*s", width, text);
  } else if (keep_end) {
    fprintf(out, "...%s", text + len - (width - 3));
  } else {
    fprintf(out, "%.*s...", width - 3, text);
  }
}

static double microseconds(int64_t ns) { return (double)ns / 1e3; }

void ex_print_step_stats(FILE* out, const TG_RunMetadata* md, int top) {
  const int n = TG_RunMetadataNumNodes(md);
  NodeTime* nodes;
  int64_t total_ns = 0, rest_ns = 0, first_start = INT64_MAX, last_end = 0;
  int name_width = 4, op_width = 2, device_width = 6, shown, i;
  char bytes[32];

  if (n <= 0) {
    fprintf(out, "step stats: the traced run recorded no node\n");
    return;
  }
  nodes = malloc((size_t)n * sizeof(NodeTime));
  if (nodes == NULL) ex_die("out of memory");
  for (i = 0; i < n; ++i) {
    const int64_t start = TG_RunMetadataNodeStartNs(md, i);
    nodes[i].index = i;
    nodes[i].duration_ns = TG_RunMetadataNodeDurationNs(md, i);
    total_ns += nodes[i].duration_ns;
    if (start < first_start) first_start = start;
    if (start + nodes[i].duration_ns > last_end) last_end = start + nodes[i].duration_ns;
  }
  qsort(nodes, (size_t)n, sizeof(NodeTime), by_duration_descending);
  shown = min_int(top, n);
  for (i = 0; i < shown; ++i) {
    const int k = nodes[i].index;
    name_width = widen(name_width, TG_RunMetadataNodeName(md, k), kMaxNameWidth);
    op_width = widen(op_width, TG_RunMetadataNodeOpType(md, k), kMaxOpWidth);
    device_width = widen(device_width, TG_RunMetadataNodeDevice(md, k), kMaxDeviceWidth);
  }

  fprintf(out, "  %-*s %-*s %-*s %8s %7s %6s %9s\n", name_width, "node", op_width, "op",
          device_width, "device", "start_us", "dur_us", "share", "out_bytes");
  for (i = 0; i < shown; ++i) {
    const int k = nodes[i].index;
    fputs("  ", out);
    print_cell(out, TG_RunMetadataNodeName(md, k), name_width, 1);
    fputc(' ', out);
    print_cell(out, TG_RunMetadataNodeOpType(md, k), op_width, 0);
    fputc(' ', out);
    print_cell(out, TG_RunMetadataNodeDevice(md, k), device_width, 1);
    fprintf(out, " %8.1f %7.1f %5.1f%% %9s\n", microseconds(TG_RunMetadataNodeStartNs(md, k)),
            microseconds(nodes[i].duration_ns),
            total_ns > 0 ? 100.0 * (double)nodes[i].duration_ns / (double)total_ns : 0.0,
            ex_thousands((double)TG_RunMetadataNodeOutputBytes(md, k), bytes, sizeof bytes));
  }
  for (i = shown; i < n; ++i) rest_ns += nodes[i].duration_ns;
  if (shown < n) {
    fprintf(out, "  (%d more nodes, %.1f us together)\n", n - shown, microseconds(rest_ns));
  }
  fprintf(out, "  total: %d nodes, %.1f us of node time; %.1f us from the first start to the "
          "last end\n", n, microseconds(total_ns), microseconds(last_end - first_start));
  free(nodes);
}
