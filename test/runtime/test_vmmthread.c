/* test_vmmthread.c - the VMM worker (Note [vmm worker] in runtime/device/vmmq.c):
 * an op never begins before the driver commands for its chunks have run,
 * and the hints that only queue commands (prefetch, swap-out) do not wait
 * for them.
 *
 * The worker can be held (a library-internal test hook): it starts no
 * command until released.  Each case holds it, releases it from a second
 * thread after HOLD_MS, and checks what the training thread did meanwhile.
 * If tidal_op_begin returned before its chunk's map ran, the access after
 * it touches an unmapped chunk (the sim: SIGSEGV, reported below; CUDA: the
 * copy fails) and commands are still pending - both checked. */
#include "testhelp.h" /* first: it sets _GNU_SOURCE */
#include <pthread.h>
#include <signal.h>

void rt_vmmq_hold(int on);
uint64_t rt_vmmq_pending(void);

#define HOLD_MS 200

static void *release_later(void *arg) {
  (void)arg;
  struct timespec t = {0, HOLD_MS * 1000000L};
  nanosleep(&t, NULL);
  rt_vmmq_hold(0);
  return NULL;
}

static pthread_t releaser;

/* Holds the worker; a thread lets it go after HOLD_MS. */
static void hold_then_release(void) {
  rt_vmmq_hold(1);
  if (pthread_create(&releaser, NULL, release_later, NULL) != 0)
    TH_FAIL("pthread_create");
}

static void joined(void) { pthread_join(releaser, NULL); }

#ifndef TH_GPU
static void on_segv(int sig) {
  (void)sig;
  static const char msg[] = "FAIL: an op touched a chunk whose map had not run (SIGSEGV)\n";
  if (write(2, msg, sizeof msg - 1) < 0) {
  }
  _exit(1);
}
#endif

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
#ifndef TH_GPU
  signal(SIGSEGV, on_segv);
#endif
  tidal_config cfg;
  th_config(&cfg, 65536, 65536 * 4);
  cfg.vmm_thread = 1;
  th_init(&cfg);
  const size_t CH = 65536 * (cfg.chunk_bytes / 65536); /* 2 MiB on a GPU */
  static const tidal_site site = {"op", __FILE__, __LINE__, 0};
  unsigned char *want = malloc(CH), *got = malloc(CH);
  CHECK(want && got);
  th_fill_pattern(want, CH, th_seed);

  /* 1. A fresh chunk: the op's begin waits for its map and set-access. */
  unsigned char *a, *b;
  CHECK_OK(tidal_malloc((void **)&a, CH));
  CHECK_OK(tidal_malloc((void **)&b, CH));
  hold_then_release();
  tidal_access wa = {a, CH, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &wa));
  th_put(a, want, CH);
  CHECK(rt_vmmq_pending() == 0);
  CHECK_OK(tidal_op_end(&site));
  joined();

  /* 2. A swap-out only queues its copy: the hint returns with the worker
   * held; the data is on the host once it has run. */
  rt_vmmq_hold(1);
  CHECK_OK(tidal_swap_out(a, CH));
  CHECK(rt_vmmq_pending() > 0);
  rt_vmmq_hold(0);
  CHECK_OK(tidal_synchronize());
  CHECK(rt_vmmq_pending() == 0);
  CHECK(th_stats().total.swapped_out_bytes >= CH);

  /* 3. Fault-in after the memory was given away (unmap queued): the op
   * waits for unmap, map, set-access and the copy, and reads the data. */
  CHECK_OK(rt_release_parked());
  hold_then_release();
  tidal_access ra = {a, CH, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &ra));
  memset(got, 0, CH);
  th_get(got, a, CH);
  CHECK(rt_vmmq_pending() == 0);
  CHECK(memcmp(got, want, CH) == 0);
  CHECK_OK(tidal_op_end(&site));
  joined();

  /* 4. A prefetch only queues: it returns with its map and copy pending,
   * and the op that uses the chunk waits for them. */
  CHECK_OK(tidal_swap_out(a, CH));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  CHECK_OK(tidal_synchronize());
  rt_vmmq_hold(1);
  uint64_t faults = th_stats().total.faults;
  CHECK_OK(tidal_prefetch(a, CH));
  CHECK(rt_vmmq_pending() >= 3); /* map, set-access, copy: none has run */
  hold_then_release();
  CHECK_OK(tidal_op_begin(&site, 1, &ra));
  memset(got, 0, CH);
  th_get(got, a, CH);
  CHECK(rt_vmmq_pending() == 0);
  CHECK(memcmp(got, want, CH) == 0);
  CHECK(th_stats().total.faults == faults); /* the prefetch served it */
  CHECK_OK(tidal_op_end(&site));
  joined();

  /* 5. Freeing drains what is queued for the allocation before its
   * addresses go. */
  tidal_access wb = {b, CH, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &wb));
  th_put(b, want, CH);
  CHECK_OK(tidal_op_end(&site));
  rt_vmmq_hold(1);
  CHECK_OK(tidal_swap_out(b, CH));
  hold_then_release();
  CHECK_OK(tidal_free(b));
  CHECK(rt_vmmq_pending() == 0);
  joined();

  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_shutdown());
  free(want);
  free(got);
  printf("ok\n");
  return 0;
}
