/* test_recompute.c - recompute closures: the chain A->B->C with A and B
 * evicted, re-entrancy (the outer op's chunks stay pinned while nested
 * closures run under a tight budget), private ctx copies, expiry when
 * another op overwrites the range, cycles and failing closures. */
#include "testhelp.h"

static size_t CH, N; /* N = bytes per tensor */
static unsigned char *A, *B, *C, *X;

typedef struct step_ctx {
  unsigned char *in, *out;
  int mul, add;
  int runs_seen; /* the closure increments it: each run must see 0 */
} step_ctx;

static const tidal_site step_site = {"step", __FILE__, __LINE__, 0};
static int closure_runs, ctx_was_dirty;

/* out[i] = in[i] * mul + add, through the runtime like a real launch. */
static void step(unsigned char *in, unsigned char *out, int mul, int add) {
  tidal_access acc[2] = {{in, N, TIDAL_READ}, {out, N, TIDAL_WRITE}};
  CHECK_OK(tidal_op_begin(&step_site, 2, acc));
  unsigned char *h = malloc(N);
  th_get(h, in, N);
  for (size_t i = 0; i < N; i++)
    h[i] = (unsigned char)(h[i] * mul + add);
  th_put(out, h, N);
  free(h);
  CHECK_OK(tidal_op_end(&step_site));
}

static void step_closure(void *ctx, tidal_stream stream) {
  step_ctx *c = ctx;
  closure_runs++;
  ctx_was_dirty |= c->runs_seen != 0;
  c->runs_seen++; /* scribbling on the private copy must not leak */
  step(c->in, c->out, c->mul, c->add);
}

static void cyclic_closure(void *ctx, tidal_stream stream) {
  step_ctx *c = ctx;
  tidal_access acc[2] = {{c->out, N, TIDAL_READ}, {c->out, N, TIDAL_WRITE}};
  if (tidal_op_begin(&step_site, 2, acc) == TIDAL_OK)
    tidal_op_end(&step_site);
}

static void bad_closure(void *ctx, tidal_stream stream) {
  int on_stack = 0;
  tidal_access acc = {&on_stack, 4, TIDAL_READ};
  if (tidal_op_begin(&step_site, 1, &acc) == TIDAL_OK)
    tidal_op_end(&step_site);
}

/* Produces D = 0x42 everywhere (a deterministic producer of 2 chunks). */
static unsigned char *D;
static void fill(unsigned char *p, size_t n, int v) {
  unsigned char *h = malloc(n);
  memset(h, v, n);
  tidal_access w = {p, n, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&step_site, 1, &w));
  th_put(p, h, n);
  CHECK_OK(tidal_op_end(&step_site));
  free(h);
}
static void produce_d(void *ctx, tidal_stream stream) { fill(D, N, 0x42); }

/* Ignores a failing op_begin and calls op_end anyway - with the site of the
 * op that needed its output, so the unbalanced op_end matches that op. */
static void closes_outer_op(void *ctx, tidal_stream stream) {
  int on_stack = 0;
  tidal_access acc = {&on_stack, 4, TIDAL_READ};
  (void)tidal_op_begin(&step_site, 1, &acc);
  tidal_op_end(&step_site);
  tidal_op_end(&step_site);
}

static tidal_status shutdown_status;
static void calls_shutdown(void *ctx, tidal_stream stream) {
  shutdown_status = tidal_shutdown();
  fill(D, N, 0x42);
}

static void expect_value(unsigned char *p, const unsigned char *want) {
  unsigned char *h = malloc(N);
  tidal_access r = {p, N, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&step_site, 1, &r));
  th_get(h, p, N);
  CHECK_OK(tidal_op_end(&step_site));
  CHECK(memcmp(h, want, N) == 0);
  free(h);
}

/* A swap-out hint whose memory is then reassigned, as pressure would do
 * (Note [lazy unmap]): what this test checks is how chunks come back from
 * the host or from their closures, not from memory they still hold. */
static tidal_status evict(const void *p, size_t n) {
  tidal_status st = tidal_swap_out(p, n);
  if (st == TIDAL_OK)
    st = tidal_synchronize();
  return st == TIDAL_OK ? rt_release_parked() : st;
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 9); /* 3 tensors of 2 chunks + X (2) + 1 spare */
  th_init(&cfg);
  CH = cfg.chunk_bytes;
  N = 2 * CH;
  CHECK_OK(tidal_malloc((void **)&A, N));
  CHECK_OK(tidal_malloc((void **)&B, N));
  CHECK_OK(tidal_malloc((void **)&C, N));
  CHECK_OK(tidal_malloc((void **)&X, N));
  unsigned char *ha = malloc(N), *hb = malloc(N), *hc = malloc(N), *hx = malloc(N);
  for (size_t i = 0; i < N; i++) {
    ha[i] = (unsigned char)th_rand();
    hb[i] = (unsigned char)(ha[i] * 3 + 1);
    hc[i] = (unsigned char)(hb[i] * 5 + 7);
    hx[i] = (unsigned char)(i ^ 0x5a);
  }
  tidal_access wa = {A, N, TIDAL_WRITE}, wx = {X, N, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&step_site, 1, &wa));
  th_put(A, ha, N);
  CHECK_OK(tidal_op_end(&step_site));
  CHECK_OK(tidal_op_begin(&step_site, 1, &wx));
  th_put(X, hx, N);
  CHECK_OK(tidal_op_end(&step_site));

  /* Forward: B = f(A), C = g(B), each registered for recompute. */
  step_ctx fb = {A, B, 3, 1, 0}, gc = {B, C, 5, 7, 0};
  step(A, B, 3, 1);
  CHECK_OK(tidal_recompute_register(B, N, step_closure, &fb, sizeof fb));
  step(B, C, 5, 7);
  CHECK_OK(tidal_recompute_register(C, N, step_closure, &gc, sizeof gc));

  /* Evict A (swapped) and B, C (dropped: their closures can rebuild them). */
  tidal_stats s0 = th_stats();
  CHECK_OK(evict(A, N));
  CHECK_OK(evict(B, N));
  CHECK_OK(evict(C, N));
  CHECK_OK(tidal_synchronize());
  tidal_stats s1 = th_stats();
  CHECK(s1.total.swapped_out_bytes - s0.total.swapped_out_bytes == N); /* A only */
  CHECK(s1.total.dropped_bytes - s0.total.dropped_bytes == 2 * N);     /* B and C */

  /* Re-entrancy: an op reading X (resident) and C.  Restoring C runs g,
   * which needs B, which runs f, which faults A in - with only 9 chunks, the
   * nested ops must evict something, and it must not be X or C. */
  closure_runs = 0;
  tidal_access outer[2] = {{X, N, TIDAL_READ}, {C, N, TIDAL_READ}};
  static const tidal_site outer_site = {"outer", __FILE__, __LINE__, 0};
  CHECK_OK(tidal_op_begin(&outer_site, 2, outer));
  unsigned char *got = malloc(N);
  th_get(got, C, N);
  CHECK(memcmp(got, hc, N) == 0);
  th_get(got, X, N);
  CHECK(memcmp(got, hx, N) == 0);
  CHECK_OK(tidal_op_end(&outer_site));
  tidal_stats s2 = th_stats();
  CHECK(closure_runs == 2);
  CHECK(s2.total.recomputes - s1.total.recomputes == 2);
  CHECK(s2.total.faults - s1.total.faults == 2); /* A's two chunks */
  CHECK(!ctx_was_dirty);
  expect_value(B, hb);

  /* Again, to prove the closures survive a run with a fresh ctx copy. */
  CHECK_OK(evict(C, N));
  CHECK_OK(evict(B, N));
  closure_runs = 0;
  expect_value(C, hc);
  CHECK(!ctx_was_dirty);
  CHECK(closure_runs >= 1);

  /* Expiry: another op overwrites C, so evicting it now must copy it. */
  unsigned char *hc2 = malloc(N);
  memset(hc2, 0x77, N);
  tidal_access wc = {C, N, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&step_site, 1, &wc));
  th_put(C, hc2, N);
  CHECK_OK(tidal_op_end(&step_site));
  tidal_stats s3 = th_stats();
  CHECK_OK(evict(C, N));
  CHECK_OK(tidal_synchronize());
  CHECK(th_stats().total.swapped_out_bytes - s3.total.swapped_out_bytes == N);
  expect_value(C, hc2);

  /* Iteration end expires resident registrations: B is then swapped. */
  CHECK_OK(tidal_iteration_end());
  tidal_stats s4 = th_stats();
  CHECK_OK(evict(B, N));
  CHECK_OK(tidal_synchronize());
  tidal_stats s5 = th_stats();
  CHECK(s5.total.swapped_out_bytes - s4.total.swapped_out_bytes == N);
  CHECK(s5.total.dropped_bytes == s4.total.dropped_bytes);
  expect_value(B, hb);

  /* A cycle (a closure that needs its own output) is an error, not a hang. */
  CHECK_OK(tidal_op_begin(&step_site, 1, &wc)); /* dirty: evicting it drops it */
  th_put(C, hc2, N);
  CHECK_OK(tidal_op_end(&step_site));
  step_ctx cyc = {C, C, 1, 0, 0};
  CHECK_OK(tidal_recompute_register(C, N, cyclic_closure, &cyc, sizeof cyc));
  CHECK_OK(evict(C, N));
  tidal_access rc = {C, N, TIDAL_READ};
  CHECK_STATUS(tidal_op_begin(&step_site, 1, &rc), TIDAL_ERR_RECOMPUTE);
  /* A closure whose own op fails surfaces as TIDAL_ERR_RECOMPUTE too. */
  CHECK_OK(tidal_op_begin(&step_site, 1, &(tidal_access){B, N, TIDAL_WRITE}));
  th_put(B, hb, N);
  CHECK_OK(tidal_op_end(&step_site));
  CHECK_OK(tidal_recompute_register(B, N, bad_closure, NULL, 0));
  CHECK_OK(evict(B, N));
  tidal_access rb = {B, N, TIDAL_READ};
  CHECK_STATUS(tidal_op_begin(&step_site, 1, &rb), TIDAL_ERR_RECOMPUTE);
  CHECK_MESSAGE("recompute closure");
  tidal_access wb = {B, N, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&step_site, 1, &wb));
  th_put(B, hb, N);
  CHECK_OK(tidal_op_end(&step_site));
  expect_value(B, hb);
  /* Overwriting the range ends the failing registration; all is usable. */
  CHECK_OK(tidal_op_begin(&step_site, 1, &wc));
  th_put(C, hc2, N);
  CHECK_OK(tidal_op_end(&step_site));
  expect_value(C, hc2);
  expect_value(X, hx);
  expect_value(A, ha);

  /* A closure re-run rewrites its whole range: bytes another op wrote into
   * that range since must survive (the registration ends there). */
  CHECK_OK(tidal_malloc((void **)&D, N));
  unsigned char *hd = malloc(N);
  fill(D, N, 0x42);
  CHECK_OK(tidal_recompute_register(D, N, produce_d, NULL, 0));
  CHECK_OK(evict(D, CH)); /* chunk 0 dropped: recomputable */
  fill(D + CH, CH, 0x77);          /* another op overwrites chunk 1 */
  memset(hd, 0x42, CH);
  memset(hd + CH, 0x77, CH);
  expect_value(D, hd);
  /* The same with the foreign write not chunk-aligned: 100 bytes into chunk 1. */
  fill(D, N, 0x42);
  CHECK_OK(tidal_recompute_register(D, N, produce_d, NULL, 0));
  CHECK_OK(evict(D, CH));
  fill(D + CH + 100, 100, 0x55);
  memset(hd, 0x42, N);
  memset(hd + CH + 100, 0x55, 100);
  expect_value(D, hd);

  /* A failing closure must not cost a write-only access of the same op its
   * data: the op did not run, so A's host copy is still the only copy. */
  fill(D, N, 0x42);
  CHECK_OK(tidal_recompute_register(D, N, bad_closure, NULL, 0));
  CHECK_OK(evict(D, N));
  CHECK_OK(evict(A, N));
  CHECK_OK(tidal_synchronize());
  tidal_access wa_rd[2] = {{A, N, TIDAL_WRITE}, {D, N, TIDAL_READ}};
  CHECK_STATUS(tidal_op_begin(&step_site, 2, wa_rd), TIDAL_ERR_RECOMPUTE);
  expect_value(A, ha);
  fill(D, N, 0x42); /* overwriting ends the failing registration */

  /* A closure that closes the op that needed it: an error, not a crash. */
  CHECK_OK(tidal_recompute_register(D, N, closes_outer_op, NULL, 0));
  CHECK_OK(evict(D, N));
  tidal_access rd = {D, N, TIDAL_READ};
  CHECK_STATUS(tidal_op_begin(&step_site, 1, &rd), TIDAL_ERR_RECOMPUTE);
  CHECK_STATUS(tidal_op_end(&step_site), TIDAL_ERR_INVALID); /* nothing is open */
  fill(D, N, 0x42);
  memset(hd, 0x42, N);
  expect_value(D, hd);
  expect_value(A, ha);
  /* A closure that shuts the runtime down is refused (its op is waiting). */
  CHECK_OK(tidal_recompute_register(D, N, calls_shutdown, NULL, 0));
  CHECK_OK(evict(D, N));
  shutdown_status = TIDAL_OK;
  CHECK_STATUS(tidal_op_begin(&step_site, 1, &rd), TIDAL_ERR_RECOMPUTE);
  CHECK(shutdown_status == TIDAL_ERR_INVALID);
  CHECK(tidal_is_initialized());
  fill(D, N, 0x42);
  expect_value(D, hd);
  CHECK_OK(tidal_free(D));
  free(hd);

  free(ha), free(hb), free(hc), free(hx), free(hc2), free(got);
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
