// __stcs (streaming store) writes through its pointer argument; the
// value argument is read normally.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void st(float *out, const float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) __stcs(out + i, in[i]);
}
// CHECK-LABEL: kernel st
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param in: mode=read extent=N
