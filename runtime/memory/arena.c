/* arena.c - allocations laid out together so that they share chunks.
 *
 * Note [arenas]: memory moves in chunks, so a tensor that is not a whole
 * number of chunks wastes its last chunk's tail, and its small partners
 * sit in slabs of their own (suballoc.c): an op that reads a 2.8 MiB tensor
 * and writes a 720 KiB one needs 3 chunks where 2 hold both.  On small
 * programs that rounding decides whether an op fits the budget at all (the
 * cuDNN LeNet's pooling backward: 6 chunks against 4).  So the pass gives
 * allocations that the same ops use, and that live until the end of the
 * step loop, one TIDAL_GROUP_ARENA group (pass/plan/pack.c), and the
 * runtime lays the group's members out one after another, in allocation
 * order and RT_SMALL_MIN_BYTES aligned, in one reserved range of
 * TIDAL_ARENA_CHUNKS chunks.  The arena is an ordinary chunked allocation
 * to the rest of the runtime (rt_arena.self, not in the registry): an op
 * or a hint on a member becomes the same op or hint on the arena's range
 * (rt_arena_range), so every chunk rule holds unchanged — a chunk two
 * members share is pinned by an op on either, and a hint evicts it only
 * once hints have covered all of it (Note [partial-chunk hints]), so a hint
 * on one member never evicts bytes of a live neighbour.
 *
 * The arena only grows (no reuse of freed gaps: members live until the
 * loop ends, so gaps are rare); freeing a member releases the chunks no
 * other live member touches, and the last member's free releases the
 * range.  A member that does not fit in its group's current arena opens
 * another; one bigger than half an arena is a plain allocation (the tail
 * an arena saves is then small beside it).  Recompute closures on members
 * are ignored (rt_recompute_register needs chunks of the allocation's
 * own), so a member's data is always swapped, never regenerated. */
#include <stdlib.h>
#include "memory/memory.h"

static size_t cap_bytes(void) { return (size_t)TIDAL_ARENA_CHUNKS * rt_mem.chunk_bytes; }

static tidal_status arena_create(uint32_t group, rt_arena **out) {
  rt_arena *r = calloc(1, sizeof *r);
  rt_chunk *cs = calloc(TIDAL_ARENA_CHUNKS, sizeof *cs);
  if (!r || !cs) {
    free(r);
    free(cs);
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc: out of host memory");
  }
  tidal_status st = rt_dev.be->reserve(rt_dev.b, cap_bytes(), &r->self.base);
  if (st != TIDAL_OK) {
    free(r);
    free(cs);
    return st;
  }
  r->group = group;
  r->self.reserved = cap_bytes();
  r->self.chunks = cs;
  rt_chunks_init(&r->self, TIDAL_ARENA_CHUNKS); /* self.nchunks grows as members come */
  r->next = rt_mem.arenas;
  rt_mem.arenas = r;
  *out = r;
  return TIDAL_OK;
}

static tidal_status arena_destroy(rt_arena *r) {
  tidal_status st = rt_range_release(&r->self);
  free(r->self.chunks);
  free(r->members);
  free(r);
  return st;
}

static void unlink_arena(rt_arena *r) {
  for (rt_arena **p = &rt_mem.arenas; *p; p = &(*p)->next)
    if (*p == r) {
      *p = r->next;
      return;
    }
}

tidal_status rt_arena_alloc(rt_alloc *a, uint32_t group, int *placed) {
  size_t need = rt_small_aligned(a->bytes), cap = cap_bytes();
  *placed = 0;
  if (need > cap / 2)
    return TIDAL_OK;
  rt_arena *r = NULL;
  /* newest first: the group's latest arena, where the last member went */
  for (rt_arena *t = rt_mem.arenas; t && !r; t = t->next)
    if (t->group == group && cap - t->self.bytes >= need)
      r = t;
  if (!r) {
    tidal_status st = arena_create(group, &r);
    if (st != TIDAL_OK)
      return st;
  }
  if (r->nmembers == r->cap_members) {
    uint32_t n = r->cap_members ? r->cap_members * 2 : 8;
    rt_alloc **m = realloc(r->members, n * sizeof *m);
    if (!m) {
      if (!r->nmembers) {
        unlink_arena(r);
        arena_destroy(r);
      }
      return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc: out of host memory");
    }
    r->members = m;
    r->cap_members = n;
  }
  r->members[r->nmembers++] = a; /* the arena only grows: the newest is the highest */
  a->arena = r;
  a->base = r->self.base + r->self.bytes;
  a->reserved = need;
  a->nchunks = 0;
  r->self.bytes += need;
  size_t cb = rt_mem.chunk_bytes;
  r->self.nchunks = (uint32_t)((r->self.bytes + cb - 1) / cb);
  *placed = 1;
  return TIDAL_OK;
}

/* The chunks [*c0, *c1) of r that only member i touches. */
static void own_chunks(const rt_arena *r, uint32_t i, size_t *c0, size_t *c1) {
  size_t cb = rt_mem.chunk_bytes;
  const rt_alloc *a = r->members[i];
  size_t lo = a->base - r->self.base, hi = lo + a->reserved;
  *c0 = lo / cb;
  *c1 = (hi + cb - 1) / cb;
  if (i > 0) {
    const rt_alloc *p = r->members[i - 1];
    if ((p->base - r->self.base + p->reserved - 1) / cb == *c0)
      (*c0)++; /* the previous member ends in our first chunk */
  }
  if (i + 1 < r->nmembers && (r->members[i + 1]->base - r->self.base) / cb == *c1 - 1)
    (*c1)--; /* the next member starts in our last chunk */
  if (*c1 < *c0)
    *c1 = *c0;
}

static uint32_t member_index(const rt_arena *r, const rt_alloc *a) {
  uint32_t i = 0;
  while (i < r->nmembers && r->members[i] != a)
    i++;
  return i;
}

int rt_arena_busy(const rt_alloc *a) {
  const rt_arena *r = a->arena;
  size_t c0, c1;
  own_chunks(r, member_index(r, a), &c0, &c1);
  for (size_t c = c0; c < c1; c++)
    if (r->self.chunks[c].pins)
      return 1;
  return 0;
}

tidal_status rt_arena_free(rt_alloc *a) {
  rt_arena *r = a->arena;
  uint32_t i = member_index(r, a);
  size_t c0, c1;
  own_chunks(r, i, &c0, &c1);
  tidal_status st = TIDAL_OK;
  for (size_t c = c0; c < c1; c++) {
    tidal_status s2 = rt_chunk_release(&r->self.chunks[c]);
    if (st == TIDAL_OK)
      st = s2;
  }
  for (; i + 1 < r->nmembers; i++)
    r->members[i] = r->members[i + 1];
  if (--r->nmembers)
    return st;
  unlink_arena(r);
  tidal_status s2 = arena_destroy(r);
  return st != TIDAL_OK ? st : s2;
}

void rt_arena_range(rt_alloc **a, size_t *off, size_t *len, int hint) {
  rt_alloc *m = *a;
  if (hint && *off + *len == m->bytes)
    *len = m->reserved - *off; /* the padding is nobody's: a hint may cover it */
  *off += m->base - m->arena->self.base;
  *a = &m->arena->self;
}

void rt_arena_destroy_all(void) {
  while (rt_mem.arenas) {
    rt_arena *r = rt_mem.arenas;
    rt_mem.arenas = r->next;
    arena_destroy(r);
  }
}
