// A small training loop for the rewrite tests: forward activations that
// backward reads much later (swap/prefetch/recompute candidates) and a
// scratch buffer every iteration overwrites (drop).
#include <cuda_runtime.h>

#define N 1048576
#define LAYERS 4
#define STEPS 3

__global__ void fill_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f;
}

__global__ void act_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void grad_kernel(float *dx, const float *dy, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

int main(void) {
  float *acts, *grads, *input;
  cudaMalloc(&input, N * sizeof(float));
  cudaMalloc(&acts, (size_t)LAYERS * N * sizeof(float));
  cudaMalloc(&grads, (size_t)(LAYERS + 1) * N * sizeof(float));
  fill_kernel<<<N / 256, 256>>>(input, N);
  for (int step = 0; step < STEPS; step++) {
    act_kernel<<<N / 256, 256>>>(acts, input, N);
    for (int l = 1; l < LAYERS; l++)
      act_kernel<<<N / 256, 256>>>(acts + l * N, acts + (l - 1) * N, N);
    fill_kernel<<<N / 256, 256>>>(grads + LAYERS * N, N);
    for (int l = LAYERS - 1; l >= 0; l--)
      grad_kernel<<<N / 256, 256>>>(grads + l * N, grads + (l + 1) * N, acts + l * N, N);
  }
  cudaFree(input);
  cudaFree(acts);
  cudaFree(grads);
  return 0;
}
