// A store through a float4* cast of a float* parameter writes the parameter,
// and each float4 element covers four floats of the extent.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void copy4(float *out, const float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) ((float4 *)out)[i] = ((const float4 *)in)[i];
}
// CHECK-LABEL: kernel copy4
// CHECK-NEXT: param out: mode=write extent=4*N elem=float bytes=4
// CHECK-NEXT: param in: mode=read extent=4*N elem=float bytes=4
// CHECK-NEXT: param N: scalar
// CHECK-NEXT: flags: none
