// --loop FILE:LINE overrides the pragma; a line with no loop is an error
// naming it, with no output file.
// RUN: %tidal graph %s --loop %s:18 --format json -- %stubflags | FileCheck %s
// RUN: not %tidal graph %s --loop %s:3 -o %t.json -- %stubflags 2>&1 | FileCheck --check-prefix=ERR %s
// RUN: not test -e %t.json

__global__ void k(float *p, int n) {
  int i = threadIdx.x;
  if (i < n) p[i] = 0.f;
}

int main() {
  float *p;
  cudaMalloc((void **)&p, 64 * sizeof(float));
#pragma tidal train
  for (int step = 0; step < 5; step++)
    k<<<1, 64>>>(p, 64);
  for (int eval = 0; eval < 5; eval++) {
    for (int j = 0; j < 2; j++) k<<<1, 64>>>(p, 32);
  }
  return 0;
}

// CHECK: "loop": {"file": "{{.*}}loop-override.cu", "line": 18, {{.*}}"reason": "--loop loop-override.cu:18"
// CHECK: "loops": [
// CHECK-NEXT: "var": "j", "step": 1, "lo": "0", "lo_value": 0, "hi": "2", "hi_value": 2, "trip": "2"
// CHECK: "unrolled_ops": 2,
// ERR: loop-override.cu:3:1: error: no for, while or do loop starts on this line
