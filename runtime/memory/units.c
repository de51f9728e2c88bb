/* units.c - relocatable allocations: their units, gathers, tidal_at, tidal_home.
 *
 * Note [units]: a relocatable allocation (TIDAL_GROUP_RELOCATABLE) has no
 * chunks.  Its bytes are covered lazily by units, byte ranges [lo, hi)
 * made by accesses: an access's ends split the units they fall inside (a
 * resident unit's device block and its host copy split in two, with no
 * copy; a copy in flight is settled first), and the bytes it covers that no
 * unit holds become new units.  Units never merge; bytes never accessed
 * have no unit and no memory.  Each unit is a chunk to the state machine
 * (residency.c: its states, the LRU, pins, hints, the eviction policy),
 * with two differences: "mapped" means it holds a block of the device pool
 * rather than a physical chunk at its address, and its host copy is bytes
 * of the host store rather than a slot (Note [one host store]).  Swap-out, prefetch,
 * fault-in and compaction are plain stream-ordered copies: no driver
 * mapping call.  The stable range tidal_malloc returned is reserved and
 * never mapped, so a use that did not go through tidal_at faults (the sim
 * keeps it PROT_NONE; on CUDA it is unmapped virtual address space).
 *  - Budget in exact bytes: resident = home chunks x chunk bytes + the
 *    bytes of units holding a block (parked ones not counted), within the
 *    budget as given (budget_exact), so an op's working set is its units'
 *    exact bytes, not whole chunks.
 *  - An op's accesses that overlap need their units contiguous and in
 *    order: after the restores, each such group is gathered into one span
 *    with device-to-device copies on the compute stream (rt_units_gather);
 *    the units stay separate afterwards, and a group already contiguous
 *    costs nothing.  A unit whose address an open op was handed (its begin
 *    returned: `fixed`) never moves; a gather around it places the others
 *    next to it, evicting what is in the way, or fails (TIDAL_ERR_UNSUPPORTED)
 *    when an op's own units are in the way (only explicitly nested ops can
 *    get there; the pass never nests).
 *  - Recompute closures act on units as on chunks (recompute.c): dropped
 *    with no copy, re-run inside the begin of the op that needs them, their
 *    own op resolving the units' current places.
 *  - Limits of this step (docs/limitations.md): the run-time planner acts
 *    only on units entirely inside its chunk grid's groups
 *    (policy/plan_exec.c);
 *    a dirty unit that cannot get a host copy stays resident (TIDAL_ERR_BUDGET
 *    when nothing else can go), with no exchange (Note [exchange]).
 * The device pool and the units' host store are devpool.c's. */
#include <stdlib.h>
#include <string.h>
#include "memory/memory.h"

/* ---- units of an allocation ---- */

/* The first unit whose hi is above off. */
static size_t first_above(const rt_alloc *a, size_t off) { return rt_unit_index(a, off); }

void rt_units_range(const rt_alloc *a, size_t off, size_t len, size_t *first, size_t *end) {
  size_t i = first_above(a, off), j = i;
  while (j < a->nunits && a->units[j]->lo < off + len)
    j++;
  *first = i;
  *end = j;
}

static int reserve_units(rt_alloc *a) {
  if (a->nunits < a->cap_units)
    return 1;
  size_t cap = a->cap_units ? a->cap_units * 2 : 8;
  rt_unit **u = realloc(a->units, cap * sizeof *u);
  if (!u)
    return 0;
  a->units = u;
  a->cap_units = cap;
  return 1;
}

static void insert_unit(rt_alloc *a, size_t at, rt_unit *u) {
  memmove(&a->units[at + 1], &a->units[at], (a->nunits - at) * sizeof *a->units);
  a->units[at] = u;
  a->nunits++;
}

static tidal_status new_unit(rt_alloc *a, size_t at, size_t lo, size_t hi) {
  rt_unit *u = calloc(1, sizeof *u);
  if (!u || !reserve_units(a)) {
    free(u);
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory for a unit");
  }
  u->c.alloc = a;
  u->c.unit = 1;
  u->c.host_slot = -1;
  u->c.state = RT_UNMAPPED;
  u->lo = lo;
  u->hi = hi;
  insert_unit(a, at, u);
  return TIDAL_OK;
}

static void list_insert_after(rt_list *l, rt_chunk *at, rt_chunk *c) {
  c->prev = at;
  c->next = at->next;
  if (at->next)
    at->next->prev = c;
  else
    l->tail = c;
  at->next = c;
  l->n++;
  c->list = at->list;
}

static rt_list *list_of(rt_chunk *c) {
  return c->list == RT_LIST_PARKED ? &rt_mem.parked : rt_list_of(c);
}

/* Unit i of a (not pinned) becomes [lo, at) and [at, hi), with no copy:
 * its block and its host copy split where its bytes split. */
static tidal_status split_unit(rt_alloc *a, size_t i, size_t at) {
  rt_unit *u = a->units[i];
  rt_chunk *c = &u->c;
  tidal_status st = rt_chunk_settle(c); /* no copy in flight over the cut */
  if (st != TIDAL_OK)
    return st;
  if ((st = rt_unit_follow_restore(c)) != TIDAL_OK) /* the op at hand's stream waits, as */
    return st;                                       /* a restore would */
  if (c->host_ev_pending) { /* a restore may still read the host copy */
    rt_dev_event_sync(&c->host_ev, NULL);
    rt_dev_event_release(&c->host_ev);
    c->host_ev_pending = 0;
  }
  int has_block = rt_chunk_mapped(c) || c->parked;
  rt_unit *r = calloc(1, sizeof *r);
  if (!r || !reserve_units(a) || (has_block && !rt_span_reserve(&rt_mem.dpool, 1)) ||
      (c->host_slot >= 0 && !rt_span_reserve(&rt_mem.uhost, 1))) {
    free(r);
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory splitting a unit");
  }
  size_t cut = at - u->lo;
  r->c.alloc = a;
  r->c.unit = 1;
  r->c.state = c->state;
  r->c.writer = c->writer;
  r->c.keep_iter = c->keep_iter;
  r->c.last_op = c->last_op;
  r->c.park_mark = c->park_mark;
  r->c.parked = c->parked;
  r->c.ticket = c->ticket;
  r->c.host_slot = -1;
  r->c.in_place = c->in_place;
  r->c.rc = c->rc; /* the closure regenerates both halves (recompute.c) */
  if (c->rc)
    c->rc->refs++;
  r->lo = at;
  r->hi = u->hi;
  r->mark = u->mark;
  u->hi = at;
  if (has_block) {
    r->block = u->block + cut;
    rt_span_split(&rt_mem.dpool, u->block, cut, r);
  }
  if (c->host_slot >= 0) {
    r->c.host_slot = c->host_slot + (int64_t)cut;
    rt_span_split(&rt_mem.uhost, (size_t)c->host_slot, cut, r);
  }
  if (c->list != RT_LIST_NONE) {
    list_insert_after(list_of(c), c, &r->c);
    if (c->list == RT_LIST_PARKED)
      rt_mem.parked_units++;
  }
  c->hint_lo = c->hint_hi = 0;
  insert_unit(a, i + 1, r);
  return rt_pace_split(u, r);
}

/* Splits the unit that off falls strictly inside, if nothing pins it (a
 * pinned unit stays whole: the access then covers more of it). */
static tidal_status cut_at(rt_alloc *a, size_t off) {
  size_t i = first_above(a, off);
  if (i >= a->nunits || a->units[i]->lo >= off || a->units[i]->c.pins)
    return TIDAL_OK;
  return split_unit(a, i, off);
}

tidal_status rt_units_declare(rt_alloc *a, size_t off, size_t len, int mode, uint64_t stamp) {
  size_t end = off + len;
  tidal_status st;
  if ((st = cut_at(a, off)) != TIDAL_OK || (st = cut_at(a, end)) != TIDAL_OK)
    return st;
  /* new units over the gaps */
  size_t i = first_above(a, off), at = off;
  while (at < end) {
    if (i < a->nunits && a->units[i]->lo <= at) {
      at = a->units[i]->hi;
      i++;
      continue;
    }
    size_t next = i < a->nunits && a->units[i]->lo < end ? a->units[i]->lo : end;
    if ((st = new_unit(a, i, at, next)) != TIDAL_OK)
      return st;
    at = next;
    i++;
  }
  size_t first, last;
  rt_units_range(a, off, len, &first, &last);
  for (size_t k = first; k < last; k++) {
    rt_unit *u = a->units[k];
    uint32_t flags = 0;
    if ((mode & TIDAL_READ) || u->lo < off || u->hi > end)
      flags |= RT_PIN_NEED_DATA; /* a write over part of it keeps the rest */
    if (mode & TIDAL_WRITE)
      flags |= RT_PIN_WRITTEN;
    rt_pace_use(u, stamp);
    if ((st = rt_frame_pin(&u->c, stamp, flags)) != TIDAL_OK)
      return st;
  }
  return TIDAL_OK;
}

/* ---- gathering (Note [units]) ---- */

typedef struct grange {
  rt_alloc *a;
  size_t lo, hi;
} grange;

static int grange_cmp(const void *x, const void *y) {
  const grange *p = x, *q = y;
  /* Note [gather order]: by when the allocations were made, newest first -
   * not by where malloc put their records, nor by their stable addresses:
   * the sim reserves those with mmap, and Linux aligns an anonymous mapping
   * of 2 MiB or more to 2 MiB while smaller ones fill the padding, whose
   * size depends on where the randomised mmap base lies, so two
   * reservations' order can change from run to run.  Newest first is the
   * order the stable addresses gave wherever mmap worked downwards, as in
   * every replay measured so far: their figures stay (the gpt variant at
   * 50%, llm.c at 124M); the opposite order is as sound and models llm.c
   * at 50% 5% slower, the gpt variant 0.3% faster (hints).  Which order is
   * better is not known. */
  if (p->a != q->a)
    return p->a->seq > q->a->seq ? -1 : 1;
  return p->lo < q->lo ? -1 : p->lo > q->lo;
}

/* Whether u's bytes must travel when it moves: always, but for a block
 * mapped fresh for a write-only access of this op (garbage; Note
 * [write-only restore]).  A write-only access to a unit that was resident
 * still carries its bytes: if the op's begin fails later, they are kept. */
static int carries_data(const rt_unit *u, uint64_t stamp) {
  (void)stamp;
  const rt_chunk *c = &u->c;
  return !c->fresh_from || (c->fresh_from & RT_FRESH_OWN);
}


/* Note [gathered runs]: units that already lie next to each other, in
 * order, carrying data written on one stream, travel in one
 * device-to-device copy rather than one each (a copy's fixed cost, about
 * 8 us on the H200, was most of what gathers cost the gpt variant at 50%:
 * 487 units a step).  The number of units from u[0] that form such a run
 * (0 when u[0] carries no data). */
static size_t same_run(rt_unit **u, size_t n, uint64_t stamp) {
  if (!carries_data(u[0], stamp))
    return 0;
  size_t k = 1;
  while (k < n && carries_data(u[k], stamp) && u[k]->c.writer == u[0]->c.writer &&
         u[k - 1]->block + (u[k - 1]->hi - u[k - 1]->lo) == u[k]->block)
    k++;
  return k;
}

/* Moves the run u[0..n) to pool offset `to` in one copy (same_run). */
static tidal_status move_run(rt_unit **u, size_t n, size_t to, int *copied) {
  size_t len = u[n - 1]->block + (u[n - 1]->hi - u[n - 1]->lo) - u[0]->block;
  tidal_status st = rt_copy_d2d(rt_mem.dpool_base + to, rt_mem.dpool_base + u[0]->block, len,
                                rt_mem.stream, u[0]->c.writer);
  if (st != TIDAL_OK)
    return st;
  RT_COUNT(d2d_bytes, len);
  *copied = 1;
  for (size_t k = 0; k < n; k++)
    u[k]->c.writer = rt_mem.stream;
  return TIDAL_OK;
}

/* Moves u to pool offset `to` (already taken for it): a device-to-device
 * copy on the op's stream when it carries data.  Its old block goes back
 * once the caller has a mark after the copies (*olds). */
static tidal_status move_unit(rt_unit *u, size_t to, uint64_t stamp, int *copied) {
  if (carries_data(u, stamp))
    return move_run(&u, 1, to, copied);
  u->c.writer = rt_mem.stream;
  return TIDAL_OK;
}

/* Gives back the old blocks of moved units, after a mark covering the copies. */
static tidal_status release_old(const size_t *olds, const size_t *lens, size_t n, int copied) {
  uint64_t m = 0;
  tidal_status st = TIDAL_OK;
  if (copied)
    st = rt_dev.be->mark(rt_dev.b, rt_mem.stream, &m);
  for (size_t k = 0; k < n; k++) {
    rt_span_free(&rt_mem.dpool, olds[k]);
    rt_pool_freed(olds[k], lens[k], m);
  }
  return st;
}

/* Evicts unpinned unit v out of the pool (anchored gathers): 1 if its
 * block is free now. */
static int vacate(rt_unit *v) {
  rt_chunk *c = &v->c;
  if (c->pins)
    return 0;
  if (!c->parked && rt_chunk_swap_out(c, RT_SWAP_SYNC | RT_SWAP_COPY) != TIDAL_OK)
    return 0;
  if (c->parked && rt_parked_give(c) != TIDAL_OK)
    return 0;
  return !rt_chunk_mapped(c) && !c->parked;
}

static tidal_status gather_range(rt_alloc *a, size_t lo, size_t hi, uint64_t stamp) {
  size_t i0, i1;
  rt_units_range(a, lo, hi - lo, &i0, &i1);
  if (i1 - i0 < 2)
    return TIDAL_OK;
  rt_unit **u = &a->units[i0];
  size_t n = i1 - i0, base = u[0]->lo, S = u[n - 1]->hi - base;
  int contiguous = 1;
  rt_unit *anchor = NULL;
  for (size_t k = 0; k < n; k++) {
    if (k + 1 < n && u[k]->block + (u[k]->hi - u[k]->lo) != u[k + 1]->block)
      contiguous = 0;
    if (u[k]->c.fixed && !anchor)
      anchor = u[k];
  }
  if (contiguous)
    return TIDAL_OK;
  size_t *olds = malloc(2 * n * sizeof *olds);
  if (!olds)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory for a gather");
  size_t *lens = olds + n, nold = 0;
  tidal_status st = TIDAL_OK;
  int copied = 0;
  if (!anchor) {
    size_t T;
    if ((st = rt_pool_place(S, base, u[0], 1, "gather", &T)) != TIDAL_OK)
      goto out;
    uint64_t m = rt_pool_mark(T, S);
    for (size_t k = 0, run; k < n && st == TIDAL_OK; k += run) {
      run = same_run(u + k, n - k, stamp);
      st = run ? move_run(u + k, run, T + (u[k]->lo - base), &copied)
               : move_unit(u[k], T + (u[k]->lo - base), stamp, &copied);
      run = run ? run : 1;
    }
    if (st != TIDAL_OK) { /* the units keep their blocks; the span goes back */
      rt_span_free(&rt_mem.dpool, T);
      copied = 0;
      goto out;
    }
    /* the span becomes one block per unit */
    for (size_t k = 0; k < n; k++) {
      olds[nold] = u[k]->block;
      lens[nold++] = u[k]->hi - u[k]->lo;
      u[k]->block = T + (u[k]->lo - base);
      u[k]->mark = m;
      if (k + 1 < n)
        rt_span_split(&rt_mem.dpool, u[k]->block, u[k]->hi - u[k]->lo, u[k + 1]);
    }
  } else {
    if (anchor->block < anchor->lo - base) {
      st = rt_error(TIDAL_ERR_UNSUPPORTED, "tidal_op_begin: a gather around a unit in use by an "
                                           "open op would start before the device pool");
      goto out;
    }
    size_t T = anchor->block - (anchor->lo - base);
    for (size_t k = 0; k < n && st == TIDAL_OK; k++) {
      size_t want = T + (u[k]->lo - base), len = u[k]->hi - u[k]->lo;
      if (u[k]->block == want)
        continue;
      if (u[k]->c.fixed) {
        st = rt_error(TIDAL_ERR_UNSUPPORTED,
                      "tidal_op_begin: an access spans units that open ops use at places "
                      "that are not contiguous (ops nested by hand: docs/limitations.md)");
        break;
      }
      /* what lies in the way goes, if nothing pins it */
      for (int tries = 0; !rt_span_is_free(&rt_mem.dpool, want, len) && tries < 64; tries++) {
        size_t f, e;
        rt_span_overlapping(&rt_mem.dpool, want, len, &f, &e);
        rt_unit *v = f < e ? rt_mem.dpool.blk[f].owner : NULL;
        if (!v || !vacate(v))
          break;
      }
      if (!rt_span_is_free(&rt_mem.dpool, want, len) && want + len > rt_mem.dpool_mapped &&
          !rt_pool_grow(want + len - rt_mem.dpool_mapped, 0) &&
          rt_pool_grow(want + len - rt_mem.dpool_mapped, 1))
        RT_COUNT(physical_overruns, 1); /* given back after the op (Note [physical bound]) */
      if (!rt_span_take(&rt_mem.dpool, want, len, u[k])) {
        st = rt_error(TIDAL_ERR_UNSUPPORTED,
                      "tidal_op_begin: an access spans units of which one is in use by an open "
                      "op, and the bytes next to it are held by the op's own units (ops nested "
                      "by hand: docs/limitations.md)");
        break;
      }
      olds[nold] = u[k]->block;
      lens[nold++] = len;
      uint64_t m = rt_pool_mark(want, len);
      if ((st = move_unit(u[k], want, stamp, &copied)) != TIDAL_OK) {
        nold--;
        rt_span_free(&rt_mem.dpool, want);
        break;
      }
      u[k]->block = want;
      u[k]->mark = m;
    }
  }
  if (nold || copied) {
    tidal_status s2 = release_old(olds, lens, nold, copied);
    if (st == TIDAL_OK)
      st = s2;
    RT_COUNT(gathers, 1);
    if (RT_TRACING())
      rt_trace("gather", "\"ptr\":\"%#lx\",\"bytes\":%zu,\"units\":%zu",
               (unsigned long)(a->base + base), S, n);
  }
out:
  free(olds);
  return st;
}

/* Note [placed in advance]: when none of a group's units has a block
 * (all on the host, dropped or new), its span is placed before the restores
 * and each unit is restored straight into its place: no gather, no copy
 * twice.  The span counts against the budget at once (the units will be
 * resident); rt_unit_bind adopts a unit's place (`placed`), and a begin that
 * fails gives back the places not taken (rt_units_unplace). */
static tidal_status place_range(rt_alloc *a, size_t lo, size_t hi) {
  size_t i0, i1;
  rt_units_range(a, lo, hi - lo, &i0, &i1);
  if (i1 - i0 < 2)
    return TIDAL_OK;
  rt_unit **u = &a->units[i0];
  size_t n = i1 - i0, base = u[0]->lo, S = u[n - 1]->hi - base, T;
  for (size_t k = 0; k < n; k++)
    if (rt_chunk_mapped(&u[k]->c) || u[k]->c.parked || u[k]->placed)
      return TIDAL_OK; /* a block somewhere already: the gather decides */
  tidal_status st = rt_pool_place(S, base, u[0], 0, "op_begin", &T);
  if (st != TIDAL_OK) {
    rt_clear_error(); /* the units are placed one by one instead */
    return TIDAL_OK;
  }
  uint64_t m = rt_pool_mark(T, S);
  for (size_t k = 0; k < n; k++) {
    u[k]->block = T + (u[k]->lo - base);
    u[k]->mark = m;
    u[k]->placed = 1;
    if (k + 1 < n)
      rt_span_split(&rt_mem.dpool, u[k]->block, u[k]->hi - u[k]->lo, u[k + 1]);
  }
  rt_mem.unit_resident += S;
  rt_note_resident();
  return TIDAL_OK;
}

void rt_units_unplace(size_t pin_start, size_t pin_end) {
  for (size_t i = pin_start; i < pin_end; i++) {
    rt_chunk *c = rt_mem.pinned[i].c;
    if (!c->unit || !rt_unit_of(c)->placed)
      continue;
    rt_unit *u = rt_unit_of(c);
    u->placed = 0;
    rt_span_free(&rt_mem.dpool, u->block);
    rt_mem.unit_resident -= u->hi - u->lo;
  }
}

tidal_status rt_units_gather(rt_alloc **as, const size_t *offs, const size_t *lens, int n,
                             uint64_t stamp, int place) {
  grange local[16], *g = n <= 16 ? local : malloc((size_t)n * sizeof *g);
  if (!g)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory for a gather");
  int m = 0;
  for (int i = 0; i < n; i++)
    if (as[i] && lens[i])
      g[m++] = (grange){as[i], offs[i], offs[i] + lens[i]};
  qsort(g, (size_t)m, sizeof *g, grange_cmp);
  tidal_status st = TIDAL_OK;
  /* A gather that had to move this op's own units (a compaction at the
   * bound: Note [physical bound], devpool.c) may have taken apart a group
   * gathered before it: the groups are gathered again until none moved. */
  for (int round = 0;; round++) {
    uint64_t squeezes = rt_mem.squeezes;
    for (int i = 0; i < m && st == TIDAL_OK;) {
      grange cur = g[i++];
      while (i < m && g[i].a == cur.a && g[i].lo < cur.hi) { /* overlapping: one span */
        if (g[i].hi > cur.hi)
          cur.hi = g[i].hi;
        i++;
      }
      st = place ? place_range(cur.a, cur.lo, cur.hi) : gather_range(cur.a, cur.lo, cur.hi, stamp);
    }
    if (place || st != TIDAL_OK || rt_mem.squeezes == squeezes)
      break;
    if (round == 3) {
      st = rt_error(TIDAL_ERR_BUDGET, "tidal_op_begin: the op's relocatable accesses could not be "
                                      "made contiguous within the budget's device memory");
      break;
    }
  }
  if (g != local)
    free(g);
  return st;
}

/* ---- tidal_at ---- */

/* Note [guard ranges]: a pointer one past the end of an allocation is often
 * the start of the next reservation, and tidal_at must not mistake the end
 * of an access to one allocation for the start of another (or the other way
 * round: a home allocation's end for a relocated tensor's start).  So a
 * relocatable allocation's range has a chunk reserved and never used on
 * each side: one past its end lies in its own guard, and no allocation ends
 * where it begins.  Address space only. */

/* The unit of relocatable a holding byte off, if an open op pinned it and
 * it is in the pool. */
static rt_unit *pinned_unit(const rt_alloc *a, size_t off) {
  size_t i = first_above(a, off);
  if (i >= a->nunits || a->units[i]->lo > off)
    return NULL;
  rt_unit *u = a->units[i];
  return u->c.pins && rt_chunk_mapped(&u->c) ? u : NULL;
}

void *rt_units_at(uintptr_t p, int *undeclared) {
  *undeclared = 0;
  rt_alloc *a = rt_registry_find(p);
  if (a && !a->reloc)
    return (void *)p; /* home memory: the common case (Note [guard ranges]) */
  if (a && a->reloc) {
    rt_unit *u = pinned_unit(a, p - a->base);
    if (u)
      return (void *)(rt_unit_dev(&u->c) + (p - a->base - u->lo));
  }
  /* one past the end of a declared access (its allocation's end, or a unit's) */
  rt_alloc *b = p ? rt_registry_find(p - 1) : NULL;
  if (b && b->reloc) {
    rt_unit *u = pinned_unit(b, p - 1 - b->base);
    if (u)
      return (void *)(rt_unit_dev(&u->c) + (p - b->base - u->lo));
  }
  if (a && a->reloc)
    *undeclared = 1;
  return (void *)p;
}

/* ---- lifetime ---- */

int rt_units_busy(const rt_alloc *a) {
  for (size_t i = 0; i < a->nunits; i++)
    if (a->units[i]->c.pins)
      return 1;
  return 0;
}

tidal_status rt_units_release(rt_alloc *a) {
  tidal_status st = TIDAL_OK;
  for (size_t i = 0; i < a->nunits; i++) {
    tidal_status s2 = rt_chunk_release(&a->units[i]->c);
    if (st == TIDAL_OK)
      st = s2;
    rt_pace_forget(a->units[i]);
    free(a->units[i]);
  }
  free(a->units);
  a->units = NULL;
  a->nunits = a->cap_units = 0;
  rt_note_resident();
  return st;
}

int rt_units_check(char *msg, size_t len) {
  size_t held = 0, resident = 0, hosted = 0;
  for (size_t i = 0; i < rt_mem.nallocs; i++) {
    const rt_alloc *a = rt_mem.allocs[i];
    for (size_t k = 0; k < a->nunits; k++) {
      const rt_unit *u = a->units[k];
      if (k && a->units[k - 1]->hi > u->lo) {
        snprintf(msg, len, "units of %#lx overlap at %zu", (unsigned long)a->base, u->lo);
        return -1;
      }
      if (rt_chunk_mapped(&u->c) || u->c.parked) {
        rt_span_blk *b = rt_span_find(&rt_mem.dpool, u->block);
        if (!b || b->owner != u || b->len != u->hi - u->lo) {
          snprintf(msg, len, "unit [%zu, %zu) of %#lx: pool block at %zu is not its own", u->lo,
                   u->hi, (unsigned long)a->base, u->block);
          return -1;
        }
        held += b->len;
        if (!u->c.parked)
          resident += b->len;
      }
      if (u->c.host_slot >= 0) {
        rt_span_blk *b = rt_span_find(&rt_mem.uhost, (size_t)u->c.host_slot);
        if (!b || b->owner != u || b->len != u->hi - u->lo) {
          snprintf(msg, len, "unit [%zu, %zu) of %#lx: host copy is not its own", u->lo, u->hi,
                   (unsigned long)a->base);
          return -1;
        }
        hosted += b->len;
      }
    }
  }
  hosted += rt_mem.uhost_pend_bytes; /* given up, a restore may still read them */
  hosted += (rt_mem.hs.used + rt_mem.hs.ncache) * rt_mem.hs.slot_bytes; /* chunks' slots, kept
                                                                           ones too: one store */
  if (held != rt_mem.dpool.used || resident != rt_mem.unit_resident ||
      hosted != rt_mem.uhost.used) {
    snprintf(msg, len,
             "units hold %zu pool bytes (%zu resident) and %zu host bytes with the chunks' "
             "slots; the pool says %zu (%zu resident), the host store %zu",
             held, resident, hosted, rt_mem.dpool.used, rt_mem.unit_resident, rt_mem.uhost.used);
    return -1;
  }
  return 0;
}

/* ---- tidal_home ---- */

/* Note [going home]: a's stable range becomes chunked, as if it had never
 * been relocatable: every chunk a unit with data overlaps is mapped (fresh:
 * bytes no unit covers were never written), each unit's bytes are copied to
 * its stable address (device to device from its block, else host to device
 * from its host copy), and the units go.  The units keep their data until
 * the copies are done, so a failure (no room for the chunks) leaves a
 * relocated as it was. */
static int has_data(const rt_unit *u) {
  const rt_chunk *c = &u->c;
  return rt_chunk_mapped(c) || (c->parked && c->state != RT_DROPPED) || c->host_slot >= 0;
}

/* Bytes that only a recompute closure holds are regenerated (its op writes
 * them into the units), and every unit gives its closure up: while the
 * home chunks are restored, an evicted unit is then copied out, not
 * dropped, so none of its bytes is in a closure alone when it is copied
 * home.  Bounded: closures that keep evicting each other's output are
 * TIDAL_ERR_BUDGET (nothing is lost: the units keep their closures). */
static tidal_status home_recomputed(rt_alloc *a) {
  size_t runs = 0;
  for (size_t i = 0; i < a->nunits; i++) {
    rt_chunk *c = &a->units[i]->c;
    if (c->state != RT_RECOMPUTABLE || !c->rc)
      continue;
    if (runs++ > 2 * a->nunits + 8)
      return rt_error(TIDAL_ERR_BUDGET, "tidal_home: the allocation's recompute closures evict "
                                        "each other's output within the budget");
    tidal_status st = rt_recompute_run(c);
    if (st != TIDAL_OK)
      return st;
    i = (size_t)-1; /* again from the start: the closure may have split or evicted units */
  }
  for (size_t i = 0; i < a->nunits; i++)
    if (a->units[i]->c.state != RT_RECOMPUTABLE)
      rt_recompute_detach(&a->units[i]->c);
  return TIDAL_OK;
}

tidal_status rt_units_home(rt_alloc *a) {
  size_t cb = rt_mem.chunk_bytes;
  uint32_t n = (uint32_t)(a->reserved / cb);
  tidal_status st = home_recomputed(a);
  for (size_t i = 0; i < a->nunits && st == TIDAL_OK; i++)
    st = rt_chunk_settle(&a->units[i]->c); /* no copy in flight */
  if (st != TIDAL_OK)
    return st;
  a->chunks = calloc(n, sizeof *a->chunks);
  if (!a->chunks)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_home: out of host memory");
  a->nchunks = n;
  rt_chunks_init(a, n);
  /* map the chunks the data needs, pinned so that none evicts another */
  uint32_t mapped = 0;
  for (uint32_t k = 0; k < n && st == TIDAL_OK; k++) {
    size_t first, end;
    rt_units_range(a, (size_t)k * cb, cb, &first, &end);
    int need = 0;
    for (size_t i = first; i < end; i++)
      need |= has_data(a->units[i]);
    if (!need)
      continue;
    rt_pin(&a->chunks[k]);
    mapped = k + 1;
    st = rt_chunk_restore(&a->chunks[k], 0);
    a->chunks[k].fresh_from = 0;
  }
  if (st == TIDAL_OK)
    st = rt_access_flush();
  if (st == TIDAL_OK)
    st = rt_vmmq_drain(); /* the maps have run before the copies */
  int copied = 0;
  for (size_t i = 0; i < a->nunits && st == TIDAL_OK; i++) {
    rt_unit *u = a->units[i];
    rt_chunk *c = &u->c;
    size_t len = u->hi - u->lo;
    uintptr_t to = a->base + u->lo;
    if (rt_chunk_mapped(c) || (c->parked && c->state != RT_DROPPED)) {
      st = rt_copy_d2d(to, rt_unit_dev(c), len, rt_mem.stream, c->writer);
      RT_COUNT(d2d_bytes, len);
      copied = 1;
    } else if (c->host_slot >= 0) {
      rt_event ev = {0, 0, NULL, 0};
      rt_ticket t = {0, 0};
      double waited = 0;
      st = rt_dev_copy_h2d(to, rt_uhost_addr(c->host_slot), len, RT_PHYS_NONE, 1, 0, &ev, &t);
      if (st == TIDAL_OK)
        st = rt_dev_stream_wait(rt_mem.stream, &ev, &waited);
      if (st == TIDAL_OK)
        st = rt_dev_event_sync(&ev, &waited); /* the host copy is freed next */
      rt_dev_event_release(&ev);
      RT_COUNT(relocated_bytes, len);
    }
  }
  uint64_t m = 0;
  if (st == TIDAL_OK && copied)
    st = rt_dev.be->mark(rt_dev.b, rt_mem.stream, &m); /* the blocks' last use: the copies */
  if (st != TIDAL_OK) { /* back as it was: the units still hold everything */
    for (uint32_t k = 0; k < mapped; k++) {
      if (a->chunks[k].pins)
        rt_unpin(&a->chunks[k]);
      rt_chunk_release(&a->chunks[k]);
    }
    rt_vmmq_drain();
    free(a->chunks);
    a->chunks = NULL;
    a->nchunks = 0;
    return st;
  }
  for (uint32_t k = 0; k < mapped; k++) {
    rt_chunk *c = &a->chunks[k];
    if (!c->pins)
      continue;
    c->state = RT_DIRTY; /* its only copy is on the device */
    c->writer = rt_mem.stream;
    rt_unpin(c);
  }
  for (size_t i = 0; i < a->nunits; i++)
    if (a->units[i]->mark < m)
      a->units[i]->mark = m;
  st = rt_units_release(a);
  a->reloc = 0;
  rt_mem.nreloc--;
  rt_note_resident();
  return st;
}

