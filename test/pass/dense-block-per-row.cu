// One block per row (layernorm, softmax): `row = blockIdx.x; if (row >= N)
// return; for (i = threadIdx.x; i < C; i += blockDim.x) out[row*C + i]`
// writes every element of [0, N*C) once grid.x >= N: dense,
// blocks_needed N.  A launch with N blocks is an exact write; one with
// N / 2 blocks is not.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s --check-prefix=GRAPH

__global__ void rownorm(float *out, const float *in, int N, int C) {
  int row = blockIdx.x;
  if (row >= N) return;
  for (int i = threadIdx.x; i < C; i += blockDim.x) out[row * C + i] = in[row * C + i];
}
// CHECK-LABEL: kernel rownorm
// CHECK-NEXT: param out: mode=write extent=N*C elem=float bytes=4 dense=yes blocks_needed=N{{$}}

int main(int argc, char **argv) {
  int N = argc * 64, C = 768;
  float *x, *y;
  cudaMalloc(&x, N * C * sizeof(float));
  cudaMalloc(&y, N * C * sizeof(float));
#pragma tidal train
  for (int it = 0; it < 3; it++) {
    rownorm<<<N, 256>>>(y, x, N, C);
    rownorm<<<N / 2, 256>>>(y, x, N, C);
  }
  return 0;
}
// GRAPH: "callee": "rownorm", {{.*}}"grid": "N", "block": "256"
// GRAPH: "accesses": [
// GRAPH-NEXT: "mode": "write", {{.*}}"exact": true, {{.*}}"param": "out"}
// GRAPH: "callee": "rownorm", {{.*}}"grid": "N / 2", "block": "256"
// GRAPH: "accesses": [
// GRAPH-NEXT: "mode": "write", {{.*}}"exact": false, {{.*}}"param": "out"}
