/* calltext.h - an access's texts at every call level (calltext.c). */
#ifndef TIDAL_PASS_CALLTEXT_H
#define TIDAL_PASS_CALLTEXT_H

#include "graph/interp.h"

/* Fills every access's *_text_at arrays (graph.h) for an op just recorded
 * (the interpreter's path is the op's call path).  graph_free releases
 * them (graph_access_free_texts). */
void calltext_op(gb *b, graph_op *op);
/* Releases the functions calltext_op loaded (once each per build). */
void calltext_free(gb *b);

#endif
