// Locals initialised and reassigned from a parameter (p + off, then
// arithmetic on the local) are followed back to the parameter.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void rows(float *out, const float *inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  const float *x = inp + idx * C;
  float *o = out;
  o = o + idx * C;
  for (int c = 0; c < C; c++) o[c] = x[c] * 2.0f;
}
// CHECK-LABEL: kernel rows
// CHECK-NEXT: param out: mode=write extent=N*C
// CHECK-NEXT: param inp: mode=read extent=N*C
