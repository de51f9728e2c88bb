#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include "layer.h"
#include "kernels.h"

static void check(cudaError_t status) {
  if (status != cudaSuccess) {
    fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(status));
    exit(1);
  }
}

/* A device array of n floats, copied from x, or zeroed when x is NULL. */
float *cuda_make_array(const float *x, size_t n) {
  float *x_gpu;
  size_t size = sizeof(float) * n;
  check(cudaMalloc((void **)&x_gpu, size));
  if (x) check(cudaMemcpy(x_gpu, x, size, cudaMemcpyHostToDevice));
  else fill_gpu(n, 0, x_gpu);
  return x_gpu;
}

void cuda_free(float *p) { check(cudaFree(p)); }
