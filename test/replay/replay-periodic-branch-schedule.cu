// Periodic branches run where their condition holds, not every iteration
// (Note [periodic schedules], pass/graph/interp_schedule.c): llm.c's
// validation `if (step % val_loss_every == 0 || last_step)` and sampling
// `if (step > 0 && step % sample_every == 0 || last_step)`, with
// `int last_step = step == steps;`.  A period not bound is taken as longer
// than the replay (the branch runs at step 0 only, or never), and so is
// the loop's trip count (last_step never holds); bound, the branch runs
// where the condition holds.  A condition replay cannot evaluate (a call)
// keeps the branch in every iteration, and the report says why.
// RUN: %tidal replay %s --budget 50%% --chunk 4K --iterations 3 -- %stubflags 2>&1 | FileCheck %s --check-prefix=FREE
// FREE: periodic: replay-periodic-branch-schedule.cu:[[@LINE+41]] `step % eval_every == 0 || last_step`: in iteration(s) 0 of 3 (taken as larger than every replayed step: eval_every, steps; --bind to set)
// FREE-NEXT: periodic: replay-periodic-branch-schedule.cu:[[@LINE+43]] `step > 0 && step % sample_every == 0 || last_step`: in no iteration of 3 (taken as larger than every replayed step: sample_every, steps; --bind to set)
// FREE-NEXT: periodic: replay-periodic-branch-schedule.cu:[[@LINE+45]] `should_log(step) && step % 2 == 0`: every iteration (the condition calls a function)
// FREE: checksums match
// RUN: %tidal replay %s --budget 50%% --chunk 4K --iterations 4 --bind eval_every=2 --bind sample_every=3 -- %stubflags 2>&1 | FileCheck %s --check-prefix=BOUND
// BOUND: `step % eval_every == 0 || last_step`: in iteration(s) 0, 2 of 4 (taken as larger than every replayed step: steps; --bind to set)
// BOUND-NEXT: `step > 0 && step % sample_every == 0 || last_step`: in iteration(s) 3 of 4
// BOUND: checksums match
// The modelled step: with the periods unbound, the evaluation's 8 launches
// run in the first iteration only, so the steady (last) iteration of the
// original is shorter than the first; bound to 1 they run every step.
// RUN: %tidal replay %s --budget 50%% --chunk 4K --iterations 3 --model-only --format json -- %stubflags > %t.free.json
// RUN: %tidal replay %s --budget 50%% --chunk 4K --iterations 3 --model-only --format json --bind eval_every=1 --bind sample_every=1 -- %stubflags > %t.every.json
// RUN: python3 -c "import json,sys; f,e=[json.load(open(p)) for p in sys.argv[1:]]; print([b['runs_in_iterations'] for b in f['periodic_branches']], [b['runs_in_iterations'] for b in e['periodic_branches']]); print(f['modelled_time_steady_unmanaged_s'] * 2 < f['modelled_time_first_unmanaged_s'], f['modelled_time_steady_unmanaged_s'] * 2 < e['modelled_time_steady_unmanaged_s'])" %t.free.json %t.every.json | FileCheck %s --check-prefix=FIG
// FIG: {{\[}}[0], [], [0, 1, 2]] {{\[}}[0, 1, 2], [1, 2], [0, 1, 2]]
// FIG-NEXT: True True
#include <stdlib.h>
#define N (256 * 1024)
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
static int should_log(int step) { return step > 3; }
int main(int argc, char **argv) {
  int steps = atoi(argv[1]), eval_every = atoi(argv[2]), sample_every = atoi(argv[3]);
  float *x, *w, *y, *gw, *e;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&gw, N * sizeof(float));
  cudaMalloc(&e, N * sizeof(float));
  for (int step = 0; step <= steps; step++) {
    int last_step = step == steps;
    if (step % eval_every == 0 || last_step) {
      for (int k = 0; k < 8; k++) fwd<<<N / 256, 256>>>(e, x, w, N);
    }
    if (step > 0 && step % sample_every == 0 || last_step) {
      for (int k = 0; k < 4; k++) fwd<<<N / 256, 256>>>(e, y, w, N);
    }
    if (should_log(step) && step % 2 == 0) fwd<<<N / 256, 256>>>(e, x, y, N);
    if (last_step) break;
    fwd<<<N / 256, 256>>>(y, x, w, N);
    bwd<<<N / 256, 256>>>(gw, y, x, N);
    sgd<<<N / 256, 256>>>(w, gw, N);
  }
  return 0;
}
