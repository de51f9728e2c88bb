/* test_budget.c - resident bytes never exceed the budget, and an op whose
 * own working set is larger than the budget gets TIDAL_ERR_BUDGET naming the
 * op and the bytes, leaving the runtime usable. */
#include "testhelp.h"

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 10);
  th_init(&cfg);
  const size_t CH = cfg.chunk_bytes, BUDGET = 10 * CH;
  CHECK(th_stats().budget_bytes == BUDGET);

  enum { N = 6 };
  unsigned char *t[N];
  for (int i = 0; i < N; i++)
    CHECK_OK(tidal_malloc((void **)&t[i], 4 * CH));
  static const tidal_site site = {"budget_op", "model.cu", 42, 0};

  /* Random ops over 24 chunks of data in a 10-chunk budget. */
  unsigned char *buf = malloc(4 * CH);
  CHECK(buf);
  for (int step = 0; step < 2000; step++) {
    int n = 1 + (int)th_below(2);
    tidal_access acc[2];
    for (int k = 0; k < n; k++) {
      acc[k].ptr = t[th_below(N)] + th_below(CH);
      acc[k].bytes = th_below(2) ? TIDAL_EXTENT_UNKNOWN : 1 + th_below(3 * CH);
      acc[k].mode = (tidal_mode)(1 + th_below(3));
    }
    CHECK_OK(tidal_op_begin(&site, n, acc));
    tidal_stats s = th_stats();
    CHECK(s.resident_bytes <= BUDGET);
    CHECK_OK(tidal_op_end(&site));
    if (th_below(4) == 0)
      CHECK_OK(tidal_swap_out(t[th_below(N)], TIDAL_EXTENT_UNKNOWN));
    if (th_below(4) == 0)
      CHECK_OK(tidal_prefetch(t[th_below(N)], TIDAL_EXTENT_UNKNOWN));
  }
  tidal_stats s = th_stats();
  CHECK(s.total.peak_resident_bytes <= BUDGET);
  CHECK(s.total.peak_resident_bytes == BUDGET); /* the pressure really was there */
  CHECK(s.total.evictions > 0);

  /* One op bigger than the budget: refused, with the site and the bytes. */
  unsigned char *big;
  CHECK_OK(tidal_malloc((void **)&big, 11 * CH));
  tidal_access whole = {big, TIDAL_EXTENT_UNKNOWN, TIDAL_READ};
  CHECK_STATUS(tidal_op_begin(&site, 1, &whole), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("budget_op");
  CHECK_MESSAGE("model.cu:42");
  char bytes[64];
  snprintf(bytes, sizeof bytes, "%zu bytes", 11 * CH);
  CHECK_MESSAGE(bytes);
  /* Two accesses that together exceed it, too. */
  tidal_access two[2] = {{t[0], TIDAL_EXTENT_UNKNOWN, TIDAL_READ},
                         {big, 7 * CH, TIDAL_WRITE}};
  CHECK_STATUS(tidal_op_begin(&site, 2, two), TIDAL_ERR_BUDGET);
  /* Nothing stayed open or pinned: a fitting op still works. */
  CHECK_STATUS(tidal_op_end(&site), TIDAL_ERR_INVALID);
  tidal_access fits = {big, BUDGET, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &fits));
  CHECK(th_stats().resident_bytes == BUDGET);
  CHECK_OK(tidal_op_end(&site));

  /* Nested ops that together need more than the budget fail cleanly. */
  static const tidal_site inner = {"inner_op", "model.cu", 43, 0};
  tidal_access a6 = {big, 6 * CH, TIDAL_READ}, b6 = {t[1], 4 * CH, TIDAL_READ},
               c2 = {t[2], 2 * CH, TIDAL_READ};
  tidal_access outer2[2] = {a6, b6};
  CHECK_OK(tidal_op_begin(&site, 2, outer2));
  CHECK_STATUS(tidal_op_begin(&inner, 1, &c2), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("pinned");
  CHECK_OK(tidal_op_end(&site));
  CHECK(th_stats().total.peak_resident_bytes <= BUDGET);

  free(buf);
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
