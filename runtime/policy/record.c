/* record.c - what one iteration did, for the run-time planner.
 *
 * Per top-level op (not the nested ops of recompute closures): the site, the
 * accesses resolved to (allocation, offset, length, mode), the measured
 * duration, the time tidal_op_begin waited for data, and the chunks it
 * found not resident; between ops, the build-time hints the program called.
 * A tensor is not named here: the planner groups chunks by the ops that use
 * them (planner.c).
 *
 * Decisions:
 *  - Accesses are kept by allocation base *and* size, so an address range
 *    freed and reused for another allocation is another tensor.
 *  - An op's identity (hash) is its site pointer and its accesses: the
 *    executor compares it with the plan's op at the same position, and the
 *    iteration's signature is the hash of those, so an iteration that runs
 *    other ops (evaluation) or the same ops on other buffers differs.
 *  - Durations come from backend time marks (the sim clock; CUDA events
 *    recorded on the op's stream).  Reading them waits for the device, so
 *    plan_exec.c reads a record's marks only once rt_record_marks_ready
 *    says they are reached (Note [time marks], plan_exec.c). */
#include <stdlib.h>
#include <string.h>
#include "policy/planner.h"

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

uint64_t rt_record_op_hash(const tidal_site *site, int n, const tidal_access *acc) {
  uint64_t h = mix(1469598103934665603ull, (uint64_t)(uintptr_t)site);
  h = mix(h, (uint64_t)n);
  for (int i = 0; i < n; i++) {
    h = mix(h, (uint64_t)(uintptr_t)acc[i].ptr);
    h = mix(h, (uint64_t)acc[i].bytes);
    h = mix(h, (uint64_t)acc[i].mode);
  }
  return h;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  uint32_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  void *n = realloc(*p, (size_t)c * elem);
  if (!n)
    return -1;
  *p = n;
  *cap = c;
  return 0;
}

static void release_marks(rt_record *r) {
  for (uint32_t i = 0; i < r->nops; i++) {
    rt_rec_op *o = &r->ops[i];
    if (o->timed) {
      rt_dev.be->time_release(rt_dev.b, &o->t0);
      rt_dev.be->time_release(rt_dev.b, &o->t1);
      o->timed = 0;
    }
  }
}

void rt_record_reset(rt_record *r) {
  release_marks(r);
  r->nops = r->naccs = r->nhints = r->nmiss = 0;
  r->sig = 0;
  r->timed = 0;
  r->span_s = 0;
  r->plan_gen = 0;
  r->ran_hints = 0;
}

void rt_record_free(rt_record *r) {
  release_marks(r);
  free(r->ops);
  free(r->accs);
  free(r->hints);
  free(r->miss);
  memset(r, 0, sizeof *r);
}

int rt_record_op(rt_record *r, const tidal_site *site, int n, const tidal_access *acc) {
  if (grow((void **)&r->ops, &r->cap_ops, r->nops + 1, sizeof *r->ops) ||
      grow((void **)&r->accs, &r->cap_accs, r->naccs + (uint32_t)n, sizeof *r->accs))
    return -1;
  rt_rec_op *o = &r->ops[r->nops];
  memset(o, 0, sizeof *o);
  o->site = site;
  o->est_s = site ? site->est_seconds : 0;
  o->hash = rt_record_op_hash(site, n, acc);
  o->acc0 = r->naccs;
  o->miss0 = r->nmiss;
  for (int i = 0; i < n; i++) {
    rt_alloc *a = rt_registry_find((uintptr_t)acc[i].ptr);
    if (!a || (!a->nchunks && !a->reloc))
      continue; /* packed small allocations (their slab moves by LRU); empty tails */
    size_t off = (uintptr_t)acc[i].ptr - a->base;
    size_t len = acc[i].bytes == TIDAL_EXTENT_UNKNOWN ? a->bytes - off : acc[i].bytes;
    if (len == 0 || len > a->bytes - off)
      continue;
    rt_rec_acc *x = &r->accs[r->naccs++];
    x->base = a->base;
    x->alloc_bytes = a->bytes;
    x->off = off;
    x->len = len;
    x->mode = (uint8_t)acc[i].mode;
    o->nacc++;
  }
  r->sig = mix(r->sig, o->hash);
  return (int)r->nops++;
}

void rt_record_miss(rt_record *r, uint32_t op, uintptr_t chunk_addr) {
  if (op >= r->nops || grow((void **)&r->miss, &r->cap_miss, r->nmiss + 1, sizeof *r->miss))
    return;
  rt_rec_op *o = &r->ops[op];
  if (o->miss0 + o->nmiss != r->nmiss)
    return; /* only the op being begun records misses */
  r->miss[r->nmiss++] = chunk_addr;
  o->nmiss++;
}

void rt_record_hint(rt_record *r, uint32_t pos, int kind, uintptr_t base, size_t alloc_bytes,
                    size_t off, size_t len) {
  if (grow((void **)&r->hints, &r->cap_hints, r->nhints + 1, sizeof *r->hints))
    return;
  rt_rec_hint *h = &r->hints[r->nhints++];
  h->pos = pos;
  h->kind = (uint8_t)kind;
  h->base = base;
  h->alloc_bytes = alloc_bytes;
  h->off = off;
  h->len = len;
}

/* The last timed op's end mark: marks complete in stream order (one
 * compute stream is the supported case), so when it is reached, every
 * earlier one is. */
static const rt_rec_op *last_timed(const rt_record *r) {
  for (uint32_t i = r->nops; i-- > 0;)
    if (r->ops[i].timed)
      return &r->ops[i];
  return NULL;
}

int rt_record_has_marks(const rt_record *r) { return last_timed(r) != NULL; }

int rt_record_marks_ready(const rt_record *r) {
  const rt_rec_op *o = last_timed(r);
  return !o || rt_dev.be->time_ready(rt_dev.b, &o->t1);
}

void rt_record_finish(rt_record *r) {
  int all = r->nops > 0;
  double span = 0;
  if (all && r->ops[0].timed && r->ops[r->nops - 1].timed &&
      (rt_dev.be->time_elapsed(rt_dev.b, &r->ops[0].t0, &r->ops[r->nops - 1].t1, &span) !=
           TIDAL_OK ||
       !(span > 0)))
    span = 0;
  for (uint32_t i = 0; i < r->nops; i++) {
    rt_rec_op *o = &r->ops[i];
    if (!o->timed) {
      o->dur_s = o->est_s;
      all = 0;
      continue;
    }
    double s = 0;
    if (rt_dev.be->time_elapsed(rt_dev.b, &o->t0, &o->t1, &s) != TIDAL_OK || !(s >= 0))
      s = o->est_s, all = 0;
    o->dur_s = s;
    rt_dev.be->time_release(rt_dev.b, &o->t0);
    rt_dev.be->time_release(rt_dev.b, &o->t1);
    o->timed = 0;
  }
  r->timed = all;
  r->span_s = all ? span : 0;
}
