// Stores made only by some threads (`if (threadIdx.x == 0)`), through
// atomics, at an index read from memory, to one field of a struct element,
// or in two pieces that each cover part of the extent prove nothing: not
// dense.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void per_block(float *out, int N) {
  int row = blockIdx.x;
  if (row < N && threadIdx.x == 0) out[row] = 1.0f;
}
// CHECK-LABEL: kernel per_block
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=no{{$}}

__global__ void atomic_sum(float *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(&out[i], 1.0f);
}
// CHECK-LABEL: kernel atomic_sum
// CHECK-NEXT: param out: mode=readwrite extent=N elem=float bytes=4 dense=no{{$}}

__global__ void scatter(float *out, const int *idx, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[idx[i]] = 1.0f;
}
// CHECK-LABEL: kernel scatter
// CHECK-NEXT: param out: mode=write extent=unknown {{.*}} dense=no{{$}}

__global__ void one_field(float4 *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i].x = 1.0f;
}
// CHECK-LABEL: kernel one_field
// CHECK-NEXT: param out: mode=write extent=N elem=float4 bytes=16 dense=no{{$}}

__global__ void two_halves(float *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    out[i] = 1.0f;
    out[N + i] = 2.0f;
  }
}
// CHECK-LABEL: kernel two_halves
// CHECK-NEXT: param out: mode=write extent=2*N elem=float bytes=4 dense=no{{$}}
