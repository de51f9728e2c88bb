// A pointer the graph cannot attribute to a tensor (an offset it cannot
// compute) might read any buffer;
// if the plan dropped that buffer, the read would see garbage (dropped memory
// comes back fresh).  So while an unresolved access exists, no drops are
// planned, and the header says why.  Without it (second RUN), `a`, written
// in full by fill before every read, is dropped.
// RUN: sed -e 's@// *\(CHECK\|RESOLVED\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --budget 60% -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// RUN: sed -e 's@d + (rand() % 2) \* (N / 2)@d@' %t.cu > %t.resolved.cu
// RUN: %tidal rewrite %t.resolved.cu --budget 60% -o %t.resolved.out.cu -- %stubflags
// RUN: FileCheck --check-prefix=RESOLVED %s < %t.resolved.out.cu
// CHECK: plan: no drops planned: 1 access(es) per iteration could not be attributed to a tensor
// CHECK-NOT: tidal_drop(
// RESOLVED-NOT: no drops planned
// RESOLVED: tidal_drop(
#include <stdlib.h>
#define N 1048576
__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
int main(void) {
  float *a, *b, *c, *d;
  cudaMalloc(&a, N * sizeof(float));
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&c, N * sizeof(float));
  cudaMalloc(&d, N * sizeof(float));
#pragma tidal train
  for (int step = 0; step < 10; step++) {
    fill<<<N / 256, 256>>>(a, N);
    scale<<<N / 256, 256>>>(b, a, N);
    scale<<<N / 256, 256>>>(c, b, N);
    scale<<<N / 256, 256>>>(d, c, N);
    scale<<<N / 256, 256>>>(c, d, N);
    scale<<<N / 256, 256>>>(d, c, N);
    float *p = d + (rand() % 2) * (N / 2);
    scale<<<N / 256, 256>>>(c, p, N);
  }
  return 0;
}
