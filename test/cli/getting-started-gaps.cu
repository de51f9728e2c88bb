// Getting-started gaps of issue 22, on a program whose sizes come from
// argv (a new user's first run, before any --bind):
//  - every unbound size is named in one message, not one per run;
//  - the eviction candidates' total is not a sum of the few sizes that
//    happen to be known ("total: 4 B" beside every activation unbound);
//  - a size built by max over layers is printed simplified:
//    max(4*IN_DIM*B, 3136*B), not max(4*IN_DIM*B, max(3136*B, max(...)));
//  - a --bind nothing uses is warned about, with the name it was probably
//    meant for.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// CHECK: ops: {{[0-9]+}} static (not unrolled: 'IN_DIM' and 'B' are unbound (use --bind IN_DIM=VALUE --bind B=VALUE))
// CHECK: write ws {{ *}}max(4*IN_DIM*B, 3136*B){{$}}
// CHECK: T{{[0-9]+}} ws {{ *}}max(4*IN_DIM*B, 3136*B) in ws
// CHECK: eviction candidates
// CHECK-NOT: total: 4 B
// CHECK: total: known once the sizes are bound
// RUN: not %tidal replay %s --budget 50% -- %stubflags 2>&1 | FileCheck %s --check-prefix=REPLAY
// REPLAY: error: cannot unroll the training loop: {{.*}}; 'IN_DIM' and 'B' are unbound (use --bind IN_DIM=VALUE --bind B=VALUE)
// RUN: %tidal graph %s --bind b=64 --bind IN_DIM=32 -- %stubflags 2>&1 | FileCheck %s --check-prefix=UNUSED
// UNUSED: warning: --bind b=64: no size, loop or branch of the program uses 'b' (did you mean 'B'?); it has no effect
// UNUSED-NOT: warning: --bind IN_DIM
// RUN: %tidal graph %s --bind B=64 --bind IN_DIM=32 -- %stubflags 2>&1 | FileCheck %s --check-prefix=USED
// USED-NOT: warning: --bind
// USED: per iteration unrolled
int atoi(const char *);
__global__ void layer(float *y, const float *x, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * w[0];
}
__global__ void loss(float *l, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) l[0] = y[n - 1];
}
int main(int argc, char **argv) {
  int B = atoi(argv[1]), IN_DIM = atoi(argv[2]);
  size_t a = 4 * IN_DIM * B, c = 3136 * B, d = 400 * B, e = 40 * B;
  size_t de = d > e ? d : e, cde = c > de ? c : de, ws_bytes = a > cde ? a : cde;
  float *x, *h1, *h2, *w, *l, *ws;
  cudaMalloc(&x, 4 * IN_DIM * B);
  cudaMalloc(&h1, 4 * IN_DIM * B);
  cudaMalloc(&h2, 4 * IN_DIM * B);
  cudaMalloc(&w, 4);
  cudaMalloc(&l, 4);
  cudaMalloc(&ws, ws_bytes);
  for (int step = 0; step < 100; step++) {
    cudaMemset(ws, 0, ws_bytes);
    layer<<<IN_DIM * B / 256, 256>>>(h1, x, w, IN_DIM * B);
    layer<<<IN_DIM * B / 256, 256>>>(ws, h1, w, IN_DIM * B);
    layer<<<IN_DIM * B / 256, 256>>>(h2, ws, w, IN_DIM * B);
    loss<<<1, 1>>>(l, h2, IN_DIM * B);
    layer<<<IN_DIM * B / 256, 256>>>(x, h2, l, IN_DIM * B);
    layer<<<IN_DIM * B / 256, 256>>>(h2, x, w, IN_DIM * B);
    layer<<<IN_DIM * B / 256, 256>>>(x, h2, w, IN_DIM * B);
    layer<<<IN_DIM * B / 256, 256>>>(h2, x, w, IN_DIM * B);
    layer<<<IN_DIM * B / 256, 256>>>(x, h2, w, IN_DIM * B);
    layer<<<IN_DIM * B / 256, 256>>>(h1, x, l, IN_DIM * B);
  }
  return 0;
}
