/* evict_lru.c - which chunk gives up its memory: the LRU eviction policy.
 *
 * The residency mechanism (memory/residency.c) asks this file every
 * question of the form "which one?" through the rt_evict_ops table
 * (rt_mem.evict, Note [eviction seam]); it never orders victims itself.
 * This is the one place that says, in order:
 *  0. while the device pool waits for room within the physical bound, the
 *     chunk pool's unused (free, then parked) chunks are given back;
 *  1. memory already given up goes first: a parked chunk's memory is
 *     reassigned (Note [lazy unmap]), the oldest whose last use is done,
 *     else the oldest (RT_PARK_SCAN_MAX polled);
 *  2. swap-outs in flight will free memory: reap the finished ones; else
 *     evict a clean chunk at no cost rather than wait (Note [clean before
 *     waiting]), except under the run-time planner; else wait for the
 *     oldest copy;
 *  3. the least recently used resident chunk that can go (clean: park;
 *     with a recompute closure: drop; dirty: copy out), passing over
 *     tidal_keep chunks while there are others (at most RT_KEEP_SCAN_MAX
 *     of them, then they go in LRU order too);
 *  4. a prefetch in flight, landed (then it is evictable);
 *  5. nothing: TIDAL_ERR_BUDGET with what holds the memory.
 * And when the host store is full, whose host copy a dirty victim takes:
 * the most recently used clean chunk's (it is the least likely to be
 * evicted soon), then any clean chunk's, pinned ones included.
 *
 * tidal_keep's requests live here too: a kept chunk stays through the
 * iteration in which keep was called (its keep_iter is this file's epoch
 * + 1), and iteration_end starts the next epoch. */
#include "policy/policy.h"

#define RT_KEEP_SCAN_MAX 64 /* LRU entries skipped for tidal_keep before giving in */
#define RT_PARK_SCAN_MAX 16 /* parked chunks polled for an idle one before waiting */

static uint64_t epoch; /* tidal_iteration_end calls since tidal_init */

static int kept(const rt_chunk *c) { return c->keep_iter == epoch + 1; }

/* Reassigns the memory of a parked chunk (real pressure): the oldest whose
 * last use is done, else the oldest (its next holder waits for it). */
static tidal_status steal_parked(void) {
  rt_chunk *v = NULL;
  int scanned = 0;
  for (rt_chunk *c = rt_mem.parked.head; c && scanned < RT_PARK_SCAN_MAX; c = c->next, scanned++)
    if (!c->park_mark || rt_dev.be->mark_done(rt_dev.b, c->park_mark)) {
      v = c;
      break;
    }
  if (!v)
    v = rt_mem.parked.head;
  if (RT_TRACING())
    rt_trace("reassign", "\"ptr\":\"%#lx\"", (unsigned long)rt_chunk_addr(v));
  return rt_parked_give(v); /* its state (on host, dropped, recomputable) stays */
}

static tidal_status lru_free_one(const char *why) {
  /* The device pool may not grow within the physical bound while the chunk
   * pool holds unused chunks: those go first, no data moves (Note
   * [physical bound], memory/devpool.c). */
  if (rt_mem.pool_wants && rt_phys_yield(rt_mem.pool_wants))
    return TIDAL_OK;
  if (rt_mem.parked.n) /* memory already given up: reassign it (Note [lazy unmap]) */
    return steal_parked();
  if (rt_mem.out.n) { /* a swap-out will free memory: take the oldest */
    tidal_status st = rt_reap(0);
    if (st != TIDAL_OK || rt_mem.parked.n || !rt_mem.out.n) /* finished ones park */
      return st;
    /* Note [clean before waiting]: a clean chunk (the host holds its copy)
     * goes at no cost; waiting for a swap-out blocks the host while the
     * device idles.  The least recently used clean one, not kept.  Not
     * under the run-time planner: a chunk its plan keeps would fault back
     * and make it replan (the calibrated replay of the gpt variant at 50%:
     * 1.35x -> 1.18x with build-time hints alone, but 1.12x -> 1.14x with
     * the run-time planner alone). */
    for (rt_chunk *c = rt_planner_steering() ? NULL : rt_mem.lru.head; c; c = c->next)
      if (rt_chunk_clean(c) && !kept(c)) {
        rt_chunk_evict(c, &st, 0);
        RT_COUNT(evictions, 1);
        return st;
      }
    double waited = 0;
    st = rt_dev_event_sync(&rt_mem.out.head->ev, &waited);
    RT_COUNT_TIME(stall_seconds, waited);
    if (st != TIDAL_OK)
      return st;
    return rt_swap_out_finish(rt_mem.out.head);
  }
  rt_chunk *victim = NULL;
  int scanned = 0;
  tidal_status st = TIDAL_OK;
  for (int kept_pass = 0; kept_pass < 2 && !victim; kept_pass++)
    for (rt_chunk *c = rt_mem.lru.head; c; c = c->next) {
      if (!kept_pass && kept(c) && ++scanned <= RT_KEEP_SCAN_MAX)
        continue;
      if (!kept_pass && scanned > RT_KEEP_SCAN_MAX && kept(c))
        break; /* too many kept: the second pass evicts them in LRU order */
      if (rt_chunk_evict(c, &st, 0)) {
        victim = c;
        break;
      }
      if (st != TIDAL_OK)
        return st;
    }
  if (!victim && rt_mem.in.n) /* prefetched chunks become evictable once landed */
    return rt_chunk_settle(rt_mem.in.head);
  if (!victim)
    return rt_budget_exhausted(why);
  RT_COUNT(evictions, 1);
  return st;
}

/* A clean chunk other than `except` whose host copy may go. */
static int copy_may_go(const rt_chunk *c, const rt_chunk *except) {
  /* a unit's copy is bytes of the units' store, not a slot (memory/units.c) */
  return rt_chunk_clean(c) && c != except && !c->unit;
}

static int64_t lru_host_slot(const rt_chunk *except) {
  int64_t slot = rt_host_slot_alloc();
  if (slot >= 0)
    return slot;
  for (rt_chunk *c = rt_mem.lru.tail; c; c = c->prev)
    if (copy_may_go(c, except))
      return rt_chunk_take_host(c);
  /* Pinned clean chunks can give up their copies too; a full scan, but only
   * when the store is exhausted.  The newest allocation's first: the
   * registry is sorted by address, and which chunk gives its copy must not
   * depend on where memory landed (Note [gather order], units.c: newest
   * first is what the address order gave where mmap works downwards). */
  rt_alloc *pick = NULL;
  uint32_t pick_k = 0;
  for (size_t i = 0; i < rt_mem.nallocs; i++) {
    rt_alloc *a = rt_mem.allocs[i];
    if (pick && a->seq < pick->seq)
      continue;
    for (uint32_t k = 0; k < a->nchunks; k++)
      if (copy_may_go(&a->chunks[k], except)) {
        pick = a, pick_k = k;
        break;
      }
  }
  if (pick)
    return rt_chunk_take_host(&pick->chunks[pick_k]);
  for (rt_slab *s = rt_mem.slabs; s; s = s->next) /* small allocations' chunks */
    if (copy_may_go(&s->chunk, except))
      return rt_chunk_take_host(&s->chunk);
  for (rt_arena *r = rt_mem.arenas; r; r = r->next) /* arenas' chunks (Note [arenas]) */
    for (uint32_t k = 0; k < r->self.nchunks; k++)
      if (copy_may_go(&r->self.chunks[k], except))
        return rt_chunk_take_host(&r->self.chunks[k]);
  return -1;
}

static void lru_keep(rt_chunk *c) { c->keep_iter = epoch + 1; }

static void lru_iteration_end(void) { epoch++; }

static void lru_init(void) { epoch = 0; }

const rt_evict_ops rt_evict_lru = {
    .name = "lru",
    .init = lru_init,
    .free_one = lru_free_one,
    .host_slot = lru_host_slot,
    .keep = lru_keep,
    .iteration_end = lru_iteration_end,
};
