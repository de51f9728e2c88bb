// A non-const pointer that the body only reads is "read": the mode comes
// from the body, not the signature.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void scale(float *out, float *in, float s, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = s * in[i];
}
// CHECK-LABEL: kernel scale
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param in: mode=read extent=N
// CHECK: flags: none
