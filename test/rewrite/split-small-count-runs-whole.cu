// A split op whose count is known at build time to be at most
// TIDAL_SPLIT_GRAIN (65,536 elements) keeps the plain op wrapper: the
// runtime never cuts such an op, so a loop around it would only cost.  The
// graph does mark it split; a count just over the grain gets the loop.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=GRAPH %s
// RUN: sed -e 's@// *\(CHECK\|GRAPH\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// GRAPH: "callee": "scale_kernel"
// GRAPH: "split": {"count_arg": 2, "count": "SMALL"
// GRAPH: "callee": "scale_kernel"
// GRAPH: "split": {"count_arg": 2, "count": "BIG"
// CHECK-NOT: split op: {{.*}}:[[#@LINE+16]]:
// CHECK: split op: {{.*}}.cu:[[#@LINE+18]]: main -> scale_kernel, 8 bytes per element
#define SMALL 65536
#define BIG (65536 + 256)
__global__ void scale_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
int main(void) {
  float *x, *y;
  cudaMalloc(&x, BIG * sizeof(float));
  cudaMalloc(&y, BIG * sizeof(float));
  for (int step = 0; step < 3; step++) {
// CHECK: { /* tidal: op site 0: main -> scale_kernel */
// CHECK-NEXT: static tidal_site tidal_site_0
// CHECK: scale_kernel<<<SMALL / 256, 256>>>(TIDAL_AT(y), TIDAL_AT(x), SMALL); TIDAL_OP_END(&tidal_site_0); }
    scale_kernel<<<SMALL / 256, 256>>>(y, x, SMALL);
// CHECK: /* tidal: split op scale_kernel over BIG elements
// CHECK: scale_kernel<<<tidal_g_1, tidal_block_1>>>(TIDAL_AT((y) + tidal_o_1), TIDAL_AT((x) + tidal_o_1), (int)tidal_l_1); TIDAL_OP_END(&tidal_site_1);
    scale_kernel<<<BIG / 256, 256>>>(y, x, BIG);
  }
  return 0;
}
