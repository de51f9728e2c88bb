/* test_split.c - an elementwise op bigger than the budget runs split into
 * the pieces tidal_split_elements chooses: every piece fits, the budget
 * holds, and the result equals the op run whole on the host (an AdamW-style
 * in-place update of four arrays). */
#include "testhelp.h"

#include <math.h>

enum { A = 4 }; /* params, grads, m, v */

static void update(float *p, const float *g, float *m, float *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    m[i] = 0.9f * m[i] + 0.1f * g[i];
    v[i] = 0.999f * v[i] + 0.001f * g[i] * g[i];
    p[i] -= 0.01f * m[i] / (sqrtf(v[i]) + 1e-8f);
  }
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  /* Before tidal_init nothing is split. */
  CHECK(tidal_split_elements((size_t)1 << 30, 16) == (size_t)1 << 30);

  /* Sizes follow the chunk the runtime runs with (64 KiB asked for; 2 MiB
   * on a GPU and in runtime.chunk2m.split): the budget holds at least 16
   * chunks and at least 4 MiB, so that a quarter of it (a piece) is whole
   * grains of the 16-byte elements below.  (Issue 19: with the budget a
   * constant 4 MiB while a GPU ran 64 chunks of 2 MiB, 128 MiB, nothing
   * was split and gpu.split failed on every seed.) */
  tidal_config cfg;
  th_config(&cfg, 64 * 1024, 64 * 64 * 1024);
  const size_t CH = cfg.chunk_bytes;
  const size_t BUDGET = CH * (16 > ((size_t)4 << 20) / CH ? 16 : ((size_t)4 << 20) / CH);
  cfg.budget_bytes = BUDGET;
  th_init(&cfg);
  CHECK(th_chunk() == CH && th_stats().budget_bytes == BUDGET);
  const size_t bpe = A * sizeof(float);

  /* Small ops, and ops within half the budget, run whole. */
  CHECK(tidal_split_elements(1000, bpe) == 1000);
  CHECK(tidal_split_elements(BUDGET / 2 / bpe, bpe) == BUDGET / 2 / bpe);
  CHECK(tidal_split_elements(12345, 0) == 12345);
  /* A bigger one: pieces of whole grains, at most a quarter of the budget,
   * the same answer every time.  1.25 budgets and a tail (at a 4 MiB budget
   * 5 grains and 1234 elements: 1.3 MB per array, 5.3 MB in all). */
  const size_t n = BUDGET / bpe + BUDGET / bpe / 4 + 1234;
  size_t piece = tidal_split_elements(n, bpe);
  CHECK(piece < n && piece % TIDAL_SPLIT_GRAIN == 0 && piece * bpe <= BUDGET / 4);
  /* A power of two of grains: no piece of a chunk-aligned array straddles
   * a chunk boundary (a quarter budget holds q grains of 3-byte elements,
   * 5 at 4 MiB, 42 at 32 MiB: the piece is the largest power of two
   * below, 4 or 32). */
  size_t q = BUDGET / 4 / 3 / TIDAL_SPLIT_GRAIN, p2 = 1;
  while (p2 * 2 <= q)
    p2 *= 2;
  CHECK(p2 < q);
  CHECK(tidal_split_elements(4 * (BUDGET / 3), 3) == p2 * TIDAL_SPLIT_GRAIN);
  CHECK(tidal_split_elements(n, bpe) == piece);
  /* A huge element never makes a piece smaller than one grain. */
  CHECK(tidal_split_elements((size_t)1 << 24, BUDGET) == TIDAL_SPLIT_GRAIN);

  float *dev[A], *ref[A], *tmp[A];
  for (int a = 0; a < A; a++) {
    CHECK_OK(tidal_malloc((void **)&dev[a], n * sizeof(float)));
    ref[a] = malloc(n * sizeof(float));
    tmp[a] = malloc(piece * sizeof(float));
    CHECK(ref[a] && tmp[a]);
    for (size_t i = 0; i < n; i++)
      ref[a][i] = a == 3 ? (float)th_below(1000) / 1000.0f : (float)th_below(2001) / 1000.0f - 1.0f;
    /* Give the arrays their initial values in pieces too: whole they
     * would not fit. */
    for (size_t o = 0; o < n; o += piece) {
      size_t l = n - o < piece ? n - o : piece;
      tidal_access w = {dev[a] + o, l * sizeof(float), TIDAL_WRITE};
      static const tidal_site init = {"init", "test_split.c", 1, 0};
      CHECK_OK(tidal_op_begin(&init, 1, &w));
      th_put(dev[a] + o, ref[a] + o, l * sizeof(float));
      CHECK_OK(tidal_op_end(&init));
    }
  }

  /* The whole op is refused: its working set exceeds the budget. */
  static const tidal_site site = {"adamw", "test_split.c", 2, 0};
  tidal_access whole[A];
  for (int a = 0; a < A; a++)
    whole[a] = (tidal_access){dev[a], n * sizeof(float), a == 1 ? TIDAL_READ : TIDAL_READWRITE};
  CHECK_STATUS(tidal_op_begin(&site, A, whole), TIDAL_ERR_BUDGET);

  for (int step = 0; step < 3; step++) {
    CHECK_OK(tidal_iteration_begin());
    int pieces = 0;
    for (size_t o = 0; o < n; o += piece, pieces++) {
      size_t l = n - o < piece ? n - o : piece;
      tidal_access acc[A];
      for (int a = 0; a < A; a++)
        acc[a] = (tidal_access){dev[a] + o, l * sizeof(float), a == 1 ? TIDAL_READ : TIDAL_READWRITE};
      CHECK_OK(tidal_op_begin(&site, A, acc));
      CHECK(th_stats().resident_bytes <= BUDGET);
      for (int a = 0; a < A; a++) th_get(tmp[a], dev[a] + o, l * sizeof(float));
      update(tmp[0], tmp[1], tmp[2], tmp[3], l);
      for (int a = 0; a < A; a++)
        if (a != 1) th_put(dev[a] + o, tmp[a], l * sizeof(float));
      CHECK_OK(tidal_op_end(&site));
    }
    CHECK(pieces == (int)((n + piece - 1) / piece) && pieces > 1);
    CHECK_OK(tidal_iteration_end());
    update(ref[0], ref[1], ref[2], ref[3], n);
  }

  /* The device arrays equal the host reference bit for bit. */
  float *got = malloc(piece * sizeof(float));
  CHECK(got);
  for (int a = 0; a < A; a++)
    for (size_t o = 0; o < n; o += piece) {
      size_t l = n - o < piece ? n - o : piece;
      tidal_access r = {dev[a] + o, l * sizeof(float), TIDAL_READ};
      static const tidal_site check = {"check", "test_split.c", 3, 0};
      CHECK_OK(tidal_op_begin(&check, 1, &r));
      th_get(got, dev[a] + o, l * sizeof(float));
      CHECK_OK(tidal_op_end(&check));
      CHECK(memcmp(got, ref[a] + o, l * sizeof(float)) == 0);
    }
  CHECK(th_stats().total.peak_resident_bytes <= BUDGET);
  for (int a = 0; a < A; a++) {
    CHECK_OK(tidal_free(dev[a]));
    free(ref[a]);
    free(tmp[a]);
  }
  free(got);
  CHECK_OK(tidal_shutdown());
  printf("test_split: ok (%zu elements in pieces of %zu)\n", n, piece);
  return 0;
}
