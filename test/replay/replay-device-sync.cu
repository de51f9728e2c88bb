// Issue 19: a training loop that waits for the whole device once a step
// (cudaDeviceSynchronize, here in a function its body calls) makes tidal
// replay's host wait at each iteration's end (Note [device sync],
// runtime/backend_sim.c): the replay says so in its JSON and the managed
// step gets longer by the host's wait.  The same program without the call,
// or with it only under a periodic branch (`if (step % 10 == 0)`: not
// every step), does not wait.  The rewrite makes the call
// tidal_device_synchronize, which waits for the ops and not for tidal's
// swap-outs (Note [the program's sync], pass/rewrite/rewrite.c), and the
// replay models that (device_sync_waits_for_copies false); a program that
// creates a non-blocking stream keeps cudaDeviceSynchronize, whose wait
// includes the copies: its step is no shorter (here no copy is in flight at
// the step's end; test/runtime/test_simcosts.c checks the copy's wait).
// RUN: env TIDAL_RELOCATE=0 %tidal replay %s --budget 80%% --chunk 4K --model-only --format json -- %stubflags -DSYNC=1 > %t.sync.json
// RUN: env TIDAL_RELOCATE=0 %tidal replay %s --budget 80%% --chunk 4K --model-only --format json -- %stubflags -DSYNC=0 > %t.none.json
// RUN: env TIDAL_RELOCATE=0 %tidal replay %s --budget 80%% --chunk 4K --model-only --format json -- %stubflags -DSYNC=2 > %t.periodic.json
// RUN: env TIDAL_RELOCATE=0 %tidal replay %s --budget 80%% --chunk 4K --model-only --format json -- %stubflags -DSYNC=1 -DNONBLOCKING > %t.whole.json
// RUN: python3 -c "import json,sys; r=[json.load(open(p)) for p in sys.argv[1:]]; t=[x['modelled_time_steady_managed_s'] for x in r]; print(*[x['device_sync_per_iteration'] for x in r]); print(*[x['device_sync_waits_for_copies'] for x in r]); print(t[0] > t[1], t[1] == t[2], t[3] >= t[0])" %t.sync.json %t.none.json %t.periodic.json %t.whole.json | FileCheck %s
// CHECK: True False False True
// CHECK-NEXT: False False False True
// CHECK-NEXT: True True True
#ifndef N
#define N (64 * 1024)
#endif
__global__ void fwd(float *y, const float *x, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * w[i];
}
__global__ void bwd(float *gw, const float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) gw[i] = y[i] * x[i];
}
__global__ void sgd(float *w, const float *gw, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.01f * gw[i];
}
static void finish_step(void) { cudaDeviceSynchronize(); }
int main() {
  float *x, *w, *y, *gw;
#ifdef NONBLOCKING
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
#endif
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&gw, N * sizeof(float));
  for (int step = 0; step < 100; step++) {
    fwd<<<N / 256, 256>>>(y, x, w, N);
    bwd<<<N / 256, 256>>>(gw, y, x, N);
    sgd<<<N / 256, 256>>>(w, gw, N);
#if SYNC == 1
    finish_step();
#elif SYNC == 2
    if (step % 10 == 0) finish_step();
#endif
  }
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
  cudaFree(gw);
  return 0;
}
