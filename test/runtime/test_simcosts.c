/* test_simcosts.c - what the sim's clock charges the host (issue 19, "the
 * model before the mechanism"; runtime/backend_sim.c).
 *
 *  1. A chunk is one physical handle: its map, set-access and unmap cost
 *     the cost file's figure for a handle of its size, on the straight line
 *     between the measured 2, 8 and 32 MiB points, times vmm_in_situ_scale
 *     (Note [vmm calls in situ]).  Before, every chunk paid the 2 MiB
 *     figure, unscaled.
 *  2. A site listed in tidal_config.sim_sites launches for its own
 *     measured time instead of the cost model's launch_s.
 *  3. A site flagged TIDAL_SIM_SITE_HOST_SYNC (a cudaMemcpy to the host)
 *     makes the host wait until the device has run it (Note
 *     [host-synchronous ops]); the same op unflagged does not.
 *  4. With sim_device_sync_per_iteration (the program's cudaDeviceSynchronize
 *     once a step) the host waits at tidal_iteration_end for the last op
 *     and for copies still running, tidal's swap-outs included (Note
 *     [device sync]); without it, it does not.  Before, it never waited.
 *     With 2 (the rewrite's tidal_device_synchronize: Note [the program's
 *     sync], pass/rewrite/rewrite.c) it waits for the op, not the copy.
 *  5. With one_copy_engine a prefetch issued while a swap-out runs starts
 *     when it ends (Note [one copy engine]); without, the two overlap.
 * Sim only: the CUDA backend has no modelled clock. */
#include "testhelp.h"

#ifndef TH_GPU
#include <unistd.h>

static char costs[64];

static void write_costs(const char *text) {
  FILE *f = fopen(costs, "w");
  CHECK(f != NULL);
  fputs(text, f);
  fclose(f);
}

/* Host seconds in driver calls to map, grant and (after the memory goes
 * to a second chunk) unmap-free chunks of `chunk` bytes: one write op
 * each on two allocations under a one-chunk budget. */
static double vmm_seconds(size_t chunk, double *maps_only) {
  tidal_config cfg;
  th_config(&cfg, chunk, chunk);
  cfg.sim_costs_path = costs;
  cfg.sim_device_bytes = 4 * chunk;
  th_init(&cfg);
  unsigned char *a, *b;
  CHECK_OK(tidal_malloc((void **)&a, chunk));
  CHECK_OK(tidal_malloc((void **)&b, chunk));
  static const tidal_site op = {"write", "t.cu", 1, 0};
  tidal_access wa = {a, chunk, TIDAL_WRITE}, wb = {b, chunk, TIDAL_WRITE};
  tidal_stats s0 = th_stats();
  CHECK_OK(tidal_op_begin(&op, 1, &wa)); /* map + set-access */
  CHECK_OK(tidal_op_end(&op));
  *maps_only = th_stats().total.modelled_vmm_seconds - s0.total.modelled_vmm_seconds;
  CHECK_OK(tidal_op_begin(&op, 1, &wb)); /* a's memory to b: map + set-access */
  CHECK_OK(tidal_op_end(&op));
  CHECK_OK(tidal_op_begin(&op, 1, &wa)); /* back: unmap a's stale address, map, grant */
  CHECK_OK(tidal_op_end(&op));
  double s = th_stats().total.modelled_vmm_seconds - s0.total.modelled_vmm_seconds;
  CHECK_OK(tidal_shutdown());
  return s;
}

static int near(double x, double want) { return x > want * (1 - 1e-9) && x < want * (1 + 1e-9); }

/* Host seconds tidal_synchronize waits for a 10 ms swap-out and a 10 ms
 * prefetch issued together. */
static double both_directions_wait(int one_engine) {
  char text[256];
  snprintf(text, sizeof text, "launch_s 0\nlaunch_gap_s 0\nevent_sync_s 0\ncopy_latency_s 0\n"
           "copy_issue_s 0\nd2h_bytes_per_s 409600\nh2d_bytes_per_s 409600\n"
           "one_copy_engine %d\n", one_engine);
  write_costs(text);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 2);
  cfg.sim_costs_path = costs;
  th_init(&cfg);
  unsigned char *a, *b;
  CHECK_OK(tidal_malloc((void **)&a, 4096));
  CHECK_OK(tidal_malloc((void **)&b, 4096));
  static const tidal_site w = {"write", "t.cu", 8, 0};
  tidal_access wa = {a, 4096, TIDAL_WRITE}, wb = {b, 4096, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&w, 1, &wa));
  CHECK_OK(tidal_op_end(&w));
  CHECK_OK(tidal_op_begin(&w, 1, &wb));
  CHECK_OK(tidal_op_end(&w));
  CHECK_OK(tidal_swap_out(b, 4096));
  CHECK_OK(tidal_synchronize()); /* b on the host */
  unsigned char *c; /* takes b's memory, so b comes back by a copy */
  CHECK_OK(tidal_malloc((void **)&c, 4096));
  tidal_access wc = {c, 4096, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&w, 1, &wc));
  CHECK_OK(tidal_op_end(&w));
  CHECK_OK(tidal_free(c));
  CHECK_OK(tidal_synchronize());
  tidal_stats s0 = th_stats();
  CHECK_OK(tidal_swap_out(a, 4096));
  CHECK_OK(tidal_prefetch(b, 4096));
  CHECK_OK(tidal_synchronize());
  double waited = th_stats().total.modelled_host_wait_seconds -
                  s0.total.modelled_host_wait_seconds;
  CHECK(th_stats().total.prefetched_bytes - s0.total.prefetched_bytes == 4096); /* a real copy */
  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_free(b));
  CHECK_OK(tidal_shutdown());
  return waited;
}

/* Host seconds waited in tidal_iteration_end after an iteration that ends
 * with a 5 ms op (first) or a 10 ms swap-out in flight (*copy_wait). */
static double iteration_end_wait(int device_sync, double *copy_wait) {
  write_costs("launch_s 1m\nlaunch_gap_s 0\nevent_sync_s 0\ncopy_latency_s 0\n"
              "d2h_bytes_per_s 409600\nh2d_bytes_per_s 409600\n"); /* 4 KiB: 10 ms */
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 8);
  cfg.sim_costs_path = costs;
  cfg.sim_device_sync_per_iteration = device_sync;
  th_init(&cfg);
  static const tidal_site slow = {"slow", "t.cu", 6, 5e-3}, w = {"write", "t.cu", 7, 0};
  CHECK_OK(tidal_iteration_begin());
  CHECK_OK(tidal_op_begin(&slow, 0, NULL));
  CHECK_OK(tidal_op_end(&slow));
  tidal_stats s0 = th_stats();
  CHECK_OK(tidal_iteration_end());
  double op_wait = th_stats().total.modelled_host_wait_seconds -
                   s0.total.modelled_host_wait_seconds;
  unsigned char *a;
  CHECK_OK(tidal_malloc((void **)&a, 4096));
  tidal_access wa = {a, 4096, TIDAL_WRITE};
  CHECK_OK(tidal_iteration_begin());
  CHECK_OK(tidal_op_begin(&w, 1, &wa));
  CHECK_OK(tidal_op_end(&w));
  CHECK_OK(tidal_swap_out(a, 4096));
  tidal_stats s1 = th_stats();
  CHECK_OK(tidal_iteration_end());
  *copy_wait = th_stats().total.modelled_host_wait_seconds - s1.total.modelled_host_wait_seconds;
  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_shutdown());
  return op_wait;
}

/* Host seconds tidal_device_synchronize waits after a 5 ms op and a 10 ms
 * swap-out issued after it, and (*all) what tidal_synchronize then waits
 * on top: the program's work, then tidal's copy. */
static double program_sync_wait(double *all) {
  write_costs("launch_s 1m\nlaunch_gap_s 0\nevent_sync_s 0\ncopy_latency_s 0\n"
              "d2h_bytes_per_s 409600\nh2d_bytes_per_s 409600\n");
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 8);
  cfg.sim_costs_path = costs;
  th_init(&cfg);
  static const tidal_site slow = {"slow", "t.cu", 8, 5e-3};
  unsigned char *a;
  CHECK_OK(tidal_malloc((void **)&a, 4096));
  tidal_access wa = {a, 4096, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&slow, 1, &wa));
  CHECK_OK(tidal_op_end(&slow));
  CHECK_OK(tidal_swap_out(a, 4096)); /* after the op: 6 ms to 16 ms */
  tidal_stats s0 = th_stats();
  CHECK_OK(tidal_device_synchronize());
  tidal_stats s1 = th_stats();
  CHECK_OK(tidal_synchronize());
  *all = th_stats().total.modelled_host_wait_seconds - s1.total.modelled_host_wait_seconds;
  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_shutdown());
  return s1.total.modelled_host_wait_seconds - s0.total.modelled_host_wait_seconds;
}
#endif

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
#ifdef TH_GPU
  printf("SKIP: the sim's modelled clock only\n");
  return 77;
#else
  strcpy(costs, "/tmp/tidal-simcosts-XXXXXX");
  int fd = mkstemp(costs);
  CHECK(fd >= 0);
  close(fd);

  /* 1. handle sizes and the in-situ scale */
  write_costs("map_s 1m\nset_access_s 10m\nunmap_s 100m\n"
              "map_8m_s 2m\nset_access_8m_s 20m\nunmap_8m_s 200m\n"
              "map_32m_s 5m\nset_access_32m_s 50m\nunmap_32m_s 500m\n"
              "vmm_in_situ_scale 2\n");
  const size_t M = (size_t)1 << 20;
  double first, all;
  all = vmm_seconds(2 * M, &first);
  CHECK(near(first, 2 * (1e-3 + 10e-3)));
  CHECK(near(all, 2 * (3 * (1e-3 + 10e-3) + 100e-3))); /* three maps and grants, one unmap */
  all = vmm_seconds(8 * M, &first);
  CHECK(near(first, 2 * (2e-3 + 20e-3)));
  CHECK(near(all, 2 * (3 * (2e-3 + 20e-3) + 200e-3)));
  vmm_seconds(16 * M, &first); /* a third of the way from 8 to 32 MiB */
  CHECK(near(first, 2 * ((2e-3 + 1e-3) + (20e-3 + 10e-3))));
  vmm_seconds(4 * M, &first); /* a third of the way from 2 to 8 MiB */
  CHECK(near(first, 2 * ((1e-3 + 1e-3 / 3) + (10e-3 + 10e-3 / 3))));
  /* sizes not measured cost the next smaller measured one; scale 0 is 1 */
  write_costs("map_s 1m\nset_access_s 10m\nunmap_s 100m\nvmm_in_situ_scale 0\n"
              "map_8m_s 0\nset_access_8m_s 0\nunmap_8m_s 0\n"
              "map_32m_s 0\nset_access_32m_s 0\nunmap_32m_s 0\n");
  vmm_seconds(8 * M, &first);
  CHECK(near(first, 1e-3 + 10e-3));

  /* 2 and 3: per-site launches and host-synchronous ops */
  write_costs("launch_s 1m\nlaunch_gap_s 0\nevent_sync_s 0\n");
  static const tidal_site fast = {"listed", "t.cu", 2, 0}, other = {"other", "t.cu", 3, 0};
  static const tidal_site copy = {"loss -> cudaMemcpy", "t.cu", 4, 5e-3};
  static const tidal_site async = {"loss -> cudaMemcpyAsync", "t.cu", 5, 5e-3};
  tidal_sim_site sites[2] = {{&fast, 20e-6, 0}, {&copy, 0, TIDAL_SIM_SITE_HOST_SYNC}};
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 8);
  cfg.sim_costs_path = costs;
  cfg.sim_sites = sites;
  cfg.n_sim_sites = 2;
  th_init(&cfg);
  tidal_stats s0 = th_stats();
  CHECK_OK(tidal_op_begin(&fast, 0, NULL));
  CHECK_OK(tidal_op_end(&fast));
  tidal_stats s1 = th_stats();
  CHECK(near(s1.total.modelled_seconds - s0.total.modelled_seconds, 20e-6));
  CHECK_OK(tidal_op_begin(&other, 0, NULL));
  CHECK_OK(tidal_op_end(&other));
  tidal_stats s2 = th_stats();
  CHECK(near(s2.total.modelled_seconds - s1.total.modelled_seconds, 1e-3));
  /* an async copy: the host goes on (its launch, 1 ms, is all it pays) */
  CHECK_OK(tidal_op_begin(&async, 0, NULL));
  CHECK_OK(tidal_op_end(&async));
  tidal_stats s3 = th_stats();
  CHECK(s3.total.modelled_host_wait_seconds == s2.total.modelled_host_wait_seconds);
  /* the synchronous one: the host waits for both copies (5 ms each) */
  CHECK_OK(tidal_op_begin(&copy, 0, NULL));
  CHECK_OK(tidal_op_end(&copy));
  tidal_stats s4 = th_stats();
  double waited = s4.total.modelled_host_wait_seconds - s3.total.modelled_host_wait_seconds;
  /* the device ran the async copy from 1 ms after s2 to 6 ms and this one
   * to 11 ms; the host, done launching at 2 ms, waited the rest */
  CHECK(near(waited, 11e-3 - 2e-3));
  CHECK_OK(tidal_shutdown());

  /* 4. the program's device sync once an iteration */
  double copy_wait;
  /* the op ran from 1 ms (its launch) to 6 ms: 5 ms left to wait */
  CHECK(near(iteration_end_wait(1, &copy_wait), 5e-3));
  CHECK(copy_wait > 9e-3 && copy_wait <= 10e-3 + 1e-6); /* the swap-out's 10 ms, less its issue */
  CHECK(iteration_end_wait(0, &copy_wait) == 0);
  CHECK(copy_wait == 0);
  /* 4b. the rewrite's tidal_device_synchronize (2): the op, not the copy */
  CHECK(near(iteration_end_wait(2, &copy_wait), 5e-3));
  CHECK(copy_wait == 0);
  double rest, prog = program_sync_wait(&rest);
  CHECK(near(prog, 5e-3) || prog < 5e-3 + 1e-6); /* the op's 5 ms, less what the host spent */
  CHECK(prog > 4e-3);
  CHECK(rest > 9e-3 && rest <= 10e-3 + 1e-6); /* the swap-out, waited for by tidal_synchronize */

  /* 5. one copy engine for both directions: 20 ms of copies, else 10 */
  double serial = both_directions_wait(1), overlapped = both_directions_wait(0);
  CHECK(serial > 19e-3 && serial <= 20e-3 + 1e-6);
  CHECK(overlapped > 9e-3 && overlapped <= 10e-3 + 1e-6);
  unlink(costs);
  printf("ok\n");
  return 0;
#endif
}
