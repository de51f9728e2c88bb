/* suballoc.c - allocations smaller than a chunk, packed and always resident.
 *
 * Evicting a chunk to save a few hundred bytes costs more than it saves, and
 * small buffers (scalars, norms, counters) are touched by most ops.  So each
 * size class (a power of two from RT_SMALL_MIN_BYTES up to the chunk size)
 * gets slabs: one chunk of reserved address space mapped once to a physical
 * chunk from the pool (so slabs count against the budget) and cut into equal
 * slots.  A slab is unmapped and returned when its last slot is freed.
 * Slots are found by a linear scan: only tidal_malloc/tidal_free pay it. */
#include <stdlib.h>
#include "rt.h"

static size_t size_class(size_t bytes) {
  size_t s = RT_SMALL_MIN_BYTES;
  while (s < bytes)
    s <<= 1;
  return s;
}

static tidal_status slab_create(size_t slot_bytes, rt_slab **out) {
  rt_slab *s = calloc(1, sizeof *s);
  if (!s)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc: out of host memory");
  s->slot_bytes = slot_bytes;
  s->nslots = (uint32_t)(rt_g.chunk_bytes / slot_bytes);
  s->in_use = calloc(s->nslots, 1);
  if (!s->in_use) {
    free(s);
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc: out of host memory");
  }
  tidal_status st = rt_g.be->reserve(rt_g.b, rt_g.chunk_bytes, &s->base);
  if (st != TIDAL_OK)
    goto fail;
  st = rt_phys_acquire(&s->phys, "tidal_malloc (small allocation slab)");
  if (st != TIDAL_OK)
    goto fail_release;
  st = rt_map_now(s->base, s->phys);
  if (st != TIDAL_OK) {
    rt_phys_release(s->phys);
    goto fail_release;
  }
  rt_g.slab_phys++;
  s->next = rt_g.slabs;
  rt_g.slabs = s;
  *out = s;
  return TIDAL_OK;
fail_release:
  rt_g.be->release(rt_g.b, s->base, rt_g.chunk_bytes);
fail:
  free(s->in_use);
  free(s);
  return st;
}

static void slab_destroy(rt_slab *s) {
  rt_unmap_now(s->base, s->phys); /* after the ops that used it */
  rt_phys_release(s->phys);
  rt_g.be->release(rt_g.b, s->base, rt_g.chunk_bytes);
  rt_g.slab_phys--;
  free(s->in_use);
  free(s);
}

tidal_status rt_small_alloc(rt_alloc *a) {
  size_t cls = size_class(a->bytes);
  rt_slab *s = rt_g.slabs;
  while (s && (s->slot_bytes != cls || s->used == s->nslots))
    s = s->next;
  if (!s) {
    tidal_status st = slab_create(cls, &s);
    if (st != TIDAL_OK)
      return st;
  }
  uint32_t i = 0;
  while (s->in_use[i])
    i++;
  s->in_use[i] = 1;
  s->used++;
  a->slab = s;
  a->slot = i;
  a->base = s->base + (uintptr_t)i * cls;
  a->reserved = cls;
  a->nchunks = 0;
  return TIDAL_OK;
}

void rt_small_free(rt_alloc *a) {
  rt_slab *s = a->slab;
  s->in_use[a->slot] = 0;
  if (--s->used)
    return;
  for (rt_slab **p = &rt_g.slabs; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  slab_destroy(s);
}

void rt_small_destroy(void) {
  while (rt_g.slabs) {
    rt_slab *s = rt_g.slabs;
    rt_g.slabs = s->next;
    slab_destroy(s);
  }
}
