// A periodic branch's loop whose trip count is read at run time
// (validation every N steps over `nval` batches, sampling `gen` tokens
// whose offset names the loop variable): the iteration unrolls with that
// loop run once, its variable at its first value, with a warning (Note
// [periodic loops]); an unbound loop of every step's work is still an
// error naming the value to bind.
// RUN: %tidal replay %s --budget 50%% --chunk 64K -- %stubflags 2>&1 | FileCheck %s
// RUN: sed -e 's@for (int l = 0; l < 2; l++)@for (int l = 0; l < layers; l++)@' %s > %t.cu
// RUN: not %tidal replay %t.cu --budget 50%% --chunk 64K -- %stubflags 2>&1 | FileCheck --check-prefix=EVERY %s
// CHECK: :[[@LINE+20]]:{{[0-9]+}}: warning: loop of a periodic branch with an unbound trip count; unrolled once
// CHECK: :[[@LINE+22]]:{{[0-9]+}}: warning: loop of a periodic branch with an unbound trip count; unrolled once
// CHECK-NOT: warning: loop trip count unknown
// CHECK: checksums match
// EVERY: error: cannot unroll the training loop: the loop's bound uses 'layers', which is unbound
#include <stdlib.h>
#define N (64 * 1024)
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
int main(int argc, char **argv) {
  int nval = atoi(argv[1]), gen = atoi(argv[2]), layers = atoi(argv[3]);
  float *x, *h, *out;
  cudaMalloc((void **)&x, N * sizeof(float));
  cudaMalloc((void **)&h, 2 * N * sizeof(float));
  cudaMalloc((void **)&out, 64 * N * sizeof(float));
  for (int step = 0; step < 100; step++) {
    for (int l = 0; l < 2; l++) scale<<<N / 256, 256>>>(h + l * N, x, N);
    if (step % 10 == 0) {
      for (int i = 0; i < nval; i++) scale<<<N / 256, 256>>>(h, x, N);
    }
    if (step % 20 == 0) {
      for (int t = 1; t < gen; t++) scale<<<N / 256, 256>>>(out + (t - 1) * N, h, N);
    }
  }
  (void)layers;
  return 0;
}
