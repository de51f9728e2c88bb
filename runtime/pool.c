/* pool.c - the physical pool, whose size is the budget, and changing it.
 *
 * Note [resizable pool]: the budget is the number of physical chunks that
 * exist (rt_g.nphys), so "resident bytes never exceed the budget" holds by
 * construction.  The budget may change at run time (rt_budget_set: a shared
 * budget's share moved, or the planner asks):
 *  - growing only raises rt_g.phys_target: rt_phys_acquire creates a chunk
 *    (rt_pool_add) when none is free and nphys < phys_target, so memory is
 *    taken when it is used, not when it is granted;
 *  - shrinking lowers phys_target, gives free chunks back, then evicts
 *    through the usual path (rt_phys_acquire: LRU, swap-out, drop for
 *    recompute - nothing is lost) and gives each chunk it frees back, until
 *    nphys == phys_target.  Chunks pinned by open ops cannot be evicted:
 *    then rt_phys_release gives chunks back as they come free, and nphys
 *    goes down to the target over the next ops.
 * Physical chunk numbers are reused (absent_phys) so the backends' tables
 * stay as large as the largest pool, not the number of changes.  Under a
 * shared budget every chunk created or given back is also counted by the
 * arbiter (arbiter.c), which keeps the processes' sum within the total. */
#include <stdlib.h>
#include "rt.h"

static tidal_status grow_tables(uint32_t need) {
  if (need <= rt_g.cap_phys)
    return TIDAL_OK;
  uint32_t cap = rt_g.cap_phys ? rt_g.cap_phys : 64;
  while (cap < need)
    cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
  uint32_t *f = realloc(rt_g.free_phys, (size_t)cap * sizeof *f);
  if (!f)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  rt_g.free_phys = f;
  uint32_t *a = realloc(rt_g.absent_phys, (size_t)cap * sizeof *a);
  if (!a)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  rt_g.absent_phys = a;
  uint32_t *pos = realloc(rt_g.free_pos, (size_t)cap * sizeof *pos);
  if (!pos)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  rt_g.free_pos = pos;
  rt_chunk **own = realloc(rt_g.phys_owner, (size_t)cap * sizeof *own);
  if (!own)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  for (uint32_t i = rt_g.cap_phys; i < cap; i++)
    own[i] = NULL;
  rt_g.phys_owner = own;
  uint64_t *mk = realloc(rt_g.phys_mark, (size_t)cap * sizeof *mk);
  if (!mk)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "physical pool: out of host memory");
  for (uint32_t i = rt_g.cap_phys; i < cap; i++)
    mk[i] = 0;
  rt_g.phys_mark = mk;
  rt_g.cap_phys = cap;
  return TIDAL_OK;
}

static void free_push(uint32_t phys) {
  rt_g.free_pos[phys] = rt_g.nfree_phys;
  rt_g.free_phys[rt_g.nfree_phys++] = phys;
}

uint32_t rt_phys_free_pop(void) { return rt_g.free_phys[--rt_g.nfree_phys]; }

int rt_phys_free_take(uint32_t phys) {
  uint32_t i = rt_g.free_pos[phys];
  if (i >= rt_g.nfree_phys || rt_g.free_phys[i] != phys)
    return 0;
  uint32_t top = rt_g.free_phys[--rt_g.nfree_phys];
  rt_g.free_phys[i] = top;
  rt_g.free_pos[top] = i;
  return 1;
}

tidal_status rt_pool_init(size_t chunk_bytes, size_t budget, int lazy) {
  rt_g.chunk_bytes = chunk_bytes;
  rt_g.phys_target = (uint32_t)(budget / chunk_bytes);
  rt_g.budget_bytes = (size_t)rt_g.phys_target * chunk_bytes;
  uint32_t n = lazy ? 0 : rt_g.phys_target;
  tidal_status st = grow_tables(n ? n : 1);
  if (st != TIDAL_OK)
    return st;
  for (uint32_t i = n; i-- > 0;)
    free_push(i); /* chunk 0 handed out first */
  rt_g.nphys = rt_g.phys_ids = n;
  return rt_g.be->pool_create(rt_g.b, chunk_bytes, n);
}

void rt_pool_destroy(void) {
  free(rt_g.free_phys);
  free(rt_g.absent_phys);
  free(rt_g.free_pos);
  free(rt_g.phys_owner);
  free(rt_g.phys_mark);
  rt_g.free_phys = rt_g.absent_phys = rt_g.free_pos = NULL;
  rt_g.phys_owner = NULL;
  rt_g.phys_mark = NULL;
}

tidal_status rt_pool_add(uint32_t *phys) {
  if (rt_g.nphys >= rt_g.phys_target)
    return TIDAL_ERR_BUDGET; /* not an error: the caller evicts (no message) */
  uint32_t id;
  if (rt_g.nabsent_phys) {
    id = rt_g.absent_phys[rt_g.nabsent_phys - 1];
  } else {
    if (rt_g.phys_ids == UINT32_MAX)
      return rt_error(TIDAL_ERR_BUDGET, "physical pool: out of chunk numbers");
    tidal_status st = grow_tables(rt_g.phys_ids + 1);
    if (st != TIDAL_OK)
      return st;
    id = rt_g.phys_ids;
  }
  if (!rt_arbiter_take(rt_g.chunk_bytes))
    return TIDAL_ERR_BUDGET; /* others hold the shared total: the caller evicts or waits */
  tidal_status st = rt_g.be->phys_add(rt_g.b, id);
  if (st != TIDAL_OK) {
    rt_arbiter_give(rt_g.chunk_bytes);
    return st;
  }
  if (rt_g.nabsent_phys)
    rt_g.nabsent_phys--;
  else
    rt_g.phys_ids++;
  rt_g.nphys++;
  *phys = id;
  return TIDAL_OK;
}

static void remove_one(uint32_t phys) {
  rt_phys_unalias(phys); /* no address may keep it mapped (Note [stale aliases]) */
  if (rt_vmmq_drain() != TIDAL_OK) /* its unmap must have run (Note [vmm worker]) */
    rt_clear_error(); /* the failed worker fails every later op; releasing is still safe */
  rt_g.be->phys_remove(rt_g.b, phys);
  rt_g.absent_phys[rt_g.nabsent_phys++] = phys;
  rt_g.nphys--;
  rt_arbiter_give(rt_g.chunk_bytes);
}

/* A fault-in exchange trades one chunk's host copy for another chunk's
 * device memory: the pool's size does not change, so a shrink in progress
 * must not take the memory the exchange frees (Note [exchange]). */
static int keep_released;

void rt_pool_keep_released(int on) { keep_released = on; }

void rt_phys_release(uint32_t phys) {
  rt_g.phys_owner[phys] = NULL;
  if (rt_g.nphys > rt_g.phys_target && !keep_released)
    remove_one(phys); /* a shrink still in progress (Note [resizable pool]) */
  else
    free_push(phys);
}

tidal_status rt_budget_set(size_t bytes) {
  if (!rt_g.initialized)
    return rt_error(TIDAL_ERR_NOT_INITIALIZED, "budget change: tidal_init has not run");
  size_t cb = rt_g.chunk_bytes;
  if (bytes / cb == 0 || bytes / cb > UINT32_MAX || bytes > rt_g.device_free)
    return rt_error(TIDAL_ERR_CONFIG,
                    "budget change to %zu bytes: not 1..2^32 chunks of %zu within the %zu bytes "
                    "the device offered",
                    bytes, cb, rt_g.device_free);
  size_t old = rt_g.budget_bytes;
  rt_g.phys_target = (uint32_t)(bytes / cb);
  rt_g.budget_bytes = (size_t)rt_g.phys_target * cb;
  while (rt_g.nphys > rt_g.phys_target && rt_g.nfree_phys)
    remove_one(rt_phys_free_pop());
  /* Evict the rest through the usual path: each chunk it frees comes back
   * to rt_phys_release and goes.  What open ops pin goes later. */
  while (rt_g.nphys > rt_g.phys_target) {
    if (rt_phys_free_one("budget change") != TIDAL_OK) {
      rt_clear_error();
      rt_log(3, "budget change to %zu bytes: %u chunks stay until open ops release them",
             rt_g.budget_bytes, rt_g.nphys - rt_g.phys_target);
      break;
    }
  }
  if (RT_TRACING())
    rt_trace("budget", "\"old\":%zu,\"new\":%zu,\"physical\":%zu", old, rt_g.budget_bytes,
             (size_t)rt_g.nphys * cb);
  if (old != rt_g.budget_bytes && rt_g.budget_changed)
    rt_g.budget_changed(old, rt_g.budget_bytes);
  return TIDAL_OK;
}
