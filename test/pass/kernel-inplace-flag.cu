// A parameter both read and written (x[i] += ...) is readwrite and the
// kernel is flagged inplace; a kernel with separate in/out is not.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void residual(float *x, const float *r, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) x[i] += r[i];
}
// CHECK-LABEL: kernel residual
// CHECK-NEXT: param x: mode=readwrite extent=N
// CHECK: flags: inplace

__global__ void copy(float *y, const float *x, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) y[i] = x[i];
}
// CHECK-LABEL: kernel copy
// CHECK: flags: none
