/* simcuda.h - just enough of the CUDA runtime and cuBLAS for a sample's
 * `tidal rewrite` output to run on the CPU, with libtidal's sim backend as
 * its device memory.
 *
 * Why: the run-time planner is checked end to end by training a rewritten
 * program without a GPU.  The rewritten source is compiled unchanged, as C,
 * after cpuify.py has turned each `kernel<<<grid, block>>>(args)` into
 * SIMCUDA_LAUNCH(grid, block, kernel(args)): its op sites, access modes,
 * iteration markers and plan calls are exactly the rewriter's.  Device
 * memory is whatever tidal_malloc returned (the rewriter replaced every
 * cudaMalloc): a chunk libtidal has evicted is PROT_NONE, so a kernel
 * touching memory its op did not declare faults.
 *
 * Scope: what C-compatible CUDA samples use - 1-D grids and blocks of ints,
 * no shared memory, no __syncthreads, no streams; cublasSgemm (and its
 * strided batched form) in full fp32.
 * cudaMalloc/cudaFree are declared, never defined: a call the rewriter left
 * in place fails to link instead of allocating outside libtidal.  Kernels
 * run sequentially, block by block, thread by thread; the samples' kernels
 * are race-free per thread, so the results are deterministic. */
#ifndef SIMCUDA_H
#define SIMCUDA_H

#include <stddef.h>

#define __global__
#define __device__
#define __host__

typedef struct simcuda_dim3 {
  unsigned int x, y, z;
} simcuda_dim3;
/* The indices a running kernel reads; set by SIMCUDA_LAUNCH. */
extern simcuda_dim3 blockIdx, blockDim, threadIdx, gridDim;

#define SIMCUDA_LAUNCH(grid, block, call)                                                   \
  do {                                                                                      \
    gridDim.x = (unsigned int)(grid), blockDim.x = (unsigned int)(block);                   \
    gridDim.y = gridDim.z = blockDim.y = blockDim.z = 1;                                    \
    blockIdx.y = blockIdx.z = threadIdx.y = threadIdx.z = 0;                                \
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)                              \
      for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++) call;                  \
  } while (0)

/* Kernels run one thread at a time: an atomic add is a plain one. */
static inline float atomicAdd(float *address, float value) {
  float old = *address;
  *address = old + value;
  return old;
}

/* ---- CUDA runtime ---- */
typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2
} cudaError_t;
typedef enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
} cudaMemcpyKind;

cudaError_t cudaGetDeviceCount(int *count); /* 1: libtidal's device */
cudaError_t cudaGetLastError(void);
const char *cudaGetErrorString(cudaError_t err);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *dst, int value, size_t bytes);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMalloc(void **p, size_t bytes); /* not defined: see above */
cudaError_t cudaFree(void *p);                  /* not defined: see above */

/* ---- cuBLAS ---- */
typedef struct simcuda_cublas *cublasHandle_t;
typedef enum cublasStatus {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_INVALID_VALUE = 7
} cublasStatus_t;
typedef enum cublasOperation { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum cublasMath { CUBLAS_DEFAULT_MATH = 0 } cublasMath_t;

cublasStatus_t cublasCreate(cublasHandle_t *h);
cublasStatus_t cublasDestroy(cublasHandle_t h);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode);
/* Column-major C = alpha op(A) op(B) + beta C; each sum runs over k in
 * order (as samples/mlp/ref.c sums); beta == 0 never reads C. */
cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc);
/* batch_count cublasSgemm calls, operand i at A + i*strideA (and B, C likewise). */
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda,
                                         long long strideA, const float *B, int ldb,
                                         long long strideB, const float *beta, float *C, int ldc,
                                         long long strideC, int batch_count);

#endif
