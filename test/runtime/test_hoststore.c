/* test_hoststore.c - the host store runs out: swap-outs keep data resident
 * or drop recomputable data, pressure reclaims clean host copies, and
 * nothing is ever lost. */
#include "testhelp.h"

/* Library internals (hoststore.c, Note [adopted slots]). */
int rt_host_adopt_ready(void);
int64_t rt_host_adopt(void *buf);
void *rt_host_slot_addr(int64_t slot);
void rt_host_slot_free(int64_t slot);

static size_t CH, N;
static const tidal_site site = {"host_op", __FILE__, __LINE__, 0};

static void put(unsigned char *p, uint64_t salt) {
  unsigned char *h = malloc(N);
  th_fill_pattern(h, N, salt);
  tidal_access w = {p, N, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &w));
  th_put(p, h, N);
  CHECK_OK(tidal_op_end(&site));
  free(h);
}

static void expect(unsigned char *p, uint64_t salt) {
  unsigned char *want = malloc(N), *got = malloc(N);
  th_fill_pattern(want, N, salt);
  tidal_access r = {p, N, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &r));
  th_get(got, p, N);
  CHECK_OK(tidal_op_end(&site));
  if (memcmp(got, want, N) != 0)
    TH_FAIL("tensor with salt %llu lost its data", (unsigned long long)salt);
  free(want);
  free(got);
}

static unsigned char *A;
static void rebuild_b(void *ctx, tidal_stream s) {
  unsigned char *b = *(unsigned char **)ctx;
  unsigned char *h = malloc(N);
  tidal_access acc[2] = {{A, N, TIDAL_READ}, {b, N, TIDAL_WRITE}};
  CHECK_OK(tidal_op_begin(&site, 2, acc));
  th_fill_pattern(h, N, 2); /* B's contents are a function of its inputs */
  th_put(b, h, N);
  CHECK_OK(tidal_op_end(&site));
  free(h);
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 12);
  CH = cfg.chunk_bytes;
  cfg.host_budget_bytes = 4 * CH; /* room for one tensor */
  th_init(&cfg);
  N = 4 * CH;
  unsigned char *B, *C, *D, *E;
  CHECK_OK(tidal_malloc((void **)&A, N));
  CHECK_OK(tidal_malloc((void **)&B, N));
  CHECK_OK(tidal_malloc((void **)&C, N));
  CHECK_OK(tidal_malloc((void **)&D, N));
  CHECK_OK(tidal_malloc((void **)&E, N));
  put(A, 1);
  put(B, 2);
  put(C, 3); /* 12 of 12 chunks resident */

  /* A fills the host store; C's swap-out then finds no room: it stays. */
  CHECK_OK(tidal_swap_out(A, N));
  CHECK_OK(tidal_synchronize());
  tidal_stats s0 = th_stats();
  CHECK(s0.resident_bytes == 8 * CH);
  CHECK_OK(tidal_swap_out(C, N));
  CHECK_OK(tidal_synchronize());
  tidal_stats s1 = th_stats();
  CHECK(s1.resident_bytes == 8 * CH);
  CHECK(s1.total.swapped_out_bytes == s0.total.swapped_out_bytes);

  /* B has a closure: under pressure it is dropped, not copied. */
  CHECK_OK(tidal_recompute_register(B, N, rebuild_b, &B, sizeof B));
  put(D, 4); /* fits in the 4 free chunks */
  put(E, 5); /* needs 4 more: only B (recomputable) can go */
  tidal_stats s2 = th_stats();
  CHECK(s2.total.dropped_bytes - s1.total.dropped_bytes == N);
  CHECK(s2.total.swapped_out_bytes == s1.total.swapped_out_bytes);
  CHECK(s2.resident_bytes <= s2.budget_bytes);

  /* With no room anywhere, an op that needs new memory fails cleanly... */
  unsigned char *F;
  CHECK_OK(tidal_malloc((void **)&F, N));
  tidal_access wf = {F, N, TIDAL_WRITE};
  CHECK_STATUS(tidal_op_begin(&site, 1, &wf), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("host store full");
  /* ... but swapped-out data still comes back: A trades its host slots
   * with dirty chunks (Note [exchange] in residency.c). */
  tidal_stats s3 = th_stats();
  expect(A, 1);
  tidal_stats s4 = th_stats();
  CHECK(s4.total.swapped_out_bytes - s3.total.swapped_out_bytes == N);
  CHECK(s4.total.faults - s3.total.faults == 4);
  expect(E, 5); /* its chunks went to the host in A's place */
  expect(A, 1);
  /* After the program frees something, everything is intact: B is
   * recomputed, C, D and A swap as needed. */
  CHECK_OK(tidal_free(E));
  CHECK_OK(tidal_free(F));
  expect(A, 1);
  expect(B, 2);
  expect(C, 3);
  expect(D, 4);
  expect(A, 1);
  tidal_stats s5 = th_stats();
  CHECK(s5.total.recomputes >= 1);
  CHECK(s5.total.peak_resident_bytes <= s5.budget_bytes);

  /* An exchange that wins no device chunk and finds no slot keeps its
   * buffer as a slot (Note [adopted slots]): from then on an ordinary one -
   * freed, handed out to a swap-out, its data read back - and released at
   * tidal_shutdown (the sanitizer build's leak check). */
  CHECK(rt_host_adopt_ready());
  unsigned char *buf = malloc(CH);
  CHECK(buf);
  int64_t slot = rt_host_adopt(buf);
  CHECK(rt_host_slot_addr(slot) == buf);
  rt_host_slot_free(slot);
  th_check_host("an adopted slot freed");
  CHECK_OK(tidal_free(B));
  CHECK_OK(tidal_swap_out(A, N)); /* 5 slots now: A's 4 chunks, and C's first */
  CHECK_OK(tidal_swap_out(C, N));
  CHECK_OK(tidal_synchronize());
  th_check_host("swap-outs into the store with an adopted slot");
  expect(C, 3);
  expect(A, 1);
  expect(D, 4);
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
