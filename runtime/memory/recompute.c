/* recompute.c - recompute closures: registration, expiry and re-running.
 *
 * A registration owns a private copy of the caller's ctx; each run gets a
 * fresh copy of that copy, so a closure that scribbles on its ctx cannot
 * change later runs.  Only chunks wholly inside the registered range are
 * attached (the closure rewrites exactly that range; a chunk shared with a
 * neighbour would lose the neighbour's bytes).
 *
 * Note [recompute re-entrancy]: a closure calls tidal_op_begin itself, from
 * inside the tidal_op_begin that needed its output.  The outer op's chunks
 * are pinned before any restore starts, and pins are counts, so the nested
 * op can neither evict them nor unpin them; its own inputs are restored
 * recursively the same way, up to RT_RECOMPUTE_DEPTH_MAX deep.  A closure
 * that needs its own output (a cycle) is TIDAL_ERR_RECOMPUTE.
 *
 * Note [self-reading closures]: a closure re-runs the op that produced its
 * range.  When that op also needed the range's data - it read it (an
 * update in place, or a read-only and a write-only argument given the same
 * buffer: llm.c's `gelu_backward(dl_bt4c, l_fch, dl_bt4c, N)`), or it
 * wrote part of a chunk and kept the rest - the data it read is gone once
 * it has run: a re-run would compute from its own output, and once the
 * range is dropped it needs that output, a cycle, with the data lost.  The
 * runtime cannot see inside a closure, but it knows how each chunk was
 * last written (rt_chunk.in_place, set in tidal_op_begin): a registration
 * attaches no chunk whose last writer needed its data, so such a chunk is
 * swapped like any other, never dropped for a recompute that cannot
 * succeed.  A closure that regenerates the range some other way is turned
 * down with it (conservative: it costs a copy, never data).  A closure
 * that reads its range although the op before it did not (a registration
 * placed by hand, after some other op) is not caught, and still fails
 * with TIDAL_ERR_RECOMPUTE; the pass (Note [aliased update],
 * pass/plan/plan.c) and the run-time planner (planner.c, step 4) choose
 * no such recompute.
 *
 * Note [recompute expiry]: registrations expire when another op overwrites
 * the chunk or the iteration ends.  At iteration end a chunk whose data
 * exists only as "recomputable" keeps its closure (dropping it would lose
 * the data); the closure then runs on whatever its inputs hold by then. */
#include <stdlib.h>
#include <string.h>
#include "memory/memory.h"

/* The chunks of a, or its units (Note [units]: each is a chunk to the state
 * machine, and a closure's range holds whole units as it holds whole
 * chunks).  Counted again at every step: a closure run splits units. */
static size_t nparts(const rt_alloc *a) { return a->reloc ? a->nunits : a->nchunks; }
static rt_chunk *part(rt_alloc *a, size_t i) { return a->reloc ? &a->units[i]->c : &a->chunks[i]; }

static void unlink_rc(rt_recompute *rc) {
  for (rt_recompute **p = &rt_mem.rcs; *p; p = &(*p)->next)
    if (*p == rc) {
      *p = rc->next;
      break;
    }
  free(rc->ctx);
  free(rc);
}

void rt_recompute_detach(rt_chunk *c) {
  rt_recompute *rc = c->rc;
  if (!rc)
    return;
  c->rc = NULL;
  if (--rc->refs == 0 && !rc->running)
    unlink_rc(rc);
}

tidal_status rt_recompute_register(uintptr_t lo, uintptr_t hi, tidal_recompute_fn fn,
                                   const void *ctx, size_t ctx_bytes) {
  rt_alloc *a = rt_registry_find(lo);
  if (!a || !nparts(a))
    return TIDAL_OK; /* a packed small allocation has no chunk of its own to drop */
  rt_recompute *rc = calloc(1, sizeof *rc);
  if (!rc)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_recompute_register: out of host memory");
  if (ctx_bytes) {
    rc->ctx = malloc(ctx_bytes);
    if (!rc->ctx) {
      free(rc);
      return rt_error(TIDAL_ERR_HOST_MEMORY,
                      "tidal_recompute_register: out of host memory for a %zu-byte ctx",
                      ctx_bytes);
    }
    memcpy(rc->ctx, ctx, ctx_bytes);
  }
  rc->fn = fn;
  rc->ctx_bytes = ctx_bytes;
  rc->lo = lo;
  rc->hi = hi;
  rc->next = rt_mem.rcs;
  rt_mem.rcs = rc;
  size_t in_place = 0;
  for (size_t i = 0; i < nparts(a); i++) {
    rt_chunk *c = part(a, i);
    uintptr_t start = rt_chunk_addr(c), end = start + rt_chunk_len(c);
    if (start < lo || end > hi)
      continue;
    if (c->state == RT_RECOMPUTABLE)
      continue; /* only its current closure can bring it back */
    rt_recompute_detach(c);
    if (c->in_place) { /* Note [self-reading closures] */
      in_place++;
      continue;
    }
    c->rc = rc;
    rc->refs++;
  }
  if (in_place)
    rt_log(3,
           "tidal_recompute_register [%#lx, %#lx): %zu chunk(s) or unit(s) were last written by "
           "an op that read them (an update in place): a re-run would need its own output; "
           "they are swapped, not recomputed",
           (unsigned long)lo, (unsigned long)hi, in_place);
  if (rc->refs == 0) {
    rt_log(4, "tidal_recompute_register [%#lx, %#lx): covers no whole chunk or unit it may "
              "regenerate; ignored",
           (unsigned long)lo, (unsigned long)hi);
    unlink_rc(rc);
  }
  return TIDAL_OK;
}

tidal_status rt_recompute_run(rt_chunk *c) {
  rt_recompute *rc = c->rc;
  if (!rc)
    return rt_error(TIDAL_ERR_RECOMPUTE, "chunk %#lx is recomputable but has no closure",
                    (unsigned long)rt_chunk_addr(c));
  if (rc->running)
    return rt_error(TIDAL_ERR_RECOMPUTE,
                    "recompute of [%#lx, %#lx) needs its own output (a cycle)",
                    (unsigned long)rc->lo, (unsigned long)rc->hi);
  if (rt_mem.rc_depth >= RT_RECOMPUTE_DEPTH_MAX)
    return rt_error(TIDAL_ERR_RECOMPUTE, "recompute of [%#lx, %#lx): closures nested deeper than %d",
                    (unsigned long)rc->lo, (unsigned long)rc->hi, RT_RECOMPUTE_DEPTH_MAX);
  unsigned char small[256];
  void *ctx = NULL;
  if (rc->ctx_bytes) {
    ctx = rc->ctx_bytes <= sizeof small ? small : malloc(rc->ctx_bytes);
    if (!ctx)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "recompute: out of host memory for its ctx");
    memcpy(ctx, rc->ctx, rc->ctx_bytes);
  }
  if (RT_TRACING())
    rt_trace_recompute(1, rc->lo, (size_t)(rc->hi - rc->lo));
  tidal_status outer_error = rt_mem.rc_error;
  int outer_floor = rt_mem.rc_floor;
  rt_mem.rc_error = TIDAL_OK;
  rc->running = 1;
  rt_mem.rc_depth++;
  int depth = rt_mem.depth;
  rt_mem.rc_floor = depth; /* the closure may not end the ops below */
  rc->fn(ctx, rt_mem.stream);
  if (RT_TRACING())
    rt_trace_recompute(0, rc->lo, 0);
  rt_mem.rc_floor = outer_floor;
  rt_mem.rc_depth--;
  rc->running = 0;
  tidal_status st = rt_mem.rc_error;
  if (rt_mem.depth != depth && st == TIDAL_OK)
    st = TIDAL_ERR_INVALID; /* the closure left an op open (or closed ours) */
  while (rt_mem.depth > depth) /* unpin what it left open */
    rt_frame_unwind();
  rt_mem.rc_error = outer_error;
  if (ctx && ctx != (void *)small)
    free(ctx);
  RT_COUNT(recomputes, 1);
  uintptr_t lo = rc->lo, hi = rc->hi;
  if (rc->refs == 0)
    unlink_rc(rc);
  /* A closure's op refused for what ops nested by hand cannot do (a gather
   * around a unit the outer op holds: docs/limitations.md) says so, as the
   * op itself would have. */
  if (st != TIDAL_OK)
    return rt_error(st == TIDAL_ERR_UNSUPPORTED ? st : TIDAL_ERR_RECOMPUTE,
                    "recompute closure for [%#lx, %#lx) failed: %s", (unsigned long)lo,
                    (unsigned long)hi, tidal_status_string(st));
  return TIDAL_OK;
}

/* Note [overwritten registrations]: a closure re-run rewrites its whole
 * range, so a registration is only sound while every byte of that range
 * still holds what the closure produces.  When another op is about to write
 * into the range (not the closure itself), the registration ends for all
 * its chunks, not only the written ones - otherwise a later re-run for a
 * dropped chunk would clobber the newer bytes.  Chunks that exist only as
 * "recomputable" and that this op does not overwrite completely are
 * regenerated first, by running the closure now, while its inputs are (as
 * the registration promises) unchanged. */
static int fully_overwritten(const rt_chunk *c, uint64_t stamp) {
  if (c->op_stamp != stamp)
    return 0; /* not declared by the op at hand */
  uint32_t flags = rt_mem.pinned[c->pin_slot].flags;
  return (flags & RT_PIN_WRITTEN) && !(flags & RT_PIN_NEED_DATA);
}

/* Detaches every chunk from rc but the recomputable ones the op at hand
 * overwrites: those keep it until the op's begin succeeds (its step 3
 * detaches them), so that a failed begin can put them back (Note
 * [write-only restore]).  rc is freed by the last detach. */
static void detach_all(rt_recompute *rc, uint64_t stamp) {
  rt_alloc *a = rt_registry_find(rc->lo);
  if (!a || !nparts(a))
    return;
  rc->overwrite_stamp = stamp;
  for (size_t i = 0; i < nparts(a); i++) {
    rt_chunk *c = part(a, i);
    if (c->rc != rc || c->state == RT_RECOMPUTABLE)
      continue;
    int last = rc->refs == 1;
    rt_recompute_detach(c);
    if (last)
      return; /* rc is gone */
  }
}

tidal_status rt_recompute_overwrite(uintptr_t lo, uintptr_t hi, uint64_t stamp) {
  for (;;) {
    rt_recompute *rc = rt_mem.rcs;
    while (rc && (rc->running || rc->overwrite_stamp == stamp || rc->hi <= lo || hi <= rc->lo))
      rc = rc->next;
    if (!rc)
      return TIDAL_OK;
    rt_alloc *a = rt_registry_find(rc->lo);
    rt_chunk *missing = NULL;
    for (size_t i = 0; a && i < nparts(a) && !missing; i++) {
      rt_chunk *c = part(a, i);
      if (c->rc == rc && c->state == RT_RECOMPUTABLE && !fully_overwritten(c, stamp))
        missing = c;
    }
    if (missing) {
      tidal_status st = rt_recompute_run(missing); /* regenerates all of rc's range */
      if (st != TIDAL_OK)
        return st;
      if (missing->state == RT_RECOMPUTABLE)
        return rt_error(TIDAL_ERR_RECOMPUTE,
                        "recompute of [%#lx, %#lx) did not write it (the closure must declare "
                        "its output with tidal_op_begin)",
                        (unsigned long)rc->lo, (unsigned long)rc->hi);
    }
    /* rt_recompute_run may have freed rc (no chunk left): look it up again */
    rt_recompute *still = rt_mem.rcs;
    while (still && still != rc)
      still = still->next;
    if (still)
      detach_all(rc, stamp);
  }
}

void rt_recompute_iteration_end(void) {
  rt_recompute *next;
  for (rt_recompute *rc = rt_mem.rcs; rc; rc = next) {
    next = rc->next;
    rc->expired = 1;
    rt_alloc *a = rt_registry_find(rc->lo);
    if (!a || !nparts(a))
      continue;
    for (size_t i = 0; i < nparts(a) && rc->refs; i++) {
      rt_chunk *c = part(a, i);
      if (c->rc == rc && c->state != RT_RECOMPUTABLE) {
        if (rc->refs == 1) { /* the last detach frees rc: stop touching it */
          rt_recompute_detach(c);
          break;
        }
        rt_recompute_detach(c);
      }
    }
  }
}

void rt_recompute_destroy(void) {
  while (rt_mem.rcs) {
    rt_recompute *rc = rt_mem.rcs;
    rt_mem.rcs = rc->next;
    free(rc->ctx);
    free(rc);
  }
}
