/* pool.c - the physical pool, whose size is the budget.
 *
 * Note [resizable pool]: the budget is the number of physical chunks that
 * exist (rt_mem.nphys), so "resident bytes never exceed the budget" holds by
 * construction.  The budget may change at run time (rt_budget_set,
 * policy/budget.c: a shared budget's share moved, or the planner asks):
 *  - growing only raises rt_mem.phys_target: rt_phys_acquire creates a chunk
 *    (rt_pool_add) when none is free and nphys < phys_target, so memory is
 *    taken when it is used, not when it is granted;
 *  - shrinking lowers phys_target; rt_phys_shrink (residency.c) gives free
 *    chunks back, then evicts through the eviction policy (swap-out, drop
 *    for recompute - nothing is lost) and gives each chunk it frees back,
 *    until nphys == phys_target.  Chunks pinned by open ops cannot be
 *    evicted: then rt_phys_release gives chunks back as they come free, and
 *    nphys goes down to the target over the next ops.
 * This file keeps the tables and creates and removes physical chunks;
 * residency.c decides when one goes, because an address may still map it
 * (Note [stale aliases]).  Physical chunk numbers are reused (absent_phys)
 * so the backends' tables stay as large as the largest pool, not the
 * number of changes.  Under a shared budget every chunk created or given
 * back is also counted through rt_mem.share (policy/arbiter.c), which keeps
 * the processes' sum within the total. */
#include <stdlib.h>
#include "memory/memory.h"

static tidal_status grow_tables(uint32_t need) {
  if (need <= rt_mem.cap_phys)
    return TIDAL_OK;
  uint32_t cap = rt_mem.cap_phys ? rt_mem.cap_phys : 64;
  while (cap < need)
    cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
  uint32_t *f = realloc(rt_mem.free_phys, (size_t)cap * sizeof *f);
  if (!f)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  rt_mem.free_phys = f;
  uint32_t *a = realloc(rt_mem.absent_phys, (size_t)cap * sizeof *a);
  if (!a)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  rt_mem.absent_phys = a;
  uint32_t *pos = realloc(rt_mem.free_pos, (size_t)cap * sizeof *pos);
  if (!pos)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  rt_mem.free_pos = pos;
  rt_chunk **own = realloc(rt_mem.phys_owner, (size_t)cap * sizeof *own);
  if (!own)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  for (uint32_t i = rt_mem.cap_phys; i < cap; i++)
    own[i] = NULL;
  rt_mem.phys_owner = own;
  uint64_t *mk = realloc(rt_mem.phys_mark, (size_t)cap * sizeof *mk);
  if (!mk)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  for (uint32_t i = rt_mem.cap_phys; i < cap; i++)
    mk[i] = 0;
  rt_mem.phys_mark = mk;
  rt_mem.cap_phys = cap;
  return TIDAL_OK;
}

void rt_phys_free_push(uint32_t phys) {
  rt_mem.free_pos[phys] = rt_mem.nfree_phys;
  rt_mem.free_phys[rt_mem.nfree_phys++] = phys;
}

uint32_t rt_phys_free_pop(void) { return rt_mem.free_phys[--rt_mem.nfree_phys]; }

int rt_phys_free_take(uint32_t phys) {
  uint32_t i = rt_mem.free_pos[phys];
  if (i >= rt_mem.nfree_phys || rt_mem.free_phys[i] != phys)
    return 0;
  uint32_t top = rt_mem.free_phys[--rt_mem.nfree_phys];
  rt_mem.free_phys[i] = top;
  rt_mem.free_pos[top] = i;
  return 1;
}

tidal_status rt_pool_init(size_t chunk_bytes, size_t budget, int lazy) {
  rt_mem.chunk_bytes = chunk_bytes;
  rt_mem.phys_target = (uint32_t)(budget / chunk_bytes);
  rt_mem.budget_bytes = (size_t)rt_mem.phys_target * chunk_bytes;
  rt_mem.budget_exact = budget;
  uint32_t n = lazy ? 0 : rt_mem.phys_target;
  tidal_status st = grow_tables(n ? n : 1);
  if (st != TIDAL_OK)
    return st;
  for (uint32_t i = n; i-- > 0;)
    rt_phys_free_push(i); /* chunk 0 handed out first */
  rt_mem.nphys = rt_mem.phys_ids = n;
  rt_note_physical();
  return rt_dev.be->pool_create(rt_dev.b, chunk_bytes, n);
}

void rt_pool_destroy(void) {
  free(rt_mem.free_phys);
  free(rt_mem.absent_phys);
  free(rt_mem.free_pos);
  free(rt_mem.phys_owner);
  free(rt_mem.phys_mark);
  rt_mem.free_phys = rt_mem.absent_phys = rt_mem.free_pos = NULL;
  rt_mem.phys_owner = NULL;
  rt_mem.phys_mark = NULL;
}

tidal_status rt_pool_add(uint32_t *phys, int over) {
  if (rt_mem.nphys >= rt_mem.phys_target)
    return TIDAL_ERR_BUDGET; /* not an error: the caller evicts (no message) */
  if (rt_mem.dpool_mapped && !over &&
      rt_physical_bytes() + rt_mem.chunk_bytes > rt_physical_limit())
    return TIDAL_ERR_BUDGET; /* the device pool holds the memory (Note [physical bound]) */
  uint32_t id;
  if (rt_mem.nabsent_phys) {
    id = rt_mem.absent_phys[rt_mem.nabsent_phys - 1];
  } else {
    if (rt_mem.phys_ids == UINT32_MAX)
      return rt_error(TIDAL_ERR_BUDGET, "physical pool: out of chunk numbers");
    tidal_status st = grow_tables(rt_mem.phys_ids + 1);
    if (st != TIDAL_OK)
      return st;
    id = rt_mem.phys_ids;
  }
  if (rt_mem.share && !rt_mem.share->take(rt_mem.chunk_bytes))
    return TIDAL_ERR_BUDGET; /* others hold the shared total: the caller evicts or waits */
  tidal_status st = rt_dev.be->phys_add(rt_dev.b, id);
  if (st != TIDAL_OK) {
    if (rt_mem.share)
      rt_mem.share->give(rt_mem.chunk_bytes);
    return st;
  }
  if (rt_mem.nabsent_phys)
    rt_mem.nabsent_phys--;
  else
    rt_mem.phys_ids++;
  rt_mem.nphys++;
  rt_note_physical();
  *phys = id;
  return TIDAL_OK;
}

void rt_pool_remove(uint32_t phys) {
  if (rt_vmmq_drain() != TIDAL_OK) /* its unmap must have run (Note [vmm worker]) */
    rt_clear_error(); /* the failed worker fails every later op; releasing is still safe */
  rt_dev.be->phys_remove(rt_dev.b, phys);
  rt_mem.absent_phys[rt_mem.nabsent_phys++] = phys;
  rt_mem.nphys--;
  rt_note_physical();
  if (rt_mem.share)
    rt_mem.share->give(rt_mem.chunk_bytes);
}
