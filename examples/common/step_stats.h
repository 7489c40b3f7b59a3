/* Prints what a traced run (TG_SetRunOptionsTraceLevel 1) recorded as a short table: the
 * nodes that took longest first, then one line for the rest and a total. */
#ifndef TGRAPH_EXAMPLES_STEP_STATS_H_
#define TGRAPH_EXAMPLES_STEP_STATS_H_

#include <stdio.h>

#include "tgraph/c_api.h"

/* The `top` longest nodes (node, op, device, start, duration, share of the summed durations,
 * output bytes), a line summing the others, and a total line: node count, summed durations
 * and the step's span from the first start to the last end. */
void ex_print_step_stats(FILE* out, const TG_RunMetadata* metadata, int top);

#endif /* TGRAPH_EXAMPLES_STEP_STATS_H_ */
