/* suballoc.c - allocations smaller than a chunk, packed into evictable slabs.
 *
 * Note [lifetime-aware pool] (after the lifetime-aware pool of Zhang et al.
 * 2019, SINGA): memory moves in chunks, so an allocation smaller than a
 * chunk cannot move alone.  Small allocations are packed into slabs of one
 * chunk, and a slab is an ordinary one-chunk allocation to the rest of the
 * runtime (rt_slab.self): an op that declares a member pins the slab's
 * chunk, which the LRU evicts, swaps out, prefetches and restores like any
 * other, with the same guarantee that no byte is lost.  Because the whole
 * slab moves together, what shares a slab decides what the budget costs:
 *  - members of one packing group share slabs only with each other.  The
 *    pass knows which allocations the same ops use and gives them one group
 *    (tidal_malloc_grouped), so an op's small operands sit in few slabs and
 *    a slab's members are idle at the same times (their lifetimes match);
 *  - group 0 (plain tidal_malloc) packs in allocation order, the lifetime
 *    proxy the runtime has at malloc time: buffers allocated together are
 *    usually used and freed together.
 * Within a group a member goes first-fit into the group's newest slab,
 * then its older ones (gaps left by frees), then a new slab.  Members are
 * aligned to RT_SMALL_MIN_BYTES (cudaMalloc's guarantee) and kept sorted
 * by address, so first-fit is a walk over one slab's members; only
 * tidal_malloc/tidal_free pay it.  A slab's address range is reserved when
 * it is created and its chunk is mapped when an op first touches it; the
 * slab goes when its last member is freed. */
#include <stdlib.h>
#include "memory/memory.h"

/* The lowest offset in s where `bytes` fit, or -1. */
static long fit(const rt_slab *s, size_t bytes, uint32_t *at) {
  uintptr_t pos = s->self.base;
  uint32_t i = 0;
  for (; i < s->nmembers; i++) {
    const rt_alloc *m = s->members[i];
    if (m->base - pos >= bytes)
      break;
    pos = m->base + rt_small_aligned(m->bytes);
  }
  if (i == s->nmembers && s->self.base + rt_mem.chunk_bytes - pos < bytes)
    return -1;
  *at = i;
  return (long)(pos - s->self.base);
}

static tidal_status slab_create(uint32_t group, rt_slab **out) {
  rt_slab *s = calloc(1, sizeof *s);
  if (!s)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc: out of host memory");
  tidal_status st = rt_dev.be->reserve(rt_dev.b, rt_mem.chunk_bytes, &s->self.base);
  if (st != TIDAL_OK) {
    free(s);
    return st;
  }
  s->group = group;
  s->self.bytes = s->self.reserved = rt_mem.chunk_bytes;
  s->self.nchunks = 1;
  s->self.chunks = &s->chunk;
  rt_chunks_init(&s->self, 1);
  s->next = rt_mem.slabs;
  rt_mem.slabs = s;
  *out = s;
  return TIDAL_OK;
}

static tidal_status slab_destroy(rt_slab *s) {
  tidal_status st = rt_range_release(&s->self); /* its one chunk, embedded */
  free(s->members);
  free(s);
  return st;
}

tidal_status rt_small_alloc(rt_alloc *a, uint32_t group) {
  size_t need = rt_small_aligned(a->bytes);
  rt_slab *s = NULL;
  long off = -1;
  uint32_t at = 0;
  /* rt_mem.slabs is newest first: the group's newest slab is tried first. */
  for (rt_slab *t = rt_mem.slabs; t && off < 0; t = t->next)
    if (t->group == group && (off = fit(t, need, &at)) >= 0)
      s = t;
  if (!s) {
    tidal_status st = slab_create(group, &s);
    if (st != TIDAL_OK)
      return st;
    off = 0;
    at = 0;
  }
  if (s->nmembers == s->cap_members) {
    uint32_t cap = s->cap_members ? s->cap_members * 2 : 8;
    rt_alloc **m = realloc(s->members, cap * sizeof *m);
    if (!m) {
      if (!s->nmembers) {
        for (rt_slab **p = &rt_mem.slabs; *p; p = &(*p)->next)
          if (*p == s) {
            *p = s->next;
            break;
          }
        slab_destroy(s);
      }
      return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc: out of host memory");
    }
    s->members = m;
    s->cap_members = cap;
  }
  for (uint32_t i = s->nmembers; i > at; i--)
    s->members[i] = s->members[i - 1];
  s->members[at] = a;
  s->nmembers++;
  a->slab = s;
  a->base = s->self.base + (uintptr_t)off;
  a->reserved = need;
  a->nchunks = 0;
  return TIDAL_OK;
}

/* Note [hints on packed allocations]: a hint names one member, but the
 * slab moves as a whole, and evicting it for one idle member would evict
 * its neighbours too.  So a swap-out or drop hint marks the member idle
 * (cold, or dead when a drop covers all of it) until an op declares it
 * again, and the slab goes only once every member is idle: dropped when
 * all are dead, else swapped out (dead members are copied needlessly, but
 * nothing is lost).  Prefetch and keep apply to the slab at once. */
tidal_status rt_small_hint(rt_alloc *a, size_t off, size_t len, int kind) {
  rt_slab *s = a->slab;
  switch (kind) {
  case RT_HINT_PREFETCH: return rt_chunk_prefetch(&s->chunk);
  case RT_HINT_KEEP: rt_mem.evict->keep(&s->chunk); return TIDAL_OK;
  case RT_HINT_DROP:
    if (off != 0 || len < a->bytes)
      return TIDAL_OK; /* a drop keeps partial ranges */
    a->idle = RT_IDLE_DEAD;
    break;
  case RT_HINT_SWAP:
    if (a->idle != RT_IDLE_DEAD)
      a->idle = RT_IDLE_COLD;
    break;
  default: return TIDAL_OK;
  }
  int all_dead = 1;
  for (uint32_t i = 0; i < s->nmembers; i++) {
    if (!s->members[i]->idle)
      return TIDAL_OK; /* a member may still be used: the slab stays */
    all_dead &= s->members[i]->idle == RT_IDLE_DEAD;
  }
  return all_dead ? rt_chunk_drop(&s->chunk) : rt_chunk_swap_out(&s->chunk, 0);
}

int rt_small_busy(const rt_alloc *a) { return a->slab->nmembers == 1 && a->slab->chunk.pins; }

tidal_status rt_small_free(rt_alloc *a) {
  rt_slab *s = a->slab;
  uint32_t i = 0;
  while (i < s->nmembers && s->members[i] != a)
    i++;
  for (; i + 1 < s->nmembers; i++)
    s->members[i] = s->members[i + 1];
  if (--s->nmembers)
    return TIDAL_OK;
  for (rt_slab **p = &rt_mem.slabs; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  return slab_destroy(s);
}

void rt_small_destroy(void) {
  while (rt_mem.slabs) {
    rt_slab *s = rt_mem.slabs;
    rt_mem.slabs = s->next;
    slab_destroy(s);
  }
}
