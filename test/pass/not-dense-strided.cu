// out[2*i] writes every other element of its extent [0, 2*N - 1): not
// dense, so the graph marks the write inexact however many threads run.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s --check-prefix=GRAPH

__global__ void even(float *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[2 * i] = 1.0f;
}
// CHECK-LABEL: kernel even
// CHECK-NEXT: param out: mode=write extent=2*N - 1 elem=float bytes=4 dense=no{{$}}

int main(void) {
  const int N = 4096;
  float *y;
  cudaMalloc(&y, 2 * N * sizeof(float));
#pragma tidal train
  for (int it = 0; it < 3; it++) even<<<N / 256, 256>>>(y, N);
  return 0;
}
// GRAPH: "accesses": [
// GRAPH-NEXT: "mode": "write", {{.*}}"exact": false, {{.*}}"param": "out"}
