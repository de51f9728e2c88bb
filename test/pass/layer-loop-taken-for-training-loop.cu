// A step loop whose whole body is a loop over layers: the heuristic takes
// the layer loop (inner, same op sites) for the training loop, and the
// per-layer pointers `b[l]` then depend on its counter.  The error must say
// so and name the fix (the pragma or --loop), not suggest `--bind l=...`,
// which would hide it.  With the pragma on the step loop it unrolls.
// RUN: not %tidal replay %s --budget 50% -- %stubflags 2>&1 | FileCheck %s
// RUN: sed -e 's@^  for (int step@#pragma tidal train\n  for (int step@' %s > %t.cu
// RUN: %tidal replay %t.cu --budget 50% --chunk 4K -- %stubflags 2>&1 | FileCheck --check-prefix=PRAGMA %s
// CHECK: error: cannot unroll the training loop: {{.*}} uses 'l', the counter of the loop taken as the training loop ({{.*}}layer-loop-taken-for-training-loop.cu:[[@LINE+16]]); if that is a loop over layers, mark the step loop with #pragma tidal train or --loop FILE:LINE
// CHECK-NOT: --bind l=
// PRAGMA: checksums match
#define L 3
#define W 65536
__global__ void scale(float *o, const float *i, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) o[k] = 2.0f * i[k];
}
int main(void) {
  float *w[L], *b[L];
  for (int l = 0; l < L; l++) {
    cudaMalloc(&w[l], W * sizeof(float));
    cudaMalloc(&b[l], W * sizeof(float));
  }
  for (int step = 0; step < 10; step++)
    for (int l = 0; l < L; l++) scale<<<W / 256, 256>>>(b[l], w[l], W);
  return 0;
}
