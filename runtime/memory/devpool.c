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
 * behind wait for a mark after the copies, as freed blocks do.  For a
 * placement it stops once the hole asked for (`want`) has opened: the
 * blocks above it stay (emptying the pool's top step, want = 0, slides
 * everything).  A placement tries Note [targeted compaction] first. */
#define RT_COMPACT_PIECES_MAX 16

static int movable(const rt_unit *u, int pinned_too) {
  const rt_chunk *c = &u->c;
  if (c->fixed || ((c->pins || u->placed) && !pinned_too))
    return 0;
  return u->placed || c->state == RT_RESIDENT || c->state == RT_DIRTY;
}

/* Where the walk at `at` puts u's block: the next offset at its phase. */
static size_t slide_to(size_t at, const rt_unit *u) {
  return at + ((u->lo % RT_SPAN_ALIGN) + RT_SPAN_ALIGN - at % RT_SPAN_ALIGN) % RT_SPAN_ALIGN;
}

/* Whether block b stays where it is in a slide to `to`. */
static int slide_keeps(const rt_span_blk *b, size_t to, int pinned_too) {
  return to >= b->off || !movable(b->owner, pinned_too) ||
         (b->len + (b->off - to) - 1) / (b->off - to) > RT_COMPACT_PIECES_MAX;
}

/* pinned_too: units pinned by an op whose begin has not returned move too
 * (their addresses are not handed out yet, and that begin's last step
 * gathers again what this takes apart, rt_units_gather), and places taken
 * in advance move with no copy (Note [placed in advance]): the last resort
 * before memory past the bound, when that op's own units are in the way. */
static tidal_status compact(int pinned_too, size_t want) {
  tidal_status st = TIDAL_OK;
  for (rt_chunk *c = rt_mem.parked.head, *next; c; c = next) {
    next = c->next;
    if (c->unit)
      rt_unit_give_parked(c);
  }
  rt_span *sp = &rt_mem.dpool;
  size_t moved = 0;
  int made = 0;
  for (uint32_t r = 0; r < sp->nregions && !made; r++) {
    size_t at = sp->regions[r].lo, hi = sp->regions[r].hi;
    for (size_t i = 0; i < sp->n && sp->blk[i].off < hi; i++) {
      rt_span_blk *b = &sp->blk[i];
      if (want && b->off >= at && b->off - at >= want) {
        made = 1; /* the hole asked for is there: the blocks above stay */
        break;
      }
      if (b->off < at)
        continue; /* another region's */
      rt_unit *u = b->owner;
      size_t len = b->len, to = slide_to(at, u);
      if (slide_keeps(b, to, pinned_too)) {
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
      if ((st = rt_unit_follow_restore(&u->c)) != TIDAL_OK) /* the copy follows it */
        return st;
      /* the blocks right after it that move with it, by the same distance
       * (each keeps its phase: the distance is a multiple of RT_SPAN_ALIGN),
       * go in the same copies (Note [gathered runs], units.c) */
      size_t d = b->off - to, j = i + 1, run = len;
      while (j < sp->n && sp->blk[j].off == sp->blk[j - 1].off + sp->blk[j - 1].len &&
             sp->blk[j].off < hi) {
        rt_unit *v = sp->blk[j].owner;
        size_t more = run + sp->blk[j].len;
        if (!movable(v, pinned_too) || v->placed || v->c.ready_pending ||
            v->c.writer != u->c.writer || (more + d - 1) / d > RT_COMPACT_PIECES_MAX)
          break;
        run = more;
        j++;
      }
      size_t step = d < run ? d : run;
      for (size_t k = 0; k < run && st == TIDAL_OK; k += step)
        st = rt_copy_d2d(rt_mem.dpool_base + to + k, rt_mem.dpool_base + b->off + k,
                         run - k < step ? run - k : step, rt_mem.stream, u->c.writer);
      if (st != TIDAL_OK)
        return st;
      RT_COUNT(d2d_bytes, run);
      uint64_t m = 0;
      if ((st = rt_dev.be->mark(rt_dev.b, rt_mem.stream, &m)) != TIDAL_OK)
        return st;
      for (size_t k = i; k < j; k++) {
        rt_span_blk *bk = &sp->blk[k];
        rt_unit *v = bk->owner;
        size_t old = bk->off;
        bk->off -= d; /* still in order: the run moved down past nothing */
        v->block = bk->off;
        v->c.writer = rt_mem.stream;
        rt_pool_freed(old, bk->len, m); /* the bytes left behind: after the copies */
        moved++;
      }
      at = to + run;
      i = j - 1;
    }
  }
  RT_COUNT(compactions, 1);
  if (pinned_too)
    rt_mem.squeezes++;
  if (RT_TRACING())
    rt_trace("compact", "\"moved\":%zu,\"pinned_too\":%d,\"used\":%zu,\"pool\":%zu", moved,
             pinned_too, sp->used, rt_mem.dpool_mapped);
  return TIDAL_OK;
}

/* Whether compact(0, want) would open a hole of want bytes: its walk with
 * nothing moved (Note [slides after evictions]).  Parked units' blocks
 * count as free (compact gives them back first); a block stays where
 * compact would leave it (not movable, or more than RT_COMPACT_PIECES_MAX
 * pieces at its distance), else lands at the walk's offset. */
static int slide_opens(size_t want) {
  const rt_span *sp = &rt_mem.dpool;
  for (uint32_t r = 0; r < sp->nregions; r++) {
    size_t at = sp->regions[r].lo, hi = sp->regions[r].hi;
    for (size_t i = 0; i < sp->n && sp->blk[i].off < hi; i++) {
      const rt_span_blk *b = &sp->blk[i];
      const rt_unit *u = b->owner;
      if (b->off < at || u->c.parked)
        continue; /* another region's, or given back first */
      if (b->off - at >= want)
        return 1;
      size_t to = slide_to(at, u);
      at = (slide_keeps(b, to, 0) ? b->off : to) + b->len;
    }
    if (hi > at && hi - at >= want)
      return 1;
  }
  return 0;
}

/* Note [targeted compaction]: a placement of len bytes that finds the
 * bytes free but in holes first looks for the window of len bytes (at the
 * placement's phase, starting at a region's start or at a block's end)
 * whose blocks are all movable and fewest in bytes, and moves just those
 * out of it, each with one device-to-device copy into a hole outside the
 * window (the window's own holes are held meanwhile, so nothing lands in
 * it; source and destination never overlap: no pieces).  Sliding every
 * block down (compact) copies what lies above the first hole, again at
 * each placement: on the gpt variant at 50% with the H200's costs that
 * was 90% of the device-to-device bytes (4.2 of 4.8 GiB in two
 * iterations, 3,626 copies).  compact stays the fallback, when no window
 * can be cleared or a moved block finds no hole. */
static rt_unit hole_keeper; /* owner of the window's holes while it is cleared */

/* Whether blocks [f, e) of the pool fit, best fit and largest first, into
 * the holes outside [x, x + len) (each with room for its alignment). */
static int fits_outside(size_t f, size_t e, size_t x, size_t len, size_t *cap, size_t ncap) {
  const rt_span *sp = &rt_mem.dpool;
  size_t nh = 0;
  for (uint32_t r = 0; r < sp->nregions; r++) {
    size_t at = sp->regions[r].lo, hi = sp->regions[r].hi, a, b;
    rt_span_overlapping(sp, at, hi - at, &a, &b);
    for (size_t i = a; i <= b; i++) {
      size_t end = i < b ? sp->blk[i].off : hi;
      /* the parts of [at, end) outside the window */
      size_t l1 = end < x ? end : x, h2 = at > x + len ? at : x + len;
      if (l1 > at && nh < ncap)
        cap[nh++] = l1 - at;
      if (end > h2 && nh < ncap)
        cap[nh++] = end - h2;
      if (i < b)
        at = sp->blk[i].off + sp->blk[i].len;
    }
  }
  size_t k = e - f;
  /* blocks in decreasing size: k is small (a window holds few blocks) */
  size_t idx[64];
  if (k > sizeof idx / sizeof idx[0])
    return 0;
  for (size_t j = 0; j < k; j++)
    idx[j] = f + j;
  for (size_t a = 1; a < k; a++)
    for (size_t b = a; b > 0 && sp->blk[idx[b]].len > sp->blk[idx[b - 1]].len; b--) {
      size_t t = idx[b];
      idx[b] = idx[b - 1];
      idx[b - 1] = t;
    }
  for (size_t j = 0; j < k; j++) {
    size_t need = sp->blk[idx[j]].len + RT_SPAN_ALIGN, best = SIZE_MAX;
    for (size_t h = 0; h < nh; h++)
      if (cap[h] >= need && (best == SIZE_MAX || cap[h] < cap[best]))
        best = h;
    if (best == SIZE_MAX)
      return 0;
    cap[best] -= need;
  }
  return 1;
}

/* The cheapest window whose blocks may all move and fit outside it: 1 and
 * *at, or 0. */
static int best_window(size_t len, size_t phase, size_t *at) {
  const rt_span *sp = &rt_mem.dpool;
  size_t best_cost = SIZE_MAX, ncap = 2 * sp->n + 2 * sp->nregions + 2;
  size_t *cap = malloc(ncap * sizeof *cap);
  if (!cap)
    return 0;
  for (uint32_t r = 0; r < sp->nregions; r++) {
    size_t lo = sp->regions[r].lo, hi = sp->regions[r].hi, f, e;
    rt_span_overlapping(sp, lo, hi - lo, &f, &e);
    for (size_t i = f; i <= e; i++) { /* a window starting at lo, then after block i - 1 */
      size_t from = i == f ? lo : sp->blk[i - 1].off + sp->blk[i - 1].len;
      size_t x = from + ((phase % RT_SPAN_ALIGN) + RT_SPAN_ALIGN - from % RT_SPAN_ALIGN) % RT_SPAN_ALIGN;
      if (x + len > hi)
        break;
      size_t cost = 0, j = i;
      int ok = 1;
      for (; j < e && sp->blk[j].off < x + len && ok; j++) {
        ok = movable(sp->blk[j].owner, 0);
        cost += sp->blk[j].len;
      }
      if (ok && cost < best_cost && fits_outside(i, j, x, len, cap, ncap)) {
        best_cost = cost;
        *at = x;
      }
    }
  }
  free(cap);
  return best_cost != SIZE_MAX;
}

/* Moves unit u's block (inside the held window) to a hole outside it. */
static tidal_status move_out(rt_unit *u, int *moved) {
  size_t len = u->hi - u->lo, old = u->block, to;
  *moved = 0;
  if (!rt_span_alloc(&rt_mem.dpool, len, u->lo, u, &to))
    return TIDAL_OK; /* no hole outside fits it */
  tidal_status st = TIDAL_OK;
  if (u->placed) { /* a place, no data yet: it moves with no copy */
    uint64_t m = rt_pool_mark(to, len);
    if (m > u->mark)
      u->mark = m;
  } else {
    st = rt_unit_follow_restore(&u->c); /* a restore still writing it: the copy follows it */
    if (st == TIDAL_OK)
      st = rt_copy_d2d(rt_mem.dpool_base + to, rt_mem.dpool_base + old, len, rt_mem.stream,
                       u->c.writer);
    uint64_t m = 0;
    if (st == TIDAL_OK)
      st = rt_dev.be->mark(rt_dev.b, rt_mem.stream, &m);
    if (st != TIDAL_OK) {
      rt_span_free(&rt_mem.dpool, to);
      return st;
    }
    RT_COUNT(d2d_bytes, len);
    u->c.writer = rt_mem.stream;
    rt_pool_freed(old, len, m); /* the bytes left behind: after the copy */
  }
  rt_span_free(&rt_mem.dpool, old);
  u->block = to;
  *moved = 1;
  return TIDAL_OK;
}

/* Clears a window of len bytes at phase: 1 if the placement now fits. */
static int make_hole(size_t len, size_t phase, tidal_status *st) {
  rt_span *sp = &rt_mem.dpool;
  size_t x = 0, f, e, held[256], nheld = 0, moved = 0, bytes = 0;
  *st = TIDAL_OK;
  if (!best_window(len, phase, &x))
    return 0;
  /* hold the window's holes (few: a window holds few blocks, or it is
   * not the cheapest) */
  size_t gap_at[64], gap_len[64], ngap = 0, at = x;
  rt_span_overlapping(sp, x, len, &f, &e);
  for (size_t i = f; i <= e; i++) {
    size_t end = i < e ? sp->blk[i].off : x + len;
    if (end > at) {
      if (ngap == sizeof gap_at / sizeof gap_at[0])
        return 0;
      gap_at[ngap] = at;
      gap_len[ngap++] = end - at;
    }
    if (i < e && sp->blk[i].off + sp->blk[i].len > at)
      at = sp->blk[i].off + sp->blk[i].len;
  }
  for (size_t k = 0; k < ngap; k++)
    if (rt_span_take(sp, gap_at[k], gap_len[k], &hole_keeper))
      held[nheld++] = gap_at[k];
  int ok = 1;
  for (;;) { /* the window's first block that is not held, moved out */
    rt_span_overlapping(sp, x, len, &f, &e);
    size_t big = e; /* the largest first, as best_window packed them */
    for (size_t i = f; i < e; i++)
      if (sp->blk[i].owner != &hole_keeper && (big == e || sp->blk[i].len > sp->blk[big].len))
        big = i;
    if (big == e)
      break;
    rt_unit *u = sp->blk[big].owner;
    int m = 0;
    size_t ulen = u->hi - u->lo, uold = u->block;
    if (nheld == sizeof held / sizeof held[0] || (*st = move_out(u, &m)) != TIDAL_OK || !m) {
      ok = 0;
      break;
    }
    moved++;
    bytes += ulen;
    /* the bytes it left are held too: the next block must leave the window */
    size_t hlo = uold > x ? uold : x, hhi = uold + ulen < x + len ? uold + ulen : x + len;
    if (rt_span_take(sp, hlo, hhi - hlo, &hole_keeper))
      held[nheld++] = hlo;
  }
  for (size_t k = 0; k < nheld; k++)
    rt_span_free(sp, held[k]);
  if (moved) {
    RT_COUNT(compactions, 1);
    if (RT_TRACING())
      rt_trace("compact", "\"moved\":%zu,\"bytes\":%zu,\"targeted\":1,\"used\":%zu,\"pool\":%zu",
               moved, bytes, sp->used, rt_mem.dpool_mapped);
  }
  return ok && *st == TIDAL_OK;
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
      if (compact(1, 0) != TIDAL_OK) {
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

/* Note [slides after evictions]: a placement evicts while the bytes are
 * not free in one hole, and after each eviction (each call of the policy:
 * a swap-out begun, reaped, its parked block reused) it tries the targeted
 * window again, then the slide.  A slide that did not open the hole - the
 * open op's own blocks, which it may not move, stand between the holes -
 * is run again only when its walk done dry (slide_opens) says that it now
 * opens the hole: not after every eviction (the gpt variant's 110 MB
 * gradient gather at encoder_backward slid the pool 274 times, branch
 * llmodel-extents, hints, modelled 64.8 -> 58.5 ms a step), and not only
 * once another len bytes have gone (a first version: it evicted a tensor
 * that a slide would have kept).  The first slide of a placement runs as
 * before.  test_reloc's slides(): 13 slides for one gather before, one
 * slide and a window (or a second slide) now. */

/* len bytes at phase `phase` for owner: within the budget unless
 * transient (a gather's span, whose units give their old blocks back right
 * after), evicting through the policy while it does not fit. */
tidal_status rt_pool_place(size_t len, size_t phase, void *owner, int transient,
                               const char *why, size_t *off) {
  tidal_status st = pool_open();
  if (st != TIDAL_OK)
    return st;
  int compacted = 0, squeezed = 0, slid = 0; /* Note [slides after evictions] */
  for (;;) {
    int room = transient || rt_resident_bytes() + len <= rt_mem.budget_exact;
    if (room && rt_span_alloc(&rt_mem.dpool, len, phase, owner, off))
      return TIDAL_OK;
    if (room && rt_pool_grow(grow_need(len), 0)) /* within the bound */
      continue;
    /* the bytes are there, not in one hole: Note [compaction] */
    if (room && !compacted && rt_mem.dpool.total - rt_mem.dpool.used >= len + RT_SPAN_ALIGN) {
      compacted = 1;
      if (!make_hole(len, phase, &st) && st == TIDAL_OK && /* Note [targeted compaction] */
          (!slid || slide_opens(len + RT_SPAN_ALIGN))) {
        st = compact(0, len + RT_SPAN_ALIGN);
        slid = 1;
      }
      if (st != TIDAL_OK)
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
        if ((st = compact(1, len + RT_SPAN_ALIGN)) != TIDAL_OK)
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

/* Note [placed beside its neighbours]: a unit bound while a unit next to
 * it in its allocation holds a block takes the bytes right after (or
 * before) that block when they are free.  An op that spans both then finds
 * them contiguous and needs no gather: units are cut by every access's
 * ends (qkv as a whole and as q, k, v), moved one by one, and placed by
 * best fit they land apart and each whole access copies them together
 * again (the gpt variant at 50%: 92 gathers, 916 MiB a step). */
static int holds_block(const rt_unit *n) {
  return n->c.state == RT_RESIDENT || n->c.state == RT_DIRTY || n->c.state == RT_PREFETCHING;
}

static int place_beside(rt_unit *u, size_t len, size_t *off) {
  const rt_alloc *a = u->c.alloc;
  if (rt_resident_bytes() + len > rt_mem.budget_exact)
    return 0;
  size_t i = rt_unit_index(a, u->lo);
  if (i >= a->nunits || a->units[i] != u)
    return 0;
  const rt_unit *l = i > 0 ? a->units[i - 1] : NULL, *r = i + 1 < a->nunits ? a->units[i + 1] : NULL;
  if (l && l->hi == u->lo && holds_block(l) &&
      rt_span_take(&rt_mem.dpool, l->block + (l->hi - l->lo), len, u)) {
    *off = l->block + (l->hi - l->lo);
    return 1;
  }
  if (r && r->lo == u->hi && holds_block(r) && r->block >= len &&
      rt_span_take(&rt_mem.dpool, r->block - len, len, u)) {
    *off = r->block - len;
    return 1;
  }
  return 0;
}

tidal_status rt_unit_bind(rt_chunk *c, const char *why) {
  rt_unit *u = rt_unit_of(c);
  size_t len = u->hi - u->lo, off;
  if (u->placed) { /* its place in its group's span (Note [placed in advance]) */
    u->placed = 0;
    c->ready_pending = 0;
    return TIDAL_OK; /* counted as resident when placed */
  }
  tidal_status st = TIDAL_OK;
  if (!(rt_mem.dpool_base && place_beside(u, len, &off)))
    st = rt_pool_place(len, u->lo, u, 0, why, &off);
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
