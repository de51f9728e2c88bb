/* op_overhead.c - the cost of the hook the rewriter puts around every op:
 * tidal_op_begin + tidal_op_end with 8 resident accesses, on the sim
 * backend (the policy code is the same on CUDA; only the backend calls
 * differ, and a resident op makes none).  Prints the median over many
 * repetitions, and the median lookup cost with many live allocations to
 * show the O(log n) registry.
 *
 * Usage: op_overhead [reps]; last line: op_overhead_ns_median=N */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tidal.h"

#define BATCH 64 /* ops per timed sample: clock_gettime itself costs ~20 ns */

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void check(tidal_status st, const char *what) {
  if (st != TIDAL_OK) {
    fprintf(stderr, "op_overhead: %s: %s: %s\n", what, tidal_status_string(st), tidal_last_error());
    exit(1);
  }
}

/* Median ns per op_begin+op_end over `samples` samples of BATCH ops. */
static double measure(const tidal_site *site, const tidal_access *acc, int n, int samples) {
  double *t = malloc((size_t)samples * sizeof *t);
  for (int s = 0; s < samples; s++) {
    double t0 = now_ns();
    for (int i = 0; i < BATCH; i++) {
      tidal_op_begin(site, n, acc);
      tidal_op_end(site);
    }
    t[s] = (now_ns() - t0) / BATCH;
  }
  qsort(t, (size_t)samples, sizeof *t, cmp_double);
  double m = t[samples / 2];
  free(t);
  return m;
}

/* 8 tensors of `chunks` chunks each, made resident once; median ns/op. */
static double run_case(size_t chunk_bytes, int chunks, int extra_allocs, int samples) {
  tidal_config cfg;
  tidal_config_default(&cfg);
  cfg.device = TIDAL_DEVICE_SIM;
  cfg.chunk_bytes = chunk_bytes;
  cfg.budget_bytes = (size_t)8 << 30; /* memfd pages are only used when touched */
  check(tidal_init(&cfg), "tidal_init");
  enum { N = 8 };
  void *p[N];
  tidal_access acc[N];
  for (int i = 0; i < N; i++) {
    check(tidal_malloc(&p[i], chunk_bytes * (size_t)chunks), "tidal_malloc");
    acc[i].ptr = p[i];
    acc[i].bytes = chunk_bytes * (size_t)chunks;
    acc[i].mode = i < 6 ? TIDAL_READ : TIDAL_READWRITE;
  }
  /* Live allocations around them, for the O(log n) lookup. */
  void **extra = malloc((size_t)(extra_allocs ? extra_allocs : 1) * sizeof *extra);
  for (int i = 0; i < extra_allocs; i++)
    check(tidal_malloc(&extra[i], chunk_bytes), "tidal_malloc (many)");
  static const tidal_site site = {"bench_op", __FILE__, __LINE__, 0};
  check(tidal_op_begin(&site, N, acc), "warm-up op_begin");
  check(tidal_op_end(&site), "warm-up op_end");
  double m = measure(&site, acc, N, samples);
  for (int i = 0; i < extra_allocs; i++)
    tidal_free(extra[i]);
  free(extra);
  for (int i = 0; i < N; i++)
    tidal_free(p[i]);
  tidal_shutdown();
  return m;
}

int main(int argc, char **argv) {
  int samples = argc > 1 ? atoi(argv[1]) : 20000;
  if (samples < 1)
    samples = 1;
  const size_t MiB = (size_t)1 << 20;
  double one = run_case(2 * MiB, 1, 0, samples);
  double one_many = run_case(2 * MiB, 1, 10000, samples);
  double four = run_case(2 * MiB, 4, 0, samples);
  double sixteen = run_case(2 * MiB, 16, 0, samples);
  printf("8 resident accesses x 1 chunk (2 MiB tensors):                %6.0f ns median\n", one);
  printf("8 resident accesses x 1 chunk, 10000 other live allocations:  %6.0f ns median\n",
         one_many);
  printf("8 resident accesses x 4 chunks (8 MiB tensors):               %6.0f ns median\n", four);
  printf("8 resident accesses x 16 chunks (32 MiB tensors):             %6.0f ns median\n",
         sixteen);
  printf("op_overhead_ns_median=%.0f\n", one);
  return 0;
}
