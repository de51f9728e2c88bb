/* profile_load.h - a TIDAL_PROFILE file as per-graph-op durations. */
#ifndef TIDAL_PASS_PROFILE_LOAD_H
#define TIDAL_PASS_PROFILE_LOAD_H

#include "graph/graph.h"

/* Reads path; *out (caller frees) gets g->n_ops durations in seconds per
 * instance, -1 where the profile has no line for the op; *launch (caller
 * frees; may be NULL) the host seconds of the op's launch from a version 2
 * profile's launch column, -1 where unknown (version 1 files have none);
 * *matched counts the ops it covers.  -1 with a diagnostic if the file is
 * unreadable or malformed. */
int profile_load(const char *path, const graph *g, double **out, double **launch, int *matched);

#endif
