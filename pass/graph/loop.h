/* loop.h - the training loop's choice and the graph loops (loop.c). */
#ifndef TIDAL_PASS_LOOP_H
#define TIDAL_PASS_LOOP_H

#include "graph/interp.h"

/* Chooses the training loop; returns 0 and *loop, or prints an error and
 * returns TIDAL_EXIT_BAD_INPUT. */
int loop_choose(gb *b, const graph_options *opt, CXCursor *loop);
/* Records a graph loop for a for/while statement met in graph mode: var
 * (NULL if not recognised), lo, hi (exclusive in the step's direction),
 * step and stride (handlers.h) in loop context.  Returns its id. */
int loop_record(gb *b, gb_frame *f, CXCursor stmt, CXCursor body, const char *var, sym *lo,
                sym *hi, int step, sym *stride);

#endif
