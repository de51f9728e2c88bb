/* registry.c - the live allocations, for pointer lookup.
 *
 * A sorted array of allocation records keyed by base address: lookup is a
 * binary search (O(log n)), insertion and removal shift the array (O(n), but
 * only at malloc/free, which training loops do rarely).  A one-entry cache of
 * the last hit makes the common op_begin case (the same tensors again and
 * again) cheaper still.  Freed bases are remembered in a bounded ring so that
 * a double free is reported as such rather than as an unknown pointer; an
 * address reused by a later allocation is forgotten from that ring. */
#include <stdlib.h>
#include <string.h>
#include "memory/memory.h"

/* Index of the first allocation whose base is > p. */
static size_t upper_bound(uintptr_t p) {
  size_t lo = 0, hi = rt_mem.nallocs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rt_mem.allocs[mid]->base <= p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void forget_freed(uintptr_t lo, uintptr_t hi) {
  for (size_t i = 0; i < rt_mem.nfreed; i++)
    if (rt_mem.freed[i] >= lo && rt_mem.freed[i] < hi)
      rt_mem.freed[i] = 0;
}

tidal_status rt_registry_insert(rt_alloc *a) {
  if (rt_mem.nallocs == rt_mem.cap_allocs) {
    size_t cap = rt_mem.cap_allocs ? rt_mem.cap_allocs * 2 : 64;
    rt_alloc **n = realloc(rt_mem.allocs, cap * sizeof *n);
    if (!n)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc: out of host memory for the registry");
    rt_mem.allocs = n;
    rt_mem.cap_allocs = cap;
  }
  size_t i = upper_bound(a->base);
  memmove(rt_mem.allocs + i + 1, rt_mem.allocs + i, (rt_mem.nallocs - i) * sizeof *rt_mem.allocs);
  rt_mem.allocs[i] = a;
  rt_mem.nallocs++;
  a->seq = ++rt_mem.alloc_seq;
  forget_freed(a->base, a->base + (a->bytes ? a->bytes : 1));
  return TIDAL_OK;
}

void rt_registry_remove(rt_alloc *a) {
  size_t i = upper_bound(a->base);
  if (i == 0 || rt_mem.allocs[i - 1] != a)
    return;
  i--;
  memmove(rt_mem.allocs + i, rt_mem.allocs + i + 1,
          (rt_mem.nallocs - i - 1) * sizeof *rt_mem.allocs);
  rt_mem.nallocs--;
  if (rt_mem.last_hit == a)
    rt_mem.last_hit = NULL;
  if (!rt_mem.freed) {
    rt_mem.freed = calloc(RT_FREED_REMEMBERED, sizeof *rt_mem.freed);
    if (!rt_mem.freed)
      return; /* only the double-free diagnosis is lost */
  }
  rt_mem.freed[rt_mem.freed_head] = a->base;
  rt_mem.freed_head = (rt_mem.freed_head + 1) % RT_FREED_REMEMBERED;
  if (rt_mem.nfreed < RT_FREED_REMEMBERED)
    rt_mem.nfreed++;
}

rt_alloc *rt_registry_find(uintptr_t p) {
  rt_alloc *a = rt_mem.last_hit;
  if (a && p >= a->base && p - a->base < a->bytes)
    return a;
  size_t i = upper_bound(p);
  if (i == 0)
    return NULL;
  a = rt_mem.allocs[i - 1];
  if (p - a->base >= a->bytes)
    return NULL;
  rt_mem.last_hit = a;
  return a;
}

int rt_registry_was_freed(uintptr_t p) {
  if (!p)
    return 0;
  for (size_t i = 0; i < rt_mem.nfreed; i++)
    if (rt_mem.freed[i] == p)
      return 1;
  return 0;
}

void rt_registry_destroy(void) {
  free(rt_mem.allocs);
  free(rt_mem.freed);
  rt_mem.allocs = NULL;
  rt_mem.freed = NULL;
  rt_mem.nallocs = rt_mem.cap_allocs = rt_mem.nfreed = rt_mem.freed_head = 0;
  rt_mem.last_hit = NULL;
}
