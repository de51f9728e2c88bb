// Kernels that use curand state are flagged rng (re-running them changes
// the random stream, so they are never recomputed).
// RUN: %tidal kernels %s -- %stubflags -include curand_kernel.h | FileCheck %s

__global__ void dropout(float *out, const float *in, curandState *states, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = curand_uniform(&states[i]) < 0.9f ? in[i] : 0.0f;
}
// CHECK-LABEL: kernel dropout
// CHECK: param states: mode=readwrite
// CHECK: flags: {{.*}}rng
