// A kernel declared before its definition (the usual layout when a header
// declares the kernels a .cu file defines) is analysed from the definition.
// Replacing the bodiless entry freed the whole table once per kernel (heap
// corruption: "double free or corruption" on real trainers).
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void scale(float *out, const float *in, int N);
__global__ void shift(float *out, const float *in, int N);
__global__ void copy(float *out, const float *in, int N);

__global__ void scale(float *out, const float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = 2.0f * in[i];
}
__global__ void shift(float *out, const float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = in[i] + 1.0f;
}
__global__ void copy(float *out, const float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = in[i];
}
// CHECK-LABEL: kernel scale at {{.*}}:11
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param in: mode=read extent=N
// CHECK-LABEL: kernel shift at {{.*}}:15
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-LABEL: kernel copy at {{.*}}:19
// CHECK-NEXT: param out: mode=write extent=N
