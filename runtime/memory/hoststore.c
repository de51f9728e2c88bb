/* hoststore.c - the pinned host store that swapped-out data lives in.
 *
 * Note [one host store]: one byte allocator (Note [span allocator],
 * span.c) over a few large pieces of pinned memory holds every host copy:
 * a chunk's copy is one chunk-sized block (a "slot", named by its offset),
 * a relocatable unit's copy is a block of its exact bytes (Note [units]).
 * Pieces are pinned rarely (pinning is slow and fragments the driver's
 * bookkeeping: never per swap), kept until tidal_shutdown and together
 * bounded by the host budget, which chunks and units therefore share byte
 * for byte: a slot freed is room for a unit's copy and the other way round
 * (before, units had a store of their own beside the slots', first come,
 * and a store pinned whole for slots at tidal_init left units none).
 * When no room is left the allocation returns -1 and the caller keeps the
 * data resident (or drops it for recompute), and an op that then finds no
 * memory fails with TIDAL_ERR_BUDGET: nothing is ever lost.  An offset is
 * piece << RT_HOST_SHIFT | byte, so no block straddles two pieces.
 * Slots stay O(1), as when they had a store of their own: a slot given
 * back stays a block, kept for the next slot (hs.cache), and a new one is
 * placed after the last block when it fits; only a unit's copy that finds
 * no room gives the kept slots back to the allocator (its best fit is
 * O(blocks)).
 *
 * Note [host store sizing]: pinning costs about a second per few GiB
 * (bench/vmm_costs measures it), so it must neither happen inside the first
 * swap-out (it once pinned a sixteenth of host RAM there: 8 GiB on the H200
 * machine) nor be sized for the worst case.  The store is sized to need:
 *  - tidal_init pins the first piece: TIDAL_HOST_RESERVE bytes (what the
 *    plan or a recorded run says the swaps need), else RT_HOST_PIECE_MIN_BYTES;
 *  - each later piece is as large as the store so far (the store doubles),
 *    so it ends within 2x of the most it ever held;
 *  - it grows ahead: when less than a quarter of it is free after an
 *    allocation, the next piece is pinned then, before a swap-out finds
 *    the store full;
 *  - all within TIDAL_HOST_BUDGET (default half of host RAM).
 *
 * Note [deferred slot free]: a chunk or unit restored by a copy the host
 * did not wait for (a fault, a prefetch consumed by a stream wait) keeps the
 * copy's event while it holds its host copy (Note [host slot reuse],
 * residency.c).  When it gives the copy up (it was written, freed,
 * dropped), the copy may still be reading it; waiting for it there blocked
 * the host on almost every restore (the H100-calibrated replay of the gpt
 * variant at 50%: 8-15 ms of a 55 ms step).  So the block goes to a pending
 * list with its event instead and becomes free once the event is done:
 * polled at every allocation, waited for (oldest first) only when nothing
 * fits.  A pending block still counts as used.
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

#define RT_HOST_SHIFT 44 /* offsets: piece << SHIFT | byte */

/* The owner of every chunk's slot in the byte store (units own their own),
 * and of the slots kept for the next one. */
static const char slot_tag[2];
#define SLOT_OWNER ((void *)&slot_tag[0])
#define SLOT_CACHED ((void *)&slot_tag[1])

void rt_host_init(size_t slot_bytes, size_t budget_bytes) {
  rt_hoststore *h = &rt_mem.hs;
  h->slot_bytes = slot_bytes;
  h->max_slots = budget_bytes / slot_bytes;
  h->exhausted = 0;
  h->used = 0;
  rt_mem.host_budget = budget_bytes;
}

size_t rt_host_capacity_slots(void) { return rt_mem.hs.max_slots; }

size_t rt_host_pinned_bytes(void) { return rt_mem.uhost_pinned; }

static size_t round_up(size_t x, size_t g) { return (x + g - 1) / g * g; }

/* Pins one more piece of at least `want` bytes (the store doubles, within
 * the budget): 1 if it did. */
static int grow(size_t want) {
  rt_hoststore *h = &rt_mem.hs;
  if (h->exhausted || rt_mem.uhost_npieces == RT_HOST_PIECES_MAX)
    return 0;
  size_t room = rt_mem.host_budget > rt_mem.uhost_pinned ? rt_mem.host_budget - rt_mem.uhost_pinned
                                                         : 0;
  size_t n = rt_mem.uhost_pinned > RT_HOST_PIECE_MIN_BYTES ? rt_mem.uhost_pinned
                                                           : RT_HOST_PIECE_MIN_BYTES;
  if (n < want)
    n = want;
  n = round_up(n, 4096);
  if (n > room)
    n = room / 4096 * 4096;
  if (n < want || n == 0)
    return 0;
  void *p = NULL;
  if (rt_dev.be->host_alloc(rt_dev.b, n, &p) != TIDAL_OK || !p) {
    rt_log(2, "host store: could not pin a %zu-byte piece; the store stays at %zu bytes", n,
           rt_mem.uhost_pinned);
    rt_clear_error();
    h->exhausted = 1; /* do not retry on every swap */
    return 0;
  }
  uint32_t i = rt_mem.uhost_npieces;
  size_t base = (size_t)i << RT_HOST_SHIFT;
  if (!rt_span_add_region(&rt_mem.uhost, base, base + n)) {
    rt_dev.be->host_free(rt_dev.b, p, n);
    return 0;
  }
  rt_mem.uhost_pieces[i] = p;
  rt_mem.uhost_sizes[i] = n;
  rt_mem.uhost_heap[i] = 0;
  rt_mem.uhost_npieces++;
  rt_mem.uhost_pinned += n;
  if (RT_TRACING())
    rt_trace("host_pin",
             "\"bytes\":%zu,\"store_bytes\":%zu,\"used_bytes\":%zu,\"slots\":%zu,"
             "\"kept_slots\":%zu,\"pending\":%zu",
             n, rt_mem.uhost_pinned, rt_mem.uhost.used, h->used, h->ncache, rt_mem.uhost_npend);
  return 1;
}

tidal_status rt_host_reserve(size_t bytes) {
  if (bytes > rt_mem.host_budget)
    bytes = rt_mem.host_budget;
  bytes = bytes / rt_mem.hs.slot_bytes * rt_mem.hs.slot_bytes; /* whole slots, as before */
  while (rt_mem.uhost_pinned < bytes)
    if (!grow(bytes - rt_mem.uhost_pinned))
      return rt_error(TIDAL_ERR_HOST_MEMORY,
                      "host store: could pin only %zu of the %zu bytes reserved",
                      rt_mem.uhost_pinned, bytes);
  return TIDAL_OK;
}

/* Frees the pending blocks whose restores are done (oldest first; wait:
 * the oldest at least, blocking). */
static void reap(int wait) {
  size_t done = 0;
  double waited = 0;
  while (done < rt_mem.uhost_npend) {
    struct rt_uhost_pend *p = &rt_mem.uhost_pend[done];
    if (!rt_dev_event_done(&p->ev)) {
      if (!wait || done)
        break;
      rt_dev_event_sync(&p->ev, &waited);
    }
    rt_dev_event_release(&p->ev);
    if (p->slot) {
      rt_host_slot_free(p->off);
    } else {
      rt_span_blk *b = rt_span_find(&rt_mem.uhost, (size_t)p->off);
      if (b)
        rt_mem.uhost_pend_bytes -= b->len;
      rt_span_free(&rt_mem.uhost, (size_t)p->off);
    }
    done++;
  }
  if (waited > 0)
    RT_COUNT_TIME(stall_seconds, waited);
  memmove(rt_mem.uhost_pend, rt_mem.uhost_pend + done,
          (rt_mem.uhost_npend - done) * sizeof *rt_mem.uhost_pend);
  rt_mem.uhost_npend -= done;
}

void rt_host_pending_reap(int wait) { reap(wait); }

/* The kept slots go back to the allocator (a unit's copy needs the bytes). */
static int flush_cache(void) {
  rt_hoststore *h = &rt_mem.hs;
  if (!h->ncache)
    return 0;
  for (size_t i = 0; i < h->ncache; i++)
    rt_span_free(&rt_mem.uhost, (size_t)h->cache[i]);
  h->ncache = 0;
  return 1;
}

/* len bytes for owner: a pending block before pinning more (as when the
 * free waited), more pinned when nothing fits; -1 when the store is full. */
static int64_t store_alloc(size_t len, void *owner) {
  size_t off;
  if (rt_mem.uhost_npend)
    reap(0);
  for (;;) {
    if (rt_span_alloc(&rt_mem.uhost, len, 0, owner, &off))
      break;
    if (rt_mem.uhost_npend) {
      reap(1); /* given up but still read: wait for it before pinning more */
      continue;
    }
    if (flush_cache()) /* the slots kept for the next slot, before pinning more */
      continue;
    if (!grow(len) || !rt_span_alloc(&rt_mem.uhost, len, 0, owner, &off))
      return -1; /* full: the caller keeps the data where it is (nothing is lost) */
    break;
  }
  if (rt_mem.uhost.total - rt_mem.uhost.used < rt_mem.uhost.total / 4)
    grow(1); /* ahead of need (Note [host store sizing]); failure is not an error yet */
  return (int64_t)off;
}

/* Note [reap before the end]: a slot given up while a copy still reads it
 * is pending (Note [deferred slot free]) and counts as used until reaped.
 * rt_host_slot_alloc's fast path places a new slot after the last block
 * and used to do so without reaping: the pending slots were never freed
 * while room at the end lasted, and "less than a quarter free" (pending
 * counted as used) pinned the next, doubled piece each time.  The gpt
 * variant at 75% with 8 MiB chunks under the run-time planner (restores
 * by faults and prefetches consumed by stream waits, so many pending
 * slots) pinned 3.35 GB of host store for a 1.5 GB program over four
 * iterations, 174 of its 246 slots pending, and the replay charged a 367
 * ms pin inside the last of them (pinning runs at 1.58 GB/s).  So every
 * slot allocation reaps the copies that are done first (a poll of the
 * oldest pending event; O(1) when it is not done), as store_alloc did. */
int64_t rt_host_slot_alloc(void) {
  rt_hoststore *h = &rt_mem.hs;
  int64_t off;
  size_t at;
  if (rt_mem.uhost_npend)
    reap(0);
  if (h->ncache) {
    off = h->cache[--h->ncache];
    rt_span_find(&rt_mem.uhost, (size_t)off)->owner = SLOT_OWNER;
  } else if (rt_span_alloc_end(&rt_mem.uhost, h->slot_bytes, SLOT_OWNER, &at)) {
    off = (int64_t)at;
    if (rt_mem.uhost.total - rt_mem.uhost.used < rt_mem.uhost.total / 4)
      grow(1); /* ahead of need (Note [host store sizing]) */
  } else if ((off = store_alloc(h->slot_bytes, SLOT_OWNER)) < 0) {
    return -1;
  }
  h->used++;
  return off;
}

int64_t rt_uhost_alloc(size_t len, void *owner) { return store_alloc(len, owner); }

void rt_host_slot_free(int64_t slot) {
  rt_hoststore *h = &rt_mem.hs;
  if (slot < 0)
    return;
  h->used--;
  if (h->ncache == h->cap_cache) {
    size_t cap = h->cap_cache ? h->cap_cache * 2 : 64;
    int64_t *c = realloc(h->cache, cap * sizeof *c);
    if (!c) { /* no room to keep it: the allocator has it */
      rt_span_free(&rt_mem.uhost, (size_t)slot);
      return;
    }
    h->cache = c;
    h->cap_cache = cap;
  }
  rt_span_find(&rt_mem.uhost, (size_t)slot)->owner = SLOT_CACHED;
  h->cache[h->ncache++] = slot;
}

void rt_uhost_free(int64_t off) { rt_span_free(&rt_mem.uhost, (size_t)off); }

static void free_after(int64_t off, rt_event *ev, int slot) {
  if (rt_mem.uhost_npend == rt_mem.uhost_cap_pend) {
    size_t cap = rt_mem.uhost_cap_pend ? rt_mem.uhost_cap_pend * 2 : 64;
    struct rt_uhost_pend *n = realloc(rt_mem.uhost_pend, cap * sizeof *n);
    if (!n) { /* no room to remember it: wait for it now */
      rt_dev_event_sync(ev, NULL);
      rt_dev_event_release(ev);
      if (slot)
        rt_host_slot_free(off);
      else
        rt_uhost_free(off);
      return;
    }
    rt_mem.uhost_pend = n;
    rt_mem.uhost_cap_pend = cap;
  }
  rt_span_blk *b = rt_span_find(&rt_mem.uhost, (size_t)off);
  if (b && !slot) {
    b->owner = NULL; /* nobody's: it goes once the copy is done */
    rt_mem.uhost_pend_bytes += b->len;
  }
  struct rt_uhost_pend *p = &rt_mem.uhost_pend[rt_mem.uhost_npend++];
  p->off = off;
  p->ev = *ev;
  p->slot = (uint8_t)slot;
  memset(ev, 0, sizeof *ev);
}

void rt_host_slot_free_after(int64_t slot, rt_event *ev) { free_after(slot, ev, 1); }
void rt_uhost_free_after(int64_t off, rt_event *ev) { free_after(off, ev, 0); }

void *rt_uhost_addr(int64_t off) {
  size_t piece = (size_t)off >> RT_HOST_SHIFT;
  return (unsigned char *)rt_mem.uhost_pieces[piece] +
         ((size_t)off & (((size_t)1 << RT_HOST_SHIFT) - 1));
}

void *rt_host_slot_addr(int64_t slot) { return rt_uhost_addr(slot); }

int rt_host_adopt_ready(void) {
  return rt_mem.uhost_npieces < RT_HOST_PIECES_MAX && rt_span_reserve(&rt_mem.uhost, 1);
}

int64_t rt_host_adopt(void *buf) {
  uint32_t i = rt_mem.uhost_npieces; /* rt_host_adopt_ready made room */
  size_t base = (size_t)i << RT_HOST_SHIFT, off;
  if (!rt_span_add_region(&rt_mem.uhost, base, base + rt_mem.hs.slot_bytes) ||
      !rt_span_take(&rt_mem.uhost, base, rt_mem.hs.slot_bytes, SLOT_OWNER))
    return -1; /* not reached: the regions are the pieces, and ready checked both */
  off = base;
  rt_mem.uhost_pieces[i] = buf;
  rt_mem.uhost_sizes[i] = rt_mem.hs.slot_bytes;
  rt_mem.uhost_heap[i] = 1;
  rt_mem.uhost_npieces++;
  rt_mem.hs.used++;
  rt_log(2, "host store full: a chunk's only copy keeps its own unpinned slot, %zu bytes beyond "
         "the host budget (Note [adopted slots])", rt_mem.hs.slot_bytes);
  return (int64_t)off;
}

void rt_host_destroy(void) {
  while (rt_mem.uhost_npend) /* the copies still read the pieces */
    reap(1);
  free(rt_mem.uhost_pend);
  rt_mem.uhost_pend = NULL;
  rt_mem.uhost_npend = rt_mem.uhost_cap_pend = rt_mem.uhost_pend_bytes = 0;
  for (uint32_t i = 0; i < rt_mem.uhost_npieces; i++) {
    if (rt_mem.uhost_heap[i])
      free(rt_mem.uhost_pieces[i]);
    else
      rt_dev.be->host_free(rt_dev.b, rt_mem.uhost_pieces[i], rt_mem.uhost_sizes[i]);
    rt_mem.uhost_heap[i] = 0;
  }
  rt_mem.uhost_npieces = 0;
  rt_mem.uhost_pinned = 0;
  rt_span_destroy(&rt_mem.uhost);
  memset(&rt_mem.uhost, 0, sizeof rt_mem.uhost);
  free(rt_mem.hs.cache);
  rt_mem.hs.cache = NULL;
  rt_mem.hs.used = rt_mem.hs.ncache = rt_mem.hs.cap_cache = 0;
}

/* Appends v to *offs (n used of cap): 0 when out of memory. */
static int push_off(int64_t **offs, size_t *n, size_t *cap, int64_t v) {
  if (*n == *cap) {
    int64_t *o = realloc(*offs, 2 * *cap * sizeof **offs);
    if (!o)
      return 0;
    *offs = o;
    *cap *= 2;
  }
  (*offs)[(*n)++] = v;
  return 1;
}

static int cmp_off(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

/* Note [host slot ownership]: every slot the store handed out is recorded
 * by exactly one chunk, in a state that holds a host copy, or is pending
 * (once: a restore copy may still read it, Note [deferred slot free]); each
 * is a chunk-sized block of the store; `used` counts them.  Checked by the
 * property tests between calls (the runtime never calls it: it walks every
 * chunk). */
int rt_host_check(char *msg, size_t len) {
  size_t cap = 64, n = 0, slots = 0;
  int64_t *offs = malloc(cap * sizeof *offs);
  int ok = 0;
  if (!offs) {
    snprintf(msg, len, "host check: out of memory");
    return -1;
  }
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
      if (!holds && c->state != RT_RESIDENT) {
        snprintf(msg, len, "chunk %#lx in state %d records slot %lld",
                 (unsigned long)rt_chunk_addr(c), c->state, (long long)s);
        goto out;
      }
      rt_span_blk *b = rt_span_find(&rt_mem.uhost, (size_t)s);
      if (!b || b->owner != SLOT_OWNER || b->len != rt_mem.hs.slot_bytes) {
        snprintf(msg, len, "chunk %#lx records slot %lld, which is %s",
                 (unsigned long)rt_chunk_addr(c), (long long)s,
                 !b ? "not handed out" : "not a slot");
        goto out;
      }
      if (!push_off(&offs, &n, &cap, s)) {
        snprintf(msg, len, "host check: out of memory");
        goto out;
      }
    }
  }
  size_t owned = n;
  for (size_t i = 0; i < rt_mem.uhost_npend; i++) {
    if (!rt_mem.uhost_pend[i].slot)
      continue;
    if (!push_off(&offs, &n, &cap, rt_mem.uhost_pend[i].off)) {
      snprintf(msg, len, "host check: out of memory");
      goto out;
    }
  }
  qsort(offs, n, sizeof *offs, cmp_off);
  for (size_t i = 1; i < n; i++)
    if (offs[i] == offs[i - 1]) {
      snprintf(msg, len, "host store: slot %lld recorded twice (by chunks or pending)",
               (long long)offs[i]);
      goto out;
    }
  size_t cached = 0;
  for (size_t i = 0; i < rt_mem.uhost.n; i++) {
    slots += rt_mem.uhost.blk[i].owner == SLOT_OWNER;
    cached += rt_mem.uhost.blk[i].owner == SLOT_CACHED;
  }
  if (n != slots || n != rt_mem.hs.used || cached != rt_mem.hs.ncache) {
    snprintf(msg, len,
             "host store: %zu slots owned + %zu pending, %zu slots in the store (used says %zu), "
             "%zu kept (%zu listed)",
             owned, n - owned, slots, rt_mem.hs.used, cached, rt_mem.hs.ncache);
    goto out;
  }
  for (size_t i = 0; i < rt_mem.hs.ncache; i++) {
    rt_span_blk *b = rt_span_find(&rt_mem.uhost, (size_t)rt_mem.hs.cache[i]);
    if (!b || b->owner != SLOT_CACHED) {
      snprintf(msg, len, "host store: kept slot %lld is not a kept block",
               (long long)rt_mem.hs.cache[i]);
      goto out;
    }
  }
  ok = 1;
out:
  free(offs);
  return ok ? 0 : -1;
}
