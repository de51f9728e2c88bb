/* hoststore.c - the pinned host store that swapped-out chunks live in.
 *
 * Note [host store layout]: every host copy is exactly one chunk, so the
 * store is a free list of chunk-sized slots carved out of a few large pieces
 * of pinned memory (pinning is slow and fragments the driver's bookkeeping:
 * never per swap).  Pieces are kept until tidal_shutdown and together
 * bounded by the host budget.  When no slot is left rt_host_slot_alloc
 * returns -1 and the caller keeps the data resident (or drops it for
 * recompute): nothing is ever lost.
 *
 * Note [host store sizing]: pinning costs about a second per few GiB
 * (bench/vmm_costs measures it), so it must neither happen inside the first
 * swap-out (it once pinned a sixteenth of host RAM there: 8 GiB on the H200
 * machine) nor be sized for the worst case.  The store is sized to need:
 *  - tidal_init pins the first piece: TIDAL_HOST_RESERVE bytes (what the
 *    plan or a recorded run says the swaps need), else RT_HOST_PIECE_MIN_BYTES;
 *  - each later piece is as large as the store so far (the store doubles),
 *    so it ends within 2x of the most it ever held;
 *  - it grows ahead: when fewer than a quarter of its slots are free after
 *    an allocation, the next piece is pinned then, before a swap-out finds
 *    the store full;
 *  - all within TIDAL_HOST_BUDGET (default half of host RAM).
 *
 * Note [deferred slot free]: a chunk restored by a copy the host did not
 * wait for (a fault, a prefetch consumed by a stream wait) keeps the copy's
 * event while it holds its slot (Note [host slot reuse], residency.c).
 * When the chunk gives the slot up (it was written, freed, dropped), the
 * copy may still be reading it; waiting for it there blocked the host on
 * almost every restore (the H100-calibrated replay of the gpt variant at
 * 50%: 8-15 ms of a 55 ms step).  So the slot goes to a pending list with
 * its event instead and becomes free once the event is done: polled at
 * every allocation, waited for (oldest first) only when no slot is free.
 * A pending slot still counts as used.
 *
 * Note [adopted slots]: a fault-in exchange that cannot complete (Note
 * [exchange], residency.c) holds a chunk's only copy in a heap buffer
 * while its slot went to an eviction.  Rather than lose it, the buffer
 * becomes a one-slot piece of the store (not pinned: copies from it are
 * slower, never wrong), beyond TIDAL_HOST_BUDGET by that one chunk; it is
 * an ordinary slot from then on and is freed at tidal_shutdown.  The
 * exchange checks first that the store's tables have room for it. */
#include <stdlib.h>
#include <string.h>
#include "memory/memory.h"

static unsigned char heap_piece[RT_HOST_PIECES_MAX]; /* 1: adopted (malloc'd, not pinned) */

void rt_host_init(size_t slot_bytes, size_t budget_bytes) {
  rt_hoststore *h = &rt_mem.hs;
  h->slot_bytes = slot_bytes;
  h->max_slots = budget_bytes / slot_bytes;
  h->min_piece_slots = RT_HOST_PIECE_MIN_BYTES / slot_bytes;
  if (h->min_piece_slots == 0)
    h->min_piece_slots = 1;
  h->npieces = 0;
  h->exhausted = 0;
  h->first_slot[0] = 0;
  memset(heap_piece, 0, sizeof heap_piece);
  h->nfree = h->used = 0;
}

size_t rt_host_capacity_slots(void) { return rt_mem.hs.max_slots; }

static size_t carved(void) { return rt_mem.hs.first_slot[rt_mem.hs.npieces]; }

/* Adds one piece of at least `want` slots (doubling the store, bounded by
 * the budget) to the free list. */
static int grow(size_t want) {
  rt_hoststore *h = &rt_mem.hs;
  size_t total = carved();
  if (h->exhausted || h->npieces >= RT_HOST_PIECES_MAX || total >= h->max_slots)
    return 0;
  size_t max = h->max_slots;
  if (rt_mem.uhost_pinned) { /* the units' byte store shares the budget (units.c) */
    size_t room = rt_mem.host_budget > rt_mem.uhost_pinned ? rt_mem.host_budget - rt_mem.uhost_pinned
                                                           : 0;
    if (room / h->slot_bytes < max)
      max = room / h->slot_bytes;
    if (total >= max)
      return 0;
  }
  size_t n = total > h->min_piece_slots ? total : h->min_piece_slots;
  if (n < want)
    n = want;
  if (n > max - total)
    n = max - total;
  /* Room for every slot carved out so far, not just the free ones: slots in
   * use now all come back here when freed (Note [host slot ownership]). */
  if (total + n > h->cap_free) {
    int64_t *f = realloc(h->free_slots, (total + n) * sizeof *f);
    if (!f)
      return 0;
    h->free_slots = f;
    h->cap_free = total + n;
  }
  void *p = NULL;
  if (rt_dev.be->host_alloc(rt_dev.b, n * h->slot_bytes, &p) != TIDAL_OK || !p) {
    rt_log(2, "host store: could not pin a %zu-byte piece; the store stays at %zu bytes",
           n * h->slot_bytes, total * h->slot_bytes);
    rt_clear_error();
    h->exhausted = 1; /* do not retry on every swap */
    return 0;
  }
  uint32_t piece = h->npieces++;
  h->pieces[piece] = p;
  h->first_slot[piece + 1] = total + n;
  /* Push high slots first so the lowest are handed out first. */
  for (size_t i = n; i-- > 0;)
    h->free_slots[h->nfree++] = (int64_t)(total + i);
  if (RT_TRACING())
    rt_trace("host_pin", "\"bytes\":%zu,\"store_bytes\":%zu", n * h->slot_bytes,
             (total + n) * h->slot_bytes);
  return 1;
}

tidal_status rt_host_reserve(size_t bytes) {
  rt_hoststore *h = &rt_mem.hs;
  size_t want = (bytes + h->slot_bytes - 1) / h->slot_bytes;
  if (want > h->max_slots)
    want = h->max_slots;
  while (carved() < want)
    if (!grow(want - carved()))
      return rt_error(TIDAL_ERR_HOST_MEMORY,
                      "host store: could pin only %zu of the %zu bytes reserved",
                      carved() * h->slot_bytes, want * h->slot_bytes);
  return TIDAL_OK;
}

int64_t rt_host_slot_alloc(void) {
  rt_hoststore *h = &rt_mem.hs;
  if (h->npend) /* a pending slot before pinning more (as when the free waited) */
    rt_host_pending_reap(h->nfree == 0);
  if (h->nfree == 0 && !grow(1))
    return -1;
  h->used++;
  int64_t slot = h->free_slots[--h->nfree];
  if (h->nfree + h->npend < carved() / 4)
    grow(1); /* ahead of need (Note [host store sizing]); failure is not an error yet */
  return slot;
}

int rt_host_adopt_ready(void) {
  rt_hoststore *h = &rt_mem.hs;
  size_t total = carved();
  if (h->npieces >= RT_HOST_PIECES_MAX)
    return 0;
  if (total + 1 > h->cap_free) {
    int64_t *f = realloc(h->free_slots, (total + 1) * sizeof *f);
    if (!f)
      return 0;
    h->free_slots = f;
    h->cap_free = total + 1;
  }
  return 1;
}

int64_t rt_host_adopt(void *buf) {
  rt_hoststore *h = &rt_mem.hs;
  size_t slot = carved();
  uint32_t piece = h->npieces++; /* rt_host_adopt_ready made room */
  h->pieces[piece] = buf;
  h->first_slot[piece + 1] = slot + 1;
  heap_piece[piece] = 1;
  h->used++;
  rt_log(2, "host store full: a chunk's only copy keeps its own unpinned slot, %zu bytes beyond "
         "the host budget (Note [adopted slots])", h->slot_bytes);
  return (int64_t)slot;
}

static void pending_pop(void) {
  rt_hoststore *h = &rt_mem.hs;
  rt_dev_event_release(&h->pend_evs[0]);
  rt_host_slot_free(h->pend_slots[0]);
  h->npend--;
  memmove(h->pend_slots, h->pend_slots + 1, h->npend * sizeof *h->pend_slots);
  memmove(h->pend_evs, h->pend_evs + 1, h->npend * sizeof *h->pend_evs);
}

void rt_host_pending_reap(int wait) {
  rt_hoststore *h = &rt_mem.hs;
  if (wait && h->npend) {
    double waited = 0;
    rt_dev_event_sync(&h->pend_evs[0], &waited);
    RT_COUNT_TIME(stall_seconds, waited);
    pending_pop();
  }
  /* Oldest first, stopping at the first still running: one query per call. */
  while (h->npend && rt_dev_event_done(&h->pend_evs[0]))
    pending_pop();
}

void rt_host_slot_free_after(int64_t slot, rt_event *ev) {
  rt_hoststore *h = &rt_mem.hs;
  if (h->npend == h->cap_pend) {
    size_t cap = h->cap_pend ? h->cap_pend * 2 : 64;
    int64_t *s = realloc(h->pend_slots, cap * sizeof *s);
    if (s)
      h->pend_slots = s;
    rt_event *e = s ? realloc(h->pend_evs, cap * sizeof *e) : NULL;
    if (e)
      h->pend_evs = e;
    if (!s || !e) { /* out of host memory: wait here, as before */
      rt_dev_event_sync(ev, NULL);
      rt_dev_event_release(ev);
      rt_host_slot_free(slot);
      return;
    }
    h->cap_pend = cap;
  }
  h->pend_slots[h->npend] = slot;
  h->pend_evs[h->npend++] = *ev;
  memset(ev, 0, sizeof *ev);
}

void rt_host_slot_free(int64_t slot) {
  rt_hoststore *h = &rt_mem.hs;
  if (slot < 0)
    return;
  h->free_slots[h->nfree++] = slot; /* capacity: every slot came from this array */
  h->used--;
}

void *rt_host_slot_addr(int64_t slot) {
  rt_hoststore *h = &rt_mem.hs;
  uint32_t piece = 0;
  while ((size_t)slot >= h->first_slot[piece + 1])
    piece++;
  return (char *)h->pieces[piece] + ((size_t)slot - h->first_slot[piece]) * h->slot_bytes;
}

void rt_host_destroy(void) {
  rt_hoststore *h = &rt_mem.hs;
  while (h->npend) { /* the copies still read the pieces */
    rt_dev_event_sync(&h->pend_evs[0], NULL);
    pending_pop();
  }
  free(h->pend_slots);
  free(h->pend_evs);
  h->pend_slots = NULL;
  h->pend_evs = NULL;
  h->cap_pend = 0;
  for (uint32_t i = 0; i < h->npieces; i++) {
    if (heap_piece[i])
      free(h->pieces[i]);
    else
      rt_dev.be->host_free(rt_dev.b, h->pieces[i],
                         (h->first_slot[i + 1] - h->first_slot[i]) * h->slot_bytes);
    heap_piece[i] = 0;
  }
  free(h->free_slots);
  h->free_slots = NULL;
  h->npieces = 0;
  h->nfree = h->cap_free = h->used = 0;
}

/* rt_host_check: marks the n slots of a list `mark` in seen; 0 (with the
 * message) at a slot out of range or already marked (`twice` says how). */
static int mark_list(const int64_t *slots, size_t n, const char *what, const char *twice,
                     unsigned char mark, unsigned char *seen, size_t total, char *msg, size_t len) {
  for (size_t i = 0; i < n; i++) {
    int64_t s = slots[i];
    if (s < 0 || (size_t)s >= total || seen[s]) {
      snprintf(msg, len, "host store: %s %zu is slot %lld (%s)", what, i, (long long)s,
               s < 0 || (size_t)s >= total ? "out of range" : twice);
      return 0;
    }
    seen[s] = mark;
  }
  return 1;
}

/* Note [host slot ownership]: every slot the store has carved out is either
 * on the free list (once), on the pending list (once: a restore copy may
 * still read it, Note [deferred slot free]) or recorded by exactly one
 * chunk, in a state that holds a host copy; the free list's array can hold
 * them all.  Checked by
 * the property tests between calls (the runtime never calls it: it walks
 * every chunk). */
int rt_host_check(char *msg, size_t len) {
  rt_hoststore *h = &rt_mem.hs;
  size_t total = carved(), owned = 0;
  int ok = 0;
  unsigned char *seen = calloc(total ? total : 1, 1); /* 1 free, 2 owned, 3 pending */
  if (!seen) {
    snprintf(msg, len, "host check: out of memory");
    return -1;
  }
  if (h->nfree > h->cap_free || total > h->cap_free) {
    snprintf(msg, len, "host store: free list capacity %zu < %zu free / %zu slots", h->cap_free,
             h->nfree, total);
    goto out;
  }
  if (!mark_list(h->free_slots, h->nfree, "free list entry", "listed twice", 1, seen, total, msg,
                 len))
    goto out;
  rt_slab *slab = rt_mem.slabs; /* after the allocations: the small allocations' slabs */
  rt_arena *arena = rt_mem.arenas; /* then the arenas (Note [arenas]) */
  for (size_t i = 0; i < rt_mem.nallocs || slab || arena; i++) {
    rt_alloc *a;
    if (i < rt_mem.nallocs) {
      a = rt_mem.allocs[i];
    } else if (slab) {
      a = &slab->self;
      slab = slab->next;
    } else {
      a = &arena->self;
      arena = arena->next;
    }
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
  if (!mark_list(h->pend_slots, h->npend, "pending entry", "also free or owned", 3, seen, total,
                 msg, len))
    goto out;
  if (owned + h->nfree + h->npend != total || owned + h->npend != h->used) {
    snprintf(msg, len,
             "host store: %zu slots owned + %zu free + %zu pending != %zu carved out (used says "
             "%zu)",
             owned, h->nfree, h->npend, total, h->used);
    goto out;
  }
  ok = 1;
out:
  free(seen);
  return ok ? 0 : -1;
}
