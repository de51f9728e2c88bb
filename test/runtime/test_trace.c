/* test_trace.c - TIDAL_TRACE writes Chrome trace-event JSON (Note [trace
 * format]) that check_trace.py validates: op slices, swap-out / prefetch /
 * fault copies, a recompute, iterations and the memory counters, from a
 * small run under pressure.  Also: a site label with quotes stays JSON. */
#include "testhelp.h"

#ifndef TH_TRACE_CHECKER
#error "TH_TRACE_CHECKER: the command that runs check_trace.py"
#endif

static const tidal_site plain = {"layer \"fwd\" \\ 1", "trace.cu", 3, 1e-4};
static void *A, *B, *R;
static size_t CH;

static void op(const tidal_site *s, void *p, size_t n, tidal_mode m) {
  tidal_access a = {p, n, m};
  CHECK_OK(tidal_op_begin(s, 1, &a));
  CHECK_OK(tidal_op_end(s));
}

static void produce_r(void *ctx, tidal_stream stream) {
  (void)ctx;
  (void)stream;
  op(&plain, R, CH, TIDAL_WRITE);
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  char path[] = "/tmp/tidal-trace-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  tidal_config cfg;
  th_config(&cfg, 4096, 3 * 4096);
  CH = cfg.chunk_bytes;
  cfg.trace_path = path;
  th_init(&cfg);
  CHECK_OK(tidal_malloc(&A, 2 * CH));
  CHECK_OK(tidal_malloc(&B, 2 * CH));
  CHECK_OK(tidal_malloc(&R, CH));
  int ops = 0;
  for (int it = 0; it < 3; it++) { /* a budget of 3 chunks */
    CHECK_OK(tidal_iteration_begin());
    op(&plain, A, 2 * CH, TIDAL_WRITE), ops++;
    op(&plain, B, 2 * CH, TIDAL_WRITE), ops++; /* evicts A's first chunk: a swap-out */
    CHECK_OK(tidal_swap_out(B, 2 * CH));
    CHECK_OK(tidal_prefetch(A, CH));
    op(&plain, A, 2 * CH, TIDAL_READ), ops++;  /* takes the prefetch */
    op(&plain, B, 2 * CH, TIDAL_READ), ops++;  /* faults B back */
    op(&plain, R, CH, TIDAL_WRITE), ops++;
    CHECK_OK(tidal_recompute_register(R, CH, produce_r, NULL, 0));
    op(&plain, A, 2 * CH, TIDAL_READ), ops++;
    op(&plain, B, 2 * CH, TIDAL_READ), ops++;  /* drops R, now the least recently used */
    CHECK_OK(tidal_drop(A, 2 * CH));
    op(&plain, R, CH, TIDAL_READ), ops++;      /* recomputed: one more op inside */
    ops++;
    CHECK_OK(tidal_iteration_end());
  }
  tidal_stats s = th_stats();
  CHECK(s.total.swapped_out_bytes > 0 && s.total.prefetched_bytes > 0 && s.total.faults > 0);
  CHECK(s.total.recomputes > 0);
  CHECK(s.total.drops > 0);
  CHECK(s.total.swap_outs > 0 && s.total.prefetches > 0);
  CHECK(s.total.swap_outs * CH >= s.total.swapped_out_bytes);
  CHECK(s.total.prefetches * CH >= s.total.prefetched_bytes);
  CHECK_OK(tidal_free(A));
  CHECK_OK(tidal_shutdown());
  char cmd[1024];
  /* every counted action is one event (docs/runtime-api.md, "Trace") */
  snprintf(cmd, sizeof cmd,
           "%s %s --ops %d --need swap_out --need prefetch --need fault --need recompute "
           "--need drop --need 'iteration 0' --need malloc --actions %llu,%llu,%llu,%llu,%llu",
           TH_TRACE_CHECKER, path, ops, (unsigned long long)s.total.swap_outs,
           (unsigned long long)s.total.prefetches, (unsigned long long)s.total.drops,
           (unsigned long long)s.total.recomputes, (unsigned long long)s.total.faults);
  int rc = system(cmd);
  if (rc != 0) {
    snprintf(cmd, sizeof cmd, "head -c 3000 %s", path);
    (void)system(cmd);
    TH_FAIL("check_trace.py rejected the trace (status %d)", rc);
  }
  if (!getenv("TH_KEEP_TRACE")) unlink(path); else printf("trace kept: %s\n", path);
  printf("ok\n");
  return 0;
}
