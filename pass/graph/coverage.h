/* coverage.h - how much of a program tidal manages (coverage.c). */
#ifndef TIDAL_PASS_COVERAGE_H
#define TIDAL_PASS_COVERAGE_H

#include <stdint.h>
#include "graph/graph.h"

typedef struct graph_coverage {
  int n_allocs;          /* device allocations the analysis saw */
  int n_allocs_managed;  /* of those, the ones `tidal rewrite` turns into tidal_malloc */
  int64_t bytes;         /* their bytes under the bindings; -1 if some size is unbound */
  int64_t bytes_managed; /* -1 likewise */
  int n_ops;             /* op sites (static) in one iteration */
  int n_accesses;        /* their pointer accesses */
  int n_resolved;        /* attributed to a tensor */
  int n_unmanaged_mem;   /* into memory tidal does not manage by design (managed/pinned host) */
  int n_unresolved;      /* neither: not traced to an allocation */
} graph_coverage;

/* managed[i] says whether allocation i becomes a tidal_malloc
 * (graph_allocs_replaced); NULL counts none as managed. */
void graph_coverage_of(const graph *g, const unsigned char *managed, graph_coverage *c);

#endif
