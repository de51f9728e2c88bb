// `idx = blockIdx.x*blockDim.x + threadIdx.x; if (idx < N) out[idx] = ...`
// writes every element of [0, N) once the launch has N threads: dense,
// threads_needed N.  A launch with grid (N + 255) / 256 and block 256
// provides them, so the write is exact; the same with CEIL_DIV (a macro).
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal kernels %s --format json -- %stubflags | FileCheck %s --check-prefix=JSON
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s --check-prefix=GRAPH
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__global__ void scale(float *out, const float *in, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) out[idx] = 2.0f * in[idx];
}
// CHECK-LABEL: kernel scale
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=yes threads_needed=N{{$}}
// CHECK-NEXT: param in: mode=read extent=N elem=float bytes=4{{$}}
// JSON: "name": "out", "pointer": true, "mode": "write", "extent": "N", "elem_type": "float", "elem_bytes": 4, "dense": true, "threads_needed": "N"}

void step(float *y, const float *x, int n) {
  scale<<<(n + 255) / 256, 256>>>(y, x, n);
  scale<<<CEIL_DIV(n, 128), 128>>>(y, x, n);
}

int main(int argc, char **argv) {
  int n = argc * 1000; /* unknown to the pass: the proof is symbolic */
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
#pragma tidal train
  for (int it = 0; it < 3; it++) step(y, x, n);
  return 0;
}
// GRAPH: "callee": "scale", {{.*}}"grid": "(n + 255) / 256", "block": "256"
// GRAPH: "accesses": [
// GRAPH-NEXT: "mode": "write", {{.*}}"exact": true, {{.*}}"param": "out"}
// GRAPH: "callee": "scale", {{.*}}"grid": "CEIL_DIV(n, 128)", "block": "128"
// GRAPH: "accesses": [
// GRAPH-NEXT: "mode": "write", {{.*}}"exact": true, {{.*}}"param": "out"}
