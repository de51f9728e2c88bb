/* residency.c - the per-chunk state machine, LRU and the physical pool.
 *
 * Owns every transition of Note [chunk states] (rt.h) and the three lists a
 * chunk can be on: the LRU of resident unpinned chunks (the only eviction
 * candidates), swap-outs in flight and prefetches in flight.  Pinned chunks
 * (declared by an open op) are on no list, so they are never evicted.
 *
 * Decisions:
 *  - Resident bytes are physical chunks in use; the pool is the budget, so
 *    "resident bytes never exceed the budget" holds by construction.
 *  - A restored chunk keeps its host copy (state RESIDENT, clean): evicting
 *    it again costs no copy.  A write makes it DIRTY and frees the copy.
 *  - Under pressure: clean chunks are unmapped, chunks with a recompute
 *    closure are dropped, dirty chunks are copied out; if the host store is
 *    full, host copies of clean resident chunks are reclaimed, and failing
 *    that the chunk stays resident and the next LRU candidate is tried.
 *  - Waits for copies go through the backend's stream_wait at op_begin, so
 *    on CUDA the compute stream waits on an event, not the host. */
#include <stdlib.h>
#include <string.h>
#include "rt.h"

uintptr_t rt_chunk_addr(const rt_chunk *c) {
  return c->alloc->base + (uintptr_t)c->index * rt_g.chunk_bytes;
}

size_t rt_chunk_len(const rt_chunk *c) {
  size_t off = (size_t)c->index * rt_g.chunk_bytes;
  size_t left = c->alloc->bytes - off;
  return left < rt_g.chunk_bytes ? left : rt_g.chunk_bytes;
}

int rt_chunk_mapped(const rt_chunk *c) {
  return c->state == RT_RESIDENT || c->state == RT_DIRTY || c->state == RT_SWAPPING_OUT ||
         c->state == RT_PREFETCHING;
}

/* ---- lists ---- */

rt_list *rt_list_of(rt_chunk *c) {
  switch (c->list) {
  case RT_LIST_LRU: return &rt_g.lru;
  case RT_LIST_OUT: return &rt_g.out;
  case RT_LIST_IN: return &rt_g.in;
  default: return NULL;
  }
}

void rt_list_push(rt_list *l, int id, rt_chunk *c) {
  c->prev = l->tail;
  c->next = NULL;
  if (l->tail)
    l->tail->next = c;
  else
    l->head = c;
  l->tail = c;
  l->n++;
  c->list = (uint8_t)id;
}

void rt_list_remove(rt_list *l, rt_chunk *c) {
  if (c->prev)
    c->prev->next = c->next;
  else
    l->head = c->next;
  if (c->next)
    c->next->prev = c->prev;
  else
    l->tail = c->prev;
  c->prev = c->next = NULL;
  l->n--;
  c->list = RT_LIST_NONE;
}

static void unlist(rt_chunk *c) {
  rt_list *l = rt_list_of(c);
  if (l)
    rt_list_remove(l, c);
}

void rt_pin(rt_chunk *c) {
  if (c->pins++ == 0 && c->list == RT_LIST_LRU)
    rt_list_remove(&rt_g.lru, c);
}

void rt_unpin(rt_chunk *c) {
  if (--c->pins == 0 && (c->state == RT_RESIDENT || c->state == RT_DIRTY))
    rt_list_push(&rt_g.lru, RT_LIST_LRU, c); /* most recently used at the tail */
}

/* Back on the LRU if nobody holds it. */
static void settle_resident(rt_chunk *c, int state) {
  c->state = (uint8_t)state;
  if (c->pins == 0 && c->list == RT_LIST_NONE)
    rt_list_push(&rt_g.lru, RT_LIST_LRU, c);
}

/* ---- physical pool ---- */

static tidal_status map_chunk(rt_chunk *c, uint32_t phys) {
  rt_event ready = {0, 0, NULL};
  tidal_status st = rt_g.be->map(rt_g.b, rt_chunk_addr(c), phys, &ready);
  if (st != TIDAL_OK) {
    rt_phys_release(phys);
    return st;
  }
  c->phys = phys;
  c->ready = ready;
  c->ready_pending = 1;
  return TIDAL_OK;
}

static tidal_status unmap_chunk(rt_chunk *c) {
  unlist(c);
  tidal_status st = rt_g.be->unmap(rt_g.b, rt_chunk_addr(c), c->phys);
  rt_phys_release(c->phys);
  c->ready_pending = 0;
  return st;
}

/* The swap-out of c completed: its device memory goes back to the pool. */
static tidal_status finish_swap_out(rt_chunk *c) {
  if (RT_TRACING())
    rt_trace_copy_done(1, "swap_out", rt_chunk_addr(c));
  rt_g.be->event_release(rt_g.b, &c->ev);
  tidal_status st = unmap_chunk(c); /* also takes it off the OUT list */
  c->state = RT_ON_HOST;
  return st;
}

static void finish_prefetch(rt_chunk *c) {
  if (RT_TRACING())
    rt_trace_copy_done(0, "prefetch", rt_chunk_addr(c));
  rt_list_remove(&rt_g.in, c);
  /* Done for the host; the sim's compute timeline must still wait for the
   * modelled completion time, so keep the time without the handle. */
  c->ready = c->ev;
  c->ready.seq = 0;
  rt_g.be->event_release(rt_g.b, &c->ev);
  c->ready.handle = NULL;
  c->ready_pending = 1;
  settle_resident(c, RT_RESIDENT);
}

tidal_status rt_reap(int wait_all) {
  tidal_status st = TIDAL_OK;
  double waited = 0;
  for (rt_chunk *c = rt_g.out.head, *next; c; c = next) {
    next = c->next;
    if (wait_all)
      st = rt_g.be->event_sync(rt_g.b, &c->ev, &waited);
    else if (!rt_g.be->event_done(rt_g.b, &c->ev))
      continue;
    tidal_status s2 = finish_swap_out(c);
    if (st == TIDAL_OK)
      st = s2;
  }
  for (rt_chunk *c = rt_g.in.head, *next; c; c = next) {
    next = c->next;
    if (wait_all)
      st = rt_g.be->event_sync(rt_g.b, &c->ev, &waited);
    else if (!rt_g.be->event_done(rt_g.b, &c->ev))
      continue;
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
  rt_g.be->event_sync(rt_g.b, &c->host_ev, NULL);
  rt_g.be->event_release(rt_g.b, &c->host_ev);
  c->host_ev_pending = 0;
}

void rt_chunk_free_host(rt_chunk *c) {
  retire_host_ev(c);
  rt_host_slot_free(c->host_slot);
  c->host_slot = -1;
}

static int64_t take_host(rt_chunk *c) {
  retire_host_ev(c);
  int64_t slot = c->host_slot;
  c->host_slot = -1;
  c->state = RT_DIRTY;
  return slot;
}

/* A host slot, reclaiming the host copy of a clean resident chunk (which
 * becomes DIRTY: its only copy is then on the device) if the store is full. */
static int64_t host_slot_get(const rt_chunk *except) {
  int64_t slot = rt_host_slot_alloc();
  if (slot >= 0)
    return slot;
  for (rt_chunk *c = rt_g.lru.tail; c; c = c->prev)
    if (c->state == RT_RESIDENT && c != except && c->host_slot >= 0 && !c->fresh_from)
      return take_host(c);
  /* Pinned clean chunks can give up their copies too; a full scan, but only
   * when the store is exhausted. */
  for (size_t i = 0; i < rt_g.nallocs; i++) {
    rt_alloc *a = rt_g.allocs[i];
    for (uint32_t k = 0; k < a->nchunks; k++) {
      rt_chunk *c = &a->chunks[k];
      if (c->state == RT_RESIDENT && c != except && c->host_slot >= 0 && !c->fresh_from)
        return take_host(c);
    }
  }
  for (rt_slab *s = rt_g.slabs; s; s = s->next) { /* small allocations' chunks */
    rt_chunk *c = &s->chunk;
    if (c->state == RT_RESIDENT && c != except && c->host_slot >= 0 && !c->fresh_from)
      return take_host(c);
  }
  return -1;
}

static void start_swap_out(rt_chunk *c, int64_t slot) {
  size_t len = rt_chunk_len(c);
  c->host_slot = slot;
  unlist(c);
  tidal_status st = rt_g.be->copy_d2h(rt_g.b, rt_host_slot_addr(slot), rt_chunk_addr(c), len,
                                      c->phys, c->writer, &c->ev);
  if (st != TIDAL_OK) { /* keep it resident: the data is still on the device */
    rt_host_slot_free(slot);
    c->host_slot = -1;
    settle_resident(c, RT_DIRTY);
    return;
  }
  c->state = RT_SWAPPING_OUT;
  rt_list_push(&rt_g.out, RT_LIST_OUT, c);
  RT_COUNT(swapped_out_bytes, len);
  if (RT_TRACING())
    rt_trace_copy(1, "swap_out", rt_chunk_addr(c), len, &c->ev, -1);
}

/* Drops c because its closure can regenerate it. */
static tidal_status drop_for_recompute(rt_chunk *c) {
  size_t len = rt_chunk_len(c);
  tidal_status st = unmap_chunk(c);
  rt_chunk_free_host(c);
  c->state = RT_RECOMPUTABLE;
  RT_COUNT(dropped_bytes, len);
  RT_COUNT(drops, 1);
  if (RT_TRACING())
    rt_trace("drop_recomputable", "\"ptr\":\"%#lx\",\"bytes\":%zu",
             (unsigned long)rt_chunk_addr(c), len);
  return st;
}

/* Starts releasing one resident unpinned chunk.  Returns 1 if it did, 0 if
 * it cannot (dirty, no closure, host store full): it stays resident. */
static int evict_one(rt_chunk *c, tidal_status *st, int copy) {
  if (c->state == RT_RESIDENT && c->host_slot >= 0) { /* clean: the host has it */
    *st = unmap_chunk(c);
    c->state = RT_ON_HOST;
    if (RT_TRACING())
      rt_trace("evict_clean", "\"ptr\":\"%#lx\"", (unsigned long)rt_chunk_addr(c));
    return 1;
  }
  if (c->rc && !c->rc->running && !copy) {
    *st = drop_for_recompute(c);
    return 1;
  }
  int64_t slot = host_slot_get(c);
  if (slot < 0)
    return 0;
  start_swap_out(c, slot);
  return c->state == RT_SWAPPING_OUT;
}

/* Makes one physical chunk come free (or, while the pool shrinks, go away):
 * finishes a swap-out, else evicts the least recently used chunk (passing
 * over kept ones first), else lands a prefetch.  TIDAL_ERR_BUDGET when
 * nothing can move. */
tidal_status rt_phys_free_one(const char *why) {
  if (rt_g.out.n) { /* a swap-out will free memory: take the oldest */
    uint32_t before = rt_g.nfree_phys, nphys = rt_g.nphys;
    tidal_status st = rt_reap(0);
    if (st != TIDAL_OK || rt_g.nfree_phys != before || rt_g.nphys != nphys)
      return st;
    double waited = 0;
    st = rt_g.be->event_sync(rt_g.b, &rt_g.out.head->ev, &waited);
    RT_COUNT_TIME(stall_seconds, waited);
    if (st != TIDAL_OK)
      return st;
    return finish_swap_out(rt_g.out.head);
  }
  rt_chunk *victim = NULL;
  int scanned = 0;
  tidal_status st = TIDAL_OK;
  int kept_pass;
  for (kept_pass = 0; kept_pass < 2 && !victim; kept_pass++)
    for (rt_chunk *c = rt_g.lru.head; c; c = c->next) {
      if (!kept_pass && c->keep_iter == rt_g.iteration + 1 && ++scanned <= RT_KEEP_SCAN_MAX)
        continue;
      if (!kept_pass && scanned > RT_KEEP_SCAN_MAX && c->keep_iter == rt_g.iteration + 1)
        break; /* too many kept: the second pass evicts them in LRU order */
      if (evict_one(c, &st, 0)) {
        victim = c;
        break;
      }
      if (st != TIDAL_OK)
        return st;
    }
  if (!victim && rt_g.in.n) /* prefetched chunks become evictable once landed */
    return rt_chunk_settle(rt_g.in.head);
  if (!victim)
    return rt_budget_exhausted(why);
  RT_COUNT(evictions, 1);
  return st;
}

tidal_status rt_phys_acquire(uint32_t *phys, const char *why) {
  for (;;) {
    if (rt_g.nfree_phys) {
      *phys = rt_g.free_phys[--rt_g.nfree_phys];
      rt_stats_note_resident();
      return TIDAL_OK;
    }
    if (rt_g.nphys < rt_g.phys_target) { /* the budget grew (Note [resizable pool]) */
      if (rt_pool_add(phys) == TIDAL_OK) {
        rt_stats_note_resident();
        return TIDAL_OK;
      }
      rt_clear_error(); /* the device or the shared budget has no room now: evict */
    }
    tidal_status st = rt_phys_free_one(why);
    if (st == TIDAL_ERR_BUDGET && rt_g.nphys < rt_g.phys_target && rt_g.arb &&
        rt_arbiter_wait(rt_g.chunk_bytes)) {
      rt_clear_error(); /* another process is giving our share back */
      continue;
    }
    if (st != TIDAL_OK)
      return st;
  }
}

/* ---- transitions ---- */

static tidal_status wait_ready(rt_chunk *c) {
  if (!c->ready_pending)
    return TIDAL_OK;
  double stall = 0;
  tidal_status st = rt_g.be->stream_wait(rt_g.b, rt_g.stream, &c->ready, &stall);
  rt_g.be->event_release(rt_g.b, &c->ready);
  c->ready_pending = 0;
  if (stall > 0)
    RT_COUNT_TIME(stall_seconds, stall);
  return st;
}

static tidal_status map_fresh(rt_chunk *c, const char *why) {
  uint32_t phys;
  tidal_status st = rt_phys_acquire(&phys, why);
  if (st != TIDAL_OK)
    return st;
  return map_chunk(c, phys);
}

/* Note [exchange]: when every resident chunk is dirty and the host store
 * is full, a swapped-out chunk could never come back, although restoring it
 * adds no data: it would trade its host slot for a device chunk.  So its
 * host copy moves to a temporary heap buffer, its slot goes back to the
 * store, the usual eviction swaps a dirty chunk out into that slot, and the
 * heap copy is written to the device.  The chunk is then DIRTY (its only
 * copy is on the device).  If eviction still fails (every chunk pinned), the
 * slot is still free - an eviction that took it would have freed a device
 * chunk - and the data goes back into it. */
static tidal_status fault_in_exchange(rt_chunk *c) {
  size_t len = rt_chunk_len(c);
  unsigned char *heap = malloc(len);
  if (!heap)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "fault-in of %#lx: out of host memory for the exchange",
                    (unsigned long)rt_chunk_addr(c));
  retire_host_ev(c);
  memcpy(heap, rt_host_slot_addr(c->host_slot), len);
  rt_chunk_free_host(c);
  uint32_t phys;
  tidal_status st = rt_phys_acquire(&phys, "fault-in");
  if (st == TIDAL_OK)
    st = map_chunk(c, phys);
  if (st != TIDAL_OK) {
    c->host_slot = rt_host_slot_alloc(); /* the slot freed above (see the Note) */
    memcpy(rt_host_slot_addr(c->host_slot), heap, len);
    free(heap);
    return st;
  }
  rt_clear_error();
  double waited = 0;
  if ((st = wait_ready(c)) == TIDAL_OK)
    st = rt_g.be->copy_h2d(rt_g.b, rt_chunk_addr(c), heap, len, c->phys, &c->ready);
  if (st == TIDAL_OK)
    st = rt_g.be->event_sync(rt_g.b, &c->ready, &waited); /* heap is freed next */
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

tidal_status rt_chunk_restore(rt_chunk *c, int need_data) {
  tidal_status st;
  switch ((rt_chunk_state)c->state) {
  case RT_RESIDENT:
  case RT_DIRTY:
    return wait_ready(c);
  case RT_SWAPPING_OUT:
    /* Still mapped and intact: cancel the eviction.  The op waits for the
     * copy (it may overwrite the chunk); the host copy stays valid. */
    rt_list_remove(&rt_g.out, c);
    if (RT_TRACING())
      rt_trace_copy_done(1, "swap_out", rt_chunk_addr(c));
    c->ready = c->ev;
    c->ready_pending = 1;
    c->state = RT_RESIDENT;
    return wait_ready(c);
  case RT_PREFETCHING: {
    /* The op waits for the copy on its stream; the event stays alive for
     * the host slot (Note [host slot reuse]). */
    rt_list_remove(&rt_g.in, c);
    if (RT_TRACING())
      rt_trace_copy_done(0, "prefetch", rt_chunk_addr(c));
    c->state = RT_RESIDENT;
    if ((st = wait_ready(c)) != TIDAL_OK)
      return st;
    double stall = 0;
    st = rt_g.be->stream_wait(rt_g.b, rt_g.stream, &c->ev, &stall);
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
      return st == TIDAL_ERR_BUDGET && need_data ? fault_in_exchange(c) : st;
    if ((st = wait_ready(c)) != TIDAL_OK)
      return st;
    if (!need_data) { /* write-only: the old contents are not needed */
      c->state = RT_RESIDENT; /* not clean: fresh_from marks it (the op's step 3 frees the copy) */
      c->fresh_from = RT_ON_HOST;
      return TIDAL_OK;
    }
    {
      size_t len = rt_chunk_len(c);
      double waited = 0;
      st = rt_g.be->copy_h2d(rt_g.b, rt_chunk_addr(c), rt_host_slot_addr(c->host_slot), len,
                             c->phys, &c->ready);
      if (st == TIDAL_OK)
        st = rt_g.be->event_sync(rt_g.b, &c->ready, &waited); /* a fault restores synchronously */
      RT_COUNT_TIME(stall_seconds, waited);
      c->ready_pending = 1;
      c->state = RT_RESIDENT;
      RT_COUNT(faults, 1);
      RT_COUNT(swapped_in_bytes, len);
      if (RT_TRACING())
        rt_trace_copy(0, "fault", rt_chunk_addr(c), len, &c->ready, waited);
      tidal_status s2 = wait_ready(c);
      return st != TIDAL_OK ? st : s2;
    }
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
 * host_slot_get does not take its host copy. */
void rt_chunk_unrestore(rt_chunk *c) {
  if (!c->fresh_from)
    return;
  /* An outer op pinning it too has not restored it yet: a chunk it had
   * restored would be mapped, and mapped chunks are never marked. */
  if (rt_chunk_mapped(c))
    unmap_chunk(c);
  c->state = c->fresh_from;
  c->fresh_from = 0;
}

tidal_status rt_chunk_settle(rt_chunk *c) {
  double waited = 0;
  tidal_status st = TIDAL_OK;
  if (c->state == RT_SWAPPING_OUT) {
    st = rt_g.be->event_sync(rt_g.b, &c->ev, &waited);
    tidal_status s2 = finish_swap_out(c);
    if (st == TIDAL_OK)
      st = s2;
  } else if (c->state == RT_PREFETCHING) {
    st = rt_g.be->event_sync(rt_g.b, &c->ev, &waited);
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
  if (!evict_one(c, &st, (flags & RT_SWAP_COPY) != 0)) {
    rt_log(4, "swap_out %#lx: host store full and no recompute closure; kept resident",
           (unsigned long)rt_chunk_addr(c));
    return TIDAL_OK;
  }
  /* Finished already (synchronous sim copies)?  Release the memory now. */
  if (c->state == RT_SWAPPING_OUT &&
      ((flags & RT_SWAP_SYNC) || rt_g.be->event_done(rt_g.b, &c->ev)))
    st = rt_chunk_settle(c);
  return st;
}

tidal_status rt_chunk_prefetch(rt_chunk *c) {
  if (c->state != RT_ON_HOST || c->pins)
    return TIDAL_OK; /* resident, in flight, or nothing to copy */
  uint32_t phys;
  if (rt_phys_acquire(&phys, "prefetch") != TIDAL_OK) {
    rt_clear_error(); /* a hint that does not fit is ignored */
    return TIDAL_OK;
  }
  tidal_status st = map_chunk(c, phys);
  if (st != TIDAL_OK)
    return st;
  /* The copy is ordered after the physical chunk is free (ready). */
  rt_event ready = c->ready;
  c->ready_pending = 0;
  size_t len = rt_chunk_len(c);
  st = rt_g.be->copy_h2d(rt_g.b, rt_chunk_addr(c), rt_host_slot_addr(c->host_slot), len, c->phys,
                         &c->ev);
  rt_g.be->event_release(rt_g.b, &ready);
  if (st != TIDAL_OK) {
    unmap_chunk(c);
    c->state = RT_ON_HOST;
    return st;
  }
  c->state = RT_PREFETCHING;
  rt_list_push(&rt_g.in, RT_LIST_IN, c);
  RT_COUNT(swapped_in_bytes, len);
  RT_COUNT(prefetched_bytes, len);
  if (RT_TRACING())
    rt_trace_copy(0, "prefetch", rt_chunk_addr(c), len, &c->ev, -1);
  return TIDAL_OK;
}

tidal_status rt_chunk_drop(rt_chunk *c) {
  if (c->pins)
    return TIDAL_OK;
  tidal_status st = rt_chunk_settle(c); /* a copy in flight still reads or writes it */
  int had_data = c->state != RT_UNMAPPED && c->state != RT_DROPPED;
  if (rt_chunk_mapped(c)) {
    tidal_status s2 = unmap_chunk(c);
    if (st == TIDAL_OK)
      st = s2;
  }
  rt_chunk_free_host(c);
  if (c->rc)
    rt_recompute_detach(c);
  c->state = RT_DROPPED;
  if (had_data) {
    RT_COUNT(dropped_bytes, rt_chunk_len(c));
    RT_COUNT(drops, 1);
  }
  return st;
}

tidal_status rt_chunk_release(rt_chunk *c) {
  tidal_status st = rt_chunk_settle(c);
  if (rt_chunk_mapped(c)) {
    tidal_status s2 = unmap_chunk(c);
    if (st == TIDAL_OK)
      st = s2;
  }
  unlist(c);
  rt_chunk_free_host(c);
  if (c->rc)
    rt_recompute_detach(c);
  c->state = RT_UNMAPPED;
  c->fresh_from = 0;
  return st;
}
