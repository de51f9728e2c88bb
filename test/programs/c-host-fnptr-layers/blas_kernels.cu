#include "kernels.h"

__global__ void fill_kernel(int n, float value, float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

__global__ void axpy_kernel(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

/* c[m x n] = a[m x k] b[k x n] */
__global__ void gemm_nn_kernel(int m, int n, int k, const float *a, const float *b, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m * n) return;
  int r = i / n, col = i % n;
  float s = 0.0f;
  for (int j = 0; j < k; j++) s += a[r * k + j] * b[j * n + col];
  c[i] = s;
}

/* c[m x n] = a[m x k] b[n x k]^T */
__global__ void gemm_nt_kernel(int m, int n, int k, const float *a, const float *b, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m * n) return;
  int r = i / n, col = i % n;
  float s = 0.0f;
  for (int j = 0; j < k; j++) s += a[r * k + j] * b[col * k + j];
  c[i] = s;
}

/* c[m x n] += a[k x m]^T b[k x n] */
__global__ void gemm_tn_kernel(int m, int n, int k, const float *a, const float *b, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m * n) return;
  int r = i / n, col = i % n;
  float s = 0.0f;
  for (int j = 0; j < k; j++) s += a[j * m + r] * b[j * n + col];
  c[i] += s;
}

static int blocks(int n) { return (n + 255) / 256; }

extern "C" void fill_gpu(int n, float value, float *x) {
  fill_kernel<<<blocks(n), 256>>>(n, value, x);
}

extern "C" void axpy_gpu(int n, float a, const float *x, float *y) {
  axpy_kernel<<<blocks(n), 256>>>(n, a, x, y);
}

extern "C" void gemm_nn_gpu(int m, int n, int k, const float *a, const float *b, float *c) {
  gemm_nn_kernel<<<blocks(m * n), 256>>>(m, n, k, a, b, c);
}

extern "C" void gemm_nt_gpu(int m, int n, int k, const float *a, const float *b, float *c) {
  gemm_nt_kernel<<<blocks(m * n), 256>>>(m, n, k, a, b, c);
}

extern "C" void gemm_tn_gpu(int m, int n, int k, const float *a, const float *b, float *c) {
  gemm_tn_kernel<<<blocks(m * n), 256>>>(m, n, k, a, b, c);
}
