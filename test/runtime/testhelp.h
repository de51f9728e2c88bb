/* testhelp.h - a tiny assert helper for the runtime tests.
 *
 * Every test is built twice: against the sim backend (label runtime) and,
 * with TH_GPU defined, against the CUDA backend (label gpu), which exits 77
 * (ctest SKIP_RETURN_CODE) when no device answers.  Device memory is only
 * touched through th_put/th_get so the same test body runs on both; tests
 * that rely on the sim's page protection are compiled only without TH_GPU.
 * Randomised tests print their seed; pass it back as argv[1] or
 * TIDAL_TEST_SEED to replay a failure. */
#ifndef TIDAL_TESTHELP_H
#define TIDAL_TESTHELP_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "tidal.h"
#ifdef TH_GPU
#include <cuda_runtime.h>
#define TH_DEVICE TIDAL_DEVICE_CUDA
#else
#define TH_DEVICE TIDAL_DEVICE_SIM
#endif

static unsigned long long th_seed;
static uint64_t th_state = 88172645463325252ull;

#define TH_FAIL(...)                                                                               \
  do {                                                                                             \
    fprintf(stderr, "%s:%d: FAIL (seed %llu): ", __FILE__, __LINE__, th_seed);                    \
    fprintf(stderr, __VA_ARGS__);                                                                  \
    fprintf(stderr, "\n  last error: %s\n", tidal_last_error());                                  \
    exit(1);                                                                                       \
  } while (0)

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      TH_FAIL("CHECK(%s)", #cond);                                                                 \
  } while (0)

#define CHECK_STATUS(call, want)                                                                   \
  do {                                                                                             \
    tidal_status got_ = (call);                                                                    \
    if (got_ != (want))                                                                            \
      TH_FAIL("%s returned %s, expected %s", #call, tidal_status_string(got_),                     \
              tidal_status_string(want));                                                          \
  } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, TIDAL_OK)

/* The last error message mentions `needle`. */
#define CHECK_MESSAGE(needle)                                                                      \
  do {                                                                                             \
    if (!strstr(tidal_last_error(), (needle)))                                                     \
      TH_FAIL("last error \"%s\" does not mention \"%s\"", tidal_last_error(), (needle));          \
  } while (0)

static inline void th_seed_init(int argc, char **argv) {
  const char *s = argc > 1 ? argv[1] : getenv("TIDAL_TEST_SEED");
  th_seed = s ? strtoull(s, NULL, 0) : (unsigned long long)time(NULL);
  th_state = th_seed * 0x9E3779B97F4A7C15ull + 1;
  printf("seed=%llu (replay: %s %llu)\n", th_seed, argv[0], th_seed);
  fflush(stdout);
}

static inline uint64_t th_rand(void) { /* xorshift64* */
  th_state ^= th_state >> 12;
  th_state ^= th_state << 25;
  th_state ^= th_state >> 27;
  return th_state * 2685821657736338717ull;
}

static inline size_t th_below(size_t n) { return n ? (size_t)(th_rand() % n) : 0; }

static inline void th_config(tidal_config *cfg, size_t chunk, size_t budget) {
  tidal_config_default(cfg);
  cfg->device = TH_DEVICE;
  cfg->chunk_bytes = chunk;
  cfg->budget_bytes = budget;
  cfg->log_level = getenv("TIDAL_LOG") ? atoi(getenv("TIDAL_LOG")) : 0;
  /* These tests check what each call does; the run-time planner (the
   * default) would skip hints at budgets with room to spare.  The planner's
   * own tests (test_planner*.c) set TIDAL_PLANNER_RUNTIME. */
  cfg->planner = TIDAL_PLANNER_HINTS;
  /* The runtime.vmmthread.* variants run every test with the VMM worker on
   * (an explicit config does not read the environment itself). */
  cfg->vmm_thread = getenv("TIDAL_VMM_THREAD") && atoi(getenv("TIDAL_VMM_THREAD")) > 0;
  /* The chunk the test gets: TIDAL_TEST_CHUNK if set, and on a GPU at least
   * the CUDA backend's 2 MiB granularity.  The budget keeps its number of
   * chunks.  Tests size what they allocate from the chunk the runtime
   * reports (th_chunk), never from the `chunk` they asked for: the
   * runtime.chunk2m.* variants run the sim with 2 MiB chunks, so a test
   * that only holds at 4 KiB fails here, not first on a card (issue 19:
   * gpu.split failed on the H200, gpu.arena and gpu.smallpool skipped). */
  size_t got = chunk;
  const char *env = getenv("TIDAL_TEST_CHUNK");
  if (env && *env)
    got = (size_t)strtoull(env, NULL, 0);
#ifdef TH_GPU
  if (got < ((size_t)2 << 20))
    got = (size_t)2 << 20;
#endif
  if (got != chunk) {
    cfg->chunk_bytes = got;
    cfg->budget_bytes = budget / chunk * got;
  }
}

/* tidal_init(cfg), or exit 77 (skipped) where no CUDA device answers. */
static inline void th_init(const tidal_config *cfg) {
  tidal_status st = tidal_init(cfg);
#ifdef TH_GPU
  if (st == TIDAL_ERR_BACKEND) {
    printf("SKIP: no CUDA device: %s\n", tidal_last_error());
    exit(77);
  }
#endif
  if (st != TIDAL_OK)
    TH_FAIL("tidal_init: %s", tidal_status_string(st));
  tidal_stats s;
  if (cfg->chunk_bytes && (tidal_stats_get(&s) != TIDAL_OK || s.chunk_bytes != cfg->chunk_bytes))
    TH_FAIL("tidal_init: asked for %zu-byte chunks, runs with %llu", cfg->chunk_bytes,
            (unsigned long long)s.chunk_bytes);
}

/* The chunk size the running runtime reports (tidal_stats). */
static inline size_t th_chunk(void) {
  tidal_stats s;
  if (tidal_stats_get(&s) != TIDAL_OK || s.chunk_bytes == 0)
    TH_FAIL("tidal_stats_get: no chunk size");
  return (size_t)s.chunk_bytes;
}

static inline void th_put(void *dev, const void *host, size_t n) {
#ifdef TH_GPU
  if (cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice) != cudaSuccess)
    TH_FAIL("cudaMemcpy H2D");
#else
  memcpy(dev, host, n);
#endif
}

static inline void th_get(void *host, const void *dev, size_t n) {
#ifdef TH_GPU
  if (cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost) != cudaSuccess)
    TH_FAIL("cudaMemcpy D2H");
#else
  memcpy(host, dev, n);
#endif
}

static inline void th_fill_pattern(unsigned char *p, size_t n, uint64_t salt) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)((i * 131 + salt * 7919 + (i >> 8)) & 0xff);
}

static inline uint64_t th_hash(const unsigned char *p, size_t n) { /* FNV-1a */
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* libtidal's internal check of Note [host slot ownership] (hoststore.c):
 * reachable because the tests link the static library. */
int rt_host_check(char *msg, size_t len);
/* Library internal (residency.c): gives back the memory evicted chunks
 * still hold (Note [lazy unmap]), as pressure would, so that a test can
 * exercise the paths that copy data back. */
tidal_status rt_release_parked(void);

static inline void th_check_host(const char *when) {
  char msg[256];
  if (rt_host_check(msg, sizeof msg) != 0)
    TH_FAIL("host slot invariant broken %s: %s", when, msg);
}

static inline tidal_stats th_stats(void) {
  tidal_stats s;
  CHECK_OK(tidal_stats_get(&s));
  return s;
}

/* One op that writes all n bytes at p with a fresh pattern, kept in shadow. */
static inline void th_op_write(const tidal_site *site, unsigned char *p, size_t n,
                               unsigned char *shadow, uint64_t salt) {
  tidal_access a = {p, n, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(site, 1, &a));
  th_fill_pattern(shadow, n, salt);
  th_put(p, shadow, n);
  CHECK_OK(tidal_op_end(site));
}

/* One op that reads all n bytes at p: they must equal shadow. */
static inline void th_op_check(const tidal_site *site, const unsigned char *p, size_t n,
                               const unsigned char *shadow) {
  tidal_access a = {p, n, TIDAL_READ};
  unsigned char *got = malloc(n);
  CHECK(got);
  CHECK_OK(tidal_op_begin(site, 1, &a));
  th_get(got, p, n);
  CHECK(memcmp(got, shadow, n) == 0);
  CHECK_OK(tidal_op_end(site));
  free(got);
}

/* Runs fn(p) in a forked child (the sim's death tests): the signal that
 * killed it, 0 if none.  On a GPU a stray device address is no host
 * fault: -1 (the callers skip). */
static inline int th_death_signal(void (*fn)(volatile unsigned char *), volatile unsigned char *p) {
#ifdef TH_GPU
  (void)fn, (void)p;
  return -1;
#endif
  fflush(stdout);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    fn(p);
    _exit(0);
  }
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static inline void th_touch_read(volatile unsigned char *p) { (void)p[0]; }
static inline void th_touch_write(volatile unsigned char *p) { p[0] = 1; }

/* Ops through tidal_at, as a rewritten program's are (a relocatable
 * allocation's bytes are wherever the runtime placed them).  One op that
 * writes [p, p + n) with pattern salt. */
static inline void th_op_write_at(const tidal_site *site, unsigned char *p, size_t n,
                                  uint64_t salt) {
  unsigned char *buf = malloc(n);
  CHECK(buf);
  th_fill_pattern(buf, n, salt);
  tidal_access a = {p, n, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(site, 1, &a));
  th_put(tidal_at(p), buf, n);
  CHECK_OK(tidal_op_end(site));
  free(buf);
}

/* One op that reads [p + off, p + off + n) through tidal_at: byte j must be
 * byte pat + j of pattern salt. */
static inline void th_op_check_at(const tidal_site *site, const unsigned char *p, size_t off,
                                  size_t n, size_t pat, uint64_t salt) {
  unsigned char *want = malloc(pat + n), *got = malloc(n);
  CHECK(want && got);
  th_fill_pattern(want, pat + n, salt);
  tidal_access a = {p + off, n, TIDAL_READ};
  CHECK_OK(tidal_op_begin(site, 1, &a));
  th_get(got, tidal_at(p + off), n);
  if (memcmp(got, want + pat, n) != 0)
    TH_FAIL("bytes [%zu, %zu) of %p (pattern %llu from byte %zu) differ", off, off + n,
            (const void *)p, (unsigned long long)salt, pat);
  CHECK_OK(tidal_op_end(site));
  free(want);
  free(got);
}

#endif
