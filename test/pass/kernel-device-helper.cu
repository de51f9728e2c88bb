// Pointers passed to __device__ helpers are analysed through the helper's
// body with the caller's arguments (helpers of helpers too).
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__device__ float load(const float *p, int j) { return p[j]; }
__device__ void put(float *q, int j, float v) { q[j] = v; }
__device__ void axpy(float *y, const float *x, int j, float a) { put(y, j, a * load(x, j)); }

__global__ void k(float *out, float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) axpy(out, in, i, 2.0f);
}
// CHECK-LABEL: kernel k
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param in: mode=read extent=N
