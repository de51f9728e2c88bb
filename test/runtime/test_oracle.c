/* test_oracle.c - the sim's page protection is a working oracle: touching a
 * chunk that is not resident kills the process with SIGSEGV (death tests in a
 * forked child), and after tidal_op_begin every declared byte is readable
 * and writable.  Sim only: on a GPU an evicted access is not a host fault. */
#include "testhelp.h"
#ifndef TH_GPU
#include <signal.h>

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 8);
  cfg.sim_synchronous = 1;
  th_init(&cfg);
  const size_t CH = cfg.chunk_bytes;
  unsigned char *p;
  CHECK_OK(tidal_malloc((void **)&p, 3 * CH));
  static const tidal_site site = {"oracle", __FILE__, __LINE__, 0};

  /* Never written: nothing is mapped yet. */
  CHECK(th_death_signal(th_touch_read, p) == SIGSEGV);

  /* Declared: every byte readable and writable, the undeclared chunk is not. */
  tidal_access w = {p, 2 * CH, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &w));
  for (size_t i = 0; i < 2 * CH; i++)
    p[i] = (unsigned char)(i * 7);
  CHECK_OK(tidal_op_end(&site));
  CHECK(th_death_signal(th_touch_write, p + 2 * CH) == SIGSEGV);
  CHECK(th_death_signal(th_touch_read, p + CH) == 0); /* resident after the op: no fault */

  /* Swapped out: touching it faults; op_begin brings it back intact. */
  CHECK_OK(tidal_swap_out(p, 2 * CH));
  CHECK_OK(tidal_synchronize());
  CHECK(th_death_signal(th_touch_read, p) == SIGSEGV);
  CHECK(th_death_signal(th_touch_read, p + 2 * CH - 1) == SIGSEGV);
  tidal_access r = {p + CH / 2, CH, TIDAL_READ}; /* straddles both chunks */
  CHECK_OK(tidal_op_begin(&site, 1, &r));
  for (size_t i = CH / 2; i < CH / 2 + CH; i++)
    CHECK(p[i] == (unsigned char)(i * 7));
  CHECK_OK(tidal_op_end(&site));

  /* Dropped: the chunk is gone too. */
  CHECK_OK(tidal_drop(p, CH));
  CHECK(th_death_signal(th_touch_read, p) == SIGSEGV);
  CHECK(th_death_signal(th_touch_read, p + CH) == 0); /* the neighbour chunk stays */

  /* An op's write-only access maps memory that is then writable everywhere. */
  tidal_access all = {p, TIDAL_EXTENT_UNKNOWN, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &all));
  memset(p, 0x5a, 3 * CH);
  CHECK_OK(tidal_op_end(&site));

  /* The oracle can fail: with the runtime bypassed (no op_begin after an
   * eviction) a program would crash rather than read stale data. */
  CHECK_OK(tidal_swap_out(p, TIDAL_EXTENT_UNKNOWN));
  CHECK_OK(tidal_synchronize());
  CHECK(th_death_signal(th_touch_write, p + 3 * CH - 1) == SIGSEGV);

  CHECK_OK(tidal_free(p));
  CHECK(th_death_signal(th_touch_read, p) == SIGSEGV); /* freed: the reservation is gone */
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
#else
int main(void) {
  printf("SKIP: the page-protection oracle is a sim backend feature\n");
  return 77;
}
#endif
