/* unroll.h - the graph unrolled into one concrete iteration (unroll.c). */
#ifndef TIDAL_PASS_UNROLL_H
#define TIDAL_PASS_UNROLL_H

#include "graph/graph.h"

/* graph_unroll with diagnostics optional (quiet: none printed). */
int unroll_graph(const graph *g, tidal_trace *out, int quiet);

#endif
