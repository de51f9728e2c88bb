// `atomicAdd(&count, 1)` on a __shared__ counter and `&s` of a local passed
// to a function without a body are addresses of non-parameters: analysed
// without recursing forever (this used to crash), the parameter still
// analysed exactly.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__device__ void sincos_opaque(float x, float *s, float *c);

__global__ void count_and_fill(float *out, int *counter, int N) {
  __shared__ int count;
  float s, c;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sincos_opaque(1.f, &s, &c);
  atomicAdd(&count, 1);
  if (i < N) out[i] = s + c;
  if (threadIdx.x == 0) atomicAdd(&counter[blockIdx.x], count);
}
// CHECK-LABEL: kernel count_and_fill
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=yes threads_needed=N
// CHECK-NEXT: param counter: mode=readwrite extent=gridDim.x elem=int
// CHECK: flags: atomics inplace
