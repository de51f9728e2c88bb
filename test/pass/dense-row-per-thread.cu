// One row per thread: `if (idx < N) for (c = 0; c < C; c++)
// out[idx*C + c] = ...` writes every element of [0, N*C) once the launch
// has N threads (threads_needed N, not N*C).  A loop that starts at 1 or
// steps by 2 skips elements: not dense.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void rows(float *out, const float *in, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N)
    for (int c = 0; c < C; c++) out[idx * C + c] = in[idx];
}
// CHECK-LABEL: kernel rows
// CHECK-NEXT: param out: mode=write extent=N*C elem=float bytes=4 dense=yes threads_needed=N{{$}}

__global__ void rows_from_one(float *out, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N)
    for (int c = 1; c < C; c++) out[idx * C + c] = 0.0f;
}
// CHECK-LABEL: kernel rows_from_one
// CHECK-NEXT: param out: mode=write {{.*}} dense=no{{$}}

__global__ void rows_step_two(float *out, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N)
    for (int c = 0; c < C; c += 2) out[idx * C + c] = 0.0f;
}
// CHECK-LABEL: kernel rows_step_two
// CHECK-NEXT: param out: mode=write {{.*}} dense=no{{$}}
