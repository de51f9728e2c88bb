/* liveness.h - phases and eviction candidates (liveness.c). */
#ifndef TIDAL_PASS_LIVENESS_H
#define TIDAL_PASS_LIVENESS_H

#include "graph/graph.h"

void liveness_phases(graph *g);
/* The phase a function or kernel name says (Note [phases]): TRACE_BACKWARD,
 * TRACE_UPDATE, else TRACE_FORWARD. */
int liveness_name_phase(const char *name);
/* Candidates on the unrolled iteration t when every size is bound (t not
 * NULL), else on the static op list.  The caller unrolls: liveness only
 * reads the graph and the trace. */
void liveness_candidates(graph *g, const tidal_trace *t);

#endif
