/* evict.h - the seam between the residency mechanism and the eviction
 * policy.
 *
 * Note [eviction seam]: residency.c never chooses a victim itself.  Every
 * "which chunk?" - which one gives up its memory, whose host copy a dirty
 * victim takes when the store is full, what tidal_keep means - goes through
 * this table, set at tidal_init (rt_mem.evict).  After jemalloc's pai.h: a
 * few operations that any policy provides, so that another policy (DELTA's
 * filter, a lifetime-aware pool) plugs in here without reading the state
 * machine.  policy/evict_lru.c is the one implementation now; it drives
 * the mechanism through memory.h (rt_chunk_evict, rt_parked_give,
 * rt_swap_out_finish, rt_chunk_take_host, rt_chunk_settle, rt_reap). */
#ifndef TIDAL_RT_EVICT_H
#define TIDAL_RT_EVICT_H

#include <stdint.h>
#include "tidal.h"

struct rt_chunk;

typedef struct rt_evict_ops {
  const char *name;
  void (*init)(void); /* tidal_init: no keep request holds */
  /* One step towards a free physical chunk (reassign parked memory, finish
   * a swap-out, start evicting one, land a prefetch); TIDAL_ERR_BUDGET,
   * with the message, when nothing can move.  Called by rt_phys_acquire
   * and while the pool shrinks. */
  tidal_status (*free_one)(const char *why);
  /* A host slot for a copy of `except`'s data: when the store is full, a
   * clean chunk's copy (rt_chunk_take_host); -1 if none. */
  int64_t (*host_slot)(const struct rt_chunk *except);
  void (*keep)(struct rt_chunk *c);   /* tidal_keep on c (for a packed member: its slab) */
  void (*iteration_end)(void); /* tidal_iteration_end: keep requests expire */
} rt_evict_ops;

#endif
