#include "kernels.h"

__global__ void add_bias_kernel(float *out, const float *bias, int batch, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch * n) out[i] += bias[i % n];
}

__global__ void backward_bias_kernel(float *bias_updates, const float *delta, int batch, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  float s = 0.0f;
  for (int b = 0; b < batch; b++) s += delta[b * n + j];
  bias_updates[j] += s;
}

__global__ void relu_kernel(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void relu_gradient_kernel(int n, const float *x, const float *dy, float *dx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

__global__ void l2_kernel(int n, const float *pred, const float *truth, float *delta, float *cost) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float d = truth[i] - pred[i];
  delta[i] = d;
  cost[i] = d * d;
}

static int blocks(int n) { return (n + 255) / 256; }

extern "C" void add_bias_gpu(float *out, const float *bias, int batch, int n) {
  add_bias_kernel<<<blocks(batch * n), 256>>>(out, bias, batch, n);
}

extern "C" void backward_bias_gpu(float *bias_updates, const float *delta, int batch, int n) {
  backward_bias_kernel<<<blocks(n), 256>>>(bias_updates, delta, batch, n);
}

extern "C" void relu_gpu(int n, const float *x, float *y) {
  relu_kernel<<<blocks(n), 256>>>(n, x, y);
}

extern "C" void relu_gradient_gpu(int n, const float *x, const float *dy, float *dx) {
  relu_gradient_kernel<<<blocks(n), 256>>>(n, x, dy, dx);
}

extern "C" void l2_gpu(int n, const float *pred, const float *truth, float *delta, float *cost) {
  l2_kernel<<<blocks(n), 256>>>(n, pred, truth, delta, cost);
}
