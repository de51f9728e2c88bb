// A plan call's range named one call level up keeps the meaning it has at
// the op: layer_fwd's extent is `4 * n_elems`, the global, and forward()
// declares a local `n_elems` (its layer count).  Written in forward, next
// to the layer_fwd call, the text would name that local (a 16-byte
// prefetch of a 256 KiB range: it compiles); the level is not used, and
// the calls go inside layer_fwd behind its path flag, where `n_elems` is
// the global (graph/calltext.c, Note [substitution]).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --bind n_elems=65536 --budget 50% -o - -- %stubflags 2>/dev/null \
// RUN:   | FileCheck %s
#include <stdlib.h>
int n_elems;
__global__ void fwd_k(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void bwd_k(float *d, const float *act, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += act[i];
}
static void layer_fwd(float *out, const float *in) {
  fwd_k<<<(n_elems + 255) / 256, 256>>>(out, in, n_elems);
}
static void layer_bwd(float *d, const float *act) {
  bwd_k<<<(n_elems + 255) / 256, 256>>>(d, act, n_elems);
}
static void forward(float *acts) {
  int n_elems = 4; /* layers: shadows the global */
  for (int l = 0; l < n_elems; l++) {
    float *l_in = acts + l * ::n_elems;
    float *l_out = acts + (l + 1) * ::n_elems;
    layer_fwd(l_out, l_in);
  }
}
static void backward(float *acts, float *d) {
  for (int l = 3; l >= 0; l--) {
    float *l_act = acts + l * n_elems;
    layer_bwd(d, l_act);
  }
}
int main(int argc, char **argv) {
  n_elems = atoi(argv[1]);
  float *acts, *d;
  cudaMalloc(&acts, 5 * n_elems * sizeof(float));
  cudaMalloc(&d, n_elems * sizeof(float));
  layer_fwd(acts + n_elems, acts);
  for (int step = 0; step < 10; step++) {
    forward(acts);
    backward(acts, d);
  }
  return 0;
}
// CHECK: plan actions: {{[1-9][0-9]*}} emitted, 0 not emitted
// CHECK-LABEL: static void layer_fwd(
// CHECK: if (tidal_on_path_0) TIDAL_HINT(tidal_prefetch((const void *)(in), ((size_t)4*(size_t)(n_elems))));
// CHECK: fwd_k<<<
// CHECK: if (tidal_on_path_0) TIDAL_HINT(tidal_swap_out((const void *)(out), ((size_t)4*(size_t)(n_elems))));
// CHECK-LABEL: static void forward(
// CHECK-NOT: tidal_prefetch
// CHECK-NOT: tidal_swap_out
// CHECK-LABEL: static void backward(
