/* pack.h - which small allocations share a runtime chunk.
 *
 * libtidal packs allocations smaller than a chunk into slabs that move as
 * one unit (runtime/memory/suballoc.c, Note [lifetime-aware pool]), and an op
 * needs every slab its operands sit in.  Packed in allocation order, the
 * parameters, gradients, activations and their gradients fill different
 * slabs, so a backward op (activation, gradient of the output, gradient of
 * the weight) needs three; from the trace, the pass can pack each op's
 * operands into as few slabs as possible.  The result is a packing group
 * per allocation, which `tidal rewrite` emits as tidal_malloc_grouped(...,
 * group) and `tidal replay` passes to the runtime the same way. */
#ifndef TIDAL_PASS_PACK_H
#define TIDAL_PASS_PACK_H

#include <stdint.h>
#include "graph/trace.h"

/* The chunk the packing is made for: the runtime's default. */
#define PACK_CHUNK_BYTES ((uint64_t)2 << 20)

/* The runtime's alignment of slab and arena members (RT_SMALL_MIN_BYTES). */
#define PACK_ALIGN 256u
static inline uint64_t pack_aligned(uint64_t bytes) {
  return (bytes + PACK_ALIGN - 1) / PACK_ALIGN * PACK_ALIGN;
}

/* groups[n_allocs]: 0 for allocations not packed by group (a chunk or
 * more, untouched, or no packing found), else 1.. (equal: same slabs).
 * Minimises the most slabs any one op needs, then the number of slabs,
 * with a bounded search; falls back to all 0 (allocation order).  Returns
 * that most-slabs figure (0 if nothing is small), -1 when out of memory. */
int plan_pack_groups(const tidal_trace *t, uint64_t chunk_bytes, unsigned *groups);

/* Note [groups per call site]: the rewriter gives each cudaMalloc call one
 * group, so a call that makes several allocations (in a setup loop, or in
 * a helper called for each tensor) whose groups differ is rewritten with
 * none (tidal_malloc).  This sets the groups of every such call's
 * allocations to 0, so that `tidal replay` packs as the rewritten program
 * will rather than better.  groups[] is indexed like g->allocs (the trace's
 * allocations are the graph's).  Returns -1 when out of memory. */
struct graph;
int plan_pack_by_site(const struct graph *g, unsigned *groups);

#endif
