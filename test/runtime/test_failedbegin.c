/* test_failedbegin.c - a failed tidal_op_begin leaves alone the chunks that
 * earlier ops restored.  A read of a dropped chunk maps it fresh and marks
 * it (Note [write-only restore]); the mark once survived the op when
 * nothing wrote the chunk, so a later failed begin declaring that chunk
 * "undid" it: unmapped, state reset, host copy still recorded (a leaked
 * slot; data lost).  Found by test_property's host-starved profile. */
#include "testhelp.h"

static const tidal_site site = {"fb_op", __FILE__, __LINE__, 0};

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 4);
  size_t ch = cfg.chunk_bytes;
  cfg.host_budget_bytes = 4 * ch;
  th_init(&cfg);
  unsigned char *x, *big;
  CHECK_OK(tidal_malloc((void **)&x, ch));
  CHECK_OK(tidal_malloc((void **)&big, 8 * ch)); /* more than the budget */

  /* 1. A read of dropped x maps it (its contents are undefined). */
  CHECK_OK(tidal_drop(x, ch));
  tidal_access rx = {x, ch, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &rx));
  CHECK_OK(tidal_op_end(&site));
  tidal_stats s0 = th_stats();
  CHECK(s0.resident_bytes == ch);

  /* 2. An op that can never fit fails; x, which it declared, stays mapped. */
  tidal_access two[2] = {{x, ch, TIDAL_READ}, {big, 8 * ch, TIDAL_READWRITE}};
  CHECK_STATUS(tidal_op_begin(&site, 2, two), TIDAL_ERR_BUDGET);
  tidal_stats s1 = th_stats();
  if (s1.resident_bytes != s0.resident_bytes)
    TH_FAIL("a failed begin changed resident bytes from %llu to %llu",
            (unsigned long long)s0.resident_bytes, (unsigned long long)s1.resident_bytes);
  th_check_host("after a failed begin");

  /* 3. The same with a host copy: x goes out and comes back by a read (it
   * then holds a host slot); a failed begin must not drop that copy. */
  unsigned char want[64], got[64];
  th_fill_pattern(want, sizeof want, 3);
  CHECK_OK(tidal_swap_out(x, ch));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(tidal_op_begin(&site, 1, &rx));
  CHECK_OK(tidal_op_end(&site));
  th_check_host("after x came back");
  CHECK_STATUS(tidal_op_begin(&site, 2, two), TIDAL_ERR_BUDGET);
  th_check_host("after a second failed begin");
  CHECK(th_stats().resident_bytes == ch);

  /* 4. x's data written now survives swap-outs and failed begins. */
  tidal_access wx = {x, sizeof want, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &wx));
  th_put(x, want, sizeof want);
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_swap_out(x, ch));
  CHECK_OK(tidal_synchronize());
  CHECK_STATUS(tidal_op_begin(&site, 2, two), TIDAL_ERR_BUDGET);
  CHECK_OK(tidal_op_begin(&site, 1, &rx));
  th_get(got, x, sizeof got);
  CHECK_OK(tidal_op_end(&site));
  CHECK(memcmp(got, want, sizeof want) == 0);
  th_check_host("at the end");
  CHECK_OK(tidal_free(x));
  CHECK_OK(tidal_free(big));
  th_check_host("after the frees");
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
