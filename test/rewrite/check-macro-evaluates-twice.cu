// An error-check macro that evaluates its argument twice
// (`if ((s) != 0) { report(s); exit(1); }`) holds one op per source call
// site, not two: the graph counts it once, and the rewrite instruments it
// once (it used to exit 2: "internal error: two rewrites overlap").
// RUN: %tidal graph %s -- %stubflags | FileCheck --check-prefix=GRAPH %s
// RUN: sed -e 's@// *\(CHECK\|GRAPH\)[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// GRAPH: ops: 3 static
// GRAPH: #0 {{.*}} cudaMemcpy
// GRAPH-NOT: cudaMemcpy
// GRAPH: #1 {{.*}} scale
// GRAPH: #2 {{.*}} cudaMemset
// GRAPH-NOT: cudaMemset
// GRAPH: tensors:
// CHECK: op site 0: {{.*}}cudaMemcpy
// CHECK: tidal_acc_0[1] = {
// CHECK-NEXT: {(const void *)(a), ((size_t)16384), TIDAL_WRITE},
// CHECK-NEXT: };
// CHECK-NOT: op site {{[0-9]+}}: {{.*}}cudaMemcpy
// CHECK: op site 2: {{.*}}cudaMemset
// CHECK-NOT: op site {{[0-9]+}}: {{.*}}cudaMemset
#include <stdio.h>
#include <stdlib.h>
#define N 4096
#define CHECK(s) do { if ((s) != 0) { fprintf(stderr, "error %d\n", (int)(s)); exit(1); } } while (0)
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
int main(void) {
  float *a, *b, h[N];
  CHECK(cudaMalloc(&a, N * sizeof(float)));
  CHECK(cudaMalloc(&b, N * sizeof(float)));
  for (int step = 0; step < 10; step++) {
    CHECK(cudaMemcpy(a, h, N * sizeof(float), cudaMemcpyHostToDevice));
    scale<<<N / 256, 256>>>(b, a, N);
    CHECK(cudaMemset(a, 0, N * sizeof(float)));
  }
  return 0;
}
