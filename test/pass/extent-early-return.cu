// An early "if (i >= N) return;" bounds i for the rest of the body.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void early(float *out, const float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) { return; }
  out[i] = in[i] * in[i];
}
// CHECK-LABEL: kernel early
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param in: mode=read extent=N
