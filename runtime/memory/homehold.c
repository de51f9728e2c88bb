/* homehold.c - what tidal_home makes resident: every chunk of an
 * allocation sent home, pinned while the code the pass does not instrument
 * may use it (Note [home residency]).
 *
 * Inside an open op the pins join the innermost op's frame (rt_frame_pin,
 * pinned[pin_end ..)) and go with it at tidal_op_end.  Outside any op they
 * are the holds, a list beside the op stack (rt_mem.held, one pin per
 * entry, each chunk once per hold period: c->op_stamp == rt_mem.home_stamp),
 * let go of at the next tidal_op_begin, tidal_free or tidal_shutdown. */
#include <stdlib.h>
#include "memory/memory.h"

/* Note [home residency]
 * An allocation sent home (tidal_home) is reached by code the pass does not
 * instrument: a call through an unknown function pointer, the fields of a
 * struct argument, the elements of an array inside a struct, a struct
 * parameter in cudaLaunchKernel's argument array.  No access declares those
 * pointers (an op access must name tidal memory, and a struct may hold
 * memory tidal does not manage: TIDAL_ERR_UNKNOWN_POINTER), so no
 * tidal_op_begin restores what the runtime evicted of them, and the code
 * would read an unmapped chunk: SIGSEGV on the sim, CUresult 700 on a card.
 * So tidal_home(p) also makes p's whole allocation resident - it cannot
 * know which bytes the code reads - by the path a fault takes
 * (rt_chunk_restore: a copy in or the recompute closure, and the stream
 * waits for it), and pins its chunks:
 *  - outside any op (the pass's tidal_home before an escaping call), until
 *    the next tidal_op_begin: pinning all the homes first is what makes
 *    `tidal_home(a); tidal_home(b); call(a, b)` safe (restoring b cannot
 *    evict a), and by the next op the call is enqueued;
 *  - inside an open op (the pass's tidal_home after TIDAL_OP_BEGIN for the
 *    pointers a kernel reads out of a struct or an argument array), until
 *    that op's tidal_op_end, as if the op had declared them: the kernel is
 *    launched after.  The pass also sends them home before the op begins
 *    (a relocatable allocation must be home before the op declares any of
 *    it; sitehomes.c), and a tidal_home outside the op is let go of by its
 *    begin, so each allocation is restored and pinned once for the op.
 * The chunks count as written (the code may store into them): their host
 * copy goes and no closure regenerates them, so an eviction copies out what
 * the code wrote instead of dropping it, and the holds count as an op that
 * ended when they are let go of (last_op, Note [last-use marks]).
 * Eviction after that is safe because every swap-out copy is ordered after
 * the chunk's writer stream: the cuda backend records an event on it and
 * makes the copy stream wait (cuda_copy_d2h); with the VMM worker
 * (TIDAL_VMM_THREAD) the worker records that event when it runs the
 * command, after the program enqueued the call, so it covers more, not
 * less; the sim runs a kernel on the host when it is launched.  An unmap
 * waits for that copy, or for the mark taken on last_stream.  This assumes
 * what every op assumes: the code runs on the stream ops are enqueued on
 * (tidal_stream_set).
 * Where the allocation cannot be resident - alone, or beside what is
 * pinned already - tidal_home is TIDAL_ERR_BUDGET (api.c): the code would
 * read evicted memory, so the program stops there rather than fault later.
 * Memory tidal does not manage and NULL stay no-ops. */

/* The chunk range of allocation a's bytes: its own chunks, its arena's, or
 * its slab's one. */
static void chunks_of(rt_alloc *a, rt_chunk **first, uint32_t *n) {
  if (a->slab) {
    *first = &a->slab->chunk;
    *n = 1;
    return;
  }
  size_t off = 0, len = a->bytes;
  if (a->arena)
    rt_arena_range(&a, &off, &len, 0);
  size_t cb = rt_mem.chunk_bytes;
  if (len == 0 || a->nchunks == 0) {
    *first = NULL;
    *n = 0;
    return;
  }
  size_t c0 = off / cb, c1 = (off + len - 1) / cb;
  *first = &a->chunks[c0];
  *n = (uint32_t)(c1 - c0 + 1);
}

static int held(const rt_chunk *c) { return rt_mem.nheld && c->op_stamp == rt_mem.home_stamp; }

/* Pinned by this call's target already: the innermost op, or the holds. */
static int pinned_here(const rt_chunk *c) {
  return rt_mem.depth ? c->op_stamp == rt_mem.frames[rt_mem.depth - 1].stamp : held(c);
}

size_t rt_home_pinned_bytes(size_t *unit_bytes) {
  size_t chunks = rt_mem.nheld;
  *unit_bytes = 0;
  for (size_t i = 0; i < rt_mem.npinned; i++) {
    const rt_chunk *c = rt_mem.pinned[i].c;
    if (c->unit)
      *unit_bytes += rt_chunk_len(c); /* exact bytes (Note [units]) */
    else
      chunks++;
  }
  return chunks * rt_mem.chunk_bytes;
}

size_t rt_home_need_bytes(rt_alloc *a) {
  rt_chunk *c;
  uint32_t n;
  chunks_of(a, &c, &n);
  size_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    k += !pinned_here(&c[i]);
  return k * rt_mem.chunk_bytes;
}

/* Written, as far as the runtime knows (the uninstrumented code may store
 * into it): an eviction copies it out instead of dropping it for its host
 * copy, and no closure regenerates it. */
static void mark_written(rt_chunk *c) {
  if (!rt_chunk_mapped(c))
    return;
  if (c->rc && !c->rc->running)
    rt_recompute_detach(c);
  if (c->host_slot >= 0)
    rt_chunk_free_host(c);
  c->state = RT_DIRTY;
  c->writer = rt_mem.stream;
}

static tidal_status reserve_holds(size_t more) {
  if (rt_mem.nheld + more <= rt_mem.cap_held)
    return TIDAL_OK;
  size_t cap = rt_mem.cap_held ? rt_mem.cap_held : 16;
  while (cap < rt_mem.nheld + more)
    cap *= 2;
  rt_chunk **h = realloc(rt_mem.held, cap * sizeof *h);
  if (!h)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_home: out of host memory");
  rt_mem.held = h;
  rt_mem.cap_held = cap;
  return TIDAL_OK;
}

/* The chunks this call pinned: pinned[from, npinned) inside an op, else
 * held[from, nheld). */
static rt_chunk *entry(int in_op, size_t i) { return in_op ? rt_mem.pinned[i].c : rt_mem.held[i]; }

tidal_status rt_home_hold(rt_alloc *a) {
  rt_chunk *c;
  uint32_t n;
  chunks_of(a, &c, &n);
  int in_op = rt_mem.depth > 0;
  tidal_status st = TIDAL_OK;
  if (!in_op) {
    if (!rt_mem.nheld)
      rt_mem.home_stamp = ++rt_mem.op_stamp; /* a new hold period */
    if ((st = reserve_holds(n)) != TIDAL_OK)
      return st;
  }
  /* Pin all before restoring any, as an op does: one restore cannot evict
   * another (or an earlier tidal_home's). */
  size_t from = in_op ? rt_mem.npinned : rt_mem.nheld;
  uint64_t stamp = in_op ? rt_mem.frames[rt_mem.depth - 1].stamp : rt_mem.home_stamp;
  for (uint32_t i = 0; i < n && st == TIDAL_OK; i++) {
    if (pinned_here(&c[i]))
      continue;
    if (in_op) {
      st = rt_frame_pin(&c[i], stamp, RT_PIN_NEED_DATA | RT_PIN_WRITTEN);
    } else {
      c[i].op_stamp = stamp;
      rt_mem.held[rt_mem.nheld++] = &c[i];
      rt_pin(&c[i]);
    }
  }
  if (a->slab)
    a->idle = 0; /* in use again: earlier hints on it are moot */
  /* Restores may run recompute closures, whose ops push frames above and
   * pop them (the entries stay where they are) and must not let go of the
   * holds (rt_home_release). */
  size_t to = in_op ? rt_mem.npinned : rt_mem.nheld;
  rt_mem.homing++;
  for (size_t i = from; i < to && st == TIDAL_OK; i++)
    st = rt_chunk_restore(entry(in_op, i), 1);
  rt_mem.homing--;
  if (st == TIDAL_OK)
    st = rt_access_flush();
  if (st == TIDAL_OK && rt_vmmq_on()) { /* the call touches them once the worker has mapped them */
    rt_ticket last = {0, 0};
    for (size_t i = from; i < to; i++)
      if (entry(in_op, i)->ticket.seq > last.seq)
        last = entry(in_op, i)->ticket;
    st = rt_vmmq_wait(&last);
  }
  if (st != TIDAL_OK) { /* this call's chunks as they were; earlier pins stay */
    for (size_t i = from; i < to; i++) {
      rt_chunk *e = entry(in_op, i);
      rt_chunk_unrestore(e);
      e->op_stamp = 0;
      rt_unpin(e);
    }
    if (in_op)
      rt_mem.npinned = from;
    else
      rt_mem.nheld = from;
    return st;
  }
  for (size_t i = from; i < to; i++) {
    rt_chunk *e = entry(in_op, i);
    e->fresh_from = 0; /* mapped fresh: keeps its mapping */
    if (in_op)
      mark_written(e); /* the op's kernel runs next; a hold is marked when let go */
  }
  return TIDAL_OK;
}

void rt_home_release(void) {
  if (!rt_mem.nheld || rt_mem.homing)
    return;
  uint64_t n = ++rt_mem.ops_ended; /* as if an op had used them: its mark covers the call */
  rt_mem.last_stream = rt_mem.stream;
  for (size_t i = 0; i < rt_mem.nheld; i++) {
    rt_chunk *c = rt_mem.held[i];
    c->last_op = n;
    mark_written(c);
    rt_unpin(c);
  }
  rt_mem.nheld = 0;
}

void rt_home_destroy(void) {
  free(rt_mem.held);
  rt_mem.held = NULL;
  rt_mem.nheld = rt_mem.cap_held = 0;
}
