/* test_evict.c - the LRU eviction policy (policy/evict_lru.c) through its
 * interface (Note [eviction seam]): which chunk free_one releases and in
 * which order, what it does instead of waiting, whose host copy host_slot
 * takes, and what it says when nothing can move.
 *
 * Each case puts chunks into known states with ordinary ops and hints,
 * checks that they are there, then calls the policy's table directly and
 * checks the one chunk that moved.  Copies to the host are made slow in the
 * sim's model (a 4 KiB swap-out takes 4 modelled seconds) so that a
 * swap-out stays in flight until something waits for it. */
#include "testhelp.h"
#include "policy/policy.h"

enum { NT = 6 };
static size_t CH;
static unsigned char *t[NT];
static unsigned char shadow[NT][4096];
static const tidal_site site = {"evict_op", "evict.c", 1, 1e-6};

static rt_chunk *chunk_of(const void *p) {
  rt_alloc *a = rt_registry_find((uintptr_t)p);
  CHECK(a && a->nchunks == 1);
  return &a->chunks[0];
}

static void write_t(int i) { th_op_write(&site, t[i], CH, shadow[i], (uint64_t)i + 1); }
static void read_t(int i) { th_op_check(&site, t[i], CH, shadow[i]); }

static const char *state_name(int s) {
  static const char *const n[] = {"UNMAPPED", "RESIDENT",    "DIRTY",   "SWAPPING_OUT",
                                  "ON_HOST",  "PREFETCHING", "DROPPED", "RECOMPUTABLE"};
  return s >= 0 && s < 8 ? n[s] : "?";
}

#define CHECK_STATE(i, want)                                                                       \
  do {                                                                                             \
    int got_ = chunk_of(t[i])->state;                                                              \
    if (got_ != (want))                                                                            \
      TH_FAIL("t[%d] is %s, expected %s", (i), state_name(got_), state_name(want));                \
  } while (0)

static void init(tidal_planner planner, size_t host_budget) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 4); /* room for 4 of the 6 tensors */
  cfg.planner = planner;
  cfg.sim_d2h_bytes_per_s = 1024; /* Note at the top: swap-outs stay in flight */
  cfg.host_budget_bytes = host_budget;
  cfg.host_reserve_bytes = host_budget;
  th_init(&cfg);
  CH = cfg.chunk_bytes;
  CHECK(rt_mem.evict == &rt_evict_lru);
  for (int i = 0; i < NT; i++)
    CHECK_OK(tidal_malloc((void **)&t[i], CH));
}

/* LRU order, a wait only when nothing clean can go, parked memory first,
 * tidal_keep, and clean chunks before waiting for a swap-out. */
static void order(void) {
  init(TIDAL_PLANNER_HINTS, 64 * 4096);
  for (int i = 0; i < 4; i++)
    write_t(i); /* LRU: t0 t1 t2 t3, all dirty, the pool full */
  CHECK(rt_mem.nfree_phys == 0 && rt_mem.parked.n == 0 && rt_mem.out.n == 0);

  /* The least recently used goes, copied out (dirty). */
  uint64_t ev0 = th_stats().total.evictions;
  CHECK_OK(rt_evict_lru.free_one("test"));
  CHECK_STATE(0, RT_SWAPPING_OUT);
  CHECK_STATE(1, RT_DIRTY);
  CHECK(th_stats().total.evictions == ev0 + 1);

  /* A swap-out in flight and nothing clean: wait for it; it parks. */
  CHECK_OK(rt_evict_lru.free_one("test"));
  CHECK_STATE(0, RT_ON_HOST);
  CHECK(chunk_of(t[0])->parked && rt_mem.out.n == 0);
  CHECK_STATE(1, RT_DIRTY); /* nothing else moved */

  /* Parked memory goes before anything resident is touched. */
  CHECK_OK(rt_evict_lru.free_one("test"));
  CHECK(!chunk_of(t[0])->parked && chunk_of(t[0])->stale && rt_mem.nfree_phys == 1);
  CHECK_STATE(1, RT_DIRTY);

  /* Kept chunks are passed over: t1 is the LRU head, t2 goes. */
  CHECK_OK(tidal_keep(t[1], CH));
  CHECK_OK(rt_evict_lru.free_one("test"));
  CHECK_STATE(1, RT_DIRTY);
  CHECK_STATE(2, RT_SWAPPING_OUT);

  /* Note [clean before waiting]: t0 comes back clean (its host copy
   * stays); with t2's copy still in flight, t0 goes at no cost instead of
   * a wait. */
  read_t(0);
  CHECK_STATE(0, RT_RESIDENT);
  CHECK(chunk_of(t[0])->host_slot >= 0);
  CHECK_STATE(2, RT_SWAPPING_OUT);
  CHECK_OK(rt_evict_lru.free_one("test"));
  CHECK_STATE(0, RT_ON_HOST);
  CHECK(chunk_of(t[0])->parked);
  CHECK_STATE(2, RT_SWAPPING_OUT); /* not waited for */

  /* The keep request ends with the iteration: t1 is an ordinary victim. */
  CHECK_OK(tidal_iteration_begin());
  CHECK_OK(tidal_iteration_end());
  CHECK_OK(tidal_synchronize()); /* t2's copy lands and parks */
  CHECK_OK(rt_release_parked());
  CHECK_OK(rt_evict_lru.free_one("test")); /* LRU now: t1 t3 */
  CHECK_STATE(1, RT_SWAPPING_OUT);
  CHECK_STATE(3, RT_DIRTY);
  CHECK_OK(tidal_synchronize());
  for (int i = 0; i < 4; i++)
    read_t(i); /* nothing was lost */
  th_check_host("after the order cases");
  CHECK_OK(tidal_shutdown());
}

/* Under the run-time planner a clean chunk is not evicted to avoid a wait:
 * the plan may be keeping it (Note [clean before waiting]). */
static void steered(void) {
  init(TIDAL_PLANNER_RUNTIME, 64 * 4096);
  for (int i = 0; i < 4; i++)
    write_t(i);
  CHECK_OK(rt_evict_lru.free_one("test")); /* t0 out, in flight */
  CHECK_OK(rt_evict_lru.free_one("test")); /* waited: t0 parks */
  read_t(0);                               /* t0 clean again */
  CHECK_STATE(0, RT_RESIDENT);
  CHECK_OK(rt_evict_lru.free_one("test")); /* t1 out, in flight */
  CHECK_STATE(1, RT_SWAPPING_OUT);
  CHECK_OK(rt_evict_lru.free_one("test"));
  CHECK_STATE(1, RT_ON_HOST); /* waited for */
  CHECK_STATE(0, RT_RESIDENT); /* kept */
  CHECK_OK(tidal_shutdown());
}

/* A full host store: a dirty victim takes the host copy of the most
 * recently used clean chunk (the least likely to go soon). */
static void host_slot(void) {
  init(TIDAL_PLANNER_HINTS, 2 * 4096); /* two slots */
  write_t(0);
  write_t(1);
  CHECK_OK(tidal_swap_out(t[0], CH));
  CHECK_OK(tidal_swap_out(t[1], CH));
  CHECK_OK(tidal_synchronize());
  read_t(0); /* both back from their parked memory, clean: LRU t0 t1 */
  read_t(1);
  CHECK_STATE(0, RT_RESIDENT);
  CHECK_STATE(1, RT_RESIDENT);
  CHECK(rt_mem.hs.used == 2 && rt_mem.hs.used == rt_host_capacity_slots());
  int64_t slot = rt_evict_lru.host_slot(NULL);
  CHECK(slot >= 0);
  CHECK_STATE(1, RT_DIRTY); /* its copy was taken */
  CHECK(chunk_of(t[1])->host_slot < 0);
  CHECK_STATE(0, RT_RESIDENT);
  CHECK(chunk_of(t[0])->host_slot >= 0);
  /* Still full: the only clean chunk left is the one asking, which is
   * never its own donor. */
  CHECK(rt_evict_lru.host_slot(chunk_of(t[0])) < 0);
  CHECK_STATE(0, RT_RESIDENT);
  CHECK(chunk_of(t[0])->host_slot >= 0);
  rt_host_slot_free(slot);
  th_check_host("after host_slot");
  read_t(0);
  read_t(1);
  CHECK_OK(tidal_shutdown());
}

/* Nothing can move: every chunk is pinned by the open op. */
static void exhausted(void) {
  init(TIDAL_PLANNER_HINTS, 64 * 4096);
  tidal_access acc[4];
  for (int i = 0; i < 4; i++)
    acc[i] = (tidal_access){t[i], CH, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 4, acc));
  CHECK_STATUS(rt_evict_lru.free_one("test"), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("test for op evict_op");
  CHECK_MESSAGE("pinned by 1 open op");
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_shutdown());
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  order();
  steered();
  host_slot();
  exhausted();
  printf("ok\n");
  return 0;
}
