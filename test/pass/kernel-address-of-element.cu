// &p[i] is a pointer into p: a store through it writes p at i.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void addr(float *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    float *slot = &out[i];
    *slot = 1.0f;
  }
}
// CHECK-LABEL: kernel addr
// CHECK-NEXT: param out: mode=write extent=N
