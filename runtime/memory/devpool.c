/* devpool.c - the device pool of relocatable units.
 *
 * Note [device pool]: one reserved range (twice what the device offered,
 * so that any budget fits), backed by physical memory in large steps as
 * it grows (rt_dev.be->pool_grow: a quarter of the budget, at most 64 MiB,
 * at least the backend's granularity), never per move.  Placement is best
 * fit (Note [span allocator], span.c), at the unit's own alignment; when
 * the bytes are free but in holes, compaction, then eviction (Note
 * [compaction]).  A block given back remembers its holder's last-use mark
 * (Note [last-use marks]); a host-to-device copy into it waits for that
 * mark on its stream (Note [stale aliases]), the host never does.
 *
 * Note [physical bound]: the budget bounds the memory created, not only the
 * bytes in use.  Physical = the chunk pool's chunks (free and parked ones
 * too) + the pool's mapped bytes (rt_physical_bytes), and once relocatable
 * allocations exist it stays within the budget plus one growth step
 * (rt_physical_limit): the step is the slack, since the pool grows and
 * shrinks by whole steps (CUDA: one handle each).  So the pool maps at most
 * the budget less the home memory created, plus one step.  A placement
 * that may not grow within that compacts (when the pool has the bytes);
 * then the eviction policy's first step, while rt_mem.pool_wants says
 * what the pool waits for, has the chunk pool give back its free chunks,
 * then its parked ones, as many as the step needs, in one go
 * (rt_phys_yield, residency.c: this file calls nothing of it); then it
 * evicts (a home chunk evicted is parked, then given back).
 * The other way, a home chunk that does not fit makes the pool give back
 * its top steps, compacting once if that empties them (rt_pool_shrink),
 * before evicting.  A step given back waits on the host for the last use
 * of its bytes (rare: the memory changes sides).  Only when nothing can
 * leave and the budget has room - an open op's own blocks pinned in the
 * way - does the memory go past the bound (physical_overruns); the excess
 * is given back after the op (rt_phys_settle).  A gather's span counts
 * against the bound like any block, but not against the budget (its units
 * give their old blocks back right after).
 *
 * The state machine (residency.c) places and frees units' blocks here
 * (rt_unit_bind, rt_unit_unbind); their host copies are the host store's
 * (hoststore.c, rt_uhost_*); units.c gathers and places exactly (rt_pool_place, the
 * marks).  This file calls nothing else of residency.c: evicting goes
 * through the policy's hook (rt_mem.evict), and a parked unit gives its
 * block back here (rt_unit_give_parked). */
#include <stdlib.h>
#include <string.h>
#include "memory/memory.h"

#define RT_POOL_STEP_MAX ((size_t)64 << 20)

static size_t round_up(size_t x, size_t g) { return (x + g - 1) / g * g; }

/* ---- the device pool ---- */

static size_t pool_step(void) {
  size_t g = rt_dev.granularity ? rt_dev.granularity : 4096;
  size_t step = round_up(rt_mem.budget_exact / 4, g);
  if (step > RT_POOL_STEP_MAX)
    step = round_up(RT_POOL_STEP_MAX, g);
  return step < g ? g : step;
}

static tidal_status pool_open(void) {
  if (rt_mem.dpool_base)
    return TIDAL_OK;
  size_t g = rt_dev.granularity ? rt_dev.granularity : 4096;
  size_t bytes = round_up(2 * rt_dev.device_free + RT_POOL_STEP_MAX, g);
  tidal_status st = rt_dev.be->reserve(rt_dev.b, bytes, &rt_mem.dpool_base);
  if (st != TIDAL_OK)
    return st;
  rt_mem.dpool_reserved = bytes;
  rt_mem.dpool_mapped = 0;
  return TIDAL_OK;
}

size_t rt_physical_limit(void) { return rt_mem.budget_exact + pool_step(); }

/* The most the pool may map within the bound (Note [physical bound]). */
static size_t pool_limit(void) {
  size_t g = rt_dev.granularity ? rt_dev.granularity : 4096;
  size_t cap = rt_physical_limit(), home = (size_t)rt_mem.nphys * rt_mem.chunk_bytes;
  size_t lim = cap > home ? (cap - home) / g * g : 0;
  return lim < rt_mem.dpool_reserved ? lim : rt_mem.dpool_reserved;
}

int rt_pool_grow(size_t need, int over) {
  size_t step = pool_step();
  size_t add = round_up(need > step ? need : step, step);
  size_t limit = over ? rt_mem.dpool_reserved : pool_limit();
  if (rt_mem.dpool_mapped + add > limit) {
    if (rt_mem.dpool_mapped + need > limit)
      return 0;
    size_t g = rt_dev.granularity ? rt_dev.granularity : 4096;
    add = (limit - rt_mem.dpool_mapped) / g * g;
    if (add < need)
      return 0;
  }
  if (rt_mem.dpool_nsteps == rt_mem.dpool_cap_steps) {
    size_t cap = rt_mem.dpool_cap_steps ? rt_mem.dpool_cap_steps * 2 : 16;
    size_t *n = realloc(rt_mem.dpool_steps, cap * sizeof *n);
    if (!n)
      return 0;
    rt_mem.dpool_steps = n;
    rt_mem.dpool_cap_steps = cap;
  }
  size_t at = rt_mem.dpool_mapped;
  if (rt_dev.be->pool_grow(rt_dev.b, rt_mem.dpool_base + at, add) != TIDAL_OK) {
    rt_clear_error(); /* the device has no more: evicting is the caller's next step */
    return 0;
  }
  if (!rt_span_add_region(&rt_mem.dpool, at, at + add)) {
    rt_dev.be->pool_shrink(rt_dev.b, rt_mem.dpool_base + at, add);
    return 0;
  }
  rt_mem.dpool_steps[rt_mem.dpool_nsteps++] = at;
  rt_mem.dpool_mapped += add;
  rt_note_physical();
  RT_COUNT(pool_grows, 1);
  RT_COUNT(vmm_calls, 3); /* create, map, set-access: once per step, not per move */
  if (RT_TRACING())
    rt_trace("pool_grow", "\"bytes\":%zu,\"pool\":%zu", add, rt_mem.dpool_mapped);
  return 1;
}

/* The last-use marks of ranges given back: a copy into [off, off + len)
 * waits for the latest that overlaps. */
void rt_pool_freed(size_t off, size_t len, uint64_t mark) {
  if (!mark)
    return;
  if (rt_mem.pfreed_n == sizeof rt_mem.pfreed / sizeof rt_mem.pfreed[0]) {
    if (rt_mem.pfreed[0].mark > rt_mem.pfreed_floor) /* forgotten: every block waits for it */
      rt_mem.pfreed_floor = rt_mem.pfreed[0].mark;
    memmove(&rt_mem.pfreed[0], &rt_mem.pfreed[1], (rt_mem.pfreed_n - 1) * sizeof rt_mem.pfreed[0]);
    rt_mem.pfreed_n--;
  }
  rt_mem.pfreed[rt_mem.pfreed_n].off = off;
  rt_mem.pfreed[rt_mem.pfreed_n].len = len;
  rt_mem.pfreed[rt_mem.pfreed_n].mark = mark;
  rt_mem.pfreed_n++;
}

uint64_t rt_pool_mark(size_t off, size_t len) {
  uint64_t m = rt_mem.pfreed_floor;
  for (size_t i = 0; i < rt_mem.pfreed_n; i++)
    if (rt_mem.pfreed[i].off < off + len && off < rt_mem.pfreed[i].off + rt_mem.pfreed[i].len &&
        rt_mem.pfreed[i].mark > m)
      m = rt_mem.pfreed[i].mark;
  return m;
}

/* Note [compaction]: when the pool has the bytes but no hole of them (and
 * may not grow), the blocks of units that no open op holds and no copy is
 * in flight for slide down, in offset order, with device-to-device copies
 * on the compute stream (a block that would overlap its own move is copied
 * front to back in pieces no longer than the distance, so no piece reads
 * bytes already written; a block that would need more than 16 pieces
 * stays).  Parked units' blocks are not worth a copy: they go first
 * (rt_parked_give; their data is on the host, or dead).  The ranges left
 * behind wait for a mark after the copies, as freed blocks do. */
#define RT_COMPACT_PIECES_MAX 16

static int movable(const rt_unit *u, int pinned_too) {
  const rt_chunk *c = &u->c;
  if (c->fixed || ((c->pins || u->placed) && !pinned_too))
    return 0;
  return u->placed || c->state == RT_RESIDENT || c->state == RT_DIRTY;
}

/* pinned_too: units pinned by an op whose begin has not returned move too
 * (their addresses are not handed out yet, and that begin's last step
 * gathers again what this takes apart, rt_units_gather), and places taken
 * in advance move with no copy (Note [placed in advance]): the last resort
 * before memory past the bound, when that op's own units are in the way. */
static tidal_status compact(int pinned_too) {
  tidal_status st = TIDAL_OK;
  for (rt_chunk *c = rt_mem.parked.head, *next; c; c = next) {
    next = c->next;
    if (c->unit)
      rt_unit_give_parked(c);
  }
  rt_span *sp = &rt_mem.dpool;
  size_t moved = 0;
  for (uint32_t r = 0; r < sp->nregions; r++) {
    size_t at = sp->regions[r].lo, hi = sp->regions[r].hi;
    for (size_t i = 0; i < sp->n && sp->blk[i].off < hi; i++) {
      rt_span_blk *b = &sp->blk[i];
      if (b->off < at)
        continue; /* another region's */
      rt_unit *u = b->owner;
      size_t len = b->len, to = at + ((u->lo % RT_SPAN_ALIGN) + RT_SPAN_ALIGN - at % RT_SPAN_ALIGN) % RT_SPAN_ALIGN;
      if (to >= b->off || !movable(u, pinned_too) || (len + (b->off - to) - 1) / (b->off - to) > RT_COMPACT_PIECES_MAX) {
        at = b->off + len;
        continue;
      }
      if (u->placed) { /* a place, no data yet: it moves with no copy */
        b->off = to;
        u->block = to;
        uint64_t m = rt_pool_mark(to, len);
        if (m > u->mark)
          u->mark = m; /* its restore's copy waits for the bytes' last holders */
        at = to + len;
        moved++;
        continue;
      }
      if (u->c.ready_pending) { /* a restore still writing it: the copy follows it */
        double stall = 0;
        st = rt_dev_stream_wait(rt_mem.stream, &u->c.ready, &stall);
        rt_dev_event_release(&u->c.ready);
        u->c.ready_pending = 0;
        if (st != TIDAL_OK)
          return st;
      }
      size_t step = b->off - to < len ? b->off - to : len;
      for (size_t k = 0; k < len && st == TIDAL_OK; k += step)
        st = rt_dev.be->copy_d2d(rt_dev.b, rt_mem.dpool_base + to + k,
                                 rt_mem.dpool_base + b->off + k, len - k < step ? len - k : step,
                                 rt_mem.stream, u->c.writer);
      if (st != TIDAL_OK)
        return st;
      RT_COUNT(d2d_bytes, len);
      size_t old = b->off;
      b->off = to; /* still in order: it moved down past nothing */
      u->block = to;
      u->c.writer = rt_mem.stream;
      moved++;
      uint64_t m = 0;
      if ((st = rt_dev.be->mark(rt_dev.b, rt_mem.stream, &m)) != TIDAL_OK)
        return st;
      rt_pool_freed(old, len, m); /* the bytes left behind: after the copy */
      at = to + len;
    }
  }
  RT_COUNT(compactions, 1);
  if (pinned_too)
    rt_mem.squeezes++;
  if (RT_TRACING())
    rt_trace("compact", "\"moved\":%zu,\"used\":%zu,\"pool\":%zu", moved, sp->used,
             rt_mem.dpool_mapped);
  return TIDAL_OK;
}

/* The pool's top step [lo, mapped) goes: unmapped once its last use is done
 * (the host waits: the memory changes sides, which is rare). */
static tidal_status release_top(void) {
  size_t lo = rt_mem.dpool_steps[rt_mem.dpool_nsteps - 1], len = rt_mem.dpool_mapped - lo;
  uint64_t m = rt_pool_mark(lo, len), now = 0;
  tidal_status st = rt_dev.be->mark(rt_dev.b, rt_mem.last_stream, &now);
  if (st == TIDAL_OK && now > m)
    m = now; /* ops ended on the stream may still run over blocks freed there */
  if (st == TIDAL_OK && m && !rt_dev.be->mark_done(rt_dev.b, m)) {
    double waited = 0;
    st = rt_dev.be->mark_wait(rt_dev.b, m, &waited);
    RT_COUNT_TIME(stall_seconds, waited);
  }
  if (st != TIDAL_OK)
    return st;
  if (!rt_span_truncate(&rt_mem.dpool, lo))
    return TIDAL_ERR_BUDGET; /* a block there: the caller checked */
  rt_dev.be->pool_shrink(rt_dev.b, rt_mem.dpool_base + lo, len);
  rt_mem.dpool_nsteps--;
  rt_mem.dpool_mapped = lo;
  rt_note_physical();
  RT_COUNT(pool_shrinks, 1);
  RT_COUNT(vmm_calls, 2); /* unmap, release */
  if (RT_TRACING())
    rt_trace("pool_shrink", "\"bytes\":%zu,\"pool\":%zu", len, rt_mem.dpool_mapped);
  return TIDAL_OK;
}

/* The end of the last block (0 if none). */
static size_t blocks_end(void) {
  const rt_span *sp = &rt_mem.dpool;
  return sp->n ? sp->blk[sp->n - 1].off + sp->blk[sp->n - 1].len : 0;
}

int rt_pool_shrink(size_t need) {
  int compacted = 0;
  size_t limit = rt_physical_limit();
  while (rt_physical_bytes() + need > limit && rt_mem.dpool_nsteps) {
    size_t lo = rt_mem.dpool_steps[rt_mem.dpool_nsteps - 1];
    if (blocks_end() > lo) {
      /* parked units' blocks are not worth keeping; then slide the rest down
       * if that empties the step (Note [compaction]) */
      if (compacted || rt_mem.dpool.used > lo)
        break;
      compacted = 1;
      if (compact(1) != TIDAL_OK) {
        rt_clear_error();
        break;
      }
      continue;
    }
    if (release_top() != TIDAL_OK) {
      rt_clear_error();
      break;
    }
  }
  return rt_physical_bytes() + need <= limit;
}

/* What the pool must grow by for a hole of len bytes: the free bytes at
 * its end join the new step. */
static size_t grow_need(size_t len) {
  size_t tail = rt_mem.dpool_mapped - blocks_end();
  return len + RT_SPAN_ALIGN - (tail < len ? tail : len);
}

/* len bytes at phase `phase` for owner: within the budget unless
 * transient (a gather's span, whose units give their old blocks back right
 * after), evicting through the policy while it does not fit. */
tidal_status rt_pool_place(size_t len, size_t phase, void *owner, int transient,
                               const char *why, size_t *off) {
  tidal_status st = pool_open();
  if (st != TIDAL_OK)
    return st;
  int compacted = 0, squeezed = 0;
  for (;;) {
    int room = transient || rt_resident_bytes() + len <= rt_mem.budget_exact;
    if (room && rt_span_alloc(&rt_mem.dpool, len, phase, owner, off))
      return TIDAL_OK;
    if (room && rt_pool_grow(grow_need(len), 0)) /* within the bound */
      continue;
    /* the bytes are there, not in one hole: Note [compaction] */
    if (room && !compacted && rt_mem.dpool.total - rt_mem.dpool.used >= len + RT_SPAN_ALIGN) {
      compacted = 1;
      if ((st = compact(0)) != TIDAL_OK)
        return st;
      continue;
    }
    /* the policy gives back the chunk pool's unused chunks first, when only
     * the bound is in the way (rt_mem.pool_wants; Note [physical bound]) */
    rt_mem.pool_wants = room ? grow_need(len) : 0;
    st = rt_mem.evict->free_one(why);
    rt_mem.pool_wants = 0;
    if (st != TIDAL_OK) {
      /* Nothing else can leave and the budget has room: the open ops' own
       * blocks are in the way.  Moved too if their begin has not returned;
       * then past the bound rather than fail, given back after the op
       * (Note [physical bound]). */
      if (room && !squeezed && rt_mem.dpool.total - rt_mem.dpool.used >= len + RT_SPAN_ALIGN) {
        squeezed = 1;
        rt_clear_error();
        if ((st = compact(1)) != TIDAL_OK)
          return st;
        continue;
      }
      if (room && rt_pool_grow(grow_need(len), 1)) {
        rt_clear_error();
        RT_COUNT(physical_overruns, 1);
        continue;
      }
      return st;
    }
    compacted = 0; /* something left: the holes changed */
  }
}

uintptr_t rt_unit_dev(const rt_chunk *c) { return rt_mem.dpool_base + rt_unit_ofc(c)->block; }

tidal_status rt_unit_bind(rt_chunk *c, const char *why) {
  rt_unit *u = rt_unit_of(c);
  size_t len = u->hi - u->lo, off;
  if (u->placed) { /* its place in its group's span (Note [placed in advance]) */
    u->placed = 0;
    c->ready_pending = 0;
    return TIDAL_OK; /* counted as resident when placed */
  }
  tidal_status st = rt_pool_place(len, u->lo, u, 0, why, &off);
  if (st != TIDAL_OK)
    return st;
  u->block = off;
  u->mark = rt_pool_mark(off, len);
  c->ready_pending = 0; /* ops follow its previous holders on the stream; copies wait for mark */
  rt_mem.unit_resident += len;
  rt_note_resident();
  return TIDAL_OK;
}

void rt_unit_unbind(rt_chunk *c, uint64_t mark) {
  rt_unit *u = rt_unit_of(c);
  size_t len = u->hi - u->lo;
  if (!c->parked)
    rt_mem.unit_resident -= len;
  rt_span_free(&rt_mem.dpool, u->block);
  rt_pool_freed(u->block, len, mark > u->mark ? mark : u->mark);
  u->mark = 0;
}

void rt_unit_give_parked(rt_chunk *c) {
  rt_list_remove(&rt_mem.parked, c);
  rt_mem.parked_units--;
  rt_unit_unbind(c, c->park_mark); /* parked: not resident, nothing to subtract */
  c->parked = 0;
  c->park_mark = 0;
}

uint64_t rt_unit_take_mark(rt_chunk *c) {
  rt_unit *u = rt_unit_of(c);
  uint64_t m = u->mark;
  u->mark = 0;
  return m;
}

void rt_units_destroy(void) {
  if (rt_mem.dpool_base)
    rt_dev.be->pool_release(rt_dev.b, rt_mem.dpool_base, rt_mem.dpool_reserved,
                            rt_mem.dpool_mapped);
  rt_span_destroy(&rt_mem.dpool);
  free(rt_mem.dpool_steps);
  rt_mem.dpool_steps = NULL;
  rt_mem.dpool_nsteps = rt_mem.dpool_cap_steps = 0;
  free(rt_mem.warned);
  free(rt_mem.clamped);
}
