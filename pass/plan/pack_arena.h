/* pack_arena.h - arenas for medium tensors and chunk-level working sets
 * (pack_arena.c, Note [arenas for medium tensors]).  Used by pack.c only:
 * it proposes the arenas, runs the slab search with and without them and
 * keeps what the working sets computed here say is no worse. */
#ifndef TIDAL_PASS_PACK_ARENA_H
#define TIDAL_PASS_PACK_ARENA_H

#include <stdint.h>
#include "graph/trace.h"

typedef struct pack_arenas {
  int n;         /* arenas */
  int n_allocs;  /* entries of arena_of */
  int *arena_of; /* allocation -> arena 0..n-1, or -1 (n_allocs entries) */
  int *medium;   /* arena -> the medium allocation it is built around */
} pack_arenas;

/* Medium allocations with the small partners that fit in their chunk
 * rounding, chosen greedily (Note [arenas for medium tensors]) with the
 * ops' working sets without arenas, ws[n_ops] (or NULL), to rank them;
 * arenas numbered in allocation order of their medium.  0, or -1 out of
 * memory (then *out holds nothing to free). */
int pack_arenas_propose(const tidal_trace *t, uint64_t chunk_bytes, const uint64_t *ws,
                        pack_arenas *out);

/* Keeps the arenas k with keep[k] != 0, renumbered in order. */
void pack_arenas_keep(pack_arenas *a, const unsigned char *keep);

void pack_arenas_free(pack_arenas *a);

/* ws[n_ops]: the chunks each op needs resident, given the arenas `a` (or
 * NULL) and the slab groups of the small allocations outside them (0:
 * packed in allocation order, estimated first-fit).  0, -1 out of memory. */
int pack_working_sets(const tidal_trace *t, uint64_t chunk_bytes, const pack_arenas *a,
                      const unsigned *slab_groups, uint64_t *ws);

#endif
