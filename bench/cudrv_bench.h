/* cudrv_bench.h - what the driver-API benchmarks (vmm_costs.c, vmm_busy.c)
 * share: host wall time, medians, a checked call, and opening device 0
 * with the pinned-device allocation properties libtidal's chunks use.
 * Header-only (static functions): each benchmark is one file built by hand
 * on the GPU machine (`cc bench/X.c ...`; the quoted include is found
 * beside it).  Define BENCH_NAME before including it. */
#ifndef TIDAL_BENCH_CUDRV_BENCH_H
#define TIDAL_BENCH_CUDRV_BENCH_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v. */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

#define CK(call)                                                                                   \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      const char *s_ = NULL;                                                                       \
      cuGetErrorString(r_, &s_);                                                                   \
      fprintf(stderr, BENCH_NAME ": %s: %s\n", #call, s_ ? s_ : "?");                             \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* Device 0's primary context made current, and the properties of a pinned
 * device allocation on it; 0, or 77 (the skip status) with no device. */
static int bench_open(CUdevice *dev, CUmemAllocationProp *prop) {
  int count = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    fprintf(stderr, BENCH_NAME ": no CUDA device\n");
    return 77;
  }
  CUcontext ctx;
  CK(cuDeviceGet(dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, *dev));
  CK(cuCtxSetCurrent(ctx));
  memset(prop, 0, sizeof *prop);
  prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop->location.id = (int)*dev;
  return 0;
}

#endif
