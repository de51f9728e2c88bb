/* hoststore.c - the pinned host store that swapped-out chunks live in.
 *
 * Note [host store layout]: every host copy is exactly one chunk, so the
 * store is a free list of chunk-sized slots carved out of a few large pieces
 * of pinned memory (pinning is slow and fragments the driver's bookkeeping:
 * never per swap).  Pieces are allocated lazily, at most RT_HOST_PIECES_MAX,
 * together bounded by the host budget, and kept until tidal_shutdown.  When
 * no slot is left rt_host_slot_alloc returns -1 and the caller keeps the
 * data resident (or drops it for recompute): nothing is ever lost. */
#include <stdlib.h>
#include "rt.h"

void rt_host_init(size_t slot_bytes, size_t budget_bytes) {
  rt_hoststore *h = &rt_g.hs;
  h->slot_bytes = slot_bytes;
  size_t slots_total = budget_bytes / slot_bytes;
  size_t piece = budget_bytes / RT_HOST_PIECES_MAX;
  if (piece < RT_HOST_PIECE_MIN_BYTES)
    piece = RT_HOST_PIECE_MIN_BYTES;
  size_t per_piece = piece / slot_bytes;
  if (per_piece == 0)
    per_piece = 1;
  if (per_piece > slots_total)
    per_piece = slots_total;
  if (per_piece > UINT32_MAX) /* slot numbers within a piece are 32-bit */
    per_piece = UINT32_MAX;
  h->slots_per_piece = (uint32_t)per_piece;
  h->piece_bytes = per_piece * slot_bytes;
  h->max_pieces = per_piece ? (uint32_t)(slots_total / per_piece) : 0;
  if (h->max_pieces > RT_HOST_PIECES_MAX)
    h->max_pieces = RT_HOST_PIECES_MAX;
  h->npieces = 0;
  h->nfree = h->used = 0;
}

size_t rt_host_capacity_slots(void) {
  return (size_t)rt_g.hs.max_pieces * rt_g.hs.slots_per_piece;
}

/* Adds one piece's slots to the free list. */
static int grow(void) {
  rt_hoststore *h = &rt_g.hs;
  if (h->npieces >= h->max_pieces)
    return 0;
  /* Room for every slot carved out so far, not just the free ones: slots in
   * use now all come back here when freed (Note [host slot ownership]). */
  size_t need = (size_t)(h->npieces + 1) * h->slots_per_piece;
  if (need > h->cap_free) {
    int64_t *n = realloc(h->free_slots, need * sizeof *n);
    if (!n)
      return 0;
    h->free_slots = n;
    h->cap_free = need;
  }
  void *p = NULL;
  if (rt_g.be->host_alloc(rt_g.b, h->piece_bytes, &p) != TIDAL_OK || !p) {
    rt_log(2, "host store: could not allocate a %zu-byte piece; the store stays at %u pieces",
           h->piece_bytes, h->npieces);
    h->max_pieces = h->npieces; /* do not retry on every swap */
    return 0;
  }
  uint32_t piece = h->npieces++;
  h->pieces[piece] = p;
  /* Push high slots first so the lowest are handed out first. */
  for (uint32_t i = h->slots_per_piece; i-- > 0;)
    h->free_slots[h->nfree++] = (int64_t)piece * h->slots_per_piece + i;
  return 1;
}

int64_t rt_host_slot_alloc(void) {
  rt_hoststore *h = &rt_g.hs;
  if (h->nfree == 0 && (!grow() || h->nfree == 0))
    return -1;
  h->used++;
  return h->free_slots[--h->nfree];
}

void rt_host_slot_free(int64_t slot) {
  rt_hoststore *h = &rt_g.hs;
  if (slot < 0)
    return;
  h->free_slots[h->nfree++] = slot; /* capacity: every slot came from this array */
  h->used--;
}

void *rt_host_slot_addr(int64_t slot) {
  rt_hoststore *h = &rt_g.hs;
  size_t piece = (size_t)slot / h->slots_per_piece, i = (size_t)slot % h->slots_per_piece;
  return (char *)h->pieces[piece] + i * h->slot_bytes;
}

void rt_host_destroy(void) {
  rt_hoststore *h = &rt_g.hs;
  for (uint32_t i = 0; i < h->npieces; i++)
    rt_g.be->host_free(rt_g.b, h->pieces[i], h->piece_bytes);
  free(h->free_slots);
  h->free_slots = NULL;
  h->npieces = 0;
  h->nfree = h->cap_free = h->used = 0;
}

/* Note [host slot ownership]: every slot the store has carved out is either
 * on the free list (once) or recorded by exactly one chunk, in a state that
 * holds a host copy; the free list's array can hold them all.  Checked by
 * the property tests between calls (the runtime never calls it: it walks
 * every chunk). */
int rt_host_check(char *msg, size_t len) {
  rt_hoststore *h = &rt_g.hs;
  size_t total = (size_t)h->npieces * h->slots_per_piece, owned = 0;
  int ok = 0;
  unsigned char *seen = calloc(total ? total : 1, 1); /* 1 free, 2 owned */
  if (!seen) {
    snprintf(msg, len, "host check: out of memory");
    return -1;
  }
  if (h->nfree > h->cap_free || total > h->cap_free) {
    snprintf(msg, len, "host store: free list capacity %zu < %zu free / %zu slots", h->cap_free,
             h->nfree, total);
    goto out;
  }
  for (size_t i = 0; i < h->nfree; i++) {
    int64_t s = h->free_slots[i];
    if (s < 0 || (size_t)s >= total || seen[s]) {
      snprintf(msg, len, "host store: free list entry %zu is slot %lld (%s)", i, (long long)s,
               s < 0 || (size_t)s >= total ? "out of range" : "listed twice");
      goto out;
    }
    seen[s] = 1;
  }
  rt_slab *slab = rt_g.slabs; /* after the allocations: the small allocations' slabs */
  for (size_t i = 0; i < rt_g.nallocs || slab; i++) {
    rt_alloc *a = i < rt_g.nallocs ? rt_g.allocs[i] : &slab->self;
    if (i >= rt_g.nallocs)
      slab = slab->next;
    for (uint32_t k = 0; k < a->nchunks; k++) {
      const rt_chunk *c = &a->chunks[k];
      int64_t s = c->host_slot;
      int holds = c->state == RT_SWAPPING_OUT || c->state == RT_ON_HOST ||
                  c->state == RT_PREFETCHING;
      if (s < 0) {
        if (holds) {
          snprintf(msg, len, "chunk %#lx in state %d has no host slot",
                   (unsigned long)rt_chunk_addr(c), c->state);
          goto out;
        }
        continue;
      }
      if ((size_t)s >= total || seen[s]) {
        snprintf(msg, len, "chunk %#lx records slot %lld, which is %s",
                 (unsigned long)rt_chunk_addr(c), (long long)s,
                 (size_t)s >= total ? "out of range"
                 : seen[s] == 1     ? "on the free list"
                                    : "recorded by another chunk");
        goto out;
      }
      if (!holds && c->state != RT_RESIDENT) {
        snprintf(msg, len, "chunk %#lx in state %d records slot %lld",
                 (unsigned long)rt_chunk_addr(c), c->state, (long long)s);
        goto out;
      }
      seen[s] = 2;
      owned++;
    }
  }
  if (owned + h->nfree != total || owned != h->used) {
    snprintf(msg, len, "host store: %zu slots owned + %zu free != %zu carved out (used says %zu)",
             owned, h->nfree, total, h->used);
    goto out;
  }
  ok = 1;
out:
  free(seen);
  return ok ? 0 : -1;
}
