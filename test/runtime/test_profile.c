/* test_profile.c - TIDAL_PROFILE files and the sim's cost-model file.
 *
 * A profile (version 2) lists each op site once with its count, mean
 * duration and mean launch time (the sim writes its modelled ones, so the
 * format is checked here; the CUDA backend writes measured ones).  The
 * first iteration is left out of a site that ran later (Note [cold
 * samples], runtime/profile.c); a site seen only then keeps it.  A cost
 * file with an unknown key or a malformed value makes tidal_init fail with
 * the file and line. */
#include "testhelp.h"

#ifndef TH_GPU
static const tidal_site fast = {"fast_op", "train.cu", 10, 2e-3};
static const tidal_site slow = {"slow_op -> cublasSgemm", "train.cu", 20, 5e-3};

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  static char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  fputs(text, f);
  fclose(f);
}
#endif

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
#ifdef TH_GPU
  printf("SKIP: the sim writes modelled profiles; the GPU check covers measured ones\n");
  return 77;
#else
  char dir[] = "/tmp/tidal-profile-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char prof[256], costs[256];
  snprintf(prof, sizeof prof, "%s/ops.profile", dir);
  snprintf(costs, sizeof costs, "%s/bad.costs", dir);

  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 8);
  cfg.profile_path = prof;
  th_init(&cfg);
  unsigned char *a;
  CHECK_OK(tidal_malloc((void **)&a, 2 * cfg.chunk_bytes));
  tidal_access w = {a, 2 * cfg.chunk_bytes, TIDAL_WRITE};
  /* the first iteration: a cold call of `varying` (9 ms: a library's
   * one-time set-up), and `slow`, which never runs again */
  static tidal_site varying = {"varying_op", "train.cu", 40, 9e-3};
  CHECK_OK(tidal_iteration_begin());
  CHECK_OK(tidal_op_begin(&varying, 1, &w));
  CHECK_OK(tidal_op_end(&varying));
  CHECK_OK(tidal_op_begin(&slow, 1, &w));
  CHECK_OK(tidal_op_end(&slow));
  CHECK_OK(tidal_iteration_end());
  varying.est_seconds = 3e-3;
  for (int it = 0; it < 2; it++) {
    CHECK_OK(tidal_iteration_begin());
    for (int i = 0; i < 3; i++) {
      CHECK_OK(tidal_op_begin(&fast, 1, &w));
      CHECK_OK(tidal_op_end(&fast));
    }
    CHECK_OK(tidal_op_begin(&varying, 1, &w));
    CHECK_OK(tidal_op_end(&varying));
    CHECK_OK(tidal_iteration_end());
  }
  CHECK_OK(tidal_shutdown());
  const char *text = slurp(prof);
  CHECK(strstr(text, "# tidal profile v2") == text);
  /* launches cost the cost model's launch_s (1 us by default) */
  CHECK(strstr(text, "train.cu:10\t6\t0.002\t1e-06\tfast_op\n") != NULL);
  CHECK(strstr(text, "train.cu:20\t1\t0.005\t1e-06\tslow_op -> cublasSgemm\n") != NULL);
  CHECK(strstr(text, "train.cu:40\t2\t0.003\t1e-06\tvarying_op\n") != NULL); /* not 0.005 */

  /* Cost files: read over the defaults; errors name the line. */
  write_file(costs, "# measured\nmap_s 3u\nbogus_s 1u\n");
  th_config(&cfg, 4096, 4096 * 8);
  cfg.sim_costs_path = costs;
  CHECK_STATUS(tidal_init(&cfg), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("bad.costs:3: unknown key 'bogus_s'");
  write_file(costs, "map_s fast\n");
  CHECK_STATUS(tidal_init(&cfg), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("bad.costs:1:");
  cfg.sim_costs_path = "/nonexistent/tidal.costs";
  CHECK_STATUS(tidal_init(&cfg), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("/nonexistent/tidal.costs");
  write_file(costs, "launch_s 1m   # a slow host\n");
  cfg.sim_costs_path = costs;
  th_init(&cfg);
  tidal_stats s0 = th_stats();
  static const tidal_site empty = {"empty_op", "train.cu", 30, 0};
  CHECK_OK(tidal_op_begin(&empty, 0, NULL));
  CHECK_OK(tidal_op_end(&empty));
  double dt = th_stats().total.modelled_seconds - s0.total.modelled_seconds;
  CHECK(dt > 0.99e-3 && dt < 1.1e-3); /* the launch is what the op costs */
  CHECK_OK(tidal_shutdown());
  unlink(prof);
  unlink(costs);
  rmdir(dir);
  printf("ok\n");
  return 0;
#endif
}
