/* test_diagnostics.c - what the runtime tells its user: TIDAL_ERR_BUDGET
 * messages raised during eviction (op site, file:line, bytes, what holds
 * the memory), the memory summary at exit (TIDAL_STATS), the percent-of-
 * peak budget, and the one-thread check of debug builds. */
#include "testhelp.h"
#include <pthread.h>

/* The summary's notation: "512 B", "8.00 KiB", "16.0 MiB". */
static const char *human(char *buf, size_t len, double b) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  for (; b >= 1024 && u < 4; u++)
    b /= 1024;
  snprintf(buf, len, u == 0 ? "%.0f %s" : b < 10 ? "%.2f %s" : "%.1f %s", b, unit[u]);
  return buf;
}

/* Runs fn with stderr captured into buf. */
static void capture_stderr(void (*fn)(void), char *buf, size_t len) {
  char path[] = "/tmp/tidal-stderr-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  ssize_t n = pread(fd, buf, len - 1, 0);
  buf[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(path);
}

static void shutdown_ok(void) { CHECK_OK(tidal_shutdown()); }

static void write_all(void *p, size_t n, const tidal_site *site) {
  tidal_access a = {p, n, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(site, 1, &a));
  CHECK_OK(tidal_op_end(site));
}

static void *call_from_other_thread(void *arg) {
  void *p = NULL;
  *(tidal_status *)arg = tidal_malloc(&p, 4096);
  return NULL;
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  static const tidal_site site = {"fill", "diag.cu", 7, 0};
  static const tidal_site late = {"late_op", "diag.cu", 99, 0};

  /* 1. Eviction fails (host store of one chunk, no closures): the message
   * names the op that needed memory, its file:line and working set, and
   * says the host store is full - not just "op_begin". */
  th_config(&cfg, 4096, 4 * 4096);
  size_t CH = cfg.chunk_bytes;
  cfg.host_budget_bytes = CH;
  th_init(&cfg);
  void *a, *b, *c, *d;
  CHECK_OK(tidal_malloc(&a, 2 * CH));
  CHECK_OK(tidal_malloc(&b, 2 * CH));
  CHECK_OK(tidal_malloc(&c, CH));
  CHECK_OK(tidal_malloc(&d, 2 * CH));
  write_all(a, 2 * CH, &site);
  write_all(b, 2 * CH, &site);
  write_all(c, CH, &site); /* one chunk of a goes to the single host slot */
  tidal_access ad = {d, 2 * CH, TIDAL_WRITE};
  CHECK_STATUS(tidal_op_begin(&late, 1, &ad), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("late_op (diag.cu:99");
  char ws[64];
  snprintf(ws, sizeof ws, "working set %zu bytes", 2 * CH);
  CHECK_MESSAGE(ws);
  char full[96]; /* the host store holds bytes (Note [one host store]): one chunk of one */
  snprintf(full, sizeof full, "host store full: %zu of %zu bytes used", CH, CH);
  CHECK_MESSAGE(full);
  CHECK(!strstr(tidal_last_error(), "pinned by an open op")); /* none is open */
  CHECK_OK(tidal_shutdown());

  /* 2. Small allocations take no memory until used (their slabs move like
   * any chunk), and an op whose small operands sit in more slabs than the
   * budget holds says so, naming the slabs. */
  th_config(&cfg, 4096, 2 * 4096);
  CH = cfg.chunk_bytes;
  th_init(&cfg);
  void *small[6];
  for (int i = 0; i < 6; i++) /* two per slab: three slabs, more than the budget */
    CHECK_OK(tidal_malloc(&small[i], CH / 2));
  tidal_access three[3] = {{small[0], CH / 2, TIDAL_WRITE}, {small[2], CH / 2, TIDAL_WRITE},
                           {small[4], CH / 2, TIDAL_WRITE}};
  CHECK_STATUS(tidal_op_begin(&site, 3, three), TIDAL_ERR_BUDGET);
  char slabs[96];
  snprintf(slabs, sizeof slabs, "working set of %zu bytes (whole chunks, small", 3 * CH);
  CHECK_MESSAGE(slabs);
  CHECK_OK(tidal_op_begin(&site, 2, three)); /* two slabs fit */
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_shutdown());

  /* 3. The summary at exit: TIDAL_STATS's table with the run's numbers. */
  th_config(&cfg, 4096, 2 * 4096);
  CH = cfg.chunk_bytes;
  cfg.stats = 1;
  th_init(&cfg);
  void *x, *y;
  CHECK_OK(tidal_malloc(&x, 2 * CH));
  CHECK_OK(tidal_malloc(&y, 2 * CH));
  CHECK_OK(tidal_iteration_begin());
  write_all(x, 2 * CH, &site);
  write_all(y, 2 * CH, &site); /* evicts x: 2 chunks swapped out */
  CHECK_OK(tidal_iteration_end());
  tidal_stats st = th_stats();
  char out[4096];
  capture_stderr(shutdown_ok, out, sizeof out);
  CHECK(strstr(out, "tidal: memory summary"));
  CHECK(strstr(out, "1 iteration)"));
  char want[128];
  human(want, sizeof want, (double)st.total.peak_resident_bytes);
  const char *row = strstr(out, "peak resident");
  if (!row || !strstr(row, want))
    TH_FAIL("summary lacks a peak resident row with %s:\n%s", want, out);
  row = strstr(out, "swapped out (D2H)");
  CHECK(row && st.total.swapped_out_bytes == 2 * CH);
  CHECK(strstr(out, "recomputes") && strstr(out, "stall time") && strstr(out, "faults"));
  /* Not printed when not asked for (log level below info). */
  th_config(&cfg, 4096, 2 * 4096);
  th_init(&cfg);
  capture_stderr(shutdown_ok, out, sizeof out);
  CHECK(!strstr(out, "memory summary"));

  /* 4. "N%" is of the program's peak: the first iteration runs under the
   * device, its peak decides the budget. */
#ifndef TH_GPU /* (on CUDA "under the device" would map the whole GPU first) */
  th_config(&cfg, 4096, 0);
  CH = cfg.chunk_bytes;
  cfg.sim_device_bytes = 64 * CH;
  cfg.budget_bytes = 0;
  cfg.budget_percent = 50;
  cfg.stats = 1;
  th_init(&cfg);
  void *big;
  CHECK_OK(tidal_malloc(&big, 8 * CH));
  CHECK_OK(tidal_iteration_begin());
  write_all(big, 8 * CH, &site);
  CHECK(th_stats().budget_bytes == 64 * CH); /* the device, during the measurement */
  CHECK_OK(tidal_iteration_end());
  CHECK(th_stats().budget_bytes == 4 * CH); /* applied: the pool shrank */
  CHECK(th_stats().resident_bytes <= 4 * CH);
  write_all(big, 3 * CH, &site); /* and it holds from then on */
  write_all((char *)big + 4 * CH, 3 * CH, &site);
  CHECK(th_stats().resident_bytes <= 4 * CH);
  capture_stderr(shutdown_ok, out, sizeof out);
  char half[128];
  snprintf(half, sizeof half, "= 50%% of the first iteration's peak of");
  row = strstr(out, "budget after iteration 1");
  if (!row || !strstr(row, half))
    TH_FAIL("no resolved budget in the summary:\n%s", out);
  CHECK(strstr(row, human(want, sizeof want, 4.0 * (double)CH)));
#endif
  /* Two budget spellings at once are a config error. */
  th_config(&cfg, 4096, 4 * 4096);
  cfg.budget_percent = 50;
  CHECK_STATUS(tidal_init(&cfg), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("set at most one");

  /* 5. Note [one thread]: in builds that check it, a call from another
   * thread is refused with TIDAL_ERR_INVALID and changes nothing. */
#if !defined(NDEBUG) || defined(TIDAL_CHECK_THREAD)
  th_config(&cfg, 4096, 4 * 4096);
  th_init(&cfg);
  tidal_status other = TIDAL_OK;
  pthread_t t;
  CHECK(pthread_create(&t, NULL, call_from_other_thread, &other) == 0);
  pthread_join(t, NULL);
  CHECK(other == TIDAL_ERR_INVALID);
  void *mine;
  CHECK_OK(tidal_malloc(&mine, 4096)); /* the owner still works */
  CHECK_OK(tidal_shutdown());
  printf("thread check: on\n");
#else
  (void)call_from_other_thread;
  printf("thread check: not in this build (NDEBUG)\n");
#endif
  printf("ok\n");
  return 0;
}
