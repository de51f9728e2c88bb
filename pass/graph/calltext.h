/* calltext.h - an access's texts at every call level (calltext.c). */
#ifndef TIDAL_PASS_CALLTEXT_H
#define TIDAL_PASS_CALLTEXT_H

#include "graph/interp.h"

/* Fills every access's *_text_at arrays (graph.h) for an op just recorded
 * (the interpreter's path is the op's call path).  graph_free releases
 * them (graph_access_free_texts). */
void calltext_op(gb *b, graph_op *op);
/* A loop-context value (an integer the interpreter computed) in the names
 * of the op frame f is running: bound values for the names not in scope
 * there, unknown when one has none.  Those names are added, each once, to
 * the list *names ("'a', 'b'", builder-owned; NULL: empty) when names is
 * not NULL.  Note [loop-context sizes at the op] in calltext.c. */
sym *calltext_at_op(gb *b, gb_frame *f, sym *s, const char **names);
/* Releases the functions calltext_op loaded (once each per build). */
void calltext_free(gb *b);

#endif
