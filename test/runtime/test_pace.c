/* test_pace.c - prefetch hints on relocatable tensors deferred to the order
 * they are needed in (Note [prefetch order], runtime/memory/pace.c), on the
 * sim with one copy engine for both directions, as the H200's.
 *
 * Each iteration writes a 64 MiB tensor `big`, an 8 MiB `mid` and a 4 MiB
 * `small`, swaps them out, and after some ops prefetches `mid` and `big`
 * (used about 25 and 35 ops later), then `small` (used 3 ops later), as a
 * build-time plan does when the first two prefetches are the latest points
 * in their scope.  Ops take 200 us.  Checks (each can fail; before this
 * change 1 did):
 *  1. with the order on, from the second iteration (once the leads are
 *     known) mid's and big's hints are deferred (prefetches_deferred);
 *     mid, short, is issued early at the next op, the engine being idle,
 *     big not (its 1.2 ms copy would hold the engine); small's copy goes
 *     before big's, and the device no longer waits for copies: small's use
 *     waited about 0.7 ms a step behind big's copy before;
 *  2. with TIDAL_PREFETCH_ORDER=0 (prefetch_order_off) no hint is deferred
 *     and small's use waits behind big, as before;
 *  3. a deferred tensor that is split by a use of half of it, dropped, or
 *     freed while it waits is never lost nor touched after its free (the
 *     halves read back their bytes; nothing is copied in for a dropped one;
 *     under ASan a freed unit's use would be reported);
 *  and in every run every byte reads back as written. */
#include "testhelp.h"

#define MB ((size_t)1 << 20)
#define BIG (64 * MB)
#define SMALL (4 * MB)
#define MID (8 * MB)
#define FILL (1 * MB)
#define ITERS 5

static tidal_site s_fill = {"fill", "p.cu", 10, 200e-6};
static tidal_site s_wmid = {"write mid", "p.cu", 16, 10e-6};
static tidal_site s_umid = {"use mid", "p.cu", 17, 10e-6};
static tidal_site s_wbig = {"write big", "p.cu", 11, 10e-6};
static tidal_site s_wsmall = {"write small", "p.cu", 12, 10e-6};
static tidal_site s_usmall = {"use small", "p.cu", 13, 10e-6};
static tidal_site s_ubig = {"use big", "p.cu", 14, 10e-6};
static tidal_site s_half = {"use half of big", "p.cu", 15, 10e-6};
static unsigned char *big, *mid, *small, *fill;

static void init(int order_off) {
  char costs[64];
  strcpy(costs, "/tmp/tidal-pace-costs-XXXXXX");
  int fd = mkstemp(costs);
  const char *text =
      "one_copy_engine 1\nh2d_bytes_per_s 54G\nd2h_bytes_per_s 54G\nhost_ahead_s 50u\n";
  CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  close(fd);
  tidal_config cfg;
  th_config(&cfg, 2 * MB, 512 * MB); /* room for all: only the hints move data */
  cfg.sim_costs_path = costs;
  cfg.prefetch_order_off = order_off;
  th_init(&cfg);
  unlink(costs);
  CHECK_OK(tidal_malloc_grouped((void **)&big, BIG, TIDAL_GROUP_RELOCATABLE));
  CHECK_OK(tidal_malloc_grouped((void **)&small, SMALL, TIDAL_GROUP_RELOCATABLE));
  CHECK_OK(tidal_malloc_grouped((void **)&mid, MID, TIDAL_GROUP_RELOCATABLE));
  CHECK_OK(tidal_malloc_grouped((void **)&fill, FILL, TIDAL_GROUP_RELOCATABLE));
}

static void fills(int n) {
  tidal_access a = {fill, FILL, TIDAL_READWRITE};
  for (int i = 0; i < n; i++) {
    CHECK_OK(tidal_op_begin(&s_fill, 1, &a));
    CHECK_OK(tidal_op_end(&s_fill));
  }
}

/* One step: all written, swapped out, prefetched in the hints' order, used.
 * *early: bytes prefetched by mid's and big's hints and the op after them. */
static void step(int it, uint64_t *early) {
  CHECK_OK(tidal_iteration_begin());
  th_op_write_at(&s_wbig, big, BIG, (uint64_t)it);
  th_op_write_at(&s_wmid, mid, MID, (uint64_t)it + 50);
  th_op_write_at(&s_wsmall, small, SMALL, (uint64_t)it + 100);
  CHECK_OK(tidal_swap_out(big, BIG));
  CHECK_OK(tidal_swap_out(mid, MID));
  CHECK_OK(tidal_swap_out(small, SMALL));
  fills(12); /* 2.4 ms: the 76 MiB of swap-outs (1.4 ms) end */
  CHECK_OK(rt_release_parked()); /* as pressure would: the prefetches copy */
  uint64_t in0 = th_stats().total.prefetched_bytes;
  CHECK_OK(tidal_prefetch(mid, MID));
  CHECK_OK(tidal_prefetch(big, BIG));
  fills(1);
  if (early)
    *early = th_stats().total.prefetched_bytes - in0;
  CHECK_OK(tidal_prefetch(small, SMALL));
  fills(2);
  th_op_check_at(&s_usmall, small, 0, SMALL, 0, (uint64_t)it + 100);
  fills(20);
  th_op_check_at(&s_umid, mid, 0, MID, 0, (uint64_t)it + 50);
  fills(10);
  th_op_check_at(&s_ubig, big, 0, BIG, 0, (uint64_t)it);
  CHECK_OK(tidal_iteration_end());
}

typedef struct outcome {
  double copy_wait_s; /* the last iteration's device time waiting for copies */
  uint64_t deferred;  /* in all */
  uint64_t early;     /* bytes issued by the far hints and the op after, last iteration */
  uint64_t deferred_first; /* in the first iteration */
} outcome;

static outcome run(int order_off) {
  init(order_off);
  outcome o = {0, 0, 0, 0};
  for (int it = 0; it < ITERS; it++) {
    step(it, &o.early);
    tidal_stats s = th_stats();
    if (it == 0)
      o.deferred_first = s.total.prefetches_deferred;
    printf("  order %s, iteration %d: %.1f us, device waiting for copies %.1f us, deferred %llu, "
           "%.0f MiB out, %.0f MiB prefetched, %llu faults\n",
           order_off ? "off" : "on", it, s.last_iteration.modelled_seconds * 1e6,
           s.last_iteration.modelled_copy_wait_seconds * 1e6,
           (unsigned long long)s.last_iteration.prefetches_deferred,
           (double)s.last_iteration.swapped_out_bytes / MB,
           (double)s.last_iteration.prefetched_bytes / MB,
           (unsigned long long)s.last_iteration.faults);
  }
  tidal_stats s = th_stats();
  o.copy_wait_s = s.last_iteration.modelled_copy_wait_seconds;
  o.deferred = s.total.prefetches_deferred;
  CHECK_OK(tidal_free(big));
  CHECK_OK(tidal_free(mid));
  CHECK_OK(tidal_free(small));
  CHECK_OK(tidal_free(fill));
  CHECK_OK(tidal_shutdown());
  return o;
}

/* 3. what may happen to a tensor while its prefetch waits: each case in a
 * fresh run whose first step taught big's lead. */
static void finish(void) {
  CHECK_OK(tidal_free(mid));
  CHECK_OK(tidal_free(small));
  CHECK_OK(tidal_free(fill));
  CHECK_OK(tidal_shutdown());
}

/* big written with salt, swapped out, its prefetch deferred */
static void deferred_big(uint64_t salt) {
  init(0);
  step(0, NULL);
  CHECK_OK(tidal_iteration_begin());
  th_op_write_at(&s_wbig, big, BIG, salt);
  CHECK_OK(tidal_swap_out(big, BIG));
  fills(12);
  CHECK_OK(rt_release_parked());
  uint64_t d0 = th_stats().total.prefetches_deferred;
  CHECK_OK(tidal_prefetch(big, BIG));
  CHECK(th_stats().total.prefetches_deferred == d0 + 1);
}

static void edges(void) {
  /* a use of its first half splits it: both halves' bytes stay */
  deferred_big(7);
  th_op_check_at(&s_half, big, 0, BIG / 2, 0, 7); /* faulted in */
  fills(4);
  th_op_check_at(&s_half, big, BIG / 2, BIG / 2, BIG / 2, 7); /* the other half, pending */
  th_op_check_at(&s_ubig, big, 0, BIG, 0, 7);
  CHECK_OK(tidal_iteration_end());
  CHECK_OK(tidal_free(big));
  finish();
  /* dropped while it waits: no copy comes of the hint, and a write makes it anew */
  deferred_big(8);
  uint64_t in0 = th_stats().total.swapped_in_bytes;
  CHECK_OK(tidal_drop(big, BIG));
  fills(40); /* its use would have been due */
  CHECK(th_stats().total.swapped_in_bytes == in0);
  th_op_write_at(&s_wbig, big, BIG, 9);
  th_op_check_at(&s_ubig, big, 0, BIG, 0, 9);
  CHECK_OK(tidal_iteration_end());
  CHECK_OK(tidal_free(big));
  finish();
  /* freed while it waits: the ops after it do not touch it */
  deferred_big(10);
  CHECK_OK(tidal_free(big));
  fills(40);
  CHECK_OK(tidal_iteration_end());
  finish();
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  outcome on = run(0), off = run(1);
  printf("order on: device waited %.1f us for copies in the last step, %llu deferred\n",
         on.copy_wait_s * 1e6, (unsigned long long)on.deferred);
  printf("order off: device waited %.1f us for copies in the last step, %llu deferred\n",
         off.copy_wait_s * 1e6, (unsigned long long)off.deferred);
  /* 1. */
  CHECK(on.deferred_first == 0); /* no lead known yet: the hints as written */
  CHECK(on.deferred >= 2 * (ITERS - 1));
  CHECK(on.early == MID); /* mid early, big not */
  CHECK(on.copy_wait_s < 50e-6);
  /* 2. issued as called: big's copy (1.24 ms at 54 GB/s) before small's */
  CHECK(off.deferred == 0);
  CHECK(off.early == MID + BIG);
  CHECK(off.copy_wait_s > 500e-6);
  /* 3. */
  edges();
  printf("ok\n");
  return 0;
}
