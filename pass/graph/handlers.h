/* handlers.h - the one narrow interface through which the interpreter
 * (interp*.c) hands what it meets to the rest of the graph stage.
 *
 * The interpreter walks host code; op sites (opsites.c), allocations and
 * carved regions (regions.c) and graph loops (loop.c) are recorded by
 * handlers that build.c plugs in before it runs the interpreter.  So the
 * handlers depend on the interpreter (they evaluate through interp.h) and
 * the interpreter depends on nothing above it: no cycle between the files
 * of this stage (scripts/check_layers.py checks it). */
#ifndef TIDAL_PASS_HANDLERS_H
#define TIDAL_PASS_HANDLERS_H

#include <clang-c/Index.h>
#include "base/symexpr.h"

struct gb;
struct gb_frame;
struct gval;

typedef struct gb_handlers {
  /* A call met in graph mode or setup: if it is an op site, record it (graph
   * mode) and return 1; 0 lets the interpreter treat it as a plain call.
   * as: the library function a call through a function pointer runs
   * (callees.c, Note [library functions through pointers]), or NULL for
   * the call's own callee. */
  int (*op_site)(struct gb *b, struct gb_frame *f, CXCursor call, const char *as);
  /* A cudaMalloc/cudaFree-like call (callee is its name): 1 if handled. */
  int (*alloc_call)(struct gb *b, struct gb_frame *f, CXCursor call, const char *callee);
  /* A device pointer stored into the lvalue `key` (display name `name`)
   * during setup. */
  void (*pointer_stored)(struct gb *b, const char *key, const char *name, struct gval *v);
  /* Setup is over: the training loop is about to be walked. */
  void (*setup_done)(struct gb *b);
  /* A once branch inside the loop was walked as setup (frame f live):
   * allocations from first_alloc on are carved into regions like setup's. */
  void (*once_done)(struct gb *b, struct gb_frame *f, int first_alloc);
  /* A for/while statement met in graph mode: var (NULL if not recognised),
   * lo, hi (exclusive in the step's direction), step (the constant stride,
   * or the direction when stride is a symbol) and stride (NULL: |step|) in
   * loop context.  Returns the graph loop's id. */
  int (*graph_loop)(struct gb *b, struct gb_frame *f, CXCursor stmt, CXCursor body,
                    const char *var, sym *lo, sym *hi, int step, sym *stride);
} gb_handlers;

#endif
