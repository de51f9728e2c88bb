/* unroll.h - the graph unrolled into one concrete iteration (unroll.c). */
#ifndef TIDAL_PASS_UNROLL_H
#define TIDAL_PASS_UNROLL_H

#include "graph/graph.h"

/* graph_unroll with diagnostics optional (quiet: none printed), except
 * that an iteration of more than g->max_unrolled_ops ops or loop
 * iterations is always reported, and returns UNROLL_TOO_LARGE. */
int unroll_graph(const graph *g, tidal_trace *out, int quiet);
#define UNROLL_TOO_LARGE 3

#endif
