/* pace.c - prefetch hints deferred to the order their tensors are needed in.
 *
 * Note [prefetch order]: copies in both directions queue on one copy
 * engine in issue order (Note [one copy engine], backend_sim.c; the H200's
 * trace), so a prefetch hint issued long before its use holds the engine
 * against every copy issued after it, however soon those are needed.  The
 * build-time plan places each prefetch at the latest statement in its
 * tensor's scope that hides it: the gpt variant's AdamW moments (144 MiB)
 * are prefetched before the `gpt_backward` call, about 200 ops ahead of
 * the update that reads them, and layer 7's first backward matmuls then
 * waited 3.3 ms a step for a 4 MiB prefetch queued behind them
 * (bench/README.md, "Where the 1.24x goes").
 *
 * So a prefetch hint on a relocatable unit whose use lies far ahead is not
 * issued where the program calls it.  How far: each unit learns, from the
 * iterations before, how many ops (op_stamp) lay between its last prefetch
 * hint and its next use (pf_lead; 0 until seen once, so the first
 * iteration runs the hints as written).  A hint whose unit's lead exceeds
 * RT_PACE_FAR_OPS goes on the pending list, expected to be needed at
 * op_stamp + lead.  At each top-level tidal_op_begin (rt_pace_pump), after
 * the poll of the copies in flight:
 *  - due: a pending unit needed within RT_PACE_NEAR_OPS ops is issued, with
 *    every pending unit needed before it, earliest need first, as the hint
 *    would have been (it may evict);
 *  - early: else the earliest-needed one is issued when the engine runs
 *    dry (fewer than RT_PACE_IDLE_BYTES in flight), its copy is short
 *    (in flight and it together at most twice that, so a hint that comes
 *    next waits at most about 0.6 ms on an H200), and it fits in the budget
 *    without evicting: an early copy takes only engine time and memory
 *    nobody else wants now.
 * A unit used before it was issued is faulted in, as a hint that did not
 * fit is (rt_pace_use takes it off the list); one freed or dropped meanwhile
 * is taken off or skipped, one split keeps both halves pending.  Pending is
 * a request, never data: the unit is ON_HOST and its host copy is what it
 * was, so nothing here can lose a byte.
 *
 * Measured on the model only (the calibrated H200 files; bench/README.md,
 * "Prefetches in need order"): the gpt variant at 50%, median of 12
 * iterations, 1.240x -> 1.171x with the hints and 1.293x -> 1.178x with the
 * run-time planner (which keeps them); over budgets of 40-75% and both
 * planners the mean overhead 0.273 -> 0.230; llm.c fp32 124M at 50% 9.90x
 * -> 9.65x with the hints, 8.14x -> 7.90x with the run-time planner.
 * What did worse: a deadline in time (issue when the ops left,
 * at the last iteration's mean op time, are under 1-4 times the copies
 * queued ahead: mean 0.28-0.30): units issued earlier sit in memory that
 * the ops between need, and their eviction faults (the gpt variant's
 * update: the moments, resident early, pushed out the parameters that the
 * encoder's whole-arena gather and the update read); feedback that moved a
 * late unit's issue earlier, for the same reason; and issuing early whatever
 * the copy's length (a 64 MiB copy then holds the engine against the next
 * urgent hint: test_pace.c).  The results move by a few hundredths with the
 * order of equal needs (placement is chaotic), so the constants are round
 * figures, not fitted ones.  Not deferred: chunked allocations; the
 * run-time planner's own prefetch actions, and the hints while its plan
 * steers (api.c asks rt_planner_steering): it placed its prefetches from
 * its record and gates the hints to them, and deferring them on top made
 * llm.c's step 3% slower (8.14x -> 8.39x; 7.90x with them left alone).
 * TIDAL_PREFETCH_ORDER=0 (prefetch_order_off) issues every hint where it
 * is called, as before. */
#include <stdlib.h>
#include <string.h>
#include "memory/memory.h"

enum {
  RT_PACE_FAR_OPS = 16, /* a lead above this defers the hint */
  RT_PACE_NEAR_OPS = 8  /* a pending unit is issued this many ops before its use */
};
#define RT_PACE_IDLE_BYTES ((size_t)16 << 20) /* about 0.3 ms of an H200's copy engine */

static int push(rt_unit *u) {
  if (rt_mem.npace == rt_mem.cap_pace) {
    size_t cap = rt_mem.cap_pace ? rt_mem.cap_pace * 2 : 32;
    rt_unit **p = realloc(rt_mem.pace, cap * sizeof *p);
    if (!p)
      return 0;
    rt_mem.pace = p;
    rt_mem.cap_pace = cap;
  }
  rt_mem.pace[rt_mem.npace++] = u;
  u->pf_pending = 1;
  return 1;
}

static void remove_at(size_t i) {
  rt_mem.pace[i]->pf_pending = 0;
  rt_mem.pace[i] = rt_mem.pace[--rt_mem.npace];
}

static uint64_t pace_seq; /* deferrals so far: ties go in hint order */

size_t rt_pace_defer(rt_chunk **cs, size_t n, int may_defer) {
  size_t keep = 0;
  may_defer &= !rt_base.cfg.prefetch_order_off;
  for (size_t i = 0; i < n; i++) {
    rt_chunk *c = cs[i];
    rt_unit *u = rt_unit_of(c);
    u->pf_at = rt_mem.op_stamp; /* the lead is learnt whether or not it defers */
    /* Only a unit whose bytes are on the host: anything else the prefetch
     * would not copy (resident, in flight, parked: comes back with no copy,
     * dropped, recomputable).  Without room on the list the hint runs. */
    if (may_defer && u->pf_lead > RT_PACE_FAR_OPS &&
        c->state == RT_ON_HOST && !c->parked && !c->pins && (u->pf_pending || push(u))) {
      u->pf_need = rt_mem.op_stamp + u->pf_lead;
      u->pf_seq = ++pace_seq;
      RT_COUNT(prefetches_deferred, 1);
      if (RT_TRACING())
        rt_trace("prefetch_deferred", "\"ptr\":\"%#lx\",\"bytes\":%zu,\"ops_ahead\":%u",
                 (unsigned long)rt_chunk_addr(c), rt_chunk_len(c), u->pf_lead);
      continue;
    }
    cs[keep++] = c;
  }
  return keep;
}

void rt_pace_use(rt_unit *u, uint64_t stamp) {
  if (u->pf_at) {
    uint64_t d = stamp > u->pf_at ? stamp - u->pf_at : 1;
    u->pf_lead = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
    u->pf_at = 0;
  }
  rt_pace_forget(u);
}

void rt_pace_forget(rt_unit *u) {
  if (!u->pf_pending)
    return;
  for (size_t i = 0; i < rt_mem.npace; i++)
    if (rt_mem.pace[i] == u) {
      remove_at(i);
      return;
    }
  u->pf_pending = 0;
}

tidal_status rt_pace_split(rt_unit *u, rt_unit *r) {
  r->pf_lead = u->pf_lead;
  r->pf_at = u->pf_at;
  if (u->pf_pending) {
    r->pf_need = u->pf_need;
    r->pf_seq = u->pf_seq;
    if (!push(r))
      return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory splitting a unit");
  }
  return TIDAL_OK;
}

/* Bytes of copies issued and not yet seen done (rt_reap polled them). */
static size_t flight_bytes(void) {
  size_t b = 0;
  for (const rt_chunk *c = rt_mem.out.head; c; c = c->next)
    b += rt_chunk_len(c);
  for (const rt_chunk *c = rt_mem.in.head; c; c = c->next)
    b += rt_chunk_len(c);
  return b;
}

static int by_need(const void *x, const void *y) {
  const rt_unit *a = *(rt_unit *const *)x, *b = *(rt_unit *const *)y;
  if (a->pf_need != b->pf_need)
    return a->pf_need < b->pf_need ? -1 : 1;
  return a->pf_seq < b->pf_seq ? -1 : a->pf_seq > b->pf_seq; /* ties: in hint order */
}

/* Issues pace[0, n) and takes them off the list. */
static tidal_status issue_first(size_t n) {
  tidal_status st = TIDAL_OK;
  for (size_t k = 0; k < n; k++) {
    rt_unit *u = rt_mem.pace[k];
    u->pf_pending = 0;
    rt_chunk *c = &u->c;
    /* a prefetch places and may evict, never frees, splits or uses a unit
     * on the list: the list stays as it is under it */
    if (st == TIDAL_OK)
      st = rt_prefetch_chunks(&c, 1);
  }
  memmove(rt_mem.pace, rt_mem.pace + n, (rt_mem.npace - n) * sizeof *rt_mem.pace);
  rt_mem.npace -= n;
  return st;
}

tidal_status rt_pace_pump(void) {
  if (!rt_mem.npace)
    return TIDAL_OK;
  qsort(rt_mem.pace, rt_mem.npace, sizeof *rt_mem.pace, by_need);
  uint64_t now = rt_mem.op_stamp;
  size_t due = 0; /* the due ones, and any needed before them: need order */
  for (size_t k = 0; k < rt_mem.npace; k++)
    if (rt_mem.pace[k]->pf_need <= now + RT_PACE_NEAR_OPS)
      due = k + 1;
  if (due == 0) { /* early, if the engine runs dry and nobody needs the room */
    size_t flight = flight_bytes(), len = rt_chunk_len(&rt_mem.pace[0]->c);
    if (flight < RT_PACE_IDLE_BYTES && flight + len <= 2 * RT_PACE_IDLE_BYTES &&
        rt_resident_bytes() + len <= rt_mem.budget_exact)
      due = 1;
  }
  return due ? issue_first(due) : TIDAL_OK;
}

/* At shutdown: the units themselves are gone or going (rt_units_release). */
void rt_pace_destroy(void) {
  free(rt_mem.pace);
  rt_mem.pace = NULL;
  rt_mem.npace = rt_mem.cap_pace = 0;
}
