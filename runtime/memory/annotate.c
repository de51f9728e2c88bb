/* annotate.c - names and tensor groups for address ranges
 * (tidal_annotate), so the trace can say which kind of data is resident:
 * the memory timeline (`tidal report`) stacks resident bytes by group.
 * Also the trace's memory counters themselves (rt_trace_counters: resident,
 * host, budget and allocated bytes, and resident by group once anything is
 * annotated), which base/trace.c writes whenever they change.
 *
 * Decisions:
 *  - Observation only: no policy reads annotations, so a wrong or missing
 *    one changes a picture, never what is evicted.
 *  - A flat array sorted by (start, end); the per-group sum walks it at
 *    each counter update, which happens only while tracing.  Programs
 *    annotate tens to a few thousand tensors.
 *  - A range's resident bytes are its bytes in mapped chunks (packed small
 *    allocations are always counted resident); bytes of resident chunks no
 *    annotation covers are "other", so the groups sum to the resident
 *    total.  Overlapping annotations (a whole buffer and its slices, two
 *    views of one tensor) count each byte once: walking in (start, end)
 *    order, a byte goes to the first annotation that covers it, so a
 *    narrower range wins over a wider one starting at the same address. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "memory/memory.h"

typedef struct annot {
  uintptr_t lo, hi;
  tidal_group group;
  char *name;
} annot;

static struct {
  annot *v;
  size_t n, cap;
} an;

tidal_status tidal_annotate(const void *ptr, size_t bytes, const char *name, tidal_group group) {
  tidal_status st0 = rt_api_check("tidal_annotate");
  if (st0 != TIDAL_OK)
    return st0;
  if (!ptr || !bytes)
    return rt_error(TIDAL_ERR_INVALID, "tidal_annotate: empty range");
  if ((int)group < 0 || (int)group >= TIDAL_NGROUPS)
    return rt_error(TIDAL_ERR_INVALID, "tidal_annotate: group %d is not a tidal_group", (int)group);
  uintptr_t lo = (uintptr_t)ptr;
  rt_alloc *a = rt_registry_find(lo);
  if (!a)
    return rt_error(TIDAL_ERR_UNKNOWN_POINTER, "tidal_annotate(%p): not a tidal allocation", ptr);
  if (lo - a->base + bytes > a->bytes)
    return rt_error(TIDAL_ERR_OUT_OF_BOUNDS, "tidal_annotate(%p, %zu): past the allocation's end",
                    ptr, bytes);
  for (size_t i = 0; i < an.n; i++) /* re-annotating a range replaces it */
    if (an.v[i].lo == lo && an.v[i].hi == lo + bytes) {
      char *nm = name ? strdup(name) : NULL;
      free(an.v[i].name);
      an.v[i].name = nm;
      an.v[i].group = group;
      return TIDAL_OK;
    }
  if (an.n == an.cap) {
    size_t cap = an.cap ? an.cap * 2 : 64;
    annot *v = realloc(an.v, cap * sizeof *v);
    if (!v)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_annotate: out of host memory");
    an.v = v;
    an.cap = cap;
  }
  size_t k = an.n; /* keep the array sorted by (lo, hi) */
  while (k > 0 && (an.v[k - 1].lo > lo || (an.v[k - 1].lo == lo && an.v[k - 1].hi > lo + bytes))) {
    an.v[k] = an.v[k - 1];
    k--;
  }
  an.v[k].lo = lo;
  an.v[k].hi = lo + bytes;
  an.v[k].group = group;
  an.v[k].name = name ? strdup(name) : NULL;
  an.n++;
  return TIDAL_OK;
}

void rt_annotate_forget(uintptr_t lo, uintptr_t hi) {
  size_t k = 0;
  for (size_t i = 0; i < an.n; i++) {
    if (an.v[i].lo >= lo && an.v[i].lo < hi) {
      free(an.v[i].name);
      continue;
    }
    an.v[k++] = an.v[i];
  }
  an.n = k;
}

void rt_annotate_destroy(void) {
  rt_annotate_forget(0, UINTPTR_MAX);
  free(an.v);
  memset(&an, 0, sizeof an);
}

int rt_annotate_any(void) { return an.n > 0; }

/* Bytes of [lo, hi) in mapped chunks. */
static uint64_t resident_in(uintptr_t lo, uintptr_t hi) {
  rt_alloc *a = rt_registry_find(lo);
  if (!a)
    return 0;
  if (a->arena) /* an arena member: the arena's chunks (addresses are absolute) */
    a = &a->arena->self;
  if (a->reloc) { /* its units in the device pool (Note [units], units.c) */
    size_t first, end, off = lo - a->base, len = hi - lo;
    uint64_t sum = 0;
    rt_units_range(a, off, len, &first, &end);
    for (size_t k = first; k < end; k++) {
      const rt_unit *u = a->units[k];
      if (!rt_chunk_mapped(&u->c))
        continue;
      size_t ulo = u->lo > off ? u->lo : off, uhi = u->hi < off + len ? u->hi : off + len;
      sum += uhi - ulo;
    }
    return sum;
  }
  if (!a->nchunks) /* packed small allocation: its slab stays mapped */
    return hi - lo;
  size_t chunk = rt_mem.chunk_bytes;
  uint64_t sum = 0;
  for (uintptr_t p = lo; p < hi;) {
    uint32_t i = (uint32_t)((p - a->base) / chunk);
    uintptr_t end = a->base + (uintptr_t)(i + 1) * chunk;
    if (end > hi)
      end = hi;
    if (i < a->nchunks && rt_chunk_mapped(&a->chunks[i]))
      sum += end - p;
    p = end;
  }
  return sum;
}

void rt_annotate_resident(uint64_t resident, uint64_t out[TIDAL_NGROUPS]) {
  memset(out, 0, sizeof(uint64_t) * TIDAL_NGROUPS);
  uint64_t named = 0;
  uintptr_t covered = 0; /* bytes below this already went to a group */
  for (size_t i = 0; i < an.n; i++) {
    uintptr_t lo = an.v[i].lo > covered ? an.v[i].lo : covered;
    if (lo >= an.v[i].hi)
      continue;
    covered = an.v[i].hi > covered ? an.v[i].hi : covered;
    uint64_t r = resident_in(lo, an.v[i].hi);
    if (named + r > resident)
      r = resident - named;
    out[an.v[i].group] += r;
    named += r;
  }
  out[TIDAL_GROUP_OTHER] += resident - named;
}

void rt_trace_counters(void) {
  if (!RT_TRACING())
    return;
  rt_trace_counts k;
  k.resident = rt_resident_bytes();
  k.host = (uint64_t)rt_host_used_bytes(); /* chunks' slots and units' copies */
  k.budget = rt_mem.budget_bytes;
  k.allocated = rt_mem.allocated_bytes;
  k.by_group = rt_annotate_any();
  if (k.by_group)
    rt_annotate_resident(k.resident, k.groups);
  rt_trace_write_counters(&k);
}
