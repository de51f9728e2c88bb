// Interpreting setup must not flood the report: bindings shown are the few
// names the graph's sizes and offsets use, each a real, bindable name
// (no `*&x` source text, no `true`, no RNG state filled by a setup loop),
// and true: a struct copy that is then changed is not the value the loop
// uses, so neither it nor the original is shown as "found in the source".
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// CHECK: bindings: cfg.layers=3* N=4096* cfg.batch=8* rows=16*   (* found in the source)
// CHECK-NOT: state_
// CHECK-NOT: ok=
// CHECK-NOT: true=
// CHECK-NOT: *&
// CHECK-NOT: cfg.batch=
#define N 4096
typedef struct Config { int layers; int batch; } Config;
typedef struct Shape { int ndim; int dims[2]; } Shape;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
static unsigned state_[1024];
static void shape_init(Shape *s, int a, int b) { s->ndim = 2; s->dims[0] = a; s->dims[1] = b; }
int main(int argc, char **argv) {
  Config cfg = {3, 8};
  Config tuned = cfg;
  tuned.batch = argc;
  bool ok = true;
  Shape sh;
  shape_init(&sh, 16, 32);
  int rows = (*&sh).dims[0];
  for (int i = 0; i < 1024; i++) state_[i] = 1664525u * (unsigned)i + 1013904223u;
  float *a, *b;
  cudaMalloc(&a, cfg.layers * N * sizeof(float));
  cudaMalloc(&b, (size_t)cfg.batch * rows * N * sizeof(float));
  for (int step = 0; step < 10 && ok; step++) {
    for (int l = 0; l < cfg.layers; l++)
      scale<<<N / 256, 256>>>(a + l * N, a + l * N, N);
    scale<<<N / 256, 256>>>(b, a, N);
  }
  return 0;
}
