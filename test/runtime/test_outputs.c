/* test_outputs.c - the runtime's output files fail loudly and early
 * (issue 23; Note [trace failures and the cap] in trace.c, rt_profile_check
 * in profile.c).
 *  - TIDAL_TRACE to a file that takes no bytes (/dev/full) fails tidal_init;
 *  - TIDAL_PROFILE to a missing folder or a directory fails tidal_init (it
 *    used to fail only at tidal_shutdown, after the run); an existing
 *    profile is not truncated by the check; a new path is left absent;
 *  - a trace write that fails mid-run (the file size limit, as a full disk
 *    would) stops tracing and makes tidal_shutdown return TIDAL_ERR_CONFIG
 *    naming the file, while the run's ops go on;
 *  - TIDAL_TRACE_MAX caps the trace: it ends with a "trace_truncated"
 *    instant, is valid JSON (check_trace.py), and stays near the cap. */
#include "testhelp.h" /* first: it sets _GNU_SOURCE */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#ifndef TH_TRACE_CHECKER
#error "TH_TRACE_CHECKER: the command that runs check_trace.py"
#endif

static const tidal_site site = {"out_op", "outputs.c", 1, 1e-5};

static void some_ops(int n) {
  void *a;
  CHECK_OK(tidal_malloc(&a, 3 * 4096));
  for (int i = 0; i < n; i++) {
    if (i % 10 == 0)
      CHECK_OK(tidal_iteration_begin());
    tidal_access acc = {a, 3 * 4096, i % 2 ? TIDAL_READ : TIDAL_WRITE};
    CHECK_OK(tidal_op_begin(&site, 1, &acc));
    CHECK_OK(tidal_op_end(&site));
    if (i % 10 == 9)
      CHECK_OK(tidal_iteration_end());
  }
  CHECK_OK(tidal_free(a));
}

static void init_fails(const tidal_config *cfg, const char *msg) {
  CHECK_STATUS(tidal_init(cfg), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE(msg);
  CHECK(!tidal_is_initialized());
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 8 * 4096);

  /* early failures */
  tidal_config c = cfg;
  c.trace_path = "/dev/full";
  init_fails(&c, "TIDAL_TRACE: '/dev/full': cannot write");
  c = cfg;
  c.profile_path = "/nonexistent-tidal-dir/run.profile";
  init_fails(&c, "TIDAL_PROFILE=/nonexistent-tidal-dir/run.profile: cannot be written");
  c.profile_path = "/tmp";
  init_fails(&c, "TIDAL_PROFILE=/tmp: cannot be written");

  /* the check neither truncates an existing profile nor leaves a new one */
  char keep[] = "/tmp/tidal-profile-XXXXXX";
  int fd = mkstemp(keep);
  CHECK(fd >= 0 && write(fd, "keep\n", 5) == 5);
  close(fd);
  c = cfg;
  c.profile_path = keep;
  th_init(&c);
  struct stat st;
  CHECK(stat(keep, &st) == 0 && st.st_size == 5);
  some_ops(4);
  CHECK_OK(tidal_shutdown());
  FILE *f = fopen(keep, "r");
  char line[64] = "";
  CHECK(f && fgets(line, sizeof line, f));
  fclose(f);
  CHECK(strncmp(line, "# tidal profile v1", 18) == 0);
  unlink(keep);
  char fresh[64];
  snprintf(fresh, sizeof fresh, "/tmp/tidal-profile-new-%d", (int)getpid());
  c.profile_path = fresh;
  th_init(&c);
  CHECK(stat(fresh, &st) != 0);
  CHECK_OK(tidal_shutdown());
  CHECK(stat(fresh, &st) == 0);
  unlink(fresh);

  /* a write that fails mid-run: the file size limit stands in for a full disk */
  char tpath[] = "/tmp/tidal-trace-XXXXXX";
  fd = mkstemp(tpath);
  CHECK(fd >= 0);
  close(fd);
  struct rlimit old, lim;
  CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
  signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
  c = cfg;
  c.trace_path = tpath;
  th_init(&c); /* first: the sim's device memory is a memfd, under the same limit */
  lim = old;
  lim.rlim_cur = 16384;
  CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  some_ops(400); /* the ops go on after the trace fails */
  CHECK_STATUS(tidal_shutdown(), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("writing the trace failed");
  CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);

  /* TIDAL_TRACE_MAX */
  c.trace_max_bytes = 16384;
  th_init(&c);
  some_ops(400);
  CHECK_OK(tidal_shutdown());
  CHECK(stat(tpath, &st) == 0);
  if (st.st_size < 16384 || st.st_size > 16384 + 8192)
    TH_FAIL("a trace capped at 16384 bytes is %lld bytes", (long long)st.st_size);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s %s --need trace_truncated", TH_TRACE_CHECKER, tpath);
  if (system(cmd) != 0)
    TH_FAIL("the capped trace is not a valid trace");
  unlink(tpath);
  printf("ok\n");
  return 0;
}
