// One-time lazy initialisation inside the training loop
// (`if (o->m == NULL) { cudaMalloc(&o->m, ...); cudaMemset(o->m, 0, ...); }`)
// runs on the first iteration only: it is setup, not a per-iteration op.
// Modelled as running every iteration, the memset would look like an exact
// write of the moments before each update, and the plan would drop them
// after the update ("next access overwrites every byte"): optimizer state
// lost every step.  The branch is shown as setup in the graph, its memset
// is not an op of the iteration, and no plan drops what it initialised.
// RUN: %tidal graph %s -- %stubflags | FileCheck --check-prefix=GRAPH %s
// RUN: sed -e 's@// *\(CHECK\|GRAPH\|REPLAY\)[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu --budget 50% -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// RUN: %tidal replay %s --budget 50% -- %stubflags | FileCheck --check-prefix=REPLAY %s
// GRAPH: once (setup, first iteration only): {{.*}}once-lazy-init-not-dropped.cu:[[@LINE+25]]
// GRAPH: ops: 8 static
// GRAPH-NOT: cudaMemset
// GRAPH: tensors:
// CHECK-NOT: drop after st.m
// CHECK-NOT: tidal_drop((const void *)(o->m)
// CHECK-NOT: tidal_drop((const void *)(st.m)
// CHECK: op site {{[0-9]+}}: step_update -> cudaMemset
// REPLAY: checksums match (8 ops
#include <stddef.h>
#define N 1048576
typedef struct Opt { float *m; } Opt;
__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void adam(float *w, const float *g, float *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { m[i] = 0.9f * m[i] + g[i]; w[i] -= m[i]; }
}
void step_update(Opt *o, float *w, const float *g) {
  if (o->m == NULL) {
    cudaMalloc(&o->m, N * sizeof(float));
    cudaMemset(o->m, 0, N * sizeof(float));
  }
  adam<<<N / 256, 256>>>(w, g, o->m, N);
}
int main(void) {
  float *w, *a, *b, *c, *g;
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&a, N * sizeof(float));
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&c, N * sizeof(float));
  cudaMalloc(&g, N * sizeof(float));
  Opt st = {NULL};
  for (int step = 0; step < 10; step++) {
    fill<<<N / 256, 256>>>(a, N);
    scale<<<N / 256, 256>>>(b, w, N);
    scale<<<N / 256, 256>>>(c, b, N);
    scale<<<N / 256, 256>>>(b, c, N);
    scale<<<N / 256, 256>>>(c, a, N);
    scale<<<N / 256, 256>>>(g, c, N);
    scale<<<N / 256, 256>>>(a, g, N);
    step_update(&st, w, g);
  }
  return 0;
}
