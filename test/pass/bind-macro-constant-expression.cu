// A macro standing for a constant expression is one symbol bound to its
// whole value: `#define N (256 * 1024)` is N = 262144, not N bound to each
// literal inside it (which gave N = 1024 and sizes 4*N*N, four times too
// big).  --bind N re-sizes what is written with N; HALF, a macro of its
// own, keeps its value (bind it too to change it).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --bind N=1024 -- %stubflags 2>&1 | FileCheck %s --check-prefix=BOUND
#define N (256 * 1024)
#define HALF ((N) / 2)
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
  float *a, *h;
  cudaMalloc((void **)&a, N * sizeof(float));
  cudaMalloc((void **)&h, HALF * sizeof(float));
  for (int it = 0; it < 10; it++) {
    k<<<N / 256, 256>>>(a, N);
    k<<<HALF / 256, 256>>>(h, HALF);
  }
  return 0;
}
// CHECK: tidal: summary: {{.*}}: managed 2 of 2 allocations (1.5 MiB of 1.5 MiB)
// CHECK: bindings: {{.*}}N=262144
// BOUND: managed 2 of 2 allocations (516.0 KiB of 516.0 KiB)
