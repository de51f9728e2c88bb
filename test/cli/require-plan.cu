// --require-plan turns "no plan" into an error (and no output file); without
// it, a budget that gets no plan is a warning naming why.
// RUN: %tidal rewrite %s --budget 50% -o %t.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: test -e %t.cu
// RUN: not %tidal rewrite %s --budget 50% --require-plan -o %t2.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: test ! -e %t2.cu
// RUN: %tidal rewrite %s --budget 100% --require-plan --bind n=4096 -o %t3.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=OK
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int atoi(const char *);
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  float *a, *b;
  cudaMalloc((void **)&a, n * sizeof(float));
  cudaMalloc((void **)&b, n * sizeof(float));
  for (int it = 0; it < 10; it++) {
    scale<<<(n + 255) / 256, 256>>>(a, n);
    scale<<<(n + 255) / 256, 256>>>(b, n);
  }
  return 0;
}
// WARN: warning: no plan was made for the budget: 'n' is unbound (use --bind n=VALUE); the output is instrumented only, and the runtime decides alone
// WARN: tidal: summary: {{.*}}: managed 2 of 2 allocations (sizes known at run time); {{.*}}; no plan: 'n' is unbound
// ERR: error: --require-plan: no plan was made: 'n' is unbound
// OK: tidal: summary: {{.*}}; plan: peak
// A plan that misses its budget is an error under --require-plan too.
// RUN: not %tidal rewrite %s --budget 50% --require-plan --bind n=4096 -o %t4.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=MISS
// MISS: warning: the plan does not meet the budget of 16.0 KiB: its modelled peak is 32.0 KiB
// MISS: error: --require-plan: the plan does not meet the budget
