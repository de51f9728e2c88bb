// Periodic work inside the loop (`if (step % 10 == 0) { ... }`) is a phase of
// its own (`per` in text, "periodic" in JSON), not every iteration's forward.
// Its writes run on some steps only, so they never make earlier contents
// dead: here a periodic reset of the accumulator `m` must not let the plan
// drop `m` after the accumulation (the other nine steps read it back).
// RUN: %tidal graph %s -- %stubflags | FileCheck --check-prefix=GRAPH %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=JSON %s
// RUN: sed -e 's@// *\(CHECK\|GRAPH\|JSON\)[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu --budget 50% -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// GRAPH: periodic (not every iteration): {{.*}}.cu:[[@LINE+31]] in main: if (step % 10 == 0)
// GRAPH: #5   per evaluate -> cudaMemset
// GRAPH: #6   fwd accumulate
// JSON: "branches": [
// JSON-NEXT: {"id": 0, "kind": "periodic", "cond": "step % 10 == 0"
// JSON: "callee": "cudaMemset", {{.*}}"phase": "periodic", {{.*}}"branch": 0,
// CHECK-NOT: drop after m
// CHECK: training loop
#define N 1048576
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void accumulate(float *m, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i] += g[i];
}
void evaluate(float *m) { cudaMemset(m, 0, N * sizeof(float)); }
int main(void) {
  float *w, *a, *b, *c, *m;
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&a, N * sizeof(float));
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&c, N * sizeof(float));
  cudaMalloc(&m, N * sizeof(float));
  for (int step = 0; step < 100; step++) {
    scale<<<N / 256, 256>>>(a, w, N);
    scale<<<N / 256, 256>>>(b, a, N);
    scale<<<N / 256, 256>>>(c, b, N);
    scale<<<N / 256, 256>>>(b, c, N);
    scale<<<N / 256, 256>>>(c, b, N);
    if (step % 10 == 0) evaluate(m);
    accumulate<<<N / 256, 256>>>(m, c, N);
    scale<<<N / 256, 256>>>(a, c, N);
    scale<<<N / 256, 256>>>(b, a, N);
    scale<<<N / 256, 256>>>(c, b, N);
    scale<<<N / 256, 256>>>(b, c, N);
    scale<<<N / 256, 256>>>(w, b, N);
  }
  return 0;
}
