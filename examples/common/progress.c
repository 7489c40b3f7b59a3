/* Progress lines of the training examples; see progress.h. */
#define _POSIX_C_SOURCE 199309L

#include "progress.h"

#include <unistd.h>

#include "example_util.h"

/* Short enough for the running line to fit 80 columns (a wrapped line cannot be redrawn). */
enum { kBarWidth = 12 };
/* Redrawing more often only costs time: the eye cannot follow it. */
static const double kRedrawInterval = 0.1;

void ex_progress_init(ex_progress* p, FILE* out) {
  p->out = out;
  p->interactive = isatty(fileno(out));
  p->last_draw = 0.0;
  p->last_width = 0;
}

/* Writes the line without its end; returns its length in characters. */
static size_t write_line(FILE* out, const char* label, long done, long total,
                         const char* figures) {
  char bar[kBarWidth + 1];
  const long filled = total > 0 ? (done >= total ? kBarWidth : done * kBarWidth / total) : 0;
  int i, n;
  for (i = 0; i < kBarWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kBarWidth] = '\0';
  n = fprintf(out, "%s [%s] step %*ld/%ld  %s", label, bar, (int)snprintf(NULL, 0, "%ld", total),
              done, total, figures);
  return n > 0 ? (size_t)n : 0;
}

/* Rewrites the terminal line from its start, blanking what the previous draw left. */
static void redraw(ex_progress* p, const char* label, long done, long total,
                   const char* figures) {
  size_t width;
  fputc('\r', p->out);
  width = write_line(p->out, label, done, total, figures);
  if (width < p->last_width) fprintf(p->out, "%*s", (int)(p->last_width - width), "");
  p->last_width = width;
  fflush(p->out);
}

void ex_progress_update(ex_progress* p, const char* label, long done, long total,
                        const char* figures) {
  const double now = ex_seconds();
  if (!p->interactive || (p->last_draw > 0.0 && now - p->last_draw < kRedrawInterval)) return;
  p->last_draw = now;
  redraw(p, label, done, total, figures);
}

void ex_progress_finish(ex_progress* p, const char* label, long done, long total,
                        const char* figures) {
  if (p->interactive) {
    redraw(p, label, done, total, figures);
  } else {
    write_line(p->out, label, done, total, figures);
  }
  fputc('\n', p->out);
  /* A log that is followed live (CI) shows each epoch when it ends. */
  fflush(p->out);
  p->last_draw = 0.0;
  p->last_width = 0;
}

const char* ex_thousands(double value, char* buf, size_t size) {
  char digits[32];
  const int negative = value <= -0.5;
  int len = snprintf(digits, sizeof digits, "%.0f", negative ? -value : value);
  size_t out = 0;
  int i;
  if (size == 0) return buf;
  /* Past 10^31 the figure is meaningless anyway; keep what snprintf stored. */
  if (len < 0) len = 0;
  if (len >= (int)sizeof digits) len = (int)sizeof digits - 1;
  if (negative && out + 1 < size) buf[out++] = '-';
  for (i = 0; i < len && out + 1 < size; ++i) {
    if (i > 0 && (len - i) % 3 == 0) {
      buf[out++] = ',';
      if (out + 1 >= size) break;
    }
    buf[out++] = digits[i];
  }
  buf[out] = '\0';
  return buf;
}
