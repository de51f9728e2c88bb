// A pointer chosen by a run-time option (`opt < 2 ? acts.ln1 + l * N :
// acts.lnf`, llm.c's recompute setting read from argv): the op touches one
// of the two, so both are its accesses (Note [either pointer]), a write
// being a readwrite of each (neither is proven overwritten); the argument
// is written as the expression that chooses.  A NULL side adds nothing.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: %tidal replay %s --budget 50%% --chunk 64K -- %stubflags 2>&1 | FileCheck --check-prefix=REPLAY %s
// CHECK: #0 {{.*}}scale {{.*}}in loop l
// CHECK-NEXT: readwrite m.ln1[l]
// CHECK-NEXT: readwrite m.lnf
// CHECK-NEXT: read      m.x
// CHECK: #1 {{.*}}scale
// CHECK-NEXT: write     m.x
// CHECK-NEXT: read      m.lnf
// CHECK-NOT: read
// CHECK: unresolved (0):
// REPLAY: checksums match
#include <stddef.h>
#include <stdlib.h>
#define N (64 * 1024)
typedef struct Model { float *x, *ln1, *lnf; int opt; } Model;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * (in != NULL ? in[i] : 1.0f);
}
int main(int argc, char **argv) {
  Model m;
  m.opt = atoi(argv[1]);
  cudaMalloc((void **)&m.x, N * sizeof(float));
  cudaMalloc((void **)&m.ln1, 8 * N * sizeof(float));
  cudaMalloc((void **)&m.lnf, N * sizeof(float));
  for (int step = 0; step < 10; step++) {
    for (int l = 0; l < 8; l++) {
      float *o = m.opt < 2 ? m.ln1 + l * N : m.lnf;
      scale<<<N / 256, 256>>>(o, m.x, N);
    }
    scale<<<N / 256, 256>>>(m.x, m.opt > 0 ? m.lnf : NULL, N);
  }
  return 0;
}
