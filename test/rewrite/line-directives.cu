// After every inserted multi-line block a #line directive restores the
// original line, and the untouched text keeps its column.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s -DFILE=%t.cu < %t.out.cu
// The header ends by restoring line 1.
// CHECK: #include "tidal/rewrite.h"
// CHECK-NEXT: #line 1 "[[FILE]]"
// CHECK-NEXT: // After every inserted multi-line block
#define N 4096
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
int main(void) {
  float *x;
  cudaMalloc(&x, N * sizeof(float));
  for (int step = 0; step < 3; step++) {
// CHECK: TIDAL_OP_BEGIN(&tidal_site_0, 1, tidal_acc_0);
// CHECK-NEXT: #line [[@LINE+2]] "[[FILE]]"
// CHECK-NEXT: {{^    }}k<<<N / 256, 256>>>(TIDAL_AT(x), N); TIDAL_OP_END(&tidal_site_0); }
    k<<<N / 256, 256>>>(x, N);
  }
  return 0;
}
