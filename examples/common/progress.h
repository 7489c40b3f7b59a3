/* A progress line for training loops. On a terminal it redraws itself in place ('\r') while
 * the loop runs; anywhere else (a CI log, a pipe) it is written once, when the loop ends, so
 * logs get one plain line per loop and no control characters. */
#ifndef TGRAPH_EXAMPLES_PROGRESS_H_
#define TGRAPH_EXAMPLES_PROGRESS_H_

#include <stddef.h>
#include <stdio.h>

typedef struct ex_progress {
  FILE* out;
  int interactive;   /* `out` is a terminal */
  double last_draw;  /* ex_seconds() of the last redraw; 0 before the first of a line */
  size_t last_width; /* characters of the last redraw, to blank what a shorter one leaves */
} ex_progress;

/* Interactive when `out` is a terminal. */
void ex_progress_init(ex_progress* p, FILE* out);

/* Redraws "LABEL [bar] step DONE/TOTAL  FIGURES" in place, at most ten times a second
 * (the first call of a line always draws). Does nothing when not interactive. */
void ex_progress_update(ex_progress* p, const char* label, long done, long total,
                        const char* figures);

/* Writes the line one last time and ends it: the next update starts a new line. */
void ex_progress_finish(ex_progress* p, const char* label, long done, long total,
                        const char* figures);

/* `value` rounded to an integer with thousands separators ("12,345") in buf[0, size). */
const char* ex_thousands(double value, char* buf, size_t size);

#endif /* TGRAPH_EXAMPLES_PROGRESS_H_ */
