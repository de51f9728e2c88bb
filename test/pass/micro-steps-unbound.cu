// Gradient accumulation: micro-steps of forward and backward inside the
// optimizer step, their count computed from a command-line total batch
// size (Note [micro-steps]).  The training loop is the optimizer step; the
// micro-step loop, unbound, is unrolled twice (the first micro-step and
// every later one) with a warning, so the replay runs with only the sizes
// bound; --bind the count for the exact trace.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck --check-prefix=GRAPH %s
// RUN: %tidal replay %s --chunk 64K -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --bind total=12 -- %stubflags 2>&1 | FileCheck --check-prefix=BOUND %s
// GRAPH: training loop: {{.*}}:[[@LINE+27]]
// GRAPH: 3 static, 5 per iteration unrolled
// CHECK: :[[@LINE+26]]:{{[0-9]+}}: warning: gradient accumulation loop with an unbound trip count; unrolled twice
// CHECK: replay: 2 iterations x 5 ops
// CHECK: checksums match
// BOUND: 3 static, 7 per iteration unrolled
#include <stdlib.h>
#define N (64 * 1024)
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void accum(float *g, const float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] += a[i];
}
void forward(float *act, const float *w) { scale<<<N / 256, 256>>>(act, w, N); }
void backward(float *grad, const float *act) { accum<<<N / 256, 256>>>(grad, act, N); }
void update(float *w, const float *grad) { accum<<<N / 256, 256>>>(w, grad, N); }
int main(int argc, char **argv) {
  int B = 4;
  int total = atoi(argv[1]);
  int accum_steps = total / B;
  float *w, *act, *grad;
  cudaMalloc((void **)&w, N * sizeof(float));
  cudaMalloc((void **)&act, N * sizeof(float));
  cudaMalloc((void **)&grad, N * sizeof(float));
  for (int step = 0; step < 100; step++) {
    for (int micro = 0; micro < accum_steps; micro++) {
      forward(act, w);
      backward(grad, act);
    }
    update(w, grad);
  }
  return 0;
}
