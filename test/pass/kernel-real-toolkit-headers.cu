// The real toolkit headers (cuda_runtime.h, cublas_v2.h) parse through the
// compat folder, and kernels analyse the same as with the stubs.
// RUN: %tidal kernels %s | FileCheck %s
#include <cuda_runtime.h>
#include <cublas_v2.h>

__global__ void gelu(float *out, const float *inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    float x = __ldcs(&inp[i]);
    __stcs(out + i, 0.5f * x * (1.0f + tanhf(0.79788456f * (x + 0.044715f * x * x * x))));
  }
}
// CHECK-LABEL: kernel gelu
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4
// CHECK-NEXT: param inp: mode=read extent=N elem=float bytes=4

int main() {
  cublasHandle_t h;
  cublasCreate(&h);
  float *d;
  cudaMalloc(&d, 1024 * sizeof(float));
  gelu<<<4, 256>>>(d, d, 1024);
  return max(0, 0);
}
