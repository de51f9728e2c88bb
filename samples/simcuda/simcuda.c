/* simcuda.c - the CPU side of simcuda.h (see there), and the run's counters
 * for tests: with SIMCUDA_STATS_FILE set, the program's tidal_shutdown
 * (wrapped at link time, -Wl,--wrap=tidal_shutdown) first writes every
 * counter the test checks as `name value` lines, exactly, where the
 * TIDAL_STATS summary rounds. */
#include "simcuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tidal.h"

simcuda_dim3 blockIdx, blockDim, threadIdx, gridDim;

cudaError_t cudaGetDeviceCount(int *count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) {
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t err) {
  return err == cudaSuccess ? "no error" : "simcuda error";
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  (void)kind;
  memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemset(void *dst, int value, size_t bytes) {
  memset(dst, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
  return cudaSuccess;
}
cudaError_t simcuda_launch_argv(unsigned int grid, unsigned int block, void (*tramp)(void **),
                                void **args) {
  if (!tramp || !args) return cudaErrorInvalidValue;
  SIMCUDA_LAUNCH(grid, block, tramp(args));
  return cudaSuccess;
}

struct simcuda_cublas {
  int unused;
};
cublasStatus_t cublasCreate(cublasHandle_t *h) {
  *h = calloc(1, sizeof(**h));
  return *h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
cublasStatus_t cublasDestroy(cublasHandle_t h) {
  free(h);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode) {
  (void)h, (void)mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc) {
  (void)h;
  if (m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      float sum = 0.0f;
      for (int l = 0; l < k; l++) {
        float a = ta == CUBLAS_OP_N ? A[i + (size_t)l * lda] : A[l + (size_t)i * lda];
        float b = tb == CUBLAS_OP_N ? B[l + (size_t)j * ldb] : B[j + (size_t)l * ldb];
        sum += a * b;
      }
      float *c = &C[i + (size_t)j * ldc];
      *c = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * *c;
    }
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda,
                                         long long strideA, const float *B, int ldb,
                                         long long strideB, const float *beta, float *C, int ldc,
                                         long long strideC, int batch_count) {
  if (batch_count < 0) return CUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < batch_count; i++) {
    cublasStatus_t st = cublasSgemm(h, ta, tb, m, n, k, alpha, A + i * strideA, lda,
                                    B + i * strideB, ldb, beta, C + i * strideC, ldc);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
  }
  return CUBLAS_STATUS_SUCCESS;
}

tidal_status __real_tidal_shutdown(void);
tidal_status __wrap_tidal_shutdown(void);
tidal_status __wrap_tidal_shutdown(void) {
  const char *path = getenv("SIMCUDA_STATS_FILE");
  tidal_stats s;
  if (path != NULL && path[0] != '\0' && tidal_stats_get(&s) == TIDAL_OK) {
    FILE *f = fopen(path, "w");
    if (f == NULL) {
      fprintf(stderr, "%s: error: cannot write the stats file\n", path);
    } else {
      /* counters of the whole run ("total") and of the last iteration ("last") */
#define SIMCUDA_COUNTERS(X)                                                                 \
  X(peak_resident_bytes) X(swapped_out_bytes) X(swapped_in_bytes) X(dropped_bytes) X(faults) \
  X(evictions) X(planner_swap_outs) X(planner_prefetches) X(planner_drops)                  \
  X(planner_recomputes) X(hints_run) X(hints_skipped) X(plans_built) X(plan_iterations)    \
  X(relocated_bytes)
      const tidal_counters *c[2] = {&s.total, &s.last_iteration};
      const char *which[2] = {"total", "last"};
      fprintf(f, "budget_bytes %llu\niterations %llu\n", (unsigned long long)s.budget_bytes,
              (unsigned long long)s.iterations);
      for (int i = 0; i < 2; i++) {
#define SIMCUDA_PRINT(name)                                                                 \
  fprintf(f, "%s.%s %llu\n", which[i], #name, (unsigned long long)c[i]->name);
        SIMCUDA_COUNTERS(SIMCUDA_PRINT)
      }
      if (fclose(f) != 0) fprintf(stderr, "%s: error: cannot write the stats file\n", path);
    }
  }
  return __real_tidal_shutdown();
}
