// A tiny CUDA program for tidal-nvcc tests: includes tidal.h, so it only
// compiles when tidal-nvcc adds tidal's include directory.
#include "tidal.h"
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int tiny_entry(float *x, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, n);
  return TIDAL_VERSION_MAJOR;
}
