// Periodic branches under a `while` training loop (Note [periodic
// schedules], pass/graph/interp_schedule.c): its counter, tested in the
// loop's body, is the step (`(step + 1) % 3 == 0` runs at steps 2 and 5).
// Passed to a function, the counter of a while loop is not followed: the
// branch there is not modelled and runs every iteration, and the report
// says which value it could not take, rather than guessing (an unbound
// value on the left of `%`).  A `for` loop's counter is followed into the
// callee (replay-periodic-branch-schedule.cu, FOR below).
// RUN: %tidal replay %s --budget 80%% --iterations 6 --bind every=2 -- %stubflags 2>&1 | FileCheck %s
// CHECK: periodic: replay-periodic-branch-while-counter.cu:[[@LINE+28]] `(step + 1) % 3 == 0`: in iteration(s) 2, 5 of 6
// CHECK-NEXT: periodic: replay-periodic-branch-while-counter.cu:[[@LINE+12]] `step % every == 0`: every iteration (not bound, and not only compared with or dividing the step: step)
// CHECK: checksums match
// RUN: %tidal replay %s --budget 80%% --iterations 6 --bind every=2 -- %stubflags -DFOR 2>&1 | FileCheck %s --check-prefix=FOR
// FOR: `step % every == 0`: in iteration(s) 0, 2, 4 of 6
// FOR: checksums match
#include <stdlib.h>
#define N (64 * 1024)
__global__ void fwd(float *y, const float *x, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * w[i];
}
static void evaluate(float *e, const float *x, const float *w, int step, int every) {
  if (step % every == 0) fwd<<<N / 256, 256>>>(e, x, w, N);
}
int main(int argc, char **argv) {
  int steps = atoi(argv[1]), every = atoi(argv[2]);
  float *x, *w, *y, *e;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&e, N * sizeof(float));
#ifdef FOR
  for (int step = 0; step < steps; step++) {
#else
  int step = 0;
  while (step < steps) {
#endif
    if ((step + 1) % 3 == 0) fwd<<<N / 256, 256>>>(e, y, w, N);
    evaluate(e, x, w, step, every);
    fwd<<<N / 256, 256>>>(y, x, w, N);
#ifndef FOR
    step++;
#endif
  }
  return 0;
}
