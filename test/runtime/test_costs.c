/* test_costs.c - one table of default copy costs (cmake/costs.cmake): the
 * sim's built-in cost model (runtime/device/sim_costs.txt, compiled in) and
 * the TIDAL_COPY_* values that the pass's cost model, the run-time
 * planner's copy model and the trace assume are the same numbers; and so a
 * traced swap-out's slice lasts what the sim charges for it (the trace's
 * default was 55e9 B/s and 10 us while the sim ran 54e9 and 7.5 us). */
#include "testhelp.h"
#include "device/device.h"
#include "tidal_copy_costs.h"

static int near(double a, double b) { return a == b || (a - b) * (a - b) < 1e-24 * b * b; }

/* "dur" of the first complete swap_out slice in the trace at path, in us. */
static double swap_out_dur_us(const char *path) {
  FILE *f = fopen(path, "r");
  CHECK(f);
  char line[1024];
  double dur = -1;
  while (dur < 0 && fgets(line, sizeof line, f)) {
    const char *d = strstr(line, "\"dur\":");
    if (strstr(line, "\"ph\":\"X\"") && strstr(line, "\"name\":\"swap_out\"") && d)
      dur = strtod(d + 6, NULL);
  }
  fclose(f);
  return dur;
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  rt_costs c;
  CHECK_OK(rt_costs_load(NULL, &c));
  CHECK(near(c.h2d_bytes_per_s, TIDAL_COPY_H2D_BYTES_PER_S));
  CHECK(near(c.d2h_bytes_per_s, TIDAL_COPY_D2H_BYTES_PER_S));
  CHECK(near(c.copy_latency_s, TIDAL_COPY_LATENCY_S));

  char path[] = "/tmp/tidal-costs-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  tidal_config cfg;
  th_config(&cfg, 4096, 2 * 4096); /* the sim's own copy costs: none given */
  cfg.trace_path = path;
  th_init(&cfg);
  static const tidal_site site = {"costs_op", "costs.c", 1, 1e-6};
  unsigned char *a, shadow[4096];
  CHECK_OK(tidal_malloc((void **)&a, 4096));
  th_op_write(&site, a, 4096, shadow, 1);
  CHECK_OK(tidal_swap_out(a, 4096));
  CHECK_OK(tidal_synchronize());
  th_op_check(&site, a, 4096, shadow);
  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_shutdown());
  double want_us = (c.copy_latency_s + 4096.0 / c.d2h_bytes_per_s) * 1e6;
  double got_us = swap_out_dur_us(path);
  if (!(got_us > 0 && got_us - want_us < 0.0015 && want_us - got_us < 0.0015))
    TH_FAIL("the swap-out's slice lasts %.3f us, the sim charges %.3f us", got_us, want_us);
  unlink(path);
  printf("ok\n");
  return 0;
}
