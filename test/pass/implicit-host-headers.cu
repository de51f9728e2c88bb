// nvcc's cuda_runtime.h brings <time.h> and <string.h> into every .cu
// file (crt/common_functions.h, which clang's CUDA wrapper replaces), so a
// program calling clock() and memset() without including them builds with
// nvcc; tidal parses it too (compat/tidal_cuda_compat.h).  Real toolkit
// headers, no stubs.  Before: "error: no matching function for call to
// 'clock'" (only the device clock() was declared).
// RUN: %tidal graph %s 2>&1 | FileCheck %s
// CHECK-NOT: error
// CHECK: training loop: {{.*}}implicit-host-headers.cu:[[@LINE+11]]
__global__ void scale(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= 0.5f;
}
int main() {
  float *y, host[256];
  memset(host, 0, sizeof host);
  cudaMalloc(&y, 256 * sizeof(float));
  cudaMemcpy(y, host, sizeof host, cudaMemcpyHostToDevice);
  clock_t t0 = clock();
  for (int step = 0; step < 10; step++) scale<<<1, 256>>>(y, 256);
  cudaDeviceSynchronize();
  return (int)(clock() - t0) < 0;
}
