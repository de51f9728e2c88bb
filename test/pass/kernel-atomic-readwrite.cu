// atomicAdd reads and writes its target: readwrite, flag atomics, and a
// float atomic makes the result order-dependent (nondeterministic).
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void hist(int *bins, const int *keys, int N, int B) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(&bins[keys[i] % B], 1);
}
// CHECK-LABEL: kernel hist
// CHECK-NEXT: param bins: mode=readwrite extent=unknown
// CHECK-NEXT: param keys: mode=read extent=N
// CHECK: flags: atomics inplace
// CHECK-NOT: nondeterministic

__global__ void sum(float *total, const float *x, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(total, x[i]);
}
// CHECK-LABEL: kernel sum
// CHECK-NEXT: param total: mode=readwrite extent=1
// CHECK-NEXT: param x: mode=read extent=N
// CHECK: flags: atomics inplace nondeterministic
