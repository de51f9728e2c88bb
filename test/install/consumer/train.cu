// A minimal training-shaped CUDA program for tidal_rewrite_sources.
#include <cuda_runtime.h>
static const int N = 1 << 20;
__global__ void step(float *w, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.1f * g[i];
}
__global__ void grad(float *g, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = 2.0f * w[i];
}
int main(void) {
  float *w, *g;
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&g, N * sizeof(float));
  cudaMemset(w, 0, N * sizeof(float));
#pragma tidal train
  for (int it = 0; it < 10; it++) {
    grad<<<N / 256, 256>>>(g, w, N);
    step<<<N / 256, 256>>>(w, g, N);
  }
  cudaFree(w);
  cudaFree(g);
  return 0;
}
