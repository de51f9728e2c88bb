/* profile_load.h - a TIDAL_PROFILE file as per-graph-op durations. */
#ifndef TIDAL_PASS_PROFILE_LOAD_H
#define TIDAL_PASS_PROFILE_LOAD_H

#include "graph/graph.h"

/* Reads path; *out (caller frees) gets g->n_ops durations in seconds per
 * instance, -1 where the profile has no line for the op; *matched counts
 * the ops it covers.  -1 with a diagnostic if the file is unreadable or
 * malformed. */
int profile_load(const char *path, const graph *g, double **out, int *matched);

#endif
