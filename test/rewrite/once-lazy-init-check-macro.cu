// Lazy initialisation of optimizer moments on the first step, with every
// call wrapped in an error-check macro (`CHECK(cudaMalloc(&o->m, n))`, as
// nearly every trainer does).  The reset `&o->m` is written inside a macro
// argument: it must still be seen as resetting the test `!o->m`
// (branches.c, Note [lvalues in macro arguments]), or the branch counts as
// running every iteration, its memset as an overwrite before each update,
// and the plan drops the moments after the update: optimizer state lost
// every step (the replay cannot tell: it replays the memset too).
// RUN: %tidal graph %s -- %stubflags | FileCheck --check-prefix=GRAPH %s
// RUN: sed -e 's@// *\(CHECK\|GRAPH\|REPLAY\)[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu --budget 50% -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// GRAPH: once (setup, first iteration only): {{.*}}once-lazy-init-check-macro.cu:[[@LINE+23]]{{.*}}if (!o->m): 2 allocation(s)
// GRAPH: once (setup, first iteration only): {{.*}}once-lazy-init-check-macro.cu:[[@LINE+42]]{{.*}}if (v == NULL): 1 allocation(s)
// GRAPH-NOT: cudaMemset
// GRAPH: tensors:
// CHECK-NOT: tidal_drop((const void *)((o)->m)
// CHECK-NOT: tidal_drop((const void *)((o)->v)
// CHECK-NOT: tidal_drop((const void *)(v)
// CHECK: op site {{[0-9]+}}: step_update -> cudaMemset
#include <stdio.h>
#include <stdlib.h>
#define N 1048576
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(1); } } while (0)
typedef struct Opt { float *m, *v; } Opt;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void adam(float *w, const float *g, float *m, float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { m[i] = 0.9f * m[i] + g[i]; v[i] = 0.9f * v[i] + g[i] * g[i]; w[i] -= m[i] / v[i]; }
}
void step_update(Opt *o, float *w, const float *g) {
  if (!o->m) {
    CHECK(cudaMalloc(&o->m, N * sizeof(float)));
    CHECK(cudaMalloc(&o->v, N * sizeof(float)));
    CHECK(cudaMemset(o->m, 0, N * sizeof(float)));
    CHECK(cudaMemset(o->v, 0, N * sizeof(float)));
  }
  adam<<<N / 256, 256>>>(w, g, o->m, o->v, N);
}
int main(void) {
  float *w, *a, *b, *g, *v = NULL;
  CHECK(cudaMalloc(&w, N * sizeof(float)));
  CHECK(cudaMalloc(&a, N * sizeof(float)));
  CHECK(cudaMalloc(&b, N * sizeof(float)));
  CHECK(cudaMalloc(&g, N * sizeof(float)));
  Opt o = {NULL, NULL};
  for (int step = 0; step < 10; step++) {
    scale<<<N / 256, 256>>>(a, w, N);
    scale<<<N / 256, 256>>>(b, a, N);
    scale<<<N / 256, 256>>>(g, b, N);
    step_update(&o, w, g);
    if (v == NULL) {
      CHECK(cudaMalloc(&v, N * sizeof(float)));
      CHECK(cudaMemset(v, 0, N * sizeof(float)));
    }
    scale<<<N / 256, 256>>>(v, g, N);
  }
  return 0;
}
