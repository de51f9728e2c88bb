// A dense parameter is an exact write only where the launch provides the
// threads its proof needs: grid.x * block.x >= N.  A grid of N / 256
// blocks of 256 threads covers N = 4096 (proven from the values), one of
// (N + 255) / 512 blocks of 256 does not, nor does a grid whose size the
// pass cannot evaluate: those writes are inexact.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

__global__ void fill(float *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = 1.0f;
}

int main(int argc, char **argv) {
  const int N = 4096;
  int g = argc;
  float *y;
  cudaMalloc(&y, N * sizeof(float));
#pragma tidal train
  for (int it = 0; it < 3; it++) {
    fill<<<N / 256, 256>>>(y, N);
    fill<<<(N + 255) / 512, 256>>>(y, N);
    fill<<<g, 256>>>(y, N);
  }
  return 0;
}
// CHECK: "grid": "N / 256", "block": "256"
// CHECK: "accesses": [
// CHECK-NEXT: "mode": "write", {{.*}}"exact": true, {{.*}}"param": "out"}
// CHECK: "grid": "(N + 255) / 512", "block": "256"
// CHECK: "accesses": [
// CHECK-NEXT: "mode": "write", {{.*}}"exact": false, {{.*}}"param": "out"}
// CHECK: "grid": "g", "block": "256"
// CHECK: "accesses": [
// CHECK-NEXT: "mode": "write", {{.*}}"exact": false, {{.*}}"param": "out"}
