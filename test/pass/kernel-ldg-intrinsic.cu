// __ldg and __ldcs read through their pointer argument, even when the
// parameter is not const.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void ld(float *out, float *a, float *b, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = __ldg(&a[i]) + __ldcs(b + i);
}
// CHECK-LABEL: kernel ld
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param a: mode=read extent=N
// CHECK-NEXT: param b: mode=read extent=N
