// A split op's element count is taken per unrolled op (unroll.c, Note
// [split count]): `scale(y, x, N)` has N elements and is splittable, but
// `scale(x, data + step * N, N)` reads a slice that moves with the step
// counter (Note [stepped accesses]), so the planner's range for it is the
// whole data buffer, not N elements: that op stays whole (split_count 0).
// Both launches are split ops in the graph (count N).
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=GRAPH %s
// RUN: %tidal replay %s --budget 75% --chunk 4K --format json -- %stubflags | FileCheck %s
#define N 65536
#define STEPS 4
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
int main(void) {
  float *data, *x, *y;
  cudaMalloc(&data, STEPS * N * sizeof(float));
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  for (int step = 0; step < STEPS; step++) {
    scale<<<N / 256, 256>>>(x, data + step * N, N);
    scale<<<N / 256, 256>>>(y, x, N);
  }
  return 0;
}
// GRAPH: "callee": "scale", {{.*}}"line": 21, {{.*}}"split": {"count_arg": 2, "count": "N", "count_value": 65536, "grid_stride": false}
// GRAPH: "callee": "scale", {{.*}}"line": 22, {{.*}}"split": {"count_arg": 2, "count": "N", "count_value": 65536, "grid_stride": false}
// CHECK: "splittable_ops": 1,
// CHECK: "checksums_match": true,
