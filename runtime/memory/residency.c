/* residency.c - the per-chunk state machine: the residency mechanism.
 *
 * Owns every transition of Note [chunk states] (memory.h) and moves chunks
 * between the lists of chunk.c: the LRU of resident unpinned chunks (the
 * only eviction candidates), swap-outs and prefetches in flight, parked
 * chunks.  Pinned chunks (declared by an open op) are on no list, so they
 * are never evicted.  Which chunk to evict, and whose host copy a victim
 * takes, is not decided here: the eviction policy is asked (Note [eviction
 * seam], evict.h); this file carries out what it chooses
 * (rt_chunk_evict, rt_parked_give, rt_swap_out_finish, rt_chunk_take_host)
 * and decides when a physical chunk leaves a shrinking pool, since its
 * address may still map it (rt_phys_release, rt_phys_shrink).
 *
 * Decisions:
 *  - Resident bytes are physical chunks in use; the pool is the budget, so
 *    "resident bytes never exceed the budget" holds by construction.
 *  - A restored chunk keeps its host copy (state RESIDENT, clean): evicting
 *    it again costs no copy.  A write makes it DIRTY and frees the copy.
 *  - A victim the policy chose: clean, it is parked; with a recompute
 *    closure, dropped; dirty, copied out - into a host slot, which the
 *    policy may take from a clean chunk's copy when the store is full;
 *    failing that it stays resident and the policy tries another.
 *  - Waits for copies go through the backend's stream_wait at op_begin, so
 *    on CUDA the compute stream waits on an event, not the host.
 *
 * Note [lazy unmap]: evicting a chunk (swap-out done, clean eviction, drop,
 * drop for recompute) does not unmap it.  Its physical chunk stays mapped
 * at its address and keeps its last contents ("parked", on rt_mem.parked,
 * oldest first); it no longer counts as resident.  If the chunk is needed
 * again before anyone else needs the memory, it is taken back with no
 * driver call and no copy: a swapped-out or recomputable chunk's device
 * copy is still current (nothing can write a parked chunk: every op
 * restores its chunks first, which unparks them).  Only real pressure - a
 * chunk that needs memory when no physical chunk is free - reassigns a
 * parked chunk's memory (cuMemUnmap, cuMemMap, cuMemSetAccess).  So at a
 * budget that holds the working set, steady state makes no VMM call
 * however many hints run; under pressure a reassignment costs a map and a
 * set-access (an unmap too before Note [stale aliases]).
 *
 * Note [stale aliases]: reassigning a parked chunk's memory does not unmap
 * it either.  The parked chunk becomes *stale*: evicted, no memory of its
 * own, but its address still maps the physical chunk, which now belongs to
 * another chunk (a physical chunk may be mapped at several addresses).
 * When the stale chunk needs memory again and its physical chunk is free,
 * it takes it back with no driver call: its address is still mapped and
 * granted.  Otherwise it unmaps its address (its last use is long done, so
 * the host seldom waits) and maps other memory.  It does not take its old
 * memory from a parked holder: that chunk would have come back for free,
 * and the calibrated replay of the gpt variant was slower for it (1.19x
 * against 1.18x at 50%; 1.08x against 1.04x with the build-time plan under
 * the run-time planner).
 * Safety: a stale chunk's data is never in the memory its address maps
 * (it is on the host, dropped or recomputable); every op restores its
 * chunks first, which takes the memory back or maps other memory, so no
 * op touches a stale address.  The memory changes hands without waiting
 * on the host for the previous holder's last use: the next holder's ops
 * follow it on the compute stream, and a copy into the memory waits for
 * its mark on the copy's stream (phys_mark; before, the host waited for
 * the mark before each unmap, and the H100-calibrated replay spent 6-10
 * ms of a step there).  A stale chunk keeps its own mark for the unmap of
 * its address, if it must map other memory.
 * The sim keeps a stale address PROT_NONE (parked), so the oracle still
 * catches a stray access; on CUDA a stray access would read another
 * chunk's data, as a parked chunk's own address already could.  A
 * physical chunk leaving the pool (the budget shrinks) is first unmapped
 * at every stale address (phys_unalias), and tidal_free unmaps its
 * chunks' stale addresses.
 *
 * Note [last-use marks]: the driver does not order cuMemUnmap after
 * kernels still using the range.  Instead of draining the compute stream
 * before every unmap, each chunk remembers the op count after its last op
 * (last_op); when it is parked, a backend mark (an event recorded on the
 * compute stream) covering that op is attached (park_mark), shared by every
 * chunk parked before the next op ends.  Reassignment picks the oldest
 * parked chunk whose mark is done (polled), and only blocks on a mark when
 * none of the first RT_PARK_SCAN_MAX is.  A finished swap-out needs no
 * mark: its copy ran after the chunk's last use.
 *
 * Note [access batching]: mapping and granting access are separate calls;
 * chunks mapped one after another in one allocation's address order (the
 * chunks of an access, of a prefetch) collect into one pending range that
 * gets a single set_access before the device may touch it: before a copy
 * into it, at the end of tidal_op_begin, before any unmap.  On an H100 this
 * saves calls, not time: a set-access over 8 chunks cost 8 times one
 * chunk's (bench/gpu/h100-2026-11-26), so the sim charges it per chunk.
 *
 * Every driver call that maps, unmaps, grants or copies goes through the
 * be_* helpers below, which call the device front (Note [device front],
 * vmmq.c: direct on the training thread, or queued for the VMM worker) and
 * keep the chunk's ticket. */
#include <stdlib.h>
#include <string.h>
#include "memory/memory.h"

/* Memory a parked (or stale) chunk or unit takes back without asking for
 * it is outside the budget's count (Note [units]): once units hold bytes of
 * the budget, taking it back must fit.  Without units it always does: the
 * physical pool is the budget. */
static int fits(const rt_chunk *c) {
  if (!c->unit && !rt_mem.unit_resident)
    return 1;
  size_t len = c->unit ? rt_chunk_len(c) : rt_mem.chunk_bytes;
  return rt_resident_bytes() + len <= rt_mem.budget_exact;
}

/* Back on the LRU if nobody holds it. */
static void settle_resident(rt_chunk *c, int state) {
  c->state = (uint8_t)state;
  if (c->pins == 0 && c->list == RT_LIST_NONE)
    rt_list_push(&rt_mem.lru, RT_LIST_LRU, c);
}

/* ---- driver calls: direct, or through the VMM worker ---- */

static void note_ticket(rt_chunk *c, const rt_ticket *t) {
  if (t->seq > c->ticket.seq)
    c->ticket = *t;
}

static tidal_status be_map(rt_chunk *c, uint32_t phys, rt_event *ready) {
  rt_ticket t = {0, 0};
  tidal_status st = rt_dev_map(rt_chunk_addr(c), phys, ready, &t);
  note_ticket(c, &t);
  return st;
}

/* Unmaps c's memory at its address; the worker first waits for `mark`
 * (the training thread has already waited for it when the worker is off). */
static tidal_status be_unmap(rt_chunk *c, uint32_t phys, uint64_t mark) {
  rt_ticket t = {0, 0};
  tidal_status st = rt_dev_unmap(rt_chunk_addr(c), phys, mark, &t);
  note_ticket(c, &t);
  return st;
}

/* [lo, lo + bytes) of allocation a: its chunks' tickets cover the grant. */
static tidal_status be_set_access(rt_alloc *a, uintptr_t lo, size_t bytes) {
  rt_ticket t = {0, 0};
  tidal_status st = rt_dev_set_access(lo, bytes, &t);
  if (st != TIDAL_OK || !t.seq)
    return st;
  size_t first = (lo - a->base) / rt_mem.chunk_bytes, n = bytes / rt_mem.chunk_bytes;
  for (size_t i = first; i < first + n && i < a->nchunks; i++)
    note_ticket(&a->chunks[i], &t);
  return TIDAL_OK;
}

/* Where c's bytes are on the device: its address, or a unit's block. */
static uintptr_t dev_addr(const rt_chunk *c) { return c->unit ? rt_unit_dev(c) : rt_chunk_addr(c); }

/* c's host copy: a slot, or a unit's bytes of the units' store. */
static void *host_addr(const rt_chunk *c) {
  return c->unit ? rt_uhost_addr(c->host_slot) : rt_host_slot_addr(c->host_slot);
}

static tidal_status be_copy_d2h(rt_chunk *c, void *dst, size_t len, rt_event *done) {
  rt_ticket t = {0, 0};
  tidal_status st = rt_dev_copy_d2h(dst, dev_addr(c), len, c->unit ? RT_PHYS_NONE : c->phys,
                                    c->writer, done, &t);
  note_ticket(c, &t);
  return st;
}

/* After the physical chunk's previous holder's last use (Note [stale
 * aliases]): a wait on the copy's stream, once. */
static tidal_status be_copy_h2d(rt_chunk *c, const void *src, size_t len, int urgent,
                                rt_event *done) {
  uint64_t after;
  if (c->unit) {
    after = rt_unit_take_mark(c);
  } else {
    after = rt_mem.phys_mark[c->phys];
    rt_mem.phys_mark[c->phys] = 0;
  }
  rt_ticket t = {0, 0};
  tidal_status st = rt_dev_copy_h2d(dev_addr(c), src, len, c->unit ? RT_PHYS_NONE : c->phys, urgent,
                                    after, done, &t);
  if (c->unit)
    RT_COUNT(relocated_bytes, len);
  note_ticket(c, &t);
  return st;
}

/* Parking changes no mapping on CUDA; on the sim it changes the chunk's
 * protection, which must not overtake the chunk's queued commands. */
static tidal_status be_park(rt_chunk *c, int park) {
  if (c->unit)
    return TIDAL_OK; /* its block stays where it is; its stable address is never mapped */
  return rt_dev_park(rt_chunk_addr(c), c->phys, park, c->ticket.seq);
}

tidal_status rt_chunks_ready(size_t pin_start, size_t pin_end) {
  if (!rt_vmmq_on())
    return TIDAL_OK;
  rt_ticket last = {0, 0};
  for (size_t i = pin_start; i < pin_end; i++)
    if (rt_mem.pinned[i].c->ticket.seq > last.seq)
      last = rt_mem.pinned[i].c->ticket;
  return rt_vmmq_wait(&last); /* modelled even when the worker is done: the sim's clock
                                 must not depend on the worker thread's real speed */
}

/* ---- physical pool ---- */

tidal_status rt_access_flush(void) {
  if (rt_mem.access_hi == rt_mem.access_lo)
    return TIDAL_OK;
  uintptr_t lo = rt_mem.access_lo;
  size_t bytes = rt_mem.access_hi - lo;
  rt_alloc *a = rt_mem.access_alloc;
  rt_mem.access_lo = rt_mem.access_hi = 0;
  rt_mem.access_alloc = NULL;
  RT_COUNT(vmm_calls, 1);
  return be_set_access(a, lo, bytes);
}

/* c's chunk was mapped: add it to the pending access range. */
static tidal_status access_note(const rt_chunk *c) {
  uintptr_t a = rt_chunk_addr(c);
  if (rt_mem.access_alloc == c->alloc && rt_mem.access_hi == a) {
    rt_mem.access_hi += rt_mem.chunk_bytes;
    return TIDAL_OK;
  }
  tidal_status st = rt_access_flush();
  rt_mem.access_alloc = c->alloc;
  rt_mem.access_lo = a;
  rt_mem.access_hi = a + rt_mem.chunk_bytes;
  return st;
}

static tidal_status vmm_unmap(rt_chunk *c, uint64_t mark) {
  tidal_status st = TIDAL_OK;
  uintptr_t addr = rt_chunk_addr(c);
  if (addr >= rt_mem.access_lo && addr < rt_mem.access_hi)
    st = rt_access_flush(); /* mapped since, never granted: grant before unmapping */
  RT_COUNT(vmm_calls, 1);
  tidal_status s2 = be_unmap(c, c->phys, mark);
  return st != TIDAL_OK ? st : s2;
}

/* A mark covering the last op that used c (Note [last-use marks]). */
static tidal_status mark_last_use(rt_chunk *c) {
  c->park_mark = 0;
  if (!c->last_op)
    return TIDAL_OK;
  if (c->last_op > rt_mem.marked_ops) {
    uint64_t m;
    tidal_status st = rt_dev.be->mark(rt_dev.b, rt_mem.last_stream, &m);
    if (st != TIDAL_OK)
      return st;
    rt_mem.last_mark = m;
    rt_mem.marked_ops = rt_mem.ops_ended;
  }
  c->park_mark = rt_mem.last_mark;
  return TIDAL_OK;
}

static tidal_status wait_mark(uint64_t m) {
  if (!m || rt_dev.be->mark_done(rt_dev.b, m))
    return TIDAL_OK;
  double waited = 0;
  tidal_status st = rt_dev.be->mark_wait(rt_dev.b, m, &waited);
  RT_COUNT_TIME(stall_seconds, waited);
  return st;
}

/* c is stale: its address gives up the physical chunk it still maps, after
 * c's own last use (its mark, kept since it was parked). */
static tidal_status unalias(rt_chunk *c) {
  uint64_t mark = c->park_mark;
  tidal_status st = TIDAL_OK;
  c->stale = 0;
  c->park_mark = 0;
  if (!rt_vmmq_on()) { /* the worker waits for it itself */
    st = wait_mark(mark);
    mark = 0;
  }
  tidal_status s2 = vmm_unmap(c, mark);
  return st != TIDAL_OK ? st : s2;
}

static tidal_status map_chunk(rt_chunk *c, uint32_t phys) {
  rt_event ready = {0, 0, NULL, 0};
  tidal_status st = c->stale ? unalias(c) : TIDAL_OK;
  if (st != TIDAL_OK) {
    rt_phys_release(phys);
    return st;
  }
  RT_COUNT(vmm_calls, 1);
  st = be_map(c, phys, &ready);
  if (st == TIDAL_OK && (st = access_note(c)) != TIDAL_OK)
    be_unmap(c, phys, 0); /* never used: no mark to wait for */
  if (st != TIDAL_OK) {
    rt_phys_release(phys);
    return st;
  }
  c->phys = phys;
  c->ready = ready;
  c->ready_pending = 1;
  rt_mem.phys_owner[phys] = c;
  return TIDAL_OK;
}

/* c leaves the mapped states: its memory stays mapped, parked (Note [lazy
 * unmap]).  need_mark: its last use may still be running. */
static tidal_status park_chunk(rt_chunk *c, int need_mark) {
  rt_unlist(c);
  if (c->ready_pending) {
    rt_dev_event_release(&c->ready);
    c->ready_pending = 0;
  }
  tidal_status st = need_mark ? mark_last_use(c) : TIDAL_OK;
  if (!need_mark)
    c->park_mark = 0;
  tidal_status s2 = be_park(c, 1);
  c->parked = 1;
  rt_list_push(&rt_mem.parked, RT_LIST_PARKED, c);
  if (c->unit) {
    rt_mem.parked_units++;
    rt_mem.unit_resident -= rt_chunk_len(c);
  }
  return st != TIDAL_OK ? st : s2;
}

/* Takes c's parked memory back for c itself: no driver call, contents
 * intact. */
static tidal_status unpark_chunk(rt_chunk *c) {
  rt_list_remove(&rt_mem.parked, c);
  c->parked = 0;
  c->park_mark = 0;
  c->ready_pending = 0;
  if (c->unit) {
    rt_mem.parked_units--;
    rt_mem.unit_resident += rt_chunk_len(c);
  }
  RT_COUNT(reclaimed_chunks, 1);
  rt_note_resident();
  return be_park(c, 0);
}

/* Really unmaps c's memory (mapped or parked) and returns it to the free
 * stack: tidal_free, and a parked chunk whose memory another chunk needs. */
static tidal_status unmap_chunk(rt_chunk *c) {
  tidal_status st = TIDAL_OK;
  if (c->unit) { /* its block goes back to the pool, no driver call */
    if (c->parked) {
      rt_list_remove(&rt_mem.parked, c);
      rt_mem.parked_units--;
    } else {
      rt_unlist(c);
      if (c->ready_pending) {
        rt_dev_event_release(&c->ready);
        c->ready_pending = 0;
      }
      st = mark_last_use(c);
    }
    rt_unit_unbind(c, c->park_mark); /* copies into the block wait for the mark */
    c->parked = 0;
    c->park_mark = 0;
    return st;
  }
  if (c->parked) {
    rt_list_remove(&rt_mem.parked, c);
    c->parked = 0;
  } else {
    rt_unlist(c);
    if (c->ready_pending) {
      rt_dev_event_release(&c->ready);
      c->ready_pending = 0;
    }
    st = mark_last_use(c);
  }
  /* The worker waits for the last use itself (Note [vmm worker]). */
  uint64_t mark = c->park_mark;
  if (st == TIDAL_OK && !rt_vmmq_on()) {
    st = wait_mark(mark);
    mark = 0;
  }
  c->park_mark = 0;
  tidal_status s2 = vmm_unmap(c, mark);
  rt_phys_release(c->phys);
  return st != TIDAL_OK ? st : s2;
}

/* Test hook: gives back every parked chunk's memory, as pressure would. */
RT_HIDDEN tidal_status rt_release_parked(void);
tidal_status rt_release_parked(void) {
  tidal_status st = TIDAL_OK;
  while (rt_mem.parked.n) {
    tidal_status s2 = unmap_chunk(rt_mem.parked.head);
    if (st == TIDAL_OK)
      st = s2;
  }
  return st;
}

tidal_status rt_parked_give(rt_chunk *v) {
  if (v->unit) { /* its block goes back to the pool; no alias stays (Note [units]) */
    rt_unit_give_parked(v);
    return TIDAL_OK;
  }
  rt_list_remove(&rt_mem.parked, v);
  v->parked = 0;
  tidal_status st = TIDAL_OK;
  if (rt_vmmq_on())
    st = rt_vmmq_sync(v->ticket.seq); /* nothing queued for it may still touch the memory */
  /* No host wait: the next holder's ops follow v's last use on the compute
   * stream, its copies wait for the mark on theirs.  v keeps the mark for
   * its own unmap (unalias). */
  rt_mem.phys_mark[v->phys] = v->park_mark;
  v->stale = 1;
  rt_phys_release(v->phys); /* a shrinking pool unmaps v's address (phys_unalias) */
  return st;
}

/* Unmaps every stale alias of phys (Note [stale aliases]): it is going away. */
static void phys_unalias(uint32_t phys) {
  for (size_t i = 0; i < rt_mem.nallocs; i++) {
    rt_alloc *a = rt_mem.allocs[i];
    for (uint32_t k = 0; k < a->nchunks; k++)
      if (a->chunks[k].stale && a->chunks[k].phys == phys)
        unalias(&a->chunks[k]);
  }
  for (rt_slab *s = rt_mem.slabs; s; s = s->next)
    if (s->chunk.stale && s->chunk.phys == phys)
      unalias(&s->chunk);
  for (rt_arena *r = rt_mem.arenas; r; r = r->next)
    for (uint32_t k = 0; k < r->self.nchunks; k++)
      if (r->self.chunks[k].stale && r->self.chunks[k].phys == phys)
        unalias(&r->self.chunks[k]);
}

/* phys leaves the pool (the budget shrank): no address may keep it mapped. */
static void retire(uint32_t phys) {
  phys_unalias(phys);
  rt_pool_remove(phys);
}

/* A fault-in exchange trades one chunk's host copy for another chunk's
 * device memory: the pool's size does not change, so a shrink in progress
 * must not take the memory the exchange frees (Note [exchange]). */
static int keep_released;

void rt_pool_keep_released(int on) { keep_released = on; }

void rt_phys_release(uint32_t phys) {
  rt_mem.phys_owner[phys] = NULL;
  if (rt_mem.nphys > rt_mem.phys_target && !keep_released)
    retire(phys); /* a shrink still in progress (Note [resizable pool]) */
  else
    rt_phys_free_push(phys);
}

void rt_phys_trim(void) {
  while (rt_mem.nfree_phys)
    retire(rt_phys_free_pop());
}

/* Retires the free physical chunks ids[0, n) in one go: one walk over the
 * chunks unaliases every stale address that maps one of them (retire()
 * walks once per chunk). */
static void retire_batch(const uint32_t *ids, size_t n) {
  unsigned char *gone = calloc(rt_mem.phys_ids ? rt_mem.phys_ids : 1, 1);
  if (!gone) { /* no scratch: one at a time */
    for (size_t i = 0; i < n; i++)
      retire(ids[i]);
    return;
  }
  for (size_t i = 0; i < n; i++)
    gone[ids[i]] = 1;
  for (size_t i = 0; i < rt_mem.nallocs; i++) {
    rt_alloc *a = rt_mem.allocs[i];
    for (uint32_t k = 0; k < a->nchunks; k++)
      if (a->chunks[k].stale && gone[a->chunks[k].phys])
        unalias(&a->chunks[k]);
  }
  for (rt_slab *sl = rt_mem.slabs; sl; sl = sl->next)
    if (sl->chunk.stale && gone[sl->chunk.phys])
      unalias(&sl->chunk);
  for (rt_arena *r = rt_mem.arenas; r; r = r->next)
    for (uint32_t k = 0; k < r->self.nchunks; k++)
      if (r->self.chunks[k].stale && gone[r->self.chunks[k].phys])
        unalias(&r->self.chunks[k]);
  free(gone);
  for (size_t i = 0; i < n; i++)
    rt_pool_remove(ids[i]);
}

/* Note [physical bound] (devpool.c): the chunk pool's share of the bound
 * goes to the device pool.  Free chunks first, then parked ones (oldest
 * first: their data is on the host, dropped or recomputable; giving them up
 * only loses a free reclaim), as many as `bytes` needs, released together:
 * the backend's handles go in one step, not one per placement. */
size_t rt_phys_yield(size_t bytes) {
  size_t limit = rt_physical_limit();
  if (rt_physical_bytes() + bytes <= limit)
    return 0;
  size_t over = rt_physical_bytes() + bytes - limit;
  size_t want = (over + rt_mem.chunk_bytes - 1) / rt_mem.chunk_bytes;
  uint32_t *ids = malloc((want ? want : 1) * sizeof *ids);
  if (!ids)
    return 0;
  size_t n = 0;
  while (n < want && rt_mem.nfree_phys)
    ids[n++] = rt_phys_free_pop();
  for (rt_chunk *c = rt_mem.parked.head, *next; n < want && c; c = next) {
    next = c->next;
    if (c->unit)
      continue; /* a block of the pool: not physical memory of its own */
    if (rt_parked_give(c) != TIDAL_OK)
      rt_clear_error(); /* its memory is free all the same */
    if (rt_phys_free_take(c->phys))
      ids[n++] = c->phys;
  }
  if (n)
    retire_batch(ids, n);
  free(ids);
  if (n && RT_TRACING())
    rt_trace("phys_yield", "\"chunks\":%zu,\"physical\":%zu", n, rt_physical_bytes());
  return n;
}

void rt_phys_settle(void) {
  if (!rt_mem.dpool_base || rt_physical_bytes() <= rt_physical_limit())
    return;
  /* The pool's top steps first (they may hold no data now), then the chunk
   * pool's unused chunks, then evicting (the policy's choice) until one of
   * those can give memory back. */
  for (;;) {
    if (rt_pool_shrink(0))
      return;
    rt_phys_yield(0);
    if (rt_physical_bytes() <= rt_physical_limit())
      return;
    if (rt_mem.evict->free_one("the physical bound") != TIDAL_OK) {
      rt_clear_error(); /* open ops pin the rest: the next op's end tries again */
      return;
    }
  }
}

void rt_phys_shrink(void) {
  while (rt_mem.nphys > rt_mem.phys_target && rt_mem.nfree_phys)
    retire(rt_phys_free_pop());
  /* Evict the rest through the eviction policy: each chunk it frees comes
   * back to rt_phys_release and goes.  What open ops pin goes later. */
  while (rt_mem.nphys > rt_mem.phys_target) {
    if (rt_mem.evict->free_one("budget change") != TIDAL_OK) {
      rt_clear_error();
      rt_log(3, "budget change to %zu bytes: %u chunks stay until open ops release them",
             rt_mem.budget_bytes, rt_mem.nphys - rt_mem.phys_target);
      break;
    }
  }
  /* Units hold bytes of the budget too (Note [units]). */
  while (rt_mem.unit_resident && rt_resident_bytes() > rt_mem.budget_exact) {
    if (rt_mem.evict->free_one("budget change") != TIDAL_OK) {
      rt_clear_error();
      break;
    }
  }
  /* And the memory created, to the new bound (Note [physical bound]): the
   * blocks of the swap-outs just started come free once their copies are
   * done (a budget change is rare: the host waits for them). */
  if (rt_mem.dpool_mapped && rt_physical_bytes() > rt_physical_limit()) {
    if (rt_reap(1) != TIDAL_OK)
      rt_clear_error();
    rt_phys_settle();
  }
}

tidal_status rt_swap_out_finish(rt_chunk *c) {
  if (RT_TRACING())
    rt_trace_copy_done(1, "swap_out", rt_chunk_addr(c));
  rt_dev_event_release(&c->ev);
  tidal_status st = park_chunk(c, 0); /* also takes it off the OUT list */
  c->state = RT_ON_HOST;
  return st;
}

static void finish_prefetch(rt_chunk *c) {
  if (RT_TRACING())
    rt_trace_copy_done(0, "prefetch", rt_chunk_addr(c));
  rt_list_remove(&rt_mem.in, c);
  /* Done for the host; the sim's compute timeline must still wait for the
   * modelled completion time, so keep the time without the handle. */
  c->ready = c->ev;
  c->ready.seq = 0;
  rt_dev_event_release(&c->ev);
  c->ready.handle = NULL;
  c->ready_pending = 1;
  settle_resident(c, RT_RESIDENT);
}

/* Copies in each direction run in issue order on one stream, so polling
 * stops at the first one still running: one query per call, not one per
 * copy in flight. */
tidal_status rt_reap(int wait_all) {
  tidal_status st = TIDAL_OK;
  double waited = 0;
  for (rt_chunk *c = rt_mem.out.head, *next; c; c = next) {
    next = c->next;
    if (wait_all)
      st = rt_dev_event_sync(&c->ev, &waited);
    else if (!rt_dev_event_done(&c->ev))
      break;
    tidal_status s2 = rt_swap_out_finish(c);
    if (st == TIDAL_OK)
      st = s2;
  }
  for (rt_chunk *c = rt_mem.in.head, *next; c; c = next) {
    next = c->next;
    if (wait_all)
      st = rt_dev_event_sync(&c->ev, &waited);
    else if (!rt_dev_event_done(&c->ev))
      break;
    finish_prefetch(c);
  }
  if (waited > 0)
    RT_COUNT_TIME(stall_seconds, waited);
  return st;
}

/* ---- host slots ---- */

/* Note [host slot reuse]: a prefetch consumed by a stream wait (CUDA) may
 * still be reading its host slot; the event is kept in host_ev and waited
 * for before the slot changes hands. */
static void retire_host_ev(rt_chunk *c) {
  if (!c->host_ev_pending)
    return;
  rt_dev_event_sync(&c->host_ev, NULL);
  rt_dev_event_release(&c->host_ev);
  c->host_ev_pending = 0;
}

void rt_chunk_free_host(rt_chunk *c) {
  if (c->unit) { /* the units' store: after any restore still reading it */
    if (c->host_slot >= 0 && c->host_ev_pending) {
      rt_uhost_free_after(c->host_slot, &c->host_ev); /* Note [deferred slot free] */
      c->host_ev_pending = 0;
    } else if (c->host_slot >= 0) {
      retire_host_ev(c);
      rt_uhost_free(c->host_slot);
    }
    c->host_slot = -1;
    return;
  }
  if (c->host_ev_pending && c->host_slot >= 0 ) { /* Note [deferred slot free] */
    rt_host_slot_free_after(c->host_slot, &c->host_ev);
    c->host_ev_pending = 0;
  } else {
    retire_host_ev(c);
    rt_host_slot_free(c->host_slot);
  }
  c->host_slot = -1;
}

int64_t rt_chunk_take_host(rt_chunk *c) {
  retire_host_ev(c);
  int64_t slot = c->host_slot;
  c->host_slot = -1;
  c->state = RT_DIRTY;
  return slot;
}

static void start_swap_out(rt_chunk *c, int64_t slot) {
  size_t len = rt_chunk_len(c);
  c->host_slot = slot;
  rt_unlist(c);
  tidal_status st = be_copy_d2h(c, c->unit ? rt_uhost_addr(slot) : rt_host_slot_addr(slot), len,
                                &c->ev);
  if (st != TIDAL_OK) { /* keep it resident: the data is still on the device */
    if (c->unit)
      rt_uhost_free(slot);
    else
      rt_host_slot_free(slot);
    c->host_slot = -1;
    settle_resident(c, RT_DIRTY);
    return;
  }
  c->state = RT_SWAPPING_OUT;
  rt_list_push(&rt_mem.out, RT_LIST_OUT, c);
  RT_COUNT(swapped_out_bytes, len);
  RT_COUNT(swap_outs, 1);
  if (c->unit)
    RT_COUNT(relocated_bytes, len);
  if (RT_TRACING())
    rt_trace_copy(1, "swap_out", rt_chunk_addr(c), len, c->ev.vt, -1);
}

/* Drops c because its closure can regenerate it. */
static tidal_status drop_for_recompute(rt_chunk *c) {
  size_t len = rt_chunk_len(c);
  tidal_status st = park_chunk(c, 1);
  rt_chunk_free_host(c);
  c->state = RT_RECOMPUTABLE;
  RT_COUNT(dropped_bytes, len);
  RT_COUNT(drops, 1);
  if (RT_TRACING())
    rt_trace("drop_recomputable", "\"ptr\":\"%#lx\",\"bytes\":%zu",
             (unsigned long)rt_chunk_addr(c), len);
  return st;
}

int rt_chunk_evict(rt_chunk *c, tidal_status *st, int copy) {
  if (c->state == RT_RESIDENT && c->host_slot >= 0) { /* clean: the host has it */
    *st = park_chunk(c, 1);
    c->state = RT_ON_HOST;
    if (RT_TRACING())
      rt_trace("evict_clean", "\"ptr\":\"%#lx\"", (unsigned long)rt_chunk_addr(c));
    return 1;
  }
  if (c->rc && !c->rc->running && !copy) {
    *st = drop_for_recompute(c);
    return 1;
  }
  /* the policy's choice when the store is full; a unit's copy is its exact bytes of the
   * same store (Note [one host store]) */
  int64_t slot = c->unit ? rt_uhost_alloc(rt_chunk_len(c), c) : rt_mem.evict->host_slot(c);
  if (slot < 0)
    return 0;
  start_swap_out(c, slot);
  return c->state == RT_SWAPPING_OUT;
}

tidal_status rt_phys_acquire(uint32_t *phys, const char *why) {
  for (;;) {
    /* Units share the budget in bytes (Note [units]): a chunk more must fit. */
    int room = !rt_mem.unit_resident ||
               rt_resident_bytes() + rt_mem.chunk_bytes <= rt_mem.budget_exact;
    if (rt_mem.nfree_phys && room) {
      *phys = rt_mem.free_phys[--rt_mem.nfree_phys];
      rt_note_resident();
      return TIDAL_OK;
    }
    if (rt_mem.nphys < rt_mem.phys_target && room) { /* the budget grew (Note [resizable pool]) */
      if (rt_mem.dpool_mapped) /* the device pool gives steps back first (Note [physical bound]) */
        rt_pool_shrink(rt_mem.chunk_bytes);
      if (rt_pool_add(phys, 0) == TIDAL_OK) {
        rt_note_resident();
        return TIDAL_OK;
      }
      rt_clear_error(); /* the device or the shared budget has no room now: evict */
    }
    tidal_status st = rt_mem.evict->free_one(why);
    if (st == TIDAL_ERR_BUDGET && rt_mem.nphys < rt_mem.phys_target && rt_mem.share &&
        rt_mem.share->wait(rt_mem.chunk_bytes)) {
      rt_clear_error(); /* another process is giving our share back */
      continue;
    }
    /* Nothing can leave, the budget has room, and only the bound is in the
     * way: the device pool's steps hold blocks that open ops pin.  Past the
     * bound rather than fail; given back after the op (rt_phys_settle). */
    if (st == TIDAL_ERR_BUDGET && room && rt_mem.dpool_mapped &&
        rt_mem.nphys < rt_mem.phys_target && rt_pool_add(phys, 1) == TIDAL_OK) {
      rt_clear_error();
      RT_COUNT(physical_overruns, 1);
      rt_note_resident();
      return TIDAL_OK;
    }
    if (st != TIDAL_OK)
      return st;
  }
}

void rt_note_op_end(size_t pin_start, size_t pin_end, tidal_stream s) {
  uint64_t n = ++rt_mem.ops_ended;
  for (size_t i = pin_start; i < pin_end; i++)
    rt_mem.pinned[i].c->last_op = n;
  rt_mem.last_stream = s;
}

/* ---- transitions ---- */

static tidal_status wait_ready(rt_chunk *c) {
  if (!c->ready_pending)
    return TIDAL_OK;
  double stall = 0;
  tidal_status st = rt_dev_stream_wait(rt_mem.stream, &c->ready, &stall);
  rt_dev_event_release(&c->ready);
  c->ready_pending = 0;
  if (stall > 0)
    RT_COUNT_TIME(stall_seconds, stall);
  return st;
}

/* c is stale and the physical chunk its address maps is free: c takes it
 * back with no driver call (Note [stale aliases]).  0 if not. */
static int take_home(rt_chunk *c, tidal_status *st) {
  uint32_t phys = c->phys;
  if (rt_mem.phys_owner[phys] || !fits(c))
    return 0; /* held, mapped or parked: see the Note; or units hold the budget */
  if (!rt_phys_free_take(phys))
    return 0; /* went away with a shrinking pool (c was unaliased) */
  c->stale = 0;
  memset(&c->ready, 0, sizeof c->ready);
  c->ready_pending = 0; /* ops follow the previous holder on the stream; copies wait for
                           its mark (phys_mark) */
  rt_mem.phys_owner[phys] = c;
  rt_note_resident();
  RT_COUNT(rebound_chunks, 1);
  if (RT_TRACING())
    rt_trace("rebind", "\"ptr\":\"%#lx\"", (unsigned long)rt_chunk_addr(c));
  *st = be_park(c, 0);
  return 1;
}

/* Memory for c: its stale home if it can have it back (no driver call),
 * else any, mapped here (its access pending: Note [access batching]). */
static tidal_status bind_chunk(rt_chunk *c, const char *why) {
  if (c->unit)
    return rt_unit_bind(c, why);
  tidal_status st = TIDAL_OK;
  if (c->stale && take_home(c, &st))
    return st;
  if (st != TIDAL_OK)
    return st;
  uint32_t phys;
  if ((st = rt_phys_acquire(&phys, why)) != TIDAL_OK)
    return st;
  return map_chunk(c, phys);
}

static tidal_status map_fresh(rt_chunk *c, const char *why) { return bind_chunk(c, why); }

/* Note [exchange]: when every resident chunk is dirty and the host store
 * is full, a swapped-out chunk could never come back, although restoring it
 * adds no data: it would trade its host slot for a device chunk.  So its
 * host copy moves to a temporary heap buffer, its slot goes back to the
 * store, the usual eviction swaps a dirty chunk out into that slot, and the
 * heap copy is written to the device.  The chunk is then DIRTY (its only
 * copy is on the device).
 * If no device chunk comes of it, the copy goes back into a slot: the
 * freed one if the eviction did not take it, else a clean chunk's copy,
 * else the buffer itself becomes a slot (Note [adopted slots],
 * hoststore.c): never lost.  While the pool shrinks (a lowered or shared
 * budget), the device chunk the eviction frees would go away instead of to
 * c - the slot taken, nothing won: issue 23's SIGSEGV at a slot of -1 - so
 * the exchange keeps it (rt_pool_keep_released): the pool's size does not
 * change, and the shrink goes on as chunks come free. */
static tidal_status fault_in_exchange(rt_chunk *c) {
  if (!rt_host_adopt_ready())
    return rt_budget_exhausted("fault-in");
  size_t len = rt_chunk_len(c);
  unsigned char *heap = malloc(rt_mem.hs.slot_bytes); /* slot-sized: it may become one */
  if (!heap)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "fault-in of %#lx: out of host memory for the exchange",
                    (unsigned long)rt_chunk_addr(c));
  retire_host_ev(c);
  memcpy(heap, rt_host_slot_addr(c->host_slot), len);
  rt_chunk_free_host(c);
  uint32_t phys;
  rt_pool_keep_released(1);
  tidal_status st = rt_phys_acquire(&phys, "fault-in");
  rt_pool_keep_released(0);
  if (st == TIDAL_OK)
    st = map_chunk(c, phys);
  if (st != TIDAL_OK) {
    int64_t slot = rt_host_slot_alloc();
    if (slot < 0)
      slot = rt_mem.evict->host_slot(c);
    if (slot >= 0) {
      memcpy(rt_host_slot_addr(slot), heap, len);
      free(heap);
    } else {
      slot = rt_host_adopt(heap);
    }
    c->host_slot = slot;
    return st;
  }
  rt_clear_error();
  double waited = 0;
  if ((st = wait_ready(c)) == TIDAL_OK && (st = rt_access_flush()) == TIDAL_OK)
    st = be_copy_h2d(c, heap, len, 1, &c->ready);
  if (st == TIDAL_OK)
    st = rt_dev_event_sync(&c->ready, &waited); /* heap is freed next */
  free(heap);
  RT_COUNT_TIME(stall_seconds, waited);
  c->ready_pending = 1;
  c->state = RT_DIRTY;
  RT_COUNT(faults, 1);
  RT_COUNT(swapped_in_bytes, len);
  if (RT_TRACING())
    rt_trace("fault_exchange", "\"ptr\":\"%#lx\",\"bytes\":%zu", (unsigned long)rt_chunk_addr(c),
             len);
  tidal_status s2 = wait_ready(c);
  return st != TIDAL_OK ? st : s2;
}

/* c is parked (Note [lazy unmap]): its memory still holds its last
 * contents.  A swapped-out chunk comes back clean (its host copy is
 * identical), a recomputable one with its closure's output (no re-run); a
 * dropped one mapped as if fresh. */
static tidal_status reclaim(rt_chunk *c, int need_data) {
  uint8_t before = c->state;
  tidal_status st = unpark_chunk(c);
  if (st != TIDAL_OK)
    return st;
  if (RT_TRACING())
    rt_trace("reclaim", "\"ptr\":\"%#lx\",\"state\":%d", (unsigned long)rt_chunk_addr(c),
             before);
  if (before == RT_ON_HOST) {
    c->state = RT_RESIDENT;
    if (!need_data)
      c->fresh_from = RT_ON_HOST | RT_FRESH_OWN; /* the op's step 3 frees the copy */
    return TIDAL_OK;
  }
  c->state = RT_DIRTY;
  /* A recomputable chunk read back keeps its closure, as if never evicted;
   * one only written gives it up in the op's step 3. */
  if (before == RT_DROPPED || !need_data)
    c->fresh_from = before | RT_FRESH_OWN;
  return TIDAL_OK;
}

/* A fault: the copy runs on the urgent stream and the op's stream waits for
 * it on the device; the host does not block.  The copy's event stays with
 * the chunk until the host slot may change hands (Note [host slot reuse]). */
static tidal_status fault_in(rt_chunk *c) {
  size_t len = rt_chunk_len(c);
  rt_event ev = {0, 0, NULL, 0};
  tidal_status st = rt_access_flush();
  if (st == TIDAL_OK)
    st = be_copy_h2d(c, host_addr(c), len, 1, &ev);
  if (st != TIDAL_OK)
    return st;
  double stall = 0;
  st = rt_dev_stream_wait(rt_mem.stream, &ev, &stall);
  if (stall > 0)
    RT_COUNT_TIME(stall_seconds, stall);
  retire_host_ev(c);
  c->host_ev = ev;
  c->host_ev_pending = 1;
  c->state = RT_RESIDENT;
  RT_COUNT(faults, 1);
  RT_COUNT(swapped_in_bytes, len);
  if (RT_TRACING())
    rt_trace("fault", "\"ptr\":\"%#lx\",\"bytes\":%zu", (unsigned long)rt_chunk_addr(c), len);
  return st;
}

tidal_status rt_chunk_restore(rt_chunk *c, int need_data) {
  tidal_status st;
  if (c->parked && !fits(c) && (st = rt_parked_give(c)) != TIDAL_OK)
    return st;
  if (c->parked)
    return reclaim(c, need_data);
  switch ((rt_chunk_state)c->state) {
  case RT_RESIDENT:
  case RT_DIRTY:
    return wait_ready(c);
  case RT_SWAPPING_OUT:
    /* Still mapped and intact: cancel the eviction.  The op waits for the
     * copy (it may overwrite the chunk); the host copy stays valid. */
    rt_list_remove(&rt_mem.out, c);
    if (RT_TRACING())
      rt_trace_copy_done(1, "swap_out", rt_chunk_addr(c));
    c->ready = c->ev;
    c->ready_pending = 1;
    c->state = RT_RESIDENT;
    return wait_ready(c);
  case RT_PREFETCHING: {
    /* The op waits for the copy on its stream; the event stays alive for
     * the host slot (Note [host slot reuse]). */
    rt_list_remove(&rt_mem.in, c);
    if (RT_TRACING())
      rt_trace_copy_done(0, "prefetch", rt_chunk_addr(c));
    c->state = RT_RESIDENT;
    if ((st = wait_ready(c)) != TIDAL_OK)
      return st;
    double stall = 0;
    st = rt_dev_stream_wait(rt_mem.stream, &c->ev, &stall);
    if (stall > 0)
      RT_COUNT_TIME(stall_seconds, stall);
    retire_host_ev(c);
    c->host_ev = c->ev;
    c->host_ev_pending = 1;
    memset(&c->ev, 0, sizeof c->ev);
    return st;
  }
  case RT_ON_HOST:
    if ((st = map_fresh(c, "fault-in")) != TIDAL_OK)
      return st == TIDAL_ERR_BUDGET && need_data && !c->unit ? fault_in_exchange(c) : st;
    if ((st = wait_ready(c)) != TIDAL_OK)
      return st;
    if (!need_data) { /* write-only: the old contents are not needed */
      c->state = RT_RESIDENT; /* not clean: fresh_from marks it (the op's step 3 frees the copy) */
      c->fresh_from = RT_ON_HOST;
      return TIDAL_OK;
    }
    return fault_in(c);
  case RT_RECOMPUTABLE:
    if (need_data) {
      st = rt_recompute_run(c);
      if (st != TIDAL_OK)
        return st;
      if (!rt_chunk_mapped(c))
        return rt_error(TIDAL_ERR_RECOMPUTE,
                        "recompute of %#lx did not write it (the closure must declare its "
                        "output with tidal_op_begin)",
                        (unsigned long)rt_chunk_addr(c));
      return rt_chunk_restore(c, 1);
    }
    /* The closure stays attached until the op's begin succeeds (its step 3
     * detaches it), so a failed begin can go back to RECOMPUTABLE. */
    /* fall through */
  case RT_UNMAPPED:
  case RT_DROPPED: {
    uint8_t before = c->state;
    if ((st = map_fresh(c, "op_begin")) != TIDAL_OK)
      return st;
    c->state = RT_DIRTY;
    c->fresh_from = before;
    return wait_ready(c);
  }
  }
  return rt_error(TIDAL_ERR_BACKEND, "chunk %#lx in an impossible state %d",
                  (unsigned long)rt_chunk_addr(c), c->state);
}

/* Note [write-only restore]: a write-only access maps a fresh chunk and
 * does not copy, but the old data (host copy, recompute closure) is only
 * given up in step 3 of tidal_op_begin, once nothing can fail any more.  If
 * a later chunk of the same op fails to restore, the op never runs and the
 * chunk goes back to where it was: a failed tidal_op_begin loses nothing.
 * Until then the chunk is pinned and marked (fresh_from), and
 * the eviction policy's host_slot does not take its host copy (rt_chunk_clean). */
void rt_chunk_unrestore(rt_chunk *c) {
  if (!c->fresh_from)
    return;
  uint8_t before = c->fresh_from & ~RT_FRESH_OWN;
  /* An outer op pinning it too has not restored it yet: a chunk it had
   * restored would be mapped, and mapped chunks are never marked. */
  if (rt_chunk_mapped(c)) {
    /* Its own memory (reclaimed) still holds its data: park it again.  A
     * fresh chunk holds garbage: parked only as dead data, else unmapped. */
    if ((c->fresh_from & RT_FRESH_OWN) || before == RT_DROPPED)
      park_chunk(c, 0);
    else
      unmap_chunk(c);
  }
  c->state = before;
  c->fresh_from = 0;
}

tidal_status rt_chunk_settle(rt_chunk *c) {
  double waited = 0;
  tidal_status st = TIDAL_OK;
  if (c->state == RT_SWAPPING_OUT) {
    st = rt_dev_event_sync(&c->ev, &waited);
    tidal_status s2 = rt_swap_out_finish(c);
    if (st == TIDAL_OK)
      st = s2;
  } else if (c->state == RT_PREFETCHING) {
    st = rt_dev_event_sync(&c->ev, &waited);
    finish_prefetch(c);
  }
  RT_COUNT_TIME(stall_seconds, waited);
  return st;
}

tidal_status rt_chunk_swap_out(rt_chunk *c, unsigned flags) {
  if (c->pins)
    return TIDAL_OK; /* in use by an open op: the hint is moot */
  tidal_status st = TIDAL_OK;
  if (c->state == RT_PREFETCHING && (st = rt_chunk_settle(c)) != TIDAL_OK)
    return st;
  if (c->state != RT_RESIDENT && c->state != RT_DIRTY)
    return TIDAL_OK;
  if (!rt_chunk_evict(c, &st, (flags & RT_SWAP_COPY) != 0)) {
    rt_log(4, "swap_out %#lx: host store full and no recompute closure; kept resident",
           (unsigned long)rt_chunk_addr(c));
    return st;
  }
  /* Finished already (synchronous sim copies)?  Release the memory now. */
  if (c->state == RT_SWAPPING_OUT &&
      ((flags & RT_SWAP_SYNC) || rt_dev_event_done(&c->ev)))
    st = rt_chunk_settle(c);
  return st;
}

/* Note [prefetch batches]: a prefetch maps every chunk of its range first,
 * grants access once for the run, then issues the copies.  Chunks whose
 * parked memory still holds them come back without a copy. */
tidal_status rt_chunk_prefetch(rt_chunk *c) { return rt_prefetch_chunks(&c, 1); }

tidal_status rt_prefetch_chunks(rt_chunk **cs, size_t n) {
  tidal_status st = TIDAL_OK;
  size_t nmapped = 0;
  for (size_t i = 0; i < n; i++) {
    rt_chunk *c = cs[i];
    if (c->pins)
      continue; /* in use by an open op: resident already */
    if (c->parked) {
      if (c->state != RT_ON_HOST && c->state != RT_RECOMPUTABLE)
        continue; /* dropped: nothing to fetch */
      if (!fits(c))
        continue; /* a hint that does not fit is ignored */
      uint8_t before = c->state;
      if ((st = unpark_chunk(c)) != TIDAL_OK)
        return st;
      settle_resident(c, before == RT_ON_HOST ? RT_RESIDENT : RT_DIRTY);
      continue;
    }
    if (c->state != RT_ON_HOST)
      continue; /* resident, in flight, or nothing to copy */
    if ((st = bind_chunk(c, "prefetch")) != TIDAL_OK) {
      if (st == TIDAL_ERR_BUDGET) { /* a hint that does not fit is ignored */
        rt_clear_error();
        st = TIDAL_OK;
      }
      break;
    }
    rt_pin(c); /* not evictable before its copy is issued */
    cs[nmapped++] = c;
  }
  if (st == TIDAL_OK)
    st = rt_access_flush();
  for (size_t i = 0; i < nmapped; i++) {
    rt_chunk *c = cs[i];
    c->pins--; /* not on the LRU: rt_unpin would list it */
    if (st != TIDAL_OK) {
      unmap_chunk(c);
      continue;
    }
    /* The copy is ordered after the physical chunk is free (ready). */
    rt_event ready = c->ready;
    c->ready_pending = 0;
    size_t len = rt_chunk_len(c);
    st = be_copy_h2d(c, host_addr(c), len, 0, &c->ev);
    rt_dev_event_release(&ready);
    if (st != TIDAL_OK) {
      unmap_chunk(c);
      continue;
    }
    c->state = RT_PREFETCHING;
    rt_list_push(&rt_mem.in, RT_LIST_IN, c);
    RT_COUNT(swapped_in_bytes, len);
    RT_COUNT(prefetched_bytes, len);
    RT_COUNT(prefetches, 1);
    if (RT_TRACING()) /* a copy slice, as swap-outs are: ends in finish_prefetch */
      rt_trace_copy(0, "prefetch", rt_chunk_addr(c), len, c->ev.vt, -1);
  }
  return st;
}

tidal_status rt_chunk_drop(rt_chunk *c) {
  if (c->pins)
    return TIDAL_OK;
  tidal_status st = rt_chunk_settle(c); /* a copy in flight still reads or writes it */
  int had_data = c->state != RT_UNMAPPED && c->state != RT_DROPPED;
  if (rt_chunk_mapped(c)) {
    tidal_status s2 = park_chunk(c, 1);
    if (st == TIDAL_OK)
      st = s2;
  }
  rt_chunk_free_host(c);
  if (c->rc)
    rt_recompute_detach(c);
  c->state = RT_DROPPED;
  if (had_data) { /* one trace event per counted drop, as for every action */
    RT_COUNT(dropped_bytes, rt_chunk_len(c));
    RT_COUNT(drops, 1);
    if (RT_TRACING())
      rt_trace("drop", "\"ptr\":\"%#lx\",\"bytes\":%zu", (unsigned long)rt_chunk_addr(c),
               rt_chunk_len(c));
  }
  return st;
}

tidal_status rt_range_release(rt_alloc *a) {
  tidal_status st = TIDAL_OK;
  for (uint32_t i = 0; i < a->nchunks; i++) {
    tidal_status s2 = rt_chunk_release(&a->chunks[i]);
    if (st == TIDAL_OK)
      st = s2;
  }
  tidal_status s2 = rt_vmmq_drain(); /* its unmaps run before the range goes */
  if (st == TIDAL_OK)
    st = s2;
  rt_dev.be->release(rt_dev.b, a->base - a->guard, a->reserved + 2 * a->guard);
  return st;
}

tidal_status rt_chunk_release(rt_chunk *c) {
  tidal_status st = rt_chunk_settle(c);
  if (rt_chunk_mapped(c) || c->parked) {
    tidal_status s2 = unmap_chunk(c);
    if (st == TIDAL_OK)
      st = s2;
  } else if (c->stale) {
    tidal_status s2 = unalias(c);
    if (st == TIDAL_OK)
      st = s2;
  }
  rt_unlist(c);
  rt_chunk_free_host(c);
  if (c->rc)
    rt_recompute_detach(c);
  c->state = RT_UNMAPPED;
  c->fresh_from = 0;
  return st;
}

/* Note [partial-chunk hints]: a swap-out or drop hint covers a tensor, and
 * tensors need not start or end on chunk boundaries (per-layer slices of an
 * arena).  Evicting every chunk the range touches would evict bytes of the
 * neighbouring tensor, which then faults back (seen on the GPU: most of
 * the faults at no pressure).  So a hint evicts only chunks it covers
 * completely; a chunk it covers in part remembers the hinted bytes
 * [hint_lo, hint_hi) until its next use, and once hints have covered all of
 * it (the neighbour's hint came too) it is evicted: dropped if every hint
 * was a drop, else swapped out.  One interval per chunk: hints that leave a
 * hole keep the larger piece (conservative: the chunk stays). */
int rt_chunk_hint(rt_chunk *c, uint32_t lo, uint32_t hi, int drop) {
  uint32_t len = (uint32_t)rt_chunk_len(c);
  if (lo == 0 && hi >= len)
    return 1;
  if (c->hint_hi > c->hint_lo && lo <= c->hint_hi && hi >= c->hint_lo) { /* overlaps or touches */
    c->hint_lo = lo < c->hint_lo ? lo : c->hint_lo;
    c->hint_hi = hi > c->hint_hi ? hi : c->hint_hi;
    c->hint_drop_only = c->hint_drop_only && drop;
  } else if (hi - lo > c->hint_hi - c->hint_lo) {
    c->hint_lo = lo;
    c->hint_hi = hi;
    c->hint_drop_only = (uint8_t)drop;
  }
  return c->hint_lo == 0 && c->hint_hi >= len;
}
