// A grid-stride loop bounded by i < N covers N elements.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void gs(float *out, const float *in, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
    out[i] = in[i] + 1.0f;
}
// CHECK-LABEL: kernel gs
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param in: mode=read extent=N
