// A store under a data-dependent condition (inside the guard, in the
// guard's && or behind ?:) may skip elements: not dense.  So may a store
// after an early return that is not a bound guard.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void relu_nested(float *out, const float *x, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    if (x[i] > 0.0f) out[i] = x[i];
  }
}
// CHECK-LABEL: kernel relu_nested
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=no{{$}}

__global__ void relu_and(float *out, const float *x, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N && x[i] > 0.0f) out[i] = x[i];
}
// CHECK-LABEL: kernel relu_and
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=no{{$}}

__global__ void relu_ternary(float *out, const float *x, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) x[i] > 0.0f ? (out[i] = x[i]) : 0.0f;
}
// CHECK-LABEL: kernel relu_ternary
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=no{{$}}

__global__ void data_return(float *out, const float *flag, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (flag[0] > 0.0f) return;
  if (i < N) out[i] = 1.0f;
}
// CHECK-LABEL: kernel data_return
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=no{{$}}
