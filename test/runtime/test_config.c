/* test_config.c - TIDAL_* environment parsing, tidal_init(NULL), the trace. */
#include "testhelp.h"

static void clear_env(void) {
  const char *vars[] = {"TIDAL_DEVICE", "TIDAL_BUDGET", "TIDAL_HOST_BUDGET", "TIDAL_CHUNK",
                        "TIDAL_TRACE", "TIDAL_LOG", "TIDAL_PLANNER", "TIDAL_PLANNER_FEEDBACK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    unsetenv(vars[i]);
}

static tidal_config from_env(tidal_status want) {
  tidal_config c;
  tidal_config_default(&c);
  CHECK_STATUS(tidal_config_from_env(&c), want);
  return c;
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  clear_env();
  tidal_config c = from_env(TIDAL_OK);
  CHECK(c.device == TIDAL_DEVICE_DEFAULT && c.budget_bytes == 0 && c.trace_path == NULL);

  setenv("TIDAL_BUDGET", "64M", 1);
  c = from_env(TIDAL_OK);
  CHECK(c.budget_bytes == ((size_t)64 << 20) && c.budget_percent == 0);
  setenv("TIDAL_BUDGET", "1.5G", 1);
  CHECK(from_env(TIDAL_OK).budget_bytes == (size_t)3 << 29);
  setenv("TIDAL_BUDGET", "512KiB", 1);
  CHECK(from_env(TIDAL_OK).budget_bytes == (size_t)512 << 10);
  setenv("TIDAL_BUDGET", "4096", 1);
  CHECK(from_env(TIDAL_OK).budget_bytes == 4096);
  setenv("TIDAL_BUDGET", "40%", 1);
  c = from_env(TIDAL_OK);
  CHECK(c.budget_percent == 40.0 && c.budget_bytes == 0);
  setenv("TIDAL_BUDGET", "64M ", 1); /* spaces around the number are ignored */
  c = from_env(TIDAL_OK);
  CHECK(c.budget_bytes == (size_t)64 << 20);
  setenv("TIDAL_BUDGET", "", 1); /* empty: as if unset */
  c = from_env(TIDAL_OK);
  CHECK(c.budget_bytes == 0 && c.budget_percent == 0);
  /* Decimal only: strtod's hex ("0x1G" would be 1 GiB), exponents, inf and
   * nan are malformed, as are doubled or out-of-range percentages. */
  const char *bad[] = {"abc", "12Q", "-5M", "0",   "150%", "%",   "5M%",  "50%%", "-1",
                       "1Q",  "101%", "0%", "0x10", "0x1G", "1e3", "inf", "nan", "0.5",
                       "1.2.3", "."};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    setenv("TIDAL_BUDGET", bad[i], 1);
    from_env(TIDAL_ERR_CONFIG);
    CHECK_MESSAGE("TIDAL_BUDGET");
  }
  unsetenv("TIDAL_BUDGET");

  setenv("TIDAL_DEVICE", "sim", 1);
  CHECK(from_env(TIDAL_OK).device == TIDAL_DEVICE_SIM);
  setenv("TIDAL_DEVICE", "CUDA", 1);
  CHECK(from_env(TIDAL_OK).device == TIDAL_DEVICE_CUDA);
  setenv("TIDAL_DEVICE", "tpu", 1);
  from_env(TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("TIDAL_DEVICE=tpu");
  unsetenv("TIDAL_DEVICE");

  setenv("TIDAL_HOST_BUDGET", "2G", 1);
  CHECK(from_env(TIDAL_OK).host_budget_bytes == (size_t)2 << 30);
  setenv("TIDAL_HOST_BUDGET", "50%", 1); /* percentages are for the device budget only */
  from_env(TIDAL_ERR_CONFIG);
  unsetenv("TIDAL_HOST_BUDGET");
  setenv("TIDAL_CHUNK", "64K", 1);
  CHECK(from_env(TIDAL_OK).chunk_bytes == (size_t)64 << 10);
  unsetenv("TIDAL_CHUNK");
  setenv("TIDAL_LOG", "debug", 1);
  CHECK(from_env(TIDAL_OK).log_level == 4);
  setenv("TIDAL_LOG", "2", 1);
  CHECK(from_env(TIDAL_OK).log_level == 2);
  setenv("TIDAL_LOG", "loud", 1);
  from_env(TIDAL_ERR_CONFIG);
  unsetenv("TIDAL_LOG");

  /* tidal_init(NULL) reads the environment: a percentage of the sim's
   * 16 GiB device, a trace file. */
  char trace[] = "/tmp/tidal-trace-XXXXXX";
  int fd = mkstemp(trace);
  CHECK(fd >= 0);
  setenv("TIDAL_DEVICE", "sim", 1);
  setenv("TIDAL_BUDGET", "25%", 1);
  setenv("TIDAL_CHUNK", "64K", 1);
  setenv("TIDAL_TRACE", trace, 1);
  setenv("TIDAL_PLANNER", "hints", 1); /* the swap hint runs at once (no pressure here) */
  CHECK_OK(tidal_init(NULL));
  tidal_stats s = th_stats();
  CHECK(s.budget_bytes == ((size_t)16 << 30) / 4);
  void *p;
  CHECK_OK(tidal_malloc(&p, (size_t)256 << 10));
  static const tidal_site site = {"trace_me", "test_config.c", 1, 0};
  tidal_access a = {p, TIDAL_EXTENT_UNKNOWN, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_swap_out(p, TIDAL_EXTENT_UNKNOWN));
  CHECK_OK(tidal_free(p));
  CHECK_OK(tidal_shutdown());
  FILE *f = fdopen(fd, "r");
  char line[512];
  int n = 0, saw_op = 0, saw_swap = 0;
  while (fgets(line, sizeof line, f)) {
    CHECK(line[0] == '{' && strstr(line, "}\n"));
    CHECK(strstr(line, "\"ev\":\""));
    saw_op |= strstr(line, "\"ev\":\"op_begin\"") && strstr(line, "trace_me");
    saw_swap |= strstr(line, "\"ev\":\"swap_out\"") != NULL;
    n++;
  }
  fclose(f);
  unlink(trace);
  CHECK(n >= 6 && saw_op && saw_swap);

  /* TIDAL_PLANNER and TIDAL_PLANNER_FEEDBACK. */
  clear_env();
  CHECK(from_env(TIDAL_OK).planner == TIDAL_PLANNER_DEFAULT);
  setenv("TIDAL_PLANNER", "LRU", 1);
  CHECK(from_env(TIDAL_OK).planner == TIDAL_PLANNER_LRU);
  setenv("TIDAL_PLANNER", "runtime", 1);
  CHECK(from_env(TIDAL_OK).planner == TIDAL_PLANNER_RUNTIME);
  setenv("TIDAL_PLANNER_FEEDBACK", "0", 1);
  CHECK(from_env(TIDAL_OK).planner_feedback_off == 1);
  setenv("TIDAL_PLANNER_FEEDBACK", "yes", 1);
  from_env(TIDAL_ERR_CONFIG);
  unsetenv("TIDAL_PLANNER_FEEDBACK");
  setenv("TIDAL_PLANNER", "oracle", 1);
  from_env(TIDAL_ERR_CONFIG);
  {
    tidal_config pc;
    tidal_config_default(&pc);
    pc.device = TIDAL_DEVICE_SIM;
    pc.budget_bytes = (size_t)1 << 20;
    CHECK_STATUS(tidal_init(&pc), TIDAL_ERR_CONFIG); /* a default planner reads the variable */
    CHECK_MESSAGE("TIDAL_PLANNER=oracle");
  }
  clear_env();

  /* A malformed variable fails tidal_init(NULL) instead of being ignored. */
  unsetenv("TIDAL_TRACE");
  setenv("TIDAL_BUDGET", "lots", 1);
  CHECK_STATUS(tidal_init(NULL), TIDAL_ERR_CONFIG);
  CHECK(!tidal_is_initialized());
  clear_env();
  printf("ok\n");
  return 0;
}
