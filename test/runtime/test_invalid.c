/* test_invalid.c - invalid use is a status and a message, never a crash:
 * calls before init, unknown and interior pointers, double free, accesses
 * outside every allocation or past the end, bad arguments, unbalanced ops,
 * bad configurations. */
#include "testhelp.h"

static void th_noop_closure(void *ctx, tidal_stream stream) {}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  static const tidal_site site = {"bad_op", "train.cu", 7, 0};
  void *p = (void *)0x1000;
  int on_stack[4];
  tidal_access acc = {on_stack, 4, TIDAL_READ};
  tidal_stats st;

  /* Before init. */
  CHECK(!tidal_is_initialized());
  CHECK_STATUS(tidal_malloc(&p, 64), TIDAL_ERR_NOT_INITIALIZED);
  CHECK(p == NULL);
  CHECK_MESSAGE("tidal_malloc");
  CHECK_STATUS(tidal_free(on_stack), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_op_begin(&site, 1, &acc), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_op_end(&site), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_swap_out(on_stack, 4), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_prefetch(on_stack, 4), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_drop(on_stack, 4), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_keep(on_stack, 4), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_recompute_register(on_stack, 4, NULL, NULL, 0), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_iteration_begin(), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_iteration_end(), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_stats_get(&st), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_synchronize(), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_shutdown(), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_OK(tidal_free(NULL)); /* NULL is always a no-op */

  /* Bad configurations. */
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 8);
#ifdef TH_GPU
  th_init(&cfg); /* skips (77) without a device */
  CHECK_OK(tidal_shutdown());
#endif
  tidal_config bad = cfg;
  bad.chunk_bytes = 3 * 4096;
  CHECK_STATUS(tidal_init(&bad), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("power of two");
#ifndef TH_GPU
  bad = cfg;
  bad.budget_bytes = (size_t)1 << 40;
  bad.sim_device_bytes = (size_t)1 << 30;
  CHECK_STATUS(tidal_init(&bad), TIDAL_ERR_DEVICE_MEMORY);
  bad = cfg;
  bad.budget_bytes = 100; /* less than one chunk: the budget's problem, said as such */
  CHECK_STATUS(tidal_init(&bad), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("below one chunk");
#endif
  bad = cfg;
  bad.budget_bytes = 0;
  bad.budget_percent = strtod("nan", NULL);
  CHECK_STATUS(tidal_init(&bad), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("budget_percent");
  bad = cfg;
  bad.device = (tidal_device)7;
  CHECK_STATUS(tidal_init(&bad), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("device");
  CHECK(!tidal_is_initialized());

  th_init(&cfg);
  const size_t CH = cfg.chunk_bytes;
  CHECK_STATUS(tidal_init(&cfg), TIDAL_ERR_ALREADY_INITIALIZED);
  unsigned char *a, *small;
  CHECK_OK(tidal_malloc((void **)&a, 2 * CH));
  CHECK_OK(tidal_malloc((void **)&small, 300));

  CHECK_STATUS(tidal_malloc(NULL, 8), TIDAL_ERR_INVALID);
  CHECK_STATUS(tidal_malloc(&p, 0), TIDAL_ERR_INVALID);
  CHECK_STATUS(tidal_malloc(&p, SIZE_MAX), TIDAL_ERR_INVALID);

  /* tidal_owns: the start of a live allocation, nothing else. */
  CHECK(tidal_owns(a) && tidal_owns(small));
  CHECK(!tidal_owns(a + 1) && !tidal_owns(on_stack) && !tidal_owns(NULL));

  /* Frees. */
  CHECK_STATUS(tidal_free(on_stack), TIDAL_ERR_UNKNOWN_POINTER);
  CHECK_STATUS(tidal_free(a + 16), TIDAL_ERR_UNKNOWN_POINTER);
  CHECK_MESSAGE("not at its start");
  CHECK_STATUS(tidal_free(small + 1), TIDAL_ERR_UNKNOWN_POINTER);
  unsigned char *b;
  CHECK_OK(tidal_malloc((void **)&b, CH));
  CHECK_OK(tidal_free(b));
  CHECK_STATUS(tidal_free(b), TIDAL_ERR_DOUBLE_FREE);
  CHECK(!tidal_owns(b)); /* freed */
  CHECK_MESSAGE("already freed");

  /* Accesses. */
  CHECK_STATUS(tidal_op_begin(&site, 1, &acc), TIDAL_ERR_UNKNOWN_POINTER);
  CHECK_MESSAGE("bad_op");
  CHECK_MESSAGE("inside no tidal allocation");
  tidal_access freed = {b, 8, TIDAL_READ};
  CHECK_STATUS(tidal_op_begin(&site, 1, &freed), TIDAL_ERR_UNKNOWN_POINTER);
  CHECK_MESSAGE("was freed");
  /* An op's access past its allocation's end is cut there (a loose bound
   * from the pass: Note [clamped extents]), counted, and the op runs. */
  tidal_stats s0, s1;
  CHECK_OK(tidal_stats_get(&s0));
  tidal_access past = {a + CH, CH + 1, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &past));
  CHECK_OK(tidal_op_end(&site));
  tidal_access past_small = {small + 200, 101, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &past_small));
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_stats_get(&s1));
  CHECK(s1.total.extents_clamped == s0.total.extents_clamped + 2);
  tidal_access mode = {a, 8, (tidal_mode)9};
  CHECK_STATUS(tidal_op_begin(&site, 1, &mode), TIDAL_ERR_INVALID);
  CHECK_STATUS(tidal_op_begin(&site, 2, NULL), TIDAL_ERR_INVALID);
  CHECK_STATUS(tidal_op_begin(&site, -1, &acc), TIDAL_ERR_INVALID);
  /* A failing second access leaves nothing pinned from the first. */
  tidal_access mixed[2] = {{a, 2 * CH, TIDAL_READ}, {on_stack, 4, TIDAL_READ}};
  CHECK_STATUS(tidal_op_begin(&site, 2, mixed), TIDAL_ERR_UNKNOWN_POINTER);

  /* Note [NULL accesses]: a NULL pointer (an optional operand passed as
   * NULL) is no access and pins nothing; hints on NULL do nothing. */
  tidal_access opt[3] = {{a, 8, TIDAL_READ}, {NULL, 4096, TIDAL_READ},
                         {NULL, TIDAL_EXTENT_UNKNOWN, TIDAL_WRITE}};
  CHECK_OK(tidal_op_begin(&site, 3, opt));
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_swap_out(NULL, 8));
  CHECK_OK(tidal_drop(NULL, 8));
  CHECK_OK(tidal_prefetch(NULL, 8));
  CHECK_OK(tidal_keep(NULL, 8));

  /* Unbalanced ops. */
  CHECK_STATUS(tidal_op_end(&site), TIDAL_ERR_INVALID);
  static const tidal_site other = {"other_op", "train.cu", 9, 0};
  tidal_access ok = {a, 8, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &ok));
  CHECK_STATUS(tidal_op_end(&other), TIDAL_ERR_INVALID);
  CHECK_MESSAGE("other_op");
  CHECK_STATUS(tidal_free(a), TIDAL_ERR_INVALID); /* in use by the open op */
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_op_begin(&site, 0, NULL)); /* an op with no accesses is fine */
  CHECK_OK(tidal_op_end(&site));

  /* Hints on bad pointers. */
  CHECK_STATUS(tidal_swap_out(on_stack, 4), TIDAL_ERR_UNKNOWN_POINTER);
  CHECK_STATUS(tidal_prefetch(a, 3 * CH), TIDAL_ERR_OUT_OF_BOUNDS);
  CHECK_STATUS(tidal_drop(b, 4), TIDAL_ERR_UNKNOWN_POINTER);
  CHECK_STATUS(tidal_keep(on_stack, 4), TIDAL_ERR_UNKNOWN_POINTER);
  CHECK_STATUS(tidal_recompute_register(a, CH, NULL, NULL, 0), TIDAL_ERR_INVALID);
  CHECK_STATUS(tidal_recompute_register(a + CH, 2 * CH, th_noop_closure, NULL, 0),
               TIDAL_ERR_OUT_OF_BOUNDS); /* partly outside the allocation */
  CHECK_STATUS(tidal_recompute_register(a, CH, th_noop_closure, NULL, 8), TIDAL_ERR_INVALID);
  /* Zero-byte accesses and hints are no-ops, even at the end pointer. */
  tidal_access zero[3] = {{a, 0, TIDAL_READ},
                          {a + 2 * CH, 0, TIDAL_WRITE},
                          {a + 2 * CH, TIDAL_EXTENT_UNKNOWN, TIDAL_WRITE}};
  CHECK_OK(tidal_recompute_register(a, CH, th_noop_closure, NULL, 0)); /* writes check these */
  CHECK_OK(tidal_op_begin(&site, 3, zero));
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_swap_out(a + 2 * CH, 0));
  CHECK_OK(tidal_drop(a, 0));
  CHECK_STATUS(tidal_stats_get(NULL), TIDAL_ERR_INVALID);
  CHECK(strstr(tidal_status_string(TIDAL_ERR_BUDGET), "TIDAL_ERR_BUDGET"));
  CHECK(strstr(tidal_status_string((tidal_status)999), "unknown"));

  /* Still fully usable. */
  CHECK_OK(tidal_op_begin(&site, 1, &ok));
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_free(small));
  CHECK_OK(tidal_shutdown());
  CHECK(!tidal_is_initialized());

  /* After shutdown: every call is a status again, and init works anew. */
  CHECK_STATUS(tidal_malloc(&p, 64), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_op_begin(&site, 1, &ok), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_op_end(&site), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_swap_out(a, 8), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_iteration_end(), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_stats_get(&st), TIDAL_ERR_NOT_INITIALIZED);
  CHECK_STATUS(tidal_shutdown(), TIDAL_ERR_NOT_INITIALIZED);
  /* Shutdown with an op open and copies in flight releases everything. */
  th_init(&cfg);
  CHECK_OK(tidal_malloc((void **)&a, 4 * CH));
  tidal_access w4 = {a, 4 * CH, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &w4));
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_swap_out(a, 2 * CH));
  tidal_access r1 = {a + 2 * CH, CH, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &r1));
  CHECK_OK(tidal_shutdown());
  th_init(&cfg);
  CHECK(th_stats().resident_bytes == 0);
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
