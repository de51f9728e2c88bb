/* test_training.c - a training-shaped program: 12 layers of forward ops
 * writing activations, then backward ops reading them in reverse, for two
 * iterations, under a budget of 40% of the program's natural peak.  The
 * final checksums must equal an unmanaged run's (plain host memory), with
 * and without a swap/prefetch plan, and the stats must show the swaps. */
#include "testhelp.h"

#define L 12

static size_t CH, ACT, W; /* bytes of one activation and one weight tensor */
static const tidal_site fwd = {"layer_forward", "train.cu", 10, 1e-4};
static const tidal_site bwd = {"layer_backward", "train.cu", 20, 2e-4};
static const tidal_site upd = {"sgd_update", "train.cu", 30, 1e-5};

/* The math, on host buffers, shared by the managed and unmanaged runs. */
static void forward_math(const unsigned char *in, const unsigned char *w, unsigned char *out,
                         int l) {
  for (size_t i = 0; i < ACT; i++)
    out[i] = (unsigned char)(in[i] * 3 + w[i % W] + l);
}
static void backward_math(const unsigned char *act, const unsigned char *w, unsigned char *grad,
                          unsigned char *dw) {
  for (size_t i = 0; i < ACT; i++) {
    grad[i] = (unsigned char)(grad[i] * 5 + act[i] + w[i % W]);
    dw[i % W] = (unsigned char)(dw[i % W] + grad[i]);
  }
}
static void update_math(unsigned char *w, const unsigned char *dw) {
  for (size_t i = 0; i < W; i++)
    w[i] = (unsigned char)(w[i] - (dw[i] >> 3));
}

static uint64_t unmanaged_run(int iters) {
  unsigned char *act[L + 1], *w[L], *dw[L], *grad = calloc(ACT, 1);
  for (int l = 0; l <= L; l++)
    act[l] = calloc(ACT, 1);
  for (int l = 0; l < L; l++) {
    w[l] = malloc(W), dw[l] = calloc(W, 1);
    th_fill_pattern(w[l], W, (uint64_t)l);
  }
  th_fill_pattern(act[0], ACT, 99);
  for (int it = 0; it < iters; it++) {
    for (int l = 0; l < L; l++)
      forward_math(act[l], w[l], act[l + 1], l);
    memcpy(grad, act[L], ACT);
    for (int l = L - 1; l >= 0; l--)
      backward_math(act[l], w[l], grad, dw[l]);
    for (int l = 0; l < L; l++)
      update_math(w[l], dw[l]);
  }
  uint64_t h = th_hash(grad, ACT);
  for (int l = 0; l < L; l++)
    h = h * 31 + th_hash(w[l], W);
  for (int l = 0; l <= L; l++)
    free(act[l]);
  for (int l = 0; l < L; l++)
    free(w[l]), free(dw[l]);
  free(grad);
  return h;
}

/* The same program on tidal; plan = 1 adds the swap-outs and prefetches a
 * rewriter would insert.  Returns the checksum; *s gets the stats. */
static uint64_t managed_run(int iters, size_t budget, int plan, tidal_stats *s) {
  tidal_config cfg;
  th_config(&cfg, CH, budget);
  th_init(&cfg);
  CHECK(th_chunk() == CH);
  unsigned char *act[L + 1], *w[L], *dw[L], *grad;
  unsigned char *h_in = malloc(ACT), *h_out = malloc(ACT), *h_w = malloc(W), *h_dw = malloc(W);
  CHECK_OK(tidal_malloc((void **)&grad, ACT));
  for (int l = 0; l <= L; l++)
    CHECK_OK(tidal_malloc((void **)&act[l], ACT));
  for (int l = 0; l < L; l++) {
    CHECK_OK(tidal_malloc((void **)&w[l], W));
    CHECK_OK(tidal_malloc((void **)&dw[l], W));
    th_fill_pattern(h_w, W, (uint64_t)l);
    memset(h_dw, 0, W);
    tidal_access init[2] = {{w[l], W, TIDAL_WRITE}, {dw[l], W, TIDAL_WRITE}};
    CHECK_OK(tidal_op_begin(&upd, 2, init));
    th_put(w[l], h_w, W);
    th_put(dw[l], h_dw, W);
    CHECK_OK(tidal_op_end(&upd));
  }
  th_fill_pattern(h_in, ACT, 99);
  tidal_access a0 = {act[0], ACT, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&upd, 1, &a0));
  th_put(act[0], h_in, ACT);
  CHECK_OK(tidal_op_end(&upd));

  for (int it = 0; it < iters; it++) {
    CHECK_OK(tidal_iteration_begin());
    for (int l = 0; l < L; l++) {
      tidal_access acc[3] = {{act[l], ACT, TIDAL_READ},
                             {w[l], W, TIDAL_READ},
                             {act[l + 1], ACT, TIDAL_WRITE}};
      CHECK_OK(tidal_op_begin(&fwd, 3, acc));
      th_get(h_in, act[l], ACT);
      th_get(h_w, w[l], W);
      forward_math(h_in, h_w, h_out, l);
      th_put(act[l + 1], h_out, ACT);
      CHECK_OK(tidal_op_end(&fwd));
      if (plan && l > 0 && l < L - 1)
        CHECK_OK(tidal_swap_out(act[l], ACT)); /* idle until backward */
    }
    tidal_access g = {grad, ACT, TIDAL_WRITE}, last = {act[L], ACT, TIDAL_READ};
    tidal_access gl[2] = {g, last};
    CHECK_OK(tidal_op_begin(&bwd, 2, gl));
    th_get(h_out, act[L], ACT);
    th_put(grad, h_out, ACT);
    CHECK_OK(tidal_op_end(&bwd));
    for (int l = L - 1; l >= 0; l--) {
      if (plan && l >= 2)
        CHECK_OK(tidal_prefetch(act[l - 2], ACT)); /* two layers ahead */
      tidal_access acc[4] = {{act[l], ACT, TIDAL_READ},
                             {w[l], W, TIDAL_READ},
                             {grad, ACT, TIDAL_READWRITE},
                             {dw[l], W, TIDAL_READWRITE}};
      CHECK_OK(tidal_op_begin(&bwd, 4, acc));
      th_get(h_in, act[l], ACT);
      th_get(h_w, w[l], W);
      th_get(h_out, grad, ACT);
      th_get(h_dw, dw[l], W);
      backward_math(h_in, h_w, h_out, h_dw);
      th_put(grad, h_out, ACT);
      th_put(dw[l], h_dw, W);
      CHECK_OK(tidal_op_end(&bwd));
      if (plan && l > 0)
        CHECK_OK(tidal_drop(act[l], ACT)); /* dead until the next forward writes it */
    }
    for (int l = 0; l < L; l++) {
      tidal_access acc[2] = {{w[l], W, TIDAL_READWRITE}, {dw[l], W, TIDAL_READ}};
      CHECK_OK(tidal_op_begin(&upd, 2, acc));
      th_get(h_w, w[l], W);
      th_get(h_dw, dw[l], W);
      update_math(h_w, h_dw);
      th_put(w[l], h_w, W);
      CHECK_OK(tidal_op_end(&upd));
    }
    CHECK_OK(tidal_iteration_end());
  }
  /* Checksums, read through ops like any consumer. */
  tidal_access rg = {grad, ACT, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&upd, 1, &rg));
  th_get(h_out, grad, ACT);
  CHECK_OK(tidal_op_end(&upd));
  uint64_t h = th_hash(h_out, ACT);
  for (int l = 0; l < L; l++) {
    tidal_access rw = {w[l], W, TIDAL_READ};
    CHECK_OK(tidal_op_begin(&upd, 1, &rw));
    th_get(h_w, w[l], W);
    CHECK_OK(tidal_op_end(&upd));
    h = h * 31 + th_hash(h_w, W);
  }
  *s = th_stats();
  CHECK_OK(tidal_shutdown());
  free(h_in), free(h_out), free(h_w), free(h_dw);
  return h;
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  /* The chunk th_config gives (4 KiB asked for; 2 MiB on a GPU and in
   * runtime.chunk2m.training); managed_run checks the runtime runs with it. */
  tidal_config probe;
  th_config(&probe, 4096, 4096);
  CH = probe.chunk_bytes;
  ACT = 6 * CH + 100; /* a tail, so the last chunk is partial */
  W = CH;             /* weights: one chunk each (not packed) */
  tidal_stats natural;
  uint64_t got = managed_run(2, 1024 * CH, 0, &natural); /* everything fits */
  uint64_t want = unmanaged_run(2);
  CHECK(got == want);
  CHECK(natural.total.swapped_out_bytes == 0 && natural.total.faults == 0);
  size_t peak = natural.total.peak_resident_bytes;
  size_t budget = peak * 40 / 100 / CH * CH;
  printf("natural peak %zu bytes, budget %zu bytes (40%%)\n", peak, budget);

  for (int plan = 0; plan <= 1; plan++) {
    tidal_stats s;
    got = managed_run(2, budget, plan, &s);
    printf("%s: checksum %s; peak %llu B, swapped out %llu B, in %llu B (prefetched %llu), "
           "dropped %llu B, faults %llu, stall %.6f s of %.6f s modelled\n",
           plan ? "with plan" : "LRU only", got == want ? "matches" : "DIFFERS",
           (unsigned long long)s.total.peak_resident_bytes,
           (unsigned long long)s.total.swapped_out_bytes,
           (unsigned long long)s.total.swapped_in_bytes,
           (unsigned long long)s.total.prefetched_bytes,
           (unsigned long long)s.total.dropped_bytes, (unsigned long long)s.total.faults,
           s.total.stall_seconds, s.total.modelled_seconds);
    CHECK(got == want);
    CHECK(s.total.peak_resident_bytes <= budget);
    CHECK(s.total.swapped_out_bytes > 0 && s.total.swapped_in_bytes > 0);
    CHECK(s.iterations == 2 && s.last_iteration.swapped_out_bytes > 0);
    if (plan)
      CHECK(s.total.prefetched_bytes > 0 && s.total.dropped_bytes > 0);
  }
  printf("ok\n");
  return 0;
}
