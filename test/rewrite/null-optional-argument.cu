// A NULL / nullptr / 0 optional pointer argument (`fwd<<<..>>>(out, in,
// NULL, n)`: no bias) is not an access: it is neither listed as unresolved
// (which would turn every drop off) nor declared to the runtime, where
// tidal_op_begin would fail on it - in the loop and before it.
// RUN: %tidal graph %s -- %stubflags | FileCheck --check-prefix=GRAPH %s
// RUN: sed -e 's@// *\(CHECK\|GRAPH\)[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu --budget 60% -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// GRAPH-NOT: (unresolved)
// GRAPH: unresolved (0):
// CHECK-NOT: no drops planned
// CHECK-NOT: {(const void *)(NULL)
// CHECK-NOT: {(const void *)(nullptr)
// CHECK-NOT: {(const void *)(0)
// CHECK: tidal_drop(
#include <stddef.h>
#define N 1048576
__global__ void fwd(float *out, const float *in, const float *bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i] + (bias ? bias[i] : 0.0f);
}
__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
int main(void) {
  float *a, *b, *c, *d;
  cudaMalloc(&a, N * sizeof(float));
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&c, N * sizeof(float));
  cudaMalloc(&d, N * sizeof(float));
  fwd<<<N / 256, 256>>>(d, b, NULL, N);
#pragma tidal train
  for (int step = 0; step < 10; step++) {
    fill<<<N / 256, 256>>>(a, N);
    fwd<<<N / 256, 256>>>(b, a, NULL, N);
    fwd<<<N / 256, 256>>>(c, b, nullptr, N);
    fwd<<<N / 256, 256>>>(d, c, 0, N);
    fwd<<<N / 256, 256>>>(c, d, NULL, N);
    fwd<<<N / 256, 256>>>(d, c, NULL, N);
    fwd<<<N / 256, 256>>>(c, d, NULL, N);
  }
  return 0;
}
