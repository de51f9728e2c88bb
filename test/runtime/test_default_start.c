/* test_default_start.c - no default configuration fails at start (issue
 * 23): with no TIDAL_* variable set but the device (tidal_init(NULL), as a
 * rewritten program calls it), the runtime starts with a device-sized
 * budget and the first allocations and ops succeed, large ones included.
 * On a card the same start once stopped with "cuMemCreate: out of memory"
 * (llm.c: the pool took every byte free at tidal_init); the sim has no
 * other tenants, so this pins the sim's half of the contract and the GPU
 * build (label gpu) checks the card's. */
#include "testhelp.h"

extern char **environ;

static const tidal_site site = {"default_op", "default.c", 1, 1e-5};

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  /* nothing from the environment but the device */
  for (int again = 1; again;) {
    again = 0;
    for (char **e = environ; *e; e++)
      if (!strncmp(*e, "TIDAL_", 6)) {
        char name[128];
        size_t n = strcspn(*e, "=");
        snprintf(name, sizeof name, "%.*s", (int)n, *e);
        unsetenv(name);
        again = 1;
        break;
      }
  }
#ifndef TH_GPU
  setenv("TIDAL_DEVICE", "sim", 1);
#endif
  tidal_status st = tidal_init(NULL);
#ifdef TH_GPU
  if (st == TIDAL_ERR_BACKEND) {
    printf("SKIP: no CUDA device: %s\n", tidal_last_error());
    return 77;
  }
#endif
  if (st != TIDAL_OK)
    TH_FAIL("tidal_init(NULL) with no TIDAL_* set: %s", tidal_status_string(st));
  tidal_stats s = th_stats();
  printf("default budget: %llu bytes\n", (unsigned long long)s.budget_bytes);
  CHECK(s.budget_bytes >= ((uint64_t)1 << 30)); /* the device's, not a token amount */
  /* first allocations: small (packed), a few MiB, and 1 GiB */
  static const size_t sizes[] = {256, 4096, (size_t)3 << 20, (size_t)64 << 20, (size_t)1 << 30};
  void *p[5];
  for (int i = 0; i < 5; i++)
    CHECK_OK(tidal_malloc(&p[i], sizes[i]));
  /* ops over them: the small ones whole, 64 MiB of the largest */
  for (int i = 0; i < 5; i++) {
    size_t n = sizes[i] < ((size_t)64 << 20) ? sizes[i] : ((size_t)64 << 20);
    unsigned char *want = malloc(n), *got = malloc(n);
    CHECK(want && got);
    th_fill_pattern(want, n, (uint64_t)i);
    tidal_access w = {p[i], n, TIDAL_WRITE};
    CHECK_OK(tidal_op_begin(&site, 1, &w));
    th_put(p[i], want, n);
    CHECK_OK(tidal_op_end(&site));
    tidal_access r = {p[i], n, TIDAL_READ};
    CHECK_OK(tidal_op_begin(&site, 1, &r));
    th_get(got, p[i], n);
    CHECK_OK(tidal_op_end(&site));
    CHECK(memcmp(want, got, n) == 0);
    free(want);
    free(got);
  }
  for (int i = 0; i < 5; i++)
    CHECK_OK(tidal_free(p[i]));
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
