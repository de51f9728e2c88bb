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
  size_t need = h->nfree + h->slots_per_piece;
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
  if (h->nfree == 0 && !grow())
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
