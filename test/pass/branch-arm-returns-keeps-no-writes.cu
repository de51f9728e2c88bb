// An error path that frees a buffer, sets it to NULL and returns (`if
// (init(&m) != 0) { release(&m); return 1; }`), or exits, is walked but
// leaves nothing behind: the code after it runs only when it was not
// taken, so the training loop's launch reads the allocated buffer, not a
// NULL argument (which would be no access: undeclared, unplanned).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// CHECK: 2 of 2 accesses resolved
// CHECK: readwrite m.w
// CHECK-NEXT: read      m.g
// CHECK-NOT: NULL: no access
// CHECK: unresolved (0):
#include <stdlib.h>
#define N 4096
typedef struct { float *w, *g; int ok; } Model;
__global__ void sgd(float *w, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.1f * g[i];
}
int init(Model *m) {
  if (cudaMalloc(&m->w, N * sizeof(float)) != cudaSuccess) return -1;
  cudaMalloc(&m->g, N * sizeof(float));
  m->ok = 1;
  return m->ok ? 0 : -1;
}
void release(Model *m) {
  if (m->w) {
    cudaFree(m->w);
    m->w = NULL;
  }
}
int main(int argc, char **argv) {
  Model m;
  if (init(&m) != 0 || argc > 3) {
    release(&m);
    return 1;
  }
  if (argc > 2) {
    m.g = NULL;
    exit(2);
  }
  for (int step = 0; step < 10; step++) sgd<<<N / 256, 256>>>(m.w, m.g, N);
  return 0;
}
