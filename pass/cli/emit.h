/* emit.h - the graph's output formats (docs/graph-format.md).  Each writes
 * to fp and returns 0, or -1 on a write error. */
#ifndef TIDAL_PASS_EMIT_H
#define TIDAL_PASS_EMIT_H

#include <stdio.h>
#include "graph/graph.h"
#include "plan/plan.h"

int graph_emit_text(const graph *g, FILE *fp);
int graph_emit_json(const graph *g, FILE *fp);
/* plan (may be NULL): the actions drawn on the graph (emit_dot.c). */
int graph_emit_dot(const graph *g, const plan_result *plan, FILE *fp);

#endif
