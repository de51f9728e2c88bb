/* test_threads_fork.c - the API refuses a second thread and a forked child
 * (Notes [one thread] and [fork] in api.c; issue 23).
 *
 * Another thread's calls return TIDAL_ERR_INVALID with the message the
 * Debug build always gave, in every build (this test runs in the
 * RelWithDebInfo build, which defines NDEBUG: there the check was off and
 * two threads crashed), touching nothing: the owner's data and
 * allocations are intact after them.  In a child forked while the runtime
 * was up every call - tidal_init and tidal_shutdown included - returns
 * TIDAL_ERR_UNSUPPORTED at once (an alarm catches a hang: the child has no
 * copy thread to wait for), tidal_is_initialized says 0, and the parent's
 * data (the sim's device memory is shared with the child) is unchanged. */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include "testhelp.h"

enum { N = 3 * 4096 };
static unsigned char *A;
static const tidal_site site = {"thread_op", __FILE__, __LINE__, 0};
static const char *const thread_msg = "called from a thread other than the one that called";
static const char *const fork_msg = "called in a child process after fork()";

static void write_a(uint64_t salt) {
  unsigned char h[N];
  th_fill_pattern(h, N, salt);
  tidal_access w = {A, N, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &w));
  th_put(A, h, N);
  CHECK_OK(tidal_op_end(&site));
}

static void expect_a(uint64_t salt) {
  unsigned char want[N], got[N];
  th_fill_pattern(want, N, salt);
  tidal_access r = {A, N, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &r));
  th_get(got, A, N);
  CHECK_OK(tidal_op_end(&site));
  if (memcmp(want, got, N) != 0)
    TH_FAIL("the owner's data changed");
}

/* Every kind of call from somewhere it may not run: each refused with
 * `want` and `msg`, nothing done. */
static void refused_calls(tidal_status want, const char *msg) {
  void *p = NULL;
  CHECK_STATUS(tidal_malloc(&p, 4096), want);
  CHECK_MESSAGE(msg);
  CHECK(p == NULL);
  tidal_access w = {A, N, TIDAL_WRITE};
  CHECK_STATUS(tidal_op_begin(&site, 1, &w), want);
  CHECK_MESSAGE(msg);
  CHECK_STATUS(tidal_op_end(&site), want);
  CHECK_STATUS(tidal_swap_out(A, N), want);
  CHECK_STATUS(tidal_prefetch(A, N), want);
  CHECK_STATUS(tidal_drop(A, N), want);
  CHECK_STATUS(tidal_keep(A, N), want);
  CHECK_STATUS(tidal_iteration_begin(), want);
  CHECK_STATUS(tidal_iteration_end(), want);
  CHECK_STATUS(tidal_synchronize(), want);
  CHECK_STATUS(tidal_host_reserve(4096), want);
  CHECK_STATUS(tidal_annotate(A, N, "a", TIDAL_GROUP_OTHER), want);
  tidal_stats s;
  CHECK_STATUS(tidal_stats_get(&s), want);
  CHECK_STATUS(tidal_free(A), want);
  CHECK_MESSAGE(msg);
  CHECK_STATUS(tidal_shutdown(), want);
  CHECK_MESSAGE(msg);
}

static void *other_thread(void *arg) {
  (void)arg;
  refused_calls(TIDAL_ERR_INVALID, thread_msg);
  CHECK_STATUS(tidal_init(NULL), TIDAL_ERR_ALREADY_INITIALIZED);
  return NULL;
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 8);
  th_init(&cfg);
  CHECK_OK(tidal_malloc((void **)&A, N));
  write_a(1);

  /* A second thread. */
  pthread_t t;
  CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  expect_a(1);
  write_a(2);

  /* A forked child. */
  CHECK_OK(tidal_swap_out(A, 4096)); /* a chunk on the host: a child's fault-in used to hang */
  CHECK_OK(tidal_synchronize());
  fflush(stdout);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    alarm(20); /* a hang ends the child with SIGALRM, which the parent reports */
    CHECK(tidal_is_initialized() == 0);
    refused_calls(TIDAL_ERR_UNSUPPORTED, fork_msg);
    CHECK_STATUS(tidal_init(NULL), TIDAL_ERR_UNSUPPORTED);
    CHECK_MESSAGE(fork_msg);
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    TH_FAIL("the child ended with %s %d", WIFSIGNALED(status) ? "signal" : "status",
            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  CHECK(tidal_is_initialized() == 1);
  expect_a(2); /* the parent goes on: its data and its runtime are intact */
  write_a(3);
  expect_a(3);
  CHECK_OK(tidal_free(A));
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
