// Loops stepping by a size the program reads at run time (Note [strided
// loops] in interp_loop.c): `for (off = 0; off + B <= NEVAL; off += B)` runs
// NEVAL/B times, `for (off = 0; off < NEVAL; off += B)` ceil(NEVAL/B) times,
// inside the training loop or a function it calls, once B is bound; each
// iteration's launch reads its own slice.  A stride the loop itself changes
// is not a stride: that loop stays unknown (unrolled once, its offset
// carried).
// RUN: %tidal graph %s --bind B=300 -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --bind B=300 --format json -- %stubflags | FileCheck %s --check-prefix=JSON
// RUN: %tidal rewrite %s --bind B=300 -o %t.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=REWRITE
#include <stdlib.h>
#define NEVAL 1024

__global__ void fwd(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}

static void evaluate(float *y, const float *x, int B) {
  for (int off = 0; off + B <= NEVAL; off += B)
    fwd<<<(B + 255) / 256, 256>>>(y + off, x + off, B);
}

int main(int argc, char **argv) {
  int B = atoi(argv[1]);
  float *x, *y;
  cudaMalloc(&x, NEVAL * sizeof(float));
  cudaMalloc(&y, NEVAL * sizeof(float));
  for (int step = 0; step < 10; step++) {
    int off;
    for (off = 0; off + B <= NEVAL; off += B)
      fwd<<<(B + 255) / 256, 256>>>(y + off, x + off, B);
    for (off = 0; off < NEVAL; off += B)
      fwd<<<(B + 255) / 256, 256>>>(y + off, x + off, B);
    evaluate(y, x, B);
    for (int o = 0, s = B; o < NEVAL; o += s) {
      fwd<<<(s + 255) / 256, 256>>>(y + o, x + o, s);
      s = s / 2 + 1;
    }
  }
  return 0;
}
// 3 + 4 + 3 slices, and the loop with a changing stride once
// CHECK: ops: 4 static, 11 per iteration unrolled
// CHECK: #0 {{.*}} in loop off x NEVAL/B
// CHECK-NEXT: write y[off] 4*B = 1.2 KiB
// CHECK: #1 {{.*}} in loop off x (NEVAL + B - 1)/B
// CHECK: #2 {{.*}}evaluate -> fwd {{.*}} in loop off x NEVAL/B
// CHECK: #3 {{.*}} in loop ? x unknown
// CHECK: unresolved (2):
// CHECK-NEXT: offset carried around a loop
// JSON: "loops": [
// JSON-NEXT: "var": "off", "step": 1, "lo": "0", "lo_value": 0, "hi": "NEVAL - B + 1", "hi_value": 725, "trip": "NEVAL/B", "trip_value": 3, "stride": "B", "stride_value": 300,
// JSON-NEXT: "var": "off", "step": 1, "lo": "0", "lo_value": 0, "hi": "NEVAL", "hi_value": 1024, "trip": "(NEVAL + B - 1)/B", "trip_value": 4, "stride": "B", "stride_value": 300,
// JSON-NEXT: "var": "off", "step": 1, {{.*}}"trip_value": 3, "stride": "B", "stride_value": 300,
// JSON-NEXT: "var": null, "step": 0, {{.*}}"trip": "unknown", "stride": "unknown",
// REWRITE: :36:5: warning: loop trip count unknown; unrolled once
// REWRITE-NOT: trip count unknown
