/* candidates.h - build-time candidate hints for a program whose sizes are
 * known only at run time (Note [candidates without sizes], candidates.c). */
#ifndef TIDAL_PASS_PLAN_CANDIDATES_H
#define TIDAL_PASS_PLAN_CANDIDATES_H

#include "graph/graph.h"
#include "plan/plan.h"

/* Fills *out with a swap-out after the last use and a prefetch before the
 * next use of each of g's eviction candidates (bytes 0: unknown), keyed to
 * static ops like plan_make's actions, in candidate order.  No drops, no
 * recomputes, no modelled peaks.  Returns 0, or -1 when out of memory (*out
 * empty).  plan_free releases it. */
int plan_candidates(const graph *g, plan_result *out);

#endif
