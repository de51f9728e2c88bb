// A grid-stride loop `for (i = <global thread index>; i < N;
// i += blockDim.x * gridDim.x)` writes every element of [0, N) whatever
// the launch: dense with no launch condition, so even a launch with a
// single block is an exact write.  The stride may be a local variable.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s --check-prefix=GRAPH

__global__ void gs(float *out, const float *in, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
    out[i] = in[i] + 1.0f;
}
// CHECK-LABEL: kernel gs
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=yes{{$}}

__global__ void gs_local_stride(float *out, int N) {
  int stride = gridDim.x * blockDim.x;
  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < N; i += stride) out[i] = 0.0f;
}
// CHECK-LABEL: kernel gs_local_stride
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=yes{{$}}

int main(int argc, char **argv) {
  int n = argc * 4096;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
#pragma tidal train
  for (int it = 0; it < 3; it++) gs<<<1, 128>>>(y, x, n);
  return 0;
}
// GRAPH: "callee": "gs", {{.*}}"grid": "1", "block": "128"
// GRAPH: "accesses": [
// GRAPH-NEXT: "mode": "write", {{.*}}"exact": true, {{.*}}"param": "out"}
