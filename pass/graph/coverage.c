/* coverage.c - how much of a program tidal manages: allocations and bytes
 * it can evict, accesses it attributes to tensors.  The command line
 * reports it (a summary line, warnings for what is left out, and
 * --min-coverage); nothing here prints.
 *
 * Decision: an allocation is managed when the rewriter replaces its call
 * with tidal_malloc (the caller says which: graph_allocs_replaced).
 * Memory from any other allocation stays resident for the whole run: tidal
 * can neither evict it nor count it against the budget. */
#include "graph/coverage.h"

void graph_coverage_of(const graph *g, const unsigned char *managed_of, graph_coverage *c) {
  c->n_allocs = g->n_allocs;
  c->n_allocs_managed = 0;
  c->bytes = 0;
  c->bytes_managed = 0;
  for (int i = 0; i < g->n_allocs; i++) {
    const graph_alloc *a = &g->allocs[i];
    int managed = managed_of ? managed_of[i] != 0 : 0;
    c->n_allocs_managed += managed;
    int64_t v;
    if (c->bytes >= 0 && graph_eval(g, a->bytes, &v) == 0 && v >= 0) {
      c->bytes += v;
      if (managed) c->bytes_managed += v;
    } else {
      c->bytes = c->bytes_managed = -1;
    }
  }
  c->n_ops = g->n_ops;
  c->n_accesses = c->n_resolved = c->n_unmanaged_mem = c->n_unresolved = 0;
  for (int i = 0; i < g->n_ops; i++)
    for (int j = 0; j < g->ops[i].n_acc; j++) {
      const graph_access *a = &g->ops[i].acc[j];
      c->n_accesses++;
      if (a->tensor >= 0)
        c->n_resolved++;
      else if (a->unmanaged)
        c->n_unmanaged_mem++;
      else
        c->n_unresolved++;
    }
}
