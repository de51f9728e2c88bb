/* test_resize.c - the budget changes at run time (Note [resizable pool],
 * pool.c): shrinking evicts down to the new size and gives the physical
 * chunks back without losing a byte, also while an op pins chunks; growing
 * lets bigger ops run; the planner's hook hears every change; random ops
 * under random budget changes keep every byte (checked against a host
 * shadow) and never hold more physical chunks than the budget between ops. */
#include "testhelp.h"
#include "policy/policy.h"

enum { N = 8, CHUNKS_PER = 3 };
static unsigned char *t[N];
static unsigned char *shadow[N];
static size_t CH;
static const tidal_site site = {"resize_op", "resize.c", 1, 1e-6};

static size_t hook_calls, hook_old, hook_new;
static void on_budget(size_t old_bytes, size_t new_bytes) {
  hook_calls++;
  hook_old = old_bytes;
  hook_new = new_bytes;
}

/* Writes tensor i with a fresh pattern (a write-only op). */
static void write_tensor(int i, uint64_t salt) {
  tidal_access a = {t[i], TIDAL_EXTENT_UNKNOWN, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  th_fill_pattern(shadow[i], CHUNKS_PER * CH, salt);
  th_put(t[i], shadow[i], CHUNKS_PER * CH);
  CHECK_OK(tidal_op_end(&site));
}

static void check_tensor(int i) {
  tidal_access a = {t[i], TIDAL_EXTENT_UNKNOWN, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  unsigned char *got = malloc(CHUNKS_PER * CH);
  CHECK(got);
  th_get(got, t[i], CHUNKS_PER * CH);
  if (memcmp(got, shadow[i], CHUNKS_PER * CH) != 0)
    TH_FAIL("tensor %d lost data", i);
  free(got);
  CHECK_OK(tidal_op_end(&site));
}

/* Between ops the pool holds at most the budget. */
static void check_pool(void) {
  tidal_stats s = th_stats();
  CHECK(s.budget_bytes == rt_mem.budget_bytes);
  CHECK((size_t)rt_mem.nphys * CH <= s.budget_bytes);
  CHECK(s.resident_bytes <= s.budget_bytes);
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 24);
  cfg.sim_synchronous = 0;
  th_init(&cfg);
  CH = cfg.chunk_bytes;
  rt_pol.budget_changed = on_budget;
  for (int i = 0; i < N; i++) {
    CHECK_OK(tidal_malloc((void **)&t[i], CHUNKS_PER * CH));
    shadow[i] = malloc(CHUNKS_PER * CH);
    CHECK(shadow[i]);
    write_tensor(i, (uint64_t)i);
  }
  CHECK(th_stats().resident_bytes == 24 * CH); /* everything fits: all resident */

  /* Shrink to 5 chunks: evicted down to it, physical chunks given back. */
  CHECK_OK(rt_budget_set(5 * CH));
  CHECK(hook_calls == 1 && hook_old == 24 * CH && hook_new == 5 * CH);
  CHECK(rt_mem.nphys == 5);
  check_pool();
  CHECK(th_stats().total.swapped_out_bytes >= 19 * CH);
  for (int i = 0; i < N; i++)
    check_tensor(i);
  check_pool();

  /* An op of 6 chunks does not fit 5; after growing to 12 it does. */
  tidal_access two[2] = {{t[0], TIDAL_EXTENT_UNKNOWN, TIDAL_READ},
                         {t[1], TIDAL_EXTENT_UNKNOWN, TIDAL_READ}};
  CHECK_STATUS(tidal_op_begin(&site, 2, two), TIDAL_ERR_BUDGET);
  CHECK_OK(rt_budget_set(12 * CH));
  CHECK(hook_calls == 2 && hook_new == 12 * CH);
  CHECK(rt_mem.nphys == 5); /* growing takes memory when it is used, not before */
  CHECK_OK(tidal_op_begin(&site, 2, two));
  CHECK_OK(tidal_op_end(&site));
  for (int i = 0; i < N; i++)
    check_tensor(i);
  CHECK(rt_mem.nphys == 12);
  check_pool();

  /* Shrinking inside an open op: its pinned chunks stay until it ends and
   * go back as the next ops release chunks. */
  tidal_access one = {t[2], TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &one));
  CHECK_OK(rt_budget_set(2 * CH)); /* the op itself pins 3 */
  CHECK(rt_mem.nphys >= 3 && rt_mem.nphys <= 12);
  th_get(shadow[2], t[2], CHUNKS_PER * CH); /* still mapped and intact */
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(rt_budget_set(3 * CH));
  CHECK(rt_mem.nphys == 3);
  check_pool();
  for (int i = 0; i < N; i++)
    check_tensor(i);
  CHECK(hook_calls == 4);
  CHECK_OK(rt_budget_set(3 * CH)); /* no change: no call */
  CHECK(hook_calls == 4);
  CHECK_STATUS(rt_budget_set(CH - 1), TIDAL_ERR_CONFIG);
  CHECK(th_stats().budget_bytes == 3 * CH);

  /* Random ops (nested ones too) under random budgets. */
  for (int step = 0; step < 3000; step++) {
    if (th_below(8) == 0) {
      size_t b = (3 + th_below(22)) * CH;
      CHECK_OK(rt_budget_set(b));
      CHECK(th_stats().budget_bytes == b);
      check_pool();
    }
    int i = (int)th_below(N);
    switch (th_below(5)) {
    case 0: write_tensor(i, (uint64_t)step); break;
    case 1: check_tensor(i); break;
    case 2: CHECK_OK(tidal_swap_out(t[i], TIDAL_EXTENT_UNKNOWN)); break;
    case 3: CHECK_OK(tidal_prefetch(t[i], TIDAL_EXTENT_UNKNOWN)); break;
    default: { /* an op that shrinks the budget below itself, then grows it */
      size_t before = th_stats().budget_bytes;
      tidal_access a = {t[i], TIDAL_EXTENT_UNKNOWN, TIDAL_READ};
      CHECK_OK(tidal_op_begin(&site, 1, &a));
      CHECK_OK(rt_budget_set(CH));
      CHECK_OK(rt_budget_set(before));
      CHECK_OK(tidal_op_end(&site));
      break;
    }
    }
    check_pool();
  }
  for (int i = 0; i < N; i++)
    check_tensor(i);
  CHECK_OK(tidal_shutdown());
  CHECK_STATUS(rt_budget_set(CH), TIDAL_ERR_NOT_INITIALIZED);
  for (int i = 0; i < N; i++)
    free(shadow[i]);
  printf("ok\n");
  return 0;
}
